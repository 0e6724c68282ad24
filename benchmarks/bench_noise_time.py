"""The time of ``KernelKGroups(noise=s)`` and ``noise="auto"`` beside ``noise=None``, in
one run, by phase.

Data: ``make_blobs(n, 10, centers=10, cluster_std=2.5)`` (overlapping clusters) with
5% of the points drawn uniformly over the blobs' bounding box widened by half (a thin
background), and the bundled dermatology table (the paper's preprocessing, 366 x 34,
6 classes) with 5% of its rows replaced by uniform draws over its box. For each data
set and engine (``"dense"`` up to ``--dense-max`` points, ``"matrix-free"``) the same
fit runs with ``noise=None`` and each of ``--noise`` (a share, ``auto``) from the same
starts (``init=
"k-means++"``, one ``random_state``), after a warm-up fit that loads numba's code.
Printed per fit: the seconds of each phase of ``engine_stats_["seconds"]`` (``prepare``:
the checks and the engine; ``init``: the starts; ``start``: each run's ``M``; ``sweeps``:
the sweeps, with noise the concentration steps and the trimmed Hartigan sweeps, with
``"auto"`` also the untrimmed runs its share is read from;
``finish``), the sweeps run, W and the points set aside; then the ratios noise / None
of the total and of the sweeps, measured in this run. Each configuration runs
``--repeat`` times and keeps its fastest (other jobs share the cores).

Usage: python benchmarks/bench_noise_time.py [--sizes 2000 5000 20000]
       [--noise 0.05 auto] [--n-init 3] [--repeat 2] [--dense-max 5000] [--out FILE]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import platform
import sys
import time

import numpy as np
from sklearn.datasets import make_blobs

from kgroups import KernelKGroups
from kgroups.datasets import load_dermatology

PHASES = ("prepare", "init", "start", "sweeps", "finish")


def with_background(X, share, seed):
    """``X`` with a share of its rows replaced by uniform draws over its box widened by
    half on each side (returned with the mask of those rows)."""
    rng = np.random.default_rng(seed)
    lo, hi = X.min(axis=0), X.max(axis=0)
    pad = 0.5 * (hi - lo)
    out = X.copy()
    idx = rng.choice(X.shape[0], int(round(share * X.shape[0])), replace=False)
    out[idx] = rng.uniform(lo - pad, hi + pad, (idx.size, X.shape[1]))
    mask = np.zeros(X.shape[0], dtype=bool)
    mask[idx] = True
    return out, mask


def datasets(sizes):
    for n in sizes:
        X, _ = make_blobs(n, 10, centers=10, cluster_std=2.5, random_state=0)
        yield f"blobs-{n}", with_background(X, 0.05, n)[0], 10
    derm = load_dermatology()
    X = np.asarray(derm[0], dtype=float)
    yield "dermatology", with_background(X, 0.05, 1)[0], 6


def timed(X, k, engine, noise, n_init, repeat):
    """The fastest of ``repeat`` fits: ``(total seconds, phases, estimator)``."""
    best = None
    for _ in range(repeat):
        est = KernelKGroups(k, engine=engine, noise=noise, init="k-means++", n_init=n_init,
                            random_state=0)
        t0 = time.perf_counter()
        est.fit(X)
        total = time.perf_counter() - t0
        if best is None or total < best[0]:
            best = (total, dict(est.engine_stats_["seconds"]), est)
    return best


def row(name, engine, noise, res):
    total, sec, est = res
    phases = " ".join(f"{sec.get(p, 0.0):8.3f}" for p in PHASES)
    aside = getattr(est, "n_noise_", 0)
    print(f"{name:<14}{engine:<13}{str(noise):>6} {total:8.3f} {phases} {est.n_iter_:6d} "
          f"{est.within_energy_:14.6g} {aside:6d}")


def noise_value(text):
    """A share (a number) or ``auto``."""
    return text if text == "auto" else float(text)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[2000, 5000, 20000])
    ap.add_argument("--noise", type=noise_value, nargs="+", default=[0.05, "auto"])
    ap.add_argument("--n-init", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--dense-max", type=int, default=5000)
    ap.add_argument("--out", default=None, help="also write the report here")
    args = ap.parse_args(argv)
    out = io.StringIO()
    with contextlib.redirect_stdout(Tee(sys.stdout, out)):
        report(args, argv)
    if args.out:
        with open(args.out, "w") as f:
            f.write(out.getvalue())


class Tee(io.TextIOBase):
    """Writes to every one of its streams."""

    def __init__(self, *streams):
        self.streams = streams

    def write(self, text):
        for s in self.streams:
            s.write(text)
        return len(text)


def report(args, argv):
    print(f"{platform.machine()}, {len(os.sched_getaffinity(0))} cores, "
          f"python {platform.python_version()}, {time.strftime('%Y-%m-%d')}")
    print("command: python benchmarks/bench_noise_time.py "
          + " ".join(sys.argv[1:] if argv is None else argv) + "\n")
    warm = np.random.default_rng(0).normal(size=(300, 3))
    for noise in (None, *args.noise):  # numba's code loaded before any clock starts
        for engine in ("dense", "matrix-free"):
            KernelKGroups(3, engine=engine, noise=noise, random_state=0).fit(warm)
    print(f"{'data':<14}{'engine':<13}{'noise':>6} {'total s':>8} "
          + " ".join(f"{p:>8}" for p in PHASES) + f" {'sweeps':>6} {'W':>14} {'aside':>6}")
    ratios = []
    for name, X, k in datasets(args.sizes):
        for engine in ("dense", "matrix-free"):
            if engine == "dense" and X.shape[0] > args.dense_max:
                continue
            plain = timed(X, k, engine, None, args.n_init, args.repeat)
            row(name, engine, None, plain)
            for noise in args.noise:
                trim = timed(X, k, engine, noise, args.n_init, args.repeat)
                row(name, engine, noise, trim)
                ratios.append((name, engine, noise, trim[0] / plain[0],
                               trim[1].get("sweeps", 0.0)
                               / max(plain[1].get("sweeps", 0.0), 1e-9)))
    print("\nratios noise / noise=None (same run, same starts)")
    print(f"{'data':<14}{'engine':<13}{'noise':>6}{'total':>8}{'sweeps':>9}")
    for name, engine, noise, total, sweeps in ratios:
        print(f"{name:<14}{engine:<13}{str(noise):>6}{total:8.2f}{sweeps:9.2f}")


if __name__ == "__main__":
    main()
