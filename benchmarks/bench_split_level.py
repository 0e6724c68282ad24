"""The level of the split test (``SPLIT_ALPHA``): how often it cuts one cluster that has
no sub-clusters, and how often it finds two that touch (issue 55, item 4).

:meth:`kgroups._choose_k.fits.Fits.bisect` splits a cluster's points into random
halves, projects each half on the line of a 2-cluster fit of the other half, and
combines the two dip p-values by Fisher's method; step 3 (``gap=True``, as here) takes
the larger of that and the dip p-value of the two sides' margins. The dip test's p-value is exact for
the uniform law, the least favourable unimodal one, and conservative for every other
unimodal cloud: the share of p-values below a level is at most the level, and far
below it for peaked or skewed clouds. This script draws ``--draws`` clouds of each
setting and prints the share of p-values below 0.01, 0.05 and 0.1: on the unimodal
settings the false splits, on the others the power.

Usage: python benchmarks/bench_split_level.py [--draws 60] [--out FILE.md]
"""

from __future__ import annotations

import argparse
import sys
import warnings

import numpy as np

from kgroups._choose_k.fits import Fits, Setting

LEVELS = (0.01, 0.05, 0.1)


def _pair(gap, n, d=2):
    """Two unit Gaussians ``gap`` standard deviations apart along the first axis."""
    return lambda r: np.vstack([r.normal(size=(n // 2, d)),
                                r.normal(size=(n - n // 2, d)) + np.eye(d)[0] * gap])


SETTINGS = {  # name -> (unimodal?, draw(rng) -> X)
    "Gaussian, 2-D, n = 300": (True, lambda r: r.normal(size=(300, 2))),
    "Gaussian, 10-D, n = 300": (True, lambda r: r.normal(size=(300, 10))),
    "elongated Gaussian 5:1, n = 300": (True, lambda r: r.normal(size=(300, 2)) * [5, 1]),
    "uniform square, n = 300": (True, lambda r: r.uniform(size=(300, 2))),
    "lognormal, 2-D, n = 300": (True, lambda r: np.exp(r.normal(size=(300, 2)))),
    "lognormal, 5-D, n = 100": (True, lambda r: np.exp(r.normal(size=(100, 5)))),
    "Student t3, 2-D, n = 300": (True, lambda r: r.standard_t(3, size=(300, 2))),
    "exponential, 2-D, n = 300": (True, lambda r: r.exponential(size=(300, 2))),
    "two Gaussians 3 sd apart, n = 300": (False, _pair(3.0, 300)),
    "two Gaussians 3.5 sd apart, n = 300": (False, _pair(3.5, 300)),
    "two Gaussians 4 sd apart, n = 100": (False, _pair(4.0, 100)),
}


def rates(draw, draws):
    """The share of the split test's p-values below each of :data:`LEVELS`."""
    ps = []
    for s in range(draws):
        X = draw(np.random.default_rng([s, 5]))
        f = Fits(X, np.ones(len(X)), Setting(), s)
        ps.append(f.bisect(np.zeros(len(X), np.int64), 0, np.random.default_rng(s), gap=True)[0])
    return [float(np.mean(np.array(ps) < a)) for a in LEVELS]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--draws", type=int, default=60)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    lines = ["# The level of the split test", "",
             f"`python benchmarks/bench_split_level.py --draws {args.draws}`: the share of "
             "draws whose split-test p-value is below each level (one cluster, the "
             "test of `Fits.bisect`).", "",
             "| cloud | sub-clusters | " + " | ".join(f"p < {a:g}" for a in LEVELS) + " |",
             "|---|---|" + "---|" * len(LEVELS)]
    for name, (unimodal, draw) in SETTINGS.items():
        cells = " | ".join(f"{v:.2f}" for v in rates(draw, args.draws))
        lines.append(f"| {name} | {'none' if unimodal else 'two'} | {cells} |")
        print(lines[-1], file=sys.stderr, flush=True)
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        with open(args.out, "w") as fh:
            fh.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
