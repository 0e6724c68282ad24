r"""The graph's rule: k from the eigengap of the neighbourhood graph's walk Laplacian
:math:`I - P`, eigenvalues :math:`0 = \mu_1 \le \mu_2 \le \dots` (von Luxburg 2007, section 8.1):
the k >= 2 of the largest :math:`\log \mu_{k+1} - \log \mu_k` (a ratio: small eigenvalues shrink
as the graph grows). A zero (a component) counts as ``COMPONENT_FLOOR`` of the smallest above
zero: the gap after the last component, :math:`\log 5`, is above a curve's own next gap
(:math:`\log 4`, :math:`\mu_j \propto j^2`) and below groups' gaps.
"""

from __future__ import annotations

import numpy as np

from .._semimetrics.neighbors import NeighborGraphMap
from .._stats.criteria import log_eigengaps
from .constants import COMPONENT_FLOOR
from .fits import Fits
from .result import ChooseKResult
from .trace import Trace


def graph_rule(X, w, ks, setting, seed):
    """The rule on X: ``(result, graph map)``, the result with the eigenvalues, gaps, trace and
    the labels of the graph semimetric's fit of its k."""
    top = int(ks[-1])
    fmap = NeighborGraphMap.fit(X, w, n_neighbors=setting.n_neighbors, n_clusters=top + 1,
                                random_state=seed, owner=setting.owner)
    mu = np.clip(1.0 - fmap.eigenvalues, 0.0, None)
    gaps = log_eigengaps(mu, ks, COMPONENT_FLOOR)
    r, t = ChooseKResult(1, "auto", ks, eigenvalues=mu, eigengap=gaps), Trace()
    if np.isfinite(gaps).any():
        r.k = int(ks[int(np.nanargmax(gaps))])
        rest = -np.sort(-gaps[np.isfinite(gaps)])
        t.add("graph eigengap", f"log(mu_(k+1) / mu_k) of the {fmap.n_neighbors}-nearest-"
              f"neighbour graph's walk ({fmap.n_components} component(s)), by k",
              {int(k): g for k, g in zip(ks, gaps) if np.isfinite(g)}, None, f"k={r.k}",
              "close: the next gap within 0.1" if rest.size > 1 and rest[0] - rest[1] < 0.1
              else "")
    else:
        t.add("graph eigengap", "k >= 2 in k_range", 0, None, "k=1")
    r.at_top, r.trace, r.semimetric = bool(r.k == top and len(ks) > 1), t, "nearest_neighbors"
    r.labels = np.zeros(w.size, dtype=np.int64) if r.k == 1 else Fits(
        X, w, setting.but(semimetric="nearest_neighbors"), seed, matrix=False).fit(r.k)[0]
    return r, fmap
