"""The development half of an outside battery: the ``"outside"`` battery of
:mod:`_batteries`.

24 labelled sets of M. Gagolewski's *Benchmark Suite for Clustering Algorithms,
Version 1* (SoftwareX 20, 2022, 101270; the original authors of each set are named in
its ``.txt``): the half, by the CRC-32 of ``battery/name``, of the suite's 57 sets with
at most 5,000 points and 10 clusters that the project decides its rules on. The other
half is kept apart and judges; it is not read here.

The files are read from ``../shared/external-dev`` beside the project (``KGROUPS_EXTERNAL``
names another folder); without them the battery is empty. Each set is prepared as the
suite's published results were: constant columns dropped; Gaussian noise of 1e-6 times
the data's overall standard deviation added (it breaks ties; seed 0); each column
centred; every value divided by one number, the standard deviation of all values
together (the columns keep their relative scales). Reference label 0 marks noise: here
-1, clustered with the rest and left out of every score (:attr:`Dataset.scored`).
"""

from __future__ import annotations

import gzip
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.environ.get("KGROUPS_EXTERNAL",
                      os.path.join(HERE, os.pardir, os.pardir, "shared", "external-dev"))
SETS = {
    "fcps": ("atom", "chainlink", "hepta", "target"),
    "graves": ("fuzzyx", "line", "parabolic", "ring", "ring_outliers", "zigzag_noisy"),
    "other": ("iris", "iris5", "square"),
    "sipu": ("aggregation", "spiral"),
    "uci": ("wdbc", "wine"),
    "wut": ("graph", "labirynth", "mk4", "olympic", "stripes", "trapped_lovers", "windows"),
}


def available():
    """Whether the folder of the sets is there."""
    return os.path.isdir(ROOT)


def prepare(X):
    """The suite's preparation of ``X`` (module docstring)."""
    X = X[:, X.std(axis=0) > 0]
    sd = X.std()
    X = X + np.random.default_rng(0).normal(0.0, 1e-6 * sd, X.shape)
    X = X - X.mean(axis=0)
    return X / X.std()


def load(battery, name):
    """``(X, y, note)`` of one set: ``y`` in 0..k-1, -1 for the suite's noise (0)."""
    base = os.path.join(ROOT, battery, name)
    with gzip.open(base + ".data.gz", "rt") as f:
        X = np.loadtxt(f, ndmin=2)
    with gzip.open(base + ".labels0.gz", "rt") as f:
        y = np.loadtxt(f, dtype=np.int64, ndmin=1)
    return prepare(X), y - 1, f"Gagolewski's suite v1, {battery}/{name}; the suite's preparation"


def loaders():
    """``[(name, note, load)]`` of the sets (names ``battery/name``); empty without them."""
    if not available():
        return []
    return [(f"{b}/{n}", "Gagolewski's benchmark suite v1 (external-dev)",
             lambda b=b, n=n: load(b, n)) for b, names in SETS.items() for n in names]
