r"""The decision rules of :func:`~kgroups.choose_k`: those of the gap statistic (R's
``cluster::maxSE``) and prediction strength, the structure test, the decisions of
every method from its curves, and :data:`AUTO_METHODS`, the method that
``method="auto"`` uses for each semimetric. The formulas are in
:mod:`kgroups._choose_k`.
"""

from __future__ import annotations

import numpy as np

from .._validation import InvalidParameterError, describe
from .result import STRUCTURE_Z

GAP_RULES = ("firstSEmax", "Tibs2001SEmax", "globalSEmax", "firstmax", "globalmax")
GAP_PS_SPHERED = "gap+ps+sphered"
# the point rule of method="auto", for every semimetric that AUTO_METHODS does not name
POINT_METHOD = "silhouette+split"
# method="auto": the method for a semimetric whose clusters need a rule of their own
# (semimetric name -> method); every other semimetric gets POINT_METHOD
AUTO_METHODS = {"nearest_neighbors": "graph eigengap", "auto": "energy or graph"}
# "silhouette+gap": a finer k of the gap replaces the silhouette's k when its silhouette
# keeps this fraction
SILHOUETTE_KEEP = 0.8


def auto_method(semimetric):
    """The method that ``method="auto"`` runs for ``semimetric`` (a name or a callable).

    Examples
    --------
    >>> auto_method("energy")
    'silhouette+split'
    """
    return AUTO_METHODS.get(semimetric, POINT_METHOD) if isinstance(semimetric, str) \
        else POINT_METHOD


# --------------------------------------------------------------------------- rules
def _first_local_max(f):
    """Index of the first i with ``f[i] >= f[i + 1]`` (the last index when none)."""
    down = f[:-1] >= f[1:]
    return int(np.argmax(down)) if down.any() else f.size - 1


def _first_within(f, se, top):
    """Smallest index i with ``f[i] >= f[top] - se[top]`` (``top`` itself qualifies)."""
    return int(np.argmax(f[:top + 1] >= f[top] - se[top]))


def gap_rule(gap, se, rule="firstSEmax", se_factor=1.0):
    r"""Index of the k that a decision rule of R's ``cluster::maxSE`` picks.

    Parameters
    ----------
    gap : ndarray of shape (n_k,)
        :math:`f(k) = \mathrm{Gap}(k)` over the k of the range, in order.
    se : ndarray of shape (n_k,)
        Its standard errors :math:`s_k`.
    rule : {"firstSEmax", "Tibs2001SEmax", "globalSEmax", "firstmax", "globalmax"}
        See the module docstring; the ``*SEmax`` rules use ``se_factor * se``.
    se_factor : float, default=1.0
        How many standard errors the ``*SEmax`` rules allow.

    Returns
    -------
    index : int
        Position of the chosen k in the range.

    Examples
    --------
    >>> gap = np.array([0.185, 0.186, 0.30, 0.25])
    >>> se = np.array([0.02, 0.02, 0.02, 0.02])
    >>> [gap_rule(gap, se, r) for r in GAP_RULES]
    [2, 0, 2, 2, 2]
    """
    gap = np.asarray(gap, dtype=np.float64)
    s = se_factor * np.asarray(se, dtype=np.float64)
    if rule == "globalmax":
        return int(np.argmax(gap))
    if rule == "firstmax":
        return _first_local_max(gap)
    if rule == "Tibs2001SEmax":
        ok = gap[:-1] >= gap[1:] - s[1:]
        return int(np.argmax(ok)) if ok.any() else gap.size - 1
    if rule == "firstSEmax":
        return _first_within(gap, s, _first_local_max(gap))
    if rule == "globalSEmax":
        return _first_within(gap, s, int(np.argmax(gap)))
    raise InvalidParameterError(f"gap_rule: rule={describe(rule)} should be one of {GAP_RULES}")


def ps_rule(ps, cutoff=0.8):
    """Index of the largest k with prediction strength ``ps >= cutoff`` (Tibshirani &
    Walther 2005, section 2); the first index when none reaches it.

    Examples
    --------
    >>> ps_rule(np.array([1.0, 0.95, 0.7, 0.85, 0.5]))
    3
    """
    ok = np.flatnonzero(np.asarray(ps) >= cutoff)
    return int(ok[-1]) if ok.size else 0


def prediction_strength_score(test_labels, predicted, weights=None):
    r"""Prediction strength of one split, equation 2.1 of Tibshirani & Walther (2005).

    .. math:: \min_j \frac{\sum_{i \ne i' \in A_j} w_i w_{i'}
              \mathbb 1[\hat c_i = \hat c_{i'}]}{\sum_{i \ne i' \in A_j} w_i w_{i'}}

    from the contingency table of test clusters :math:`A_j` against predicted
    clusters :math:`\hat c`: with :math:`C_{jl}` the weight and :math:`Q_{jl}` the
    squared weights of the points of :math:`A_j` predicted in l, the numerator is
    :math:`\sum_l (C_{jl}^2 - Q_{jl})`. A cluster of one point has no pair and is
    left out; 0 when no cluster has a pair.

    Parameters
    ----------
    test_labels : ndarray of shape (n_test,)
        Clusters of the test half's own fit, integers from 0.
    predicted : ndarray of shape (n_test,)
        Clusters that the training half's fit predicts for the same points.
    weights : ndarray of shape (n_test,), default=None
        Point weights (None: ones).

    Returns
    -------
    ps : float

    Examples
    --------
    >>> prediction_strength_score(np.array([0, 0, 0, 1, 1]), np.array([1, 1, 0, 0, 0]))
    0.3333333333333333
    """
    w = np.ones(len(test_labels)) if weights is None else np.asarray(weights, np.float64)
    k, kp = int(np.max(test_labels)) + 1, int(np.max(predicted)) + 1
    C = np.zeros((k, kp))
    Q = np.zeros((k, kp))
    np.add.at(C, (test_labels, predicted), w)
    np.add.at(Q, (test_labels, predicted), w * w)
    together = (C * C - Q).sum(axis=1)
    pairs = C.sum(axis=1) ** 2 - Q.sum(axis=1)
    has = pairs > 1e-12 * np.maximum(C.sum(axis=1) ** 2, 1e-300)
    return float(np.min(together[has] / pairs[has])) if has.any() else 0.0


def _ks(ks, idx):
    return "[" + ", ".join(str(int(ks[i])) for i in idx) + "]"


def _explain_gap(ks, gap, se, i, rule, se_factor, idx=None):
    """Why ``rule`` picks position ``i`` of ``idx`` (the k considered, default all)."""
    idx = np.arange(ks.size) if idx is None else np.asarray(idx)
    g, s, k = gap[idx], se_factor * se[idx], int(ks[idx[i]])
    if rule == "globalmax":
        return f"Gap(k) is largest at k={k} ({g[i]:.3f})"
    if rule == "firstmax":
        nxt = f" >= Gap({int(ks[idx[i + 1]])}) = {g[i + 1]:.3f}" if i + 1 < g.size else ""
        return f"the first local maximum of Gap(k) is at k={k} ({g[i]:.3f}{nxt})"
    if rule == "Tibs2001SEmax":
        if g.size == 1 or not np.any(g[:-1] >= g[1:] - s[1:]):
            return f"no k has Gap(k) >= Gap(k+) - s(k+) (k+ the next k): the largest k, {k}"
        return (f"k={k} is the smallest k with Gap(k) >= Gap(k+) - s(k+), k+ the next k "
                f"({g[i]:.3f} >= {g[i + 1]:.3f} - {s[i + 1]:.3f})")
    top = _first_local_max(g) if rule == "firstSEmax" else int(np.argmax(g))
    where = "first local" if rule == "firstSEmax" else "global"
    return (f"the {where} maximum of Gap(k) is at k={int(ks[idx[top]])} ({g[top]:.3f}); the "
            f"smallest k with Gap(k) >= {g[top]:.3f} - {s[top]:.3f} is k={k} ({g[i]:.3f})")


def gap_gain_se(ref_log_w):
    r"""Standard error of :math:`\mathrm{Gap}(k) - \mathrm{Gap}(1)` for data without
    structure: :math:`\mathrm{sd}_b(\log W^*_{kb} - \log W^*_{1b}) \sqrt{1 + 1/B}`
    (divisor B), from the reference samples, which have none.

    Examples
    --------
    >>> ref = np.log([[10.0, 6.0], [12.0, 6.0]])   # B = 2 references, k = 1, 2
    >>> round(float(gap_gain_se(ref)[1]), 3)           # sd of (-0.511, -0.693) * sqrt(1.5)
    0.112
    """
    B = ref_log_w.shape[0]
    return (ref_log_w - ref_log_w[:, :1]).std(axis=0) * np.sqrt(1.0 + 1.0 / B)


def _why_not_sphered(X, ks, params):
    """Why the default does not look at the sphered data (None: it does)."""
    if ks[0] != 1:
        return "k = 1 is not in k_range, so there is no 'no structure' answer to revisit"
    if params["semimetric"] != "energy":
        return (f"semimetric={describe(params['semimetric'])}, not 'energy', depends on the "
                "units, which sphering changes")
    return None

# --------------------------------------------------------------------------- decision
def structure_z(gap, ref_log_w):
    r"""``(Gap(k) - Gap(1)) / sigma_k`` over the range (k = 1 first): the gain of each
    k over one cluster in standard errors of the same gain on the reference samples.

    Examples
    --------
    >>> ref = np.log([[10.0, 6.0], [12.0, 6.0]])    # gains log(0.6), log(0.5): sd 0.0912
    >>> gap = np.array([0.0, 1.0])                   # 1 / (0.0912 * sqrt(1.5)) = 8.96
    >>> np.round(structure_z(gap, ref), 2).tolist()
    [0.0, 8.96]
    """
    return (gap - gap[0]) / np.maximum(gap_gain_se(ref_log_w), 1e-300)


def decide_silhouette_gap(ks, gap, gap_se, ref_log_w, silhouette):
    """Position of the chosen k in ``ks`` (``ks[0] == 1``) and why, in X's geometry.

    Returns ``(None, text)`` when no k > 1 shows structure.

    Examples
    --------
    >>> ks = np.arange(1, 5)
    >>> ref = np.log([[10.0, 6.0, 5.0, 4.5], [12.0, 6.0, 5.5, 4.4], [11.0, 6.2, 5.2, 4.6]])
    >>> gap = np.array([0.0, 0.9, 1.0, 0.95])
    >>> i, why = decide_silhouette_gap(ks, gap, np.full(4, 0.05), ref,
    ...                                np.array([np.nan, 0.6, 0.7, 0.5]))
    >>> int(ks[i])
    3
    """
    z = structure_z(gap, ref_log_w)
    cand = np.flatnonzero((ks > 1) & (z > STRUCTURE_Z))
    zs = ", ".join(f"k={int(k)}: {v:.1f}" for k, v in zip(ks[1:], z[1:]))
    if not cand.size:
        return None, (f"no k > 1 has Gap(k) - Gap(1) above {STRUCTURE_Z:g} standard errors "
                      f"of the reference samples ({zs})")
    text = (f"Gap(k) - Gap(1) is above {STRUCTURE_Z:g} standard errors at k in "
            f"{_ks(ks, cand)} ({zs}); ")
    i = cand[int(np.nanargmax(silhouette[cand]))]
    text += (f"among these the mean silhouette is largest at k={int(ks[i])} "
             f"({silhouette[i]:.3f})")
    j = cand[gap_rule(gap[cand], gap_se[cand], "globalSEmax")]
    why_g = _explain_gap(ks, gap, gap_se, int(np.flatnonzero(cand == j)[0]), "globalSEmax", 1.0,
                         cand)
    if j > i and silhouette[j] >= SILHOUETTE_KEEP * silhouette[i]:
        return int(j), (text + f"; the gap's globalSEmax rule among them: {why_g}, and its "
                        f"silhouette {silhouette[j]:.3f} keeps {SILHOUETTE_KEEP:g} of "
                        f"{silhouette[i]:.3f}: a finer level of well-separated clusters, "
                        f"k={int(ks[j])}.")
    if j > i:
        return int(i), (text + f"; the gap's globalSEmax rule would go on to k={int(ks[j])}, "
                        f"but its silhouette {silhouette[j]:.3f} is below {SILHOUETTE_KEEP:g} "
                        f"x {silhouette[i]:.3f}: k={int(ks[i])}.")
    return int(i), text + f": k={int(ks[i])}."


def decide_fallback(ks, gap, gap_se, ref_log_w):
    """Standardized or sphered X: the gap's firstSEmax rule among the k that show
    structure; ``(None, text)`` when none does."""
    z = structure_z(gap, ref_log_w)
    cand = np.flatnonzero((ks > 1) & (z > STRUCTURE_Z))
    zs = ", ".join(f"k={int(k)}: {v:.1f}" for k, v in zip(ks[1:], z[1:]))
    if not cand.size:
        return None, f"no k > 1 has Gap(k) - Gap(1) above {STRUCTURE_Z:g} standard errors ({zs})"
    j = gap_rule(gap[cand], gap_se[cand], "firstSEmax")
    why = _explain_gap(ks, gap, gap_se, j, "firstSEmax", 1.0, cand)
    return int(cand[j]), (f"Gap(k) - Gap(1) is above {STRUCTURE_Z:g} standard errors at k in "
                          f"{_ks(ks, cand)} ({zs}); among these, rule 'firstSEmax': {why}")


# --------------------------------------------------------------------------- decisions
def _decide(r, method, rule, se_factor, cutoff):
    """Position of the chosen k in ``r.k_values`` and the reasoning text."""
    ks, ps = r.k_values, r.prediction_strength
    if method == "gap":
        i = gap_rule(r.gap, r.gap_se, rule, se_factor)
        why = _explain_gap(ks, r.gap, r.gap_se, i, rule, se_factor)
        return i, f"gap statistic, rule {rule!r}: {why}."
    if method == "prediction_strength":
        i, ok = ps_rule(ps, cutoff), np.flatnonzero(ps >= cutoff)
        return i, (f"prediction strength: ps(k) >= {cutoff} at k in {_ks(ks, ok)} ("
                   + ", ".join(f"{ps[j]:.2f}" for j in ok) + f"); the largest is k={ks[i]}."
                   if ok.size else f"prediction strength: no k reaches {cutoff} (largest "
                   f"ps {ps.max():.3f}): the smallest k, {ks[i]}.")
    if method == "silhouette":
        i = int(np.nanargmax(r.silhouette))
        return i, (f"silhouette: the mean silhouette is largest at k={int(ks[i])} "
                   f"({r.silhouette[i]:.3f}; not defined at k = 1).")
    if method == "eigengap":
        i = int(np.argmax(r.eigengap))
        return i, (f"eigengap: lambda_(k+1) - lambda_k is largest at k={int(ks[i])} "
                   f"({r.eigengap[i]:.3f}).")
    return _decide_gap_ps(r, rule, se_factor, cutoff)


def _decide_gap_ps(r, rule, se_factor, cutoff):
    """``"gap+ps"``: stable k (prediction strength) that beat k = 1 on the gap by
    ``STRUCTURE_Z`` standard errors, then the gap's ``rule`` among them."""
    ks, ps, gap = r.k_values, r.prediction_strength, r.gap
    stable = np.flatnonzero(ps >= cutoff)
    text = (f"gap+ps: prediction strength reaches {cutoff} at k in {_ks(ks, stable)} ("
            + ", ".join(f"{ps[m]:.2f}" for m in stable) + ")" if stable.size else
            f"gap+ps: no k reaches prediction strength {cutoff}")
    cand = stable
    if ks[0] == 1:
        z = (gap - gap[0]) / np.maximum(gap_gain_se(r.ref_log_w), 1e-300)
        cand = stable[(stable > 0) & (z[stable] > STRUCTURE_Z)]
        zs = ", ".join(f"k={int(ks[m])}: {z[m]:.1f}" for m in stable if m > 0)
        if not cand.size:
            return 0, (text + f"; no stable k > 1 has Gap(k) - Gap(1) above {STRUCTURE_Z:g} "
                       f"standard errors ({zs or 'none is stable'}): no structure, k=1.")
        text += (f"; Gap(k) - Gap(1) is above {STRUCTURE_Z:g} standard errors at k in "
                 f"{_ks(ks, cand)} ({zs})")
    elif not cand.size:
        i = int(np.argmax(ps))
        return i, text + f": the k of largest prediction strength, k={ks[i]} ({ps[i]:.3f})."
    j = gap_rule(gap[cand], r.gap_se[cand], rule, se_factor)
    why = _explain_gap(ks, gap, r.gap_se, j, rule, se_factor, cand)
    return int(cand[j]), text + f"; among these, rule {rule!r}: {why}."


