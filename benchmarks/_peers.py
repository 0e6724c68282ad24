"""Run the peers and the kgroups engines in child processes, timed, with peak memory.

Every method runs in its own child process (``/usr/bin/time`` reports that
child's peak resident memory); data and starting labels go through files in a
temporary folder, labels come back the same way. Each child also reports the
time of the clustering call alone (no interpreter start-up, no file I/O).

R peers: ``energy::kgroups`` (Rizzo & Szekely) and ``kernlab::kkmeans``
(Karatzoglou et al.), through ``Rscript``; ``benchmarks/setup_peers.sh``
installs them.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

import kgroups

HERE = os.path.dirname(os.path.abspath(__file__))
TIME = "/usr/bin/time"

R_ENERGY = r"""
suppressMessages(library(energy))
a <- commandArgs(trailingOnly = TRUE)
x <- as.matrix(read.table(a[1])); init <- scan(a[2], quiet = TRUE)
k <- as.integer(a[4]); iter <- as.integer(a[5])
t0 <- proc.time()[["elapsed"]]
fit <- kgroups(x, k, iter.max = iter, cluster = init)
t1 <- proc.time()[["elapsed"]]
write(fit$cluster - 1, a[3], ncolumns = 1)
cat(sprintf("{\"time\": %.6f, \"iterations\": %d, \"W_R\": %.17g}\n", t1 - t0, fit$iterations, fit$W))
"""

R_KERNLAB = r"""
suppressMessages(library(kernlab))
a <- commandArgs(trailingOnly = TRUE)
x <- as.matrix(read.table(a[1])); k <- as.integer(a[4])
sigma <- suppressWarnings(as.numeric(a[5]))
# kkmeans stops with an error when a cluster empties: retry other seeds, time all tries
t0 <- proc.time()[["elapsed"]]
fit <- NULL; tries <- 0
while (is.null(fit) && tries < 5) {
  set.seed(tries); tries <- tries + 1
  kp <- if (is.na(sigma)) "automatic" else list(sigma = sigma)  # automatic: sigest
  fit <- tryCatch(kkmeans(x, centers = k, kernel = "rbfdot", kpar = kp),
                  error = function(e) NULL)
}
t1 <- proc.time()[["elapsed"]]
if (is.null(fit)) stop("kkmeans failed with 5 seeds (a cluster emptied)")
write(as.integer(fit) - 1, a[3], ncolumns = 1)
cat(sprintf("{\"time\": %.6f, \"tries\": %d}\n", t1 - t0, tries))
"""


def have_r(package):
    """Whether ``Rscript`` can load ``package``."""
    if shutil.which("Rscript") is None:
        return False
    res = subprocess.run(["Rscript", "-e", f"suppressMessages(library({package}))"],
                         capture_output=True)
    return res.returncode == 0


def run_measured(cmd, timeout):
    """Run ``cmd``; return (last stdout line as JSON or None, wall s, peak RSS bytes, error)."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as tf:
        full = [TIME, "-f", "%e %M", "-o", tf.name] + cmd if os.path.exists(TIME) else cmd
        try:
            res = subprocess.run(full, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return None, float(timeout), None, f"timeout after {timeout} s"
        parts = open(tf.name).read().split() if os.path.exists(TIME) else []
    wall = float(parts[-2]) if len(parts) >= 2 else float("nan")
    peak = int(parts[-1]) * 1024 if len(parts) >= 2 else None
    lines = [ln for ln in res.stdout.splitlines() if ln.startswith("{")]
    if res.returncode != 0 or not lines:
        err = (res.stderr.strip().splitlines() or ["failed"])[-1]
        return None, wall, peak, err
    return json.loads(lines[-1]), wall, peak, None


class Workdir:
    """A temporary folder holding X, the starting labels and the result files."""

    def __init__(self, X, start):
        self.dir = tempfile.mkdtemp(prefix="kgroups-bench-")
        self.x_txt = os.path.join(self.dir, "x.txt")
        self.x_npy = os.path.join(self.dir, "x.npy")
        self.start = os.path.join(self.dir, "start.txt")
        np.save(self.x_npy, X)
        np.savetxt(self.start, start, fmt="%d")
        self._X = X

    def x_for_r(self):
        if not os.path.exists(self.x_txt):
            np.savetxt(self.x_txt, self._X, fmt="%.17g")
        return self.x_txt

    def out(self, name):
        return os.path.join(self.dir, f"labels-{name}.txt")

    def close(self):
        shutil.rmtree(self.dir, ignore_errors=True)


def run_r_energy(wd, k, iter_max=10, timeout=1800):
    """R ``energy::kgroups`` from the shared starting labels (default ``iter.max=10``)."""
    out = wd.out("r-energy")
    info, wall, peak, err = run_measured(
        ["Rscript", "-e", R_ENERGY, wd.x_for_r(), wd.start, out, str(k), str(iter_max)], timeout)
    return _result(info, wall, peak, err, out)


def run_r_kernlab(wd, k, sigma="automatic", timeout=1800):
    """R ``kernlab::kkmeans``, Gaussian kernel ``exp(-sigma ||x - y||^2)``
    (``"automatic"``: kernlab's ``sigest`` estimate)."""
    out = wd.out("r-kernlab")
    info, wall, peak, err = run_measured(
        ["Rscript", "-e", R_KERNLAB, wd.x_for_r(), wd.start, out, str(k), str(sigma)], timeout)
    return _result(info, wall, peak, err, out)


def run_python(wd, name, spec, timeout=1800):
    """A kgroups engine or a scikit-learn peer in a child (``_worker.py``), see ``spec``."""
    out = wd.out(name)
    cmd = [sys.executable, os.path.join(HERE, "_worker.py"), wd.x_npy, wd.start, out,
           json.dumps(spec)]
    info, wall, peak, err = run_measured(cmd, timeout)
    return _result(info, wall, peak, err, out)


def _result(info, wall, peak, err, out):
    res = {"wall": wall, "peak": peak, "error": err, "labels": None}
    if info is not None:
        res.update(info)
        res["labels"] = np.loadtxt(out, dtype=np.int64).reshape(-1)
    return res


# Largest n whose labels are checked exactly (one O(n^2 D) pass).
EXACT_MAX_N = 200_000


def exact_quality(X, labels, k):
    """Exact W of ``labels`` (energy, alpha=1) and the number of W-lowering single moves.

    Public API only: :func:`kgroups.within_energy` and :func:`kgroups.improving_moves`
    on the matrix-free engine (exact, O(n) memory). ``k`` is the number of clusters
    asked for; the labels are checked to lie in ``[0, k)``.
    """
    if labels is None or X.shape[0] > EXACT_MAX_N:
        return None, None
    labels = np.asarray(labels, dtype=np.int64)
    if labels.size and (labels.min() < 0 or labels.max() >= k):
        raise ValueError(f"exact_quality: labels should lie in [0, {k - 1}], got "
                         f"min={labels.min()} max={labels.max()}")
    W = kgroups.within_energy(X, labels)
    left = kgroups.improving_moves(X, labels, engine="matrix-free")
    return float(W), int(left)
