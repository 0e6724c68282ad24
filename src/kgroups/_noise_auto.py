r"""``noise="auto"``: the share of the total weight a fit sets aside, decided from the
data. One function, :func:`resolve_noise_share`, turns a fitted untrimmed run into the
share; ``KernelKGroups(noise="auto")`` and ``KernelKMeans(noise="auto")`` then fit as
with that share (:func:`kgroups._noise.run_fit`).

The statistic is each point's **cost of belonging** to its cluster: the fall of the
within energy W when the point is set aside, per unit of its weight,

.. math:: c_i = \frac{1}{w_i}\Big(A_j(i) + \frac{B_{ii}}{w_i}\Big), \qquad
          A_j(i) = \frac{w_i q_j / s_j - 2 M_{ji} + B_{ii}}{s_j - w_i}

(TPAMI eq. 50's gain of removing i from its cluster j; for :math:`K = -\rho/2` the
diagonal term is 0, and :math:`c_i = s_j\, d_j(x_i) / (s_j - w_i)` with
:math:`d_j` the squared kernel-space distance of :math:`x_i` to the mean of its cluster,
itself included). A point alone in its cluster is not a cluster: its cost is that of
joining the cluster it would raise W least by joining (TPAMI eq. 50's cost of adding
it), judged by that cluster's fence.
A point is noise when its cost lies beyond **Tukey's far-out fence** of its own
cluster's costs, :math:`Q_3 + 3\,(Q_3 - Q_1)` (J. W. Tukey, *Exploratory Data
Analysis*, 1977; weighted quartiles, so integer weights act as repeated rows): a far
stray or the background far from every cluster; a point inside a cluster's extent is
not (its cost is that of the cluster's own points), and on data without outliers the
fence is seldom passed (the quartiles of a cluster's costs are those of its bulk, robust
to a quarter of them being outliers). A group of points apart but tight is a cluster,
not noise: with ``n_clusters="auto"`` it is one of the chosen clusters.
"""

from __future__ import annotations

import numpy as np

#: Tukey's far-out fence: Q3 plus this many interquartile ranges.
FENCE = 3.0


def weighted_quartiles(x, w):
    """The first and third quartiles of ``x`` with weights ``w`` (the weighted empirical
    distribution's, midpoints between steps as ``np.quantile``'s default for unit weights
    is not: a value is taken where the cumulative weight first reaches the level).

    >>> weighted_quartiles(np.arange(8.0), np.ones(8))
    (1.0, 5.0)
    """
    order = np.argsort(x, kind="stable")
    cw = np.cumsum(w[order])
    at = np.searchsorted(cw, np.array([0.25, 0.75]) * cw[-1], side="left")
    q1, q3 = x[order][np.minimum(at, x.size - 1)]
    return float(q1), float(q3)


def belonging_costs(M, labels, w, diag, s, q):
    """The cost of belonging :math:`c_i` of every point (module docstring); for a point
    alone in its cluster, ``inf``: :func:`flagged` judges it by its cost of joining."""
    j = labels
    sj, wi = s[j], w
    rest = sj - wi
    with np.errstate(divide="ignore", invalid="ignore"):
        gain = (wi * q[j] / sj - 2.0 * M[j, np.arange(j.size)] + diag) / rest + diag / wi
        cost = gain / wi
    return np.where(rest > 0, cost, np.inf)


def joining_costs(M, points, w, diag, s, q):
    """Per unit weight, the rise of W when each of ``points`` joins each cluster (TPAMI
    eq. 50's cost of adding it, ``A_l`` plus its diagonal term): shape (points, k)."""
    wi, b = w[points][:, None], diag[points][:, None]
    add = (wi * q[None, :] / s[None, :] - 2.0 * M[:, points].T - b) / (s[None, :] + wi)
    return (add + b / wi) / wi


def flagged(costs, labels, w, k, joining=None):
    """The points beyond their cluster's far-out fence (``FENCE``), and the fences; a
    point alone in its cluster (``joining``: its :func:`joining_costs`, by the indices of
    those points) is judged by the fence of the cluster it would join."""
    out, fences = np.zeros(labels.size, dtype=bool), np.full(k, np.inf)
    for l in range(k):
        at = np.flatnonzero((labels == l) & np.isfinite(costs))
        if at.size < 4:  # no quartiles to speak of
            continue
        q1, q3 = weighted_quartiles(costs[at], w[at])
        fences[l] = q3 + FENCE * (q3 - q1)
        out[at] = costs[at] > fences[l]
    for i, c in (joining or {}).items():
        c = np.where(np.arange(k) == labels[i], np.inf, c)
        nearest = int(np.argmin(c))
        out[i] = bool(c[nearest] > fences[nearest])
    return out, fences


def _run_costs(run, engine, k):
    """``(labels, w, M, costs, (diag, s, q))`` of an untrimmed ``run`` of k clusters on
    ``engine``: its partition, the weights, ``M`` (k x n), every point's
    :func:`belonging_costs` and the sums they are read from."""
    labels = np.asarray(run.labels, dtype=np.int64)
    w = np.asarray(engine.w, dtype=np.float64)
    M = engine.build_m(labels, k)
    sums = tuple(np.asarray(a, dtype=np.float64) for a in (engine.diag, run.s, run.q))
    return labels, w, M, belonging_costs(M, labels, w, *sums), sums


def largest_costs(run, engine, n_clusters, budget):
    """The points of largest cost of belonging (module docstring) whose weights fit
    within ``budget`` taken in that order, each cluster keeping at least one point;
    the points a share sets aside where its search cannot (a semimetric built from the
    data, judged in the input space: :func:`kgroups._noise.run_fit`). ``run`` and
    ``engine`` as for :func:`resolve_noise_share`.

    >>> import numpy as np
    >>> from kgroups import KernelKGroups
    >>> X = np.vstack([np.random.default_rng(0).normal(0, 1, (50, 2)), [[30.0, 0.0]]])
    >>> int(KernelKGroups(1, semimetric="nearest_neighbors", noise=0.02,
    ...                   random_state=0).fit(X).labels_[-1])
    -1
    """
    k = int(n_clusters)
    labels, w, _, costs, _ = _run_costs(run, engine, k)
    ok = np.flatnonzero(np.isfinite(costs) & (costs > 0))  # not alone, a fall of W
    order = ok[np.argsort(-costs[ok], kind="stable")]
    order = order[np.cumsum(w[order]) <= budget]
    out = np.zeros(labels.size, dtype=bool)
    out[order] = True
    for l in np.flatnonzero(np.bincount(labels[~out], minlength=k) == 0):
        at = np.flatnonzero(labels == l)  # a cluster all set aside keeps its closest point
        out[at[np.argmin(costs[at])]] = False
    return out


def resolve_noise_share(run, engine, n_clusters, owner="KernelKGroups", flags=False):
    """The share ``s`` in ``[0, 0.5)`` of the total weight that ``noise="auto"`` sets
    aside, from the best untrimmed run on these data: the weight of the points beyond
    their cluster's far-out fence (module docstring), and why, in words.

    Parameters
    ----------
    run : RunResult
        The best run of the fit's starts without points set aside
        (:class:`kgroups._engines.engine.RunResult`): ``labels`` (in ``[0, k)``),
        ``s`` and ``q`` (each cluster's weight and sum of ``B``, length k).
    engine : Engine
        The fit's engine: ``w`` (the weights, in its units), ``diag`` (``B_ii``),
        ``build_m(labels, k)`` (``M``, k x n).
    n_clusters : int
        The number of clusters k.
    owner : str
        The name errors start with.
    flags : bool, default=False
        Return the points too.

    Returns
    -------
    share : float
        The share of the total weight to set aside, ``0 <= share < 0.5``.
    reason : str
        How many points, and why.
    out : ndarray of bool of shape (n_samples,)
        With ``flags``: the points beyond their fence.

    Examples
    --------
    >>> import numpy as np
    >>> from kgroups import KernelKGroups
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(0, 1, (300, 2)), [[40.0, 0.0], [0.0, -35.0]]])
    >>> est = KernelKGroups(1, noise="auto", random_state=0).fit(X)
    >>> est.labels_[-2:].tolist(), est.n_noise_ <= 4
    ([-1, -1], True)
    """
    k = int(n_clusters)
    labels, w, M, costs, sums = _run_costs(run, engine, k)
    alone = np.flatnonzero(~np.isfinite(costs))
    joining = dict(zip(alone.tolist(), joining_costs(M, alone, w, *sums)))
    out, _ = flagged(costs, labels, w, k, joining)
    total = float(w.sum())
    share = min(float(w[out].sum()) / total, np.nextafter(0.5, 0.0))
    reason = (f"{int(out.sum())} of {labels.size} points ({share:.1%} of the weight) lie "
              f"beyond the far-out fence of their cluster's costs of belonging (Q3 + "
              f"{FENCE:g} IQR, Tukey 1977)")
    return (share, reason, out) if flags else (share, reason)
