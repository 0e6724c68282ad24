#!/usr/bin/env bash
# Install the R peers used by the benchmarks and by tests/reference/make_reference.R:
# R's `energy` (Rizzo & Szekely) and `kernlab` (Karatzoglou et al.), from Debian.
# Idempotent: does nothing when both packages already load.
set -euo pipefail

if command -v Rscript >/dev/null 2>&1 \
   && Rscript -e 'suppressMessages({library(energy); library(kernlab)})' >/dev/null 2>&1; then
    echo "setup_peers: R with energy and kernlab already installed"
    exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    SUDO="sudo"
fi
$SUDO apt-get update
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y r-base-core r-cran-energy r-cran-kernlab

Rscript -e 'suppressMessages({library(energy); library(kernlab)}); cat("setup_peers: energy", format(packageVersion("energy")), "kernlab", format(packageVersion("kernlab")), "\n")'
