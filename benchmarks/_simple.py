"""pyclustering's labelled toy sets: the "simple" battery of :mod:`_batteries`.

The source distribution of pyclustering 0.10.1.2 (Novikov 2019, "PyClustering: Data
Mining Library", Journal of Open Source Software 4(36), 1230; BSD-3-Clause) ships the
sets of its "simple" suite, each as ``NAME.data`` (one point a line, its coordinates
separated by white space) and ``NAME.answer`` (one line a point, in the same order:
the index of its cluster from 0, or ``n`` for noise). ``bash benchmarks/setup_fcps.sh``
copies them into ``benchmarks/.data/simple/`` with the same download as the FCPS sets.
Each set is checked when loaded: as many labels as points, and the classes expected.

Kept (n >= 30 points, 2 classes or more, more distinct points than the 15 clusters
the studies try): Simple03, 04, 05, 06, 08 (1-D), 10, 15 and Elongate (two clusters
of 135 and 20 points; one line of its answer reads ``00``, cluster 0).

Left out: Simple01 (10 points), Simple02 (23), Simple07 (20), Simple11 (20),
Simple12 (15), Simple13 (10): fewer than 30 points; Simple09 (30 points of 1-D
with 3 distinct values): too few distinct points for k up to 15; Simple14 (32 points of one
cluster and 9 of noise): one class, which no score judges. The "famous" sets of the
same distribution are left out too: OldFaithful has no labels, Iris is in the
``"tables"`` battery.

Each loader returns ``(X, y, note)``: the points raw (float64), labels 0..k-1 and -1
for noise.
"""

from __future__ import annotations

import os

import numpy as np

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), ".data", "simple")

# name -> (number of classes, class sizes) as the answer files give them
SETS = {
    "Simple03": (4, [10, 30, 10, 10]),
    "Simple04": (5, [15] * 5),
    "Simple05": (4, [15] * 4),
    "Simple06": (2, [20, 21]),
    "Simple08": (4, [15, 30, 20, 80]),
    "Simple10": (3, [11] * 3),
    "Simple15": (9, [20] * 9),
    "Elongate": (2, [135, 20]),
}


def read_answer(path):
    """Labels of a pyclustering ``.answer`` file: one per line, ``n`` (noise) -> -1.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile("w", suffix=".answer", delete=False) as fh:
    ...     _ = fh.write("0\\r\\n00\\r\\n1\\r\\nn\\r\\n")
    >>> read_answer(fh.name).tolist()
    [0, 0, 1, -1]
    >>> os.remove(fh.name)
    """
    with open(path) as fh:
        lines = [line.strip() for line in fh if line.strip()]
    return np.array([-1 if s.startswith("n") else int(s) for s in lines], dtype=np.int64)


def load(name):
    """``(X, y, note)`` of one set of :data:`SETS`."""
    k, sizes = SETS[name]
    base = os.path.join(DATA, name)
    if not os.path.exists(f"{base}.answer"):
        raise FileNotFoundError(f"{base}.answer is missing: run bash "
                                "benchmarks/setup_fcps.sh")
    X = np.loadtxt(f"{base}.data", ndmin=2)
    y = read_answer(f"{base}.answer")
    if len(y) != len(X):
        raise RuntimeError(f"{name}: {len(y)} labels for {len(X)} points")
    counts = np.bincount(y[y >= 0]).tolist()
    if counts != sizes:
        raise RuntimeError(f"{name}: classes of sizes {counts}, expected {sizes}")
    noise = int((y < 0).sum())
    note = (f"simple/{name} of 0.10.1.2; labels {name}.answer, class sizes "
            f"{sizes}" + (f", {noise} noise" if noise else "") + "; raw")
    return X, y, note


def loaders():
    """``[(name, note, load() -> (X, y, how))]`` of the battery."""
    return [(name, "pyclustering samples (Novikov 2019)", lambda name=name: load(name))
            for name in SETS]
