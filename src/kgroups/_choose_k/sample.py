r"""The point rule and the joint choice on large data: a uniform sample of ``SAMPLE_N``
rows.

The point rule (:mod:`~kgroups._choose_k.silsplit`) and the choice of k and the
semimetric together (:mod:`~kgroups._choose_k.joint`) fit every k up to twice the
silhouette's best, and the silhouettes compare every pair of points: their cost grows
with the square of the rows. Past ``SAMPLE_N`` rows they run on a uniform random
sample of that many rows (their weights kept; seeded by ``random_state``), which holds
every cluster of more than a few tenths of a percent of the weight; the number of
clusters and the semimetric are those of the sample. Every row is then labelled by
the fit of the sample at the chosen k (its ``predict``: the cluster whose
within energy the row raises least, or the graph's placement of a new point), and
:func:`~kgroups.choose_k` fits all rows at that k from those labels, so that its
labels are those of an exact fit of X (``KernelKGroups(n_clusters="auto")`` makes that
fit itself).
"""

from __future__ import annotations

import numpy as np

from .methods import kgroups

#: The rows the point rule and the joint choice run on at most (a uniform sample past it).
SAMPLE_N = 5000


def needs_sample(n):
    """Whether a choice on n rows runs on a sample (more than ``SAMPLE_N``)."""
    return n > SAMPLE_N


def on_sample(driver, X, w, ks, params, opts, rng, refit):
    """``driver`` (a rule of :data:`kgroups._choose_k.core.DRIVERS`) on a sample of
    ``SAMPLE_N`` rows of X; the result's labels cover every row (module docstring), and
    ``sample`` holds the rows of the sample. ``refit``: the labels are those of the fit
    of all rows at the chosen k, started from the sample's."""
    n = X.shape[0]
    idx = np.sort(rng.choice(n, SAMPLE_N, replace=False))
    Xs, ws = X[idx], w[idx]
    sub = {**opts, "n_distinct": np.unique(Xs, axis=0).shape[0]}
    r = driver(Xs, ws, ks, params, sub, rng)
    semimetric = params["semimetric"] if r.semimetric is None else r.semimetric
    r.semimetric, r.sample = semimetric, idx
    r.reasoning += (f" The choice was made on a uniform sample of {SAMPLE_N} of the {n} "
                    f"rows; every row is labelled by the fit of the sample at k={r.k}")
    if r.k == 1:
        r.labels = np.zeros(n, dtype=np.int64)
        r.reasoning += "."
        return r
    seed = int(rng.integers(2**31 - 1))
    start = {"semimetric": semimetric, "random_state": seed}
    fit = kgroups(params, r.k, init=r.labels, **start).fit(Xs, sample_weight=ws)
    r.labels = fit.predict(X)
    if refit:
        full = kgroups(params, r.k, init=r.labels, **start).fit(X, sample_weight=w)
        r.labels = full.labels_
        r.reasoning += ", and the labels are those of the fit of all rows started there."
    else:
        r.reasoning += "."
    return r

