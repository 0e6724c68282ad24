r"""Are two clusters two modes? The dip test (:func:`~kgroups._stats.dip.dip_test`) of each
cluster of a partition with its nearest cluster (by weighted means) inside the same part of a
coarser partition, read along three **views** of the pair, each listing c's rows then d's:

* :func:`discriminant`: the projection on :math:`\hat\Sigma^{-1} (\mu_d - \mu_c)` (Fisher
  1936; the pooled covariance shrunk as Ledoit & Wolf 2004), which crosses long clusters side
  by side where the line of the means is slanted: a valley across a line;
* :func:`margins`: each row's distance to the other cluster less that to its own
  (:func:`~kgroups._stats.dip.margins`): a gap along the boundary, straight or curved;
* :func:`paths`: the same margins measured along the data
  (:func:`~kgroups._stats.dip.path_margins`): two tiles of a bent curve are bimodal along
  their discriminant and in straight-line margins where the curve bends back, never here.

Weights enter the means and the dips; the covariance and the margins count each row once.
"""

from __future__ import annotations

from functools import partial

import numpy as np
from sklearn.covariance import ledoit_wolf

from .criteria import contingency
from .dip import dip_test, margins as dip_margins, path_margins


def pair_dips(X, w, E, G, n_neighbors=10, parts=None):
    """The largest dip p-value of the clusters of ``E`` each with its nearest in the same
    group of ``G``, each pair's the larger of its :func:`discriminant` and :func:`paths`
    (on the graph of ``n_neighbors``): both must reject, a valley and a gap; 1.0 where no
    group holds two clusters. ``parts``: ``[(rows, labels)]``, rows of X labelled (in E's
    numbering) by fits that did not see them: each pair is read on every part's rows of
    the two in their group and the values pooled (a partition drawn on the points it is
    tested on puts its boundaries where they happen to be thin, and a ring cut there shows
    a gap along the data that its points do not). ``E`` one cluster: :func:`group_dips` of
    ``G`` instead."""
    if E.max() == 0:
        return group_dips(X, w, G, E)
    views = (discriminant, partial(paths, n_neighbors=n_neighbors))
    return max(nearest_dips(X, w, E, G, views, every=True, parts=parts), default=1.0)


def group_dips(X, w, G, E, least=0, none=1.0, balanced=False):
    """The largest dip p-value of the groups of ``G`` of more than ``least`` rows each with
    its nearest such group in the same cluster of ``E``, the smaller of its
    :func:`discriminant` and :func:`margins` doubled (Bonferroni: either may show the two
    modes); ``none`` where no cluster of E holds two such groups. ``balanced`` (groups with
    a gap between each two): the two weigh the same, since whether they are two modes or
    two pieces of one cloud does not depend on how many points each holds, and at their own
    sizes the dip cannot see a group of 2 % beside the rest (20 points 10 standard
    deviations from 1,000: p = 1). Groups that touch are read at their sizes: weighed
    equally, a tail cut off a skewed cloud would rise at the cut into a mode."""
    return max(nearest_dips(X, w, G, E, (discriminant, margins), least, balanced),
               default=none)


def nearest_dips(X, w, P, H, views, least=0, balanced=False, every=False, parts=None):
    """The dip p-values of each cluster of ``P`` of more than ``least`` rows with its
    nearest such cluster in the same cluster of ``H``: the smallest over ``views`` times
    their number (``every``: the largest); ``balanced``: each of the two weighs 1/2, at the
    effective size of those weights. ``parts`` (``[(rows, labels)]``): the pair read on
    each part's rows in that cluster of H by the part's labels, the values pooled; 1.0
    where no part holds two rows of each."""
    kp = int(P.max()) + 1
    mu = np.array([np.average(X[P == c], axis=0, weights=w[P == c]) for c in range(kp)])
    home = contingency(P, H, w).argmax(axis=1)
    big = np.bincount(P, minlength=kp) > least
    ps = []
    for c in np.flatnonzero(big):
        if (others := np.flatnonzero((home == home[c]) & big & (np.arange(kp) != c))).size:
            d = others[np.argmin(np.sum((mu[others] - mu[c]) ** 2, axis=1))]
            reads = [(slice(None), P)] if parts is None else [
                (r, L) for r, L in ((r[H[r] == home[c]], L[H[r] == home[c]]) for r, L in parts)
                if min(np.sum(L == c), np.sum(L == d)) >= 2]
            if not reads:
                ps.append(1.0)
                continue
            wc, wd = ([w[r][L == j] for r, L in reads] for j in (c, d))
            sc, sd = (sum(map(np.sum, wc)), sum(map(np.sum, wd))) if balanced else (1.0, 1.0)
            wcd = np.concatenate([np.r_[a / sc, b / sd] for a, b in zip(wc, wd)])
            p = [dip_test(np.concatenate([v(X[r], L, mu, c, d) for r, L in reads]), wcd)[1]
                 for v in views]
            ps.append(max(p) if every else min(1.0, len(views) * min(p)))
    return ps


def discriminant(X, P, mu, c, d):
    """The rows of clusters c and d of ``P`` (means ``mu``) on their discriminant."""
    both = (P == c) | (P == d)
    S = ledoit_wolf(X[both] - mu[np.where(P[both] == c, c, d)], assume_centered=True)[0]
    return np.concatenate([X[P == c], X[P == d]]) @ np.linalg.lstsq(S, mu[d] - mu[c],
                                                                     rcond=None)[0]


def paths(X, P, mu, c, d, n_neighbors=10):
    """The path margins of clusters c and d of ``P`` (``mu`` is not read)."""
    return path_margins(X[P == c], X[P == d], n_neighbors)


def margins(X, P, mu, c, d):
    """The margins of clusters c and d of ``P`` in X's units (``mu`` is not read)."""
    return dip_margins(X[P == c], X[P == d])
