r"""The rule of :func:`~kgroups.choose_k` for ``semimetric="nearest_neighbors"``: the
eigengap of the neighbourhood graph.

The graph's semimetric (:mod:`kgroups._semimetrics.neighbors`) embeds the points
with the leading eigenvectors of the random walk on their neighbourhood graph, and
clusters are the pieces of that graph that the walk leaves rarely. With
:math:`0 = \mu_1 \le \mu_2 \le \dots` the eigenvalues of the walk's Laplacian
:math:`I - P` (one minus the walk's eigenvalues), a graph of k such pieces has
:math:`\mu_1, \dots, \mu_k` near 0 and :math:`\mu_{k+1}` far from them (exactly 0
for k components; von Luxburg 2007, section 8.1; the ICML draft reads k off the
eigengap of the random-walk Laplacian, section 5.2). The eigenvalues near 0 are
small on every scale (they shrink as the graph grows), so the gap is measured as a
ratio: the chosen k has the largest

.. math:: \log \mu_{k+1} - \log \mu_k, \qquad k \ge 2

over the range (k = 1 has :math:`\mu_1 = 0` always: the rule answers k >= 2, as the
silhouette does). Exact zeros (components) are floored at ``ZERO_FLOOR`` times the
largest eigenvalue computed. The labels are those of a
``KernelKGroups(k, semimetric="nearest_neighbors")`` fit with the same
``n_neighbors``. The graph is built once, with ``max(k_range) + 1`` eigenvectors:
the cost of one fit of the largest k.
"""

from __future__ import annotations

import warnings

import numpy as np

from .._kgroups import KernelKGroups
from .._semimetrics.neighbors import NeighborGraphMap
from .result import ChooseKResult, KRangeWarning

GRAPH_EIGENGAP = "graph eigengap"
# Eigenvalues of the walk's Laplacian below this share of the largest computed are
# taken as this share (components give exact zeros: their ratio is then large, not 0/0).
ZERO_FLOOR = 1e-12


def log_eigengaps(mu, ks):
    """``log mu_(k+1) - log mu_k`` for each k of ``ks`` (``mu`` ascending, from k = 1),
    NaN at k = 1.

    Examples
    --------
    >>> mu = np.array([0.0, 0.0, 0.001, 0.002, 0.5])
    >>> np.round(log_eigengaps(mu, np.arange(1, 5)), 2).tolist()
    [nan, 21.42, 0.69, 5.52]
    """
    floor = ZERO_FLOOR * max(float(np.max(mu)), 1e-300)
    m = np.maximum(mu, floor)
    out = np.log(m[ks]) - np.log(m[ks - 1])
    return np.where(ks >= 2, out, np.nan)


def choose_graph_eigengap(X, w, ks, params, opts, rng):
    """``method="auto"`` with ``semimetric="nearest_neighbors"``: the module's rule, with a
    :class:`KRangeWarning` when the answer is the largest k of the range."""
    r = graph_groups(X, w, ks, params, opts, int(rng.integers(2**31 - 1)))
    if r.at_top:
        warnings.warn(f"choose_k: the answer k={r.k} is the largest of k_range; k may be "
                      "larger than the range allows; widen k_range", KRangeWarning,
                      stacklevel=4)
    return r


def graph_groups(X, w, ks, params, opts, seed):
    """The module's rule without warnings: a :class:`ChooseKResult` with the graph's k,
    its eigengaps, its reasoning and the labels of the graph semimetric's fit at k
    (``at_top`` when k is the largest of the range)."""
    top = int(ks[-1])
    fmap = NeighborGraphMap.fit(X, w, n_neighbors=params["n_neighbors"], n_clusters=top + 1,
                                random_state=seed, owner="choose_k")
    mu = np.clip(1.0 - fmap.eigenvalues, 0.0, None)
    gaps = log_eigengaps(mu, ks)
    r = ChooseKResult(0, GRAPH_EIGENGAP, ks, eigenvalues=mu, eigengap=gaps)
    if not np.isfinite(gaps).any():
        i = 0
        r.reasoning = (f"{GRAPH_EIGENGAP}: k_range={ks.tolist()} holds no k >= 2, and the "
                       "graph's eigengap compares k >= 2 clusters only: k=1.")
    else:
        i = int(np.nanargmax(gaps))
        order = np.argsort(-np.nan_to_num(gaps, nan=-np.inf))[:3]
        others = ", ".join(f"k={int(ks[j])}: {gaps[j]:.2f}" for j in order[1:]
                           if np.isfinite(gaps[j]))
        r.reasoning = (
            f"{GRAPH_EIGENGAP}: the eigenvalues of the random walk's Laplacian on the "
            f"{fmap.n_neighbors}-nearest-neighbour graph ({fmap.n_components} "
            f"component(s)) rise most, as a ratio, after the k-th at k={int(ks[i])}: "
            f"log(mu_{int(ks[i]) + 1} / mu_{int(ks[i])}) = {gaps[i]:.2f}"
            + (f" (next: {others})" if others else "") + ".")
    r.k = int(ks[i])
    if r.k == top and len(ks) > 1:
        r.at_top = True
        r.reasoning += (" This is the largest k of the range: k may be larger than the "
                        "range allows; widen k_range.")
    r.labels = graph_labels(X, w, r.k, params, opts, seed)
    return r


def graph_labels(X, w, k, params, opts, seed):
    """The labels of ``KernelKGroups(k, semimetric="nearest_neighbors")`` fitted on X."""
    est = KernelKGroups(int(k), semimetric="nearest_neighbors",
                        n_neighbors=params["n_neighbors"], n_init=opts["n_init"],
                        random_state=seed)
    return est.fit(X, sample_weight=w).labels_
