"""The FCPS data sets, labelled: the "fcps" battery of :mod:`_batteries`.

The Fundamental Clustering Problems Suite (Ultsch 2005; Thrun & Ultsch 2020, Data in
Brief 30, 105501): 2-D and 3-D sets, each built to defeat some clustering method
(a core inside a shell, interlocked rings, touching and overlapping clusters,
clusters of unequal density and shape, outliers). ``bash benchmarks/setup_fcps.sh``
fetches them as text files (from the source distribution of pyclustering 0.10.1.2,
which ships the points without their labels) into ``benchmarks/.data/fcps/``.

The labels are the suite's classes, read as follows (each checked when loaded):

- Atom, Chainlink, EngyTime, Tetra, TwoDiamonds: the rows come in blocks of one
  class each, in the suite's class sizes (400/400, 500/500, 2048/2048, 4 x 100,
  400/400); where the classes are separated, single linkage finds those blocks.
- Hepta (7 separated clusters) and Target (a core, a ring around it and 4 corner
  groups of 3 outliers, the suite's 6 classes): the single-linkage components.
- Lsun (two rectangles and a blob, separated): the 3 single-linkage components; this
  copy has 403 rows, 3 more than the suite's 400, each in its component.
- WingNut (two wings facing each other across a gap at x = 0): the side of x = 0.

GolfBall, the suite's set without clusters (k = 1), is left out: with one label every
k scores an adjusted Rand index of 0, so it judges nothing here.
"""

from __future__ import annotations

import os

import numpy as np

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), ".data", "fcps")

# name -> (file, k, how the labels are read, class sizes when read from blocks of rows)
SETS = {
    "Atom": ("Atom", 2, "blocks", [400, 400]),
    "Chainlink": ("Chainlink", 2, "blocks", [500, 500]),
    "EngyTime": ("EngyTime", 2, "blocks", [2048, 2048]),
    "Hepta": ("Hepta", 7, "single linkage", None),
    "Lsun": ("Lsun", 3, "single linkage", None),
    "Target": ("Target", 6, "single linkage", None),
    "Tetra": ("Tetra", 4, "blocks", [100] * 4),
    "TwoDiamonds": ("TwoDiamonds", 2, "blocks", [400, 400]),
    "WingNut": ("WingNut", 2, "side of x = 0", None),
}
# sets read from blocks whose classes are separated: single linkage must find the blocks
SEPARATED_BLOCKS = ("Atom", "Chainlink")
NOTES = {
    "blocks": "rows in blocks of one class, sizes {sizes}",
    "single linkage": "the {k} single-linkage components",
    "side of x = 0": "the side of x = 0",
}


def _components(X, k):
    from scipy.cluster.hierarchy import fcluster, linkage
    return fcluster(linkage(X, "single"), k, "maxclust") - 1


def load(name):
    """``(X, y, note)`` of one FCPS set (:data:`SETS`)."""
    file, k, how, sizes = SETS[name]
    path = os.path.join(DATA, f"{file}.data")
    if not os.path.exists(path):
        raise FileNotFoundError(f"{path} is missing: run bash benchmarks/setup_fcps.sh")
    X = np.loadtxt(path)
    if how == "blocks":
        if sum(sizes) != len(X):
            raise RuntimeError(f"{name}: {len(X)} rows, the classes {sizes}")
        y = np.repeat(np.arange(k), sizes)
    elif how == "single linkage":
        y = _components(X, k)
    else:
        y = (X[:, 0] > 0).astype(np.int64)
    counts = np.bincount(y, minlength=k)
    if counts.size != k or counts.min() == 0:
        raise RuntimeError(f"{name}: labels of sizes {counts.tolist()}, expected {k} classes")
    if name in SEPARATED_BLOCKS:
        sl = _components(X, k)
        if len(set(zip(sl.tolist(), y.tolist()))) != k:
            raise RuntimeError(f"{name}: the blocks of rows are not the separated classes")
    note = f"FCPS {file} (pyclustering 0.10.1.2 copy); labels: " + NOTES[how].format(
        sizes=sizes, k=k)
    return X, y, note


def loaders():
    """``[(name, note, load() -> (X, y, how))]`` of the battery."""
    return [(name, "FCPS (Ultsch 2005; Thrun & Ultsch 2020)", lambda name=name: load(name))
            for name in SETS]
