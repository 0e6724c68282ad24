#!/usr/bin/env bash
# Install R's trimcluster (trimmed k-means, `trimkmeans`; Cuesta-Albertos, Gordaliza &
# Matran 1997) from Debian, for tests/reference/trimkmeans_reference.R, which writes the
# reference runs tests/test_noise_reference.py compares KernelKGroups(noise=...) with.
# Idempotent: does nothing when the package already loads.
set -euo pipefail

if command -v Rscript >/dev/null 2>&1 \
   && Rscript -e 'suppressMessages(library(trimcluster))' >/dev/null 2>&1; then
    echo "setup_trimmed: R with trimcluster already installed"
    exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    SUDO="sudo"
fi
$SUDO apt-get update
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y r-base-core r-cran-trimcluster

Rscript -e 'suppressMessages(library(trimcluster)); cat("setup_trimmed: trimcluster", format(packageVersion("trimcluster")), "\n")'
