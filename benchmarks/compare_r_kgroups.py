"""kgroups vs R ``energy::kgroups`` from the same random starting labels.

20 random datasets (n=500, D=5, k=4 Gaussian mixtures with overlapping
components), the same uniform random starting labels given to both; both run
to convergence (R with ``iter.max=1000`` instead of its default 10, so it is
not cut short). Prints, per dataset, W of each (both recomputed by our
``within_energy`` from the labels), the number of W-lowering single moves left
in each result (0 = a Hartigan local optimum), and the times; then the median
W ratio and the time ratio measured in the same run.

Usage: python benchmarks/compare_r_kgroups.py [--datasets 20] [--n 500]
Needs R with the energy package: benchmarks/setup_peers.sh installs it.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

from kgroups import KernelKGroups, within_energy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _peers  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))

R_SCRIPT = r"""
suppressMessages(library(energy))
args <- commandArgs(trailingOnly = TRUE)
dir <- args[1]; m <- as.integer(args[2]); k <- as.integer(args[3])
for (d in seq_len(m)) {
  x <- as.matrix(read.csv(file.path(dir, sprintf("x%02d.csv", d)), header = FALSE))
  init <- scan(file.path(dir, sprintf("init%02d.txt", d)), quiet = TRUE)
  t0 <- proc.time()[["elapsed"]]
  fit <- kgroups(x, k, iter.max = 1000, cluster = init)
  t1 <- proc.time()[["elapsed"]]
  write(fit$cluster - 1, file.path(dir, sprintf("r%02d.txt", d)), ncolumns = 1)
  cat(sprintf("%d %.17g %.6f %d\n", d, fit$W, t1 - t0, fit$iterations))
}
"""


def make_data(rng, n, d, k):
    centers = rng.normal(scale=1.5, size=(k, d))
    y = rng.integers(0, k, n)
    return centers[y] + rng.normal(size=(n, d))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--datasets", type=int, default=20)
    p.add_argument("--n", type=int, default=500)
    p.add_argument("--d", type=int, default=5)
    p.add_argument("--k", type=int, default=4)
    p.add_argument("--seed", type=int, default=2024)
    args = p.parse_args(argv)
    subprocess.run(["bash", os.path.join(HERE, "setup_peers.sh")], check=True)
    rng = np.random.default_rng(args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        data, inits = [], []
        for i in range(1, args.datasets + 1):
            X = make_data(rng, args.n, args.d, args.k)
            init = rng.integers(0, args.k, args.n)
            while np.unique(init).size < args.k:
                init = rng.integers(0, args.k, args.n)
            np.savetxt(os.path.join(tmp, f"x{i:02d}.csv"), X, delimiter=",", fmt="%.17g")
            np.savetxt(os.path.join(tmp, f"init{i:02d}.txt"), init, fmt="%d")
            data.append(X)
            inits.append(init)
        script = os.path.join(tmp, "run.R")
        with open(script, "w") as fh:
            fh.write(R_SCRIPT)
        out = subprocess.run(["Rscript", script, tmp, str(args.datasets), str(args.k)],
                             check=True, capture_output=True, text=True).stdout
        r_rows = {int(t[0]): (float(t[1]), float(t[2]), int(t[3]))
                  for t in (line.split() for line in out.strip().splitlines())}
        KernelKGroups(args.k, init=inits[0]).fit(data[0])  # compile numba once, untimed
        print(f"{'data':>4} {'W ours':>12} {'W R':>12} {'ratio':>8} {'left ours':>9} "
              f"{'left R':>6} {'t ours':>8} {'t R':>8} {'sweeps R':>8}")
        ratios, t_ours, t_r, left_ours, left_r = [], 0.0, 0.0, [], []
        for i, (X, init) in enumerate(zip(data, inits), start=1):
            start = time.perf_counter()
            est = KernelKGroups(args.k, init=init, max_iter=1000).fit(X)
            t = time.perf_counter() - start
            r_lab = np.loadtxt(os.path.join(tmp, f"r{i:02d}.txt"), dtype=np.int64)
            w_ours = within_energy(X, est.labels_)
            w_r = within_energy(X, r_lab)
            assert abs(w_r - r_rows[i][0]) <= 1e-9 * w_r, (w_r, r_rows[i][0])
            lo, lr = (_peers.exact_quality(X, lab, args.k)[1] for lab in (est.labels_, r_lab))
            ratios.append(w_ours / w_r)
            t_ours += t
            t_r += r_rows[i][1]
            left_ours.append(lo)
            left_r.append(lr)
            print(f"{i:>4} {w_ours:>12.4f} {w_r:>12.4f} {w_ours / w_r:>8.5f} {lo:>9} {lr:>6} "
                  f"{t:>8.4f} {r_rows[i][1]:>8.3f} {r_rows[i][2]:>8}")
    ratios = np.array(ratios)
    print(f"\nmedian W(ours)/W(R) = {np.median(ratios):.6f}   "
          f"ours lower in {np.sum(ratios < 1 - 1e-12)}, equal in "
          f"{np.sum(abs(ratios - 1) <= 1e-12)}, higher in {np.sum(ratios > 1 + 1e-12)} of "
          f"{len(ratios)}")
    print(f"W-lowering single moves left: ours max {max(left_ours)}, R max {max(left_r)}")
    print(f"total time: ours {t_ours:.3f} s, R {t_r:.3f} s, R/ours = {t_r / t_ours:.1f}x")
    ok = np.median(ratios) <= 1 + 1e-12 and max(left_ours) == 0
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
