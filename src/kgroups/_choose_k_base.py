r"""What every method of :func:`~kgroups.choose_k` shares: the decision rules of
the gap statistic and prediction strength, the result (:class:`ChooseKResult`, its
curves and plot), the reference samples, the sphered geometry, and the silhouette.

The formulas are in the docstring of :mod:`kgroups._choose_k`; the default method
is in :mod:`kgroups._choose_k_silgap`.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

import numpy as np

from ._memory import check_fits
from ._semimetrics import pairwise
from ._validation import InvalidParameterError, describe

GAP_RULES = ("firstSEmax", "Tibs2001SEmax", "globalSEmax", "firstmax", "globalmax")

# bytes of one block of rho rows for the silhouette
SILHOUETTE_BLOCK_BYTES = 32 * 2**20
# the default method, and the prefix of the sphered geometry's criteria in ChooseKResult
DEFAULT_METHOD = "silhouette+gap"
GAP_PS_SPHERED = "gap+ps+sphered"
SPHERED = "sphered "
STANDARDIZED = "standardized "
# the other geometries a result may hold: (attribute, prefix of its criteria, plot title)
_GEOMETRIES = (("standardized", STANDARDIZED, "X standardized: "),
               ("sphered", SPHERED, "X sphered: "))
# gap+ps: standard errors by which Gap(k) - Gap(1) must exceed 0 for k > 1 (no structure
# test; see gap_gain_se)
STRUCTURE_Z = 3.0


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


# --------------------------------------------------------------------------- result
_CURVES = {  # criterion -> (attribute of the curve, attribute of its error bars, y label)
    "gap": ("gap", "gap_se", "Gap(k) +- s_k"),
    "structure": ("structure_z", None, "(Gap(k) - Gap(1)) / sigma_k"),
    "prediction_strength": ("prediction_strength", "prediction_strength_se",
                            "prediction strength ps(k) +- se"),
    "silhouette": ("silhouette", None, "mean silhouette"),
    "eigengap": ("eigengap", None, "eigengap lambda_(k+1) - lambda_k"),
}


@dataclass(repr=False)
class ChooseKResult:
    r"""What :func:`choose_k` returns: the chosen k, every curve computed, and why.

    One instance per call; :func:`choose_k` fills it. With the default method, when
    the data's geometry shows no structure, ``standardized`` (and, when that shows
    none either, ``sphered``) holds the criteria computed on X with every column
    scaled to unit variance (on X in its principal axes scaled to unit variance),
    and :meth:`plot` draws them too; ``"gap+ps+sphered"`` fills ``sphered`` only.

    The constructor takes the attributes below, by name (all but ``k``, ``method``
    and ``k_values`` optional).

    Attributes
    ----------
    k : int
        The chosen number of clusters.
    method : str
        The method of :func:`choose_k` that chose it.
    k_values : ndarray of shape (n_k,)
        The k of the range, ascending.
    reasoning : str
        Which rule chose k, from which candidates, and why.
    rule : str or None
        The gap statistic's decision rule, when the gap statistic was used.
    cutoff : float or None
        Prediction strength's cutoff, when prediction strength was used.
    gap, gap_se : ndarray of shape (n_k,) or None
        ``Gap(k)`` and ``s_k = sd_k sqrt(1 + 1/B)``.
    within_energy : ndarray of shape (n_k,) or None
        ``W_k`` of the data's fit for every k (gap statistic, silhouette).
    ref_log_w : ndarray of shape (n_refs, n_k) or None
        ``log W*_kb`` of each reference sample.
    prediction_strength, prediction_strength_se : ndarray of shape (n_k,) or None
        Mean prediction strength over the ``2 * n_splits`` test halves, and its
        standard error (sd / sqrt(number of halves)).
    prediction_strength_runs : ndarray of shape (2 * n_splits, n_k) or None
        Prediction strength of every test half.
    silhouette : ndarray of shape (n_k,) or None
        Weighted mean silhouette of the data's fit (NaN at k = 1).
    eigengap : ndarray of shape (n_k,) or None
        ``lambda_(k+1) - lambda_k``.
    eigenvalues : ndarray of shape (max(k_values) + 1,) or None
        The smallest eigenvalues of ``L_rw``, ascending.
    labels : ndarray of shape (n_samples,)
        Labels of the fit with the chosen k (of the standardized or sphered data
        when ``geometry`` says so).
    sphered : ChooseKResult or None
        Methods ``"silhouette+gap"`` and ``"gap+ps+sphered"``, when the geometries
        tried before show no structure: the criteria of X sphered, with references
        uniform over the cube of unit variance (its own curves, reasoning, k and
        labels).
    geometry : {"data", "standardized", "sphered"}
        Where the chosen k was found.
    standardized : ChooseKResult or None
        Method ``"silhouette+gap"``, when X's geometry shows no structure: the
        criteria of X with every column scaled to unit variance, with references
        uniform with its mean and covariance.
    structure_z : ndarray of shape (n_k,) or None
        Method ``"silhouette+gap"``: :math:`(\mathrm{Gap}(k) - \mathrm{Gap}(1)) /
        \sigma_k`, the gain over one cluster in standard errors of the same gain on
        the reference samples; the k where it exceeds 3 show structure.

    See Also
    --------
    choose_k : Makes it.
    KernelKGroups : The fits that every criterion judges.

    References
    ----------
    .. [1] R. Tibshirani, G. Walther and T. Hastie, "Estimating the number of
       clusters in a data set via the gap statistic", J. R. Statist. Soc. B
       63(2), 411-423, 2001.
    .. [2] R. Tibshirani and G. Walther, "Cluster validation by prediction
       strength", J. Comput. Graph. Statist. 14(3), 511-528, 2005.
    .. [3] P. J. Rousseeuw, "Silhouettes: a graphical aid to the interpretation
       and validation of cluster analysis", J. Comput. Appl. Math. 20, 53-65, 1987.
    .. [4] G. França, M. L. Rizzo and J. T. Vogelstein, "Kernel k-groups via
       Hartigan's method", IEEE Trans. Pattern Anal. Mach. Intell. 43(12),
       4411-4425, 2021.
    .. [5] G. França, J. T. Vogelstein, "Nonparametric energy clustering" (ICML
       draft; arXiv version "Nonparametric Clustering from Energy Statistics"),
       section 5.2 and Fig. 5: the eigengap of the energy kernel.

    Examples
    --------
    >>> import numpy as np
    >>> from kgroups import choose_k
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(c, 0.3, (30, 2)) for c in ([0, 0], [4, 0])])
    >>> r = choose_k(X, range(1, 5), n_refs=4, random_state=0)
    >>> r  # doctest: +NORMALIZE_WHITESPACE
    ChooseKResult(k=2, method='silhouette+gap', rule='globalSEmax', k_values=1..4,
                  geometry='data', curves=[gap(4,), structure(4,), silhouette(4,)])
    >>> r.criteria, np.bincount(r.labels).tolist()
    (['gap', 'structure', 'silhouette'], [30, 30])
    """

    k: int
    method: str
    k_values: np.ndarray
    reasoning: str = ""
    rule: str | None = None
    cutoff: float | None = None
    gap: np.ndarray | None = None
    gap_se: np.ndarray | None = None
    within_energy: np.ndarray | None = None
    ref_log_w: np.ndarray | None = None
    prediction_strength: np.ndarray | None = None
    prediction_strength_se: np.ndarray | None = None
    prediction_strength_runs: np.ndarray | None = None
    silhouette: np.ndarray | None = None
    eigengap: np.ndarray | None = None
    eigenvalues: np.ndarray | None = None
    labels: np.ndarray | None = None
    sphered: ChooseKResult | None = None
    geometry: str = "data"
    standardized: ChooseKResult | None = None
    structure_z: np.ndarray | None = None

    @property
    def criteria(self):
        """Names of the curves computed, in the order :meth:`plot` draws them.

        Those of :attr:`standardized` and :attr:`sphered` follow, prefixed
        ``"standardized "`` and ``"sphered "``.
        """
        own = [name for name, (attr, _, _) in _CURVES.items() if getattr(self, attr) is not None]
        for attr, prefix, _ in _GEOMETRIES:
            other = getattr(self, attr)
            own += [prefix + c for c in other.criteria] if other is not None else []
        return own

    def __repr__(self):
        ks = self.k_values
        span = f"{ks[0]}..{ks[-1]}" if ks.size == ks[-1] - ks[0] + 1 else ks.tolist()
        curves = ", ".join(f"{c}{getattr(self, _CURVES[c][0]).shape}" for c in self.criteria
                           if c in _CURVES)
        extra = "".join(f", {a}={getattr(self, a)!r}" for a in ("rule", "cutoff")
                        if getattr(self, a) is not None)
        if self.method in (DEFAULT_METHOD, GAP_PS_SPHERED):
            extra += f", k_values={span}, geometry={self.geometry!r}"
        else:
            extra += f", k_values={span}"
        tail = "".join(f", {attr}=k {getattr(self, attr).k}" for attr, _, _ in _GEOMETRIES
                       if getattr(self, attr) is not None)
        return f"ChooseKResult(k={self.k}, method={self.method!r}{extra}, curves=[{curves}]{tail})"

    def plot(self, ax=None, criteria=None):
        """Draw each criterion against k with the chosen k marked (needs matplotlib).

        As R's ``plot(clusGap)``: one panel per criterion, with error bars where
        the criterion has them (the gap's :math:`s_k`, prediction strength's
        standard error), the cutoff of prediction strength as a horizontal line,
        and the chosen k as a vertical line; the curves of ``sphered``, when
        computed, in panels of their own. On a new figure (``ax=None``), the
        ``reasoning`` is written under the panels.

        Parameters
        ----------
        ax : matplotlib Axes or sequence of Axes, default=None
            Where to draw, one Axes per criterion; None draws on a new figure.
        criteria : list of str, default=None
            Which of ``criteria`` to draw (None: all).

        Returns
        -------
        ax : matplotlib Axes, or ndarray of Axes when several criteria are drawn

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> r = ChooseKResult(2, "gap", np.array([1, 2, 3]), gap=np.array([0.1, 0.9, 0.8]),
        ...                   gap_se=np.array([0.05, 0.05, 0.05]))
        >>> r.plot().get_xlabel()
        'k'
        """
        try:
            import matplotlib.pyplot as plt
        except ModuleNotFoundError as exc:  # the `plot` extra
            raise ModuleNotFoundError(
                "ChooseKResult.plot needs matplotlib: install the plot extra (pip install "
                "'.[plot]' from a checkout of kgroups)",
                name="matplotlib") from exc
        names = self.criteria if criteria is None else list(criteria)
        unknown = [c for c in names if c not in self.criteria]
        if unknown or not names:
            raise InvalidParameterError(
                f"ChooseKResult.plot: criteria={describe(criteria)} should be a non-empty "
                f"list of the computed criteria {self.criteria}")
        if ax is None:
            text = textwrap.fill(self.reasoning, width=int(50 * min(len(names), 4)))
            lines = text.count("\n") + 1 if text else 0
            cols = min(len(names), 4)
            rows = -(-len(names) // cols)
            height = 3.4 * rows + 0.17 * lines
            fig = plt.figure(figsize=(4.2 * cols, height))
            axes = [fig.add_subplot(rows, cols, i + 1) for i in range(len(names))]
            if text:
                fig.text(0.01, 0.005, text, fontsize="small", va="bottom", ha="left")
        else:
            fig = None
            axes = list(np.ravel(np.asarray(ax, dtype=object)))
            if len(axes) != len(names):
                raise InvalidParameterError(
                    f"ChooseKResult.plot: got {len(axes)} Axes for {len(names)} criteria "
                    f"{names}; pass one Axes per criterion, or criteria=[...]")
        for a, name in zip(axes, names):
            for attr, prefix, title in _GEOMETRIES:
                if name.startswith(prefix):
                    getattr(self, attr)._plot_one(a, name[len(prefix):], self.k, title)
                    break
            else:
                self._plot_one(a, name, self.k)
        if fig is not None:  # after the titles and labels, room below for the reasoning
            fig.tight_layout(rect=(0, 0.17 * lines / height, 1, 1))
        return axes[0] if len(axes) == 1 else np.array(axes, dtype=object)

    def _plot_one(self, ax, name, chosen, prefix=""):
        attr, err, label = _CURVES[name]
        y, e = getattr(self, attr), getattr(self, err) if err else None
        ax.errorbar(self.k_values, y, yerr=e, fmt="o-", capsize=3 if e is not None else 0)
        if name == "prediction_strength" and self.cutoff is not None:
            ax.axhline(self.cutoff, color="0.5", linestyle=":", label=f"cutoff {self.cutoff}")
        if name == "structure":
            ax.axhline(STRUCTURE_Z, color="0.5", linestyle=":", label=f"{STRUCTURE_Z:g} s.e.")
        ax.axvline(chosen, color="C3", linestyle="--", label=f"chosen k = {chosen}")
        ax.set_xlabel("k")
        ax.set_ylabel(label)
        rule = f" ({self.rule})" if name == "gap" and self.rule else ""
        ax.set_title(prefix + name.replace("_", " ") + rule)
        ax.legend(fontsize="small")


def _principal_axes(X, w):
    """Weighted mean, principal axes (rows) and standard deviations along them."""
    mean = w @ X / w.sum()
    Xc = (X - mean) * np.sqrt(w / w.sum())[:, None]
    _, sd, Vt = np.linalg.svd(Xc, full_matrices=False)
    return mean, Vt, sd


def reference_sample(X, w, kind, rng):
    r"""One reference sample of the gap statistic, of the shape of X.

    ``"box"``: uniform over the box of the coordinates of X. ``"pca"``: uniform over
    the box of X in its principal axes (weighted mean and covariance), rotated back
    (Tibshirani et al.'s (b), R's ``spaceH0="scaledPCA"``). ``"moments"``: uniform
    over the box in the principal axes whose sides are :math:`\sqrt{12}` times the
    standard deviations along them, so that the sample has the mean and covariance
    of X (not its ranges).

    Examples
    --------
    >>> X = np.random.default_rng(0).normal(size=(2000, 2)) * [3.0, 1.0]
    >>> R = reference_sample(X, np.ones(2000), "moments", np.random.default_rng(1))
    >>> np.round(np.sqrt(np.diag(np.cov(R.T))), 1)
    array([3., 1.])
    """
    if kind == "box":
        lo, hi = X.min(axis=0), X.max(axis=0)
        return lo + rng.random(X.shape) * (hi - lo)
    mean, Vt, sd = _principal_axes(X, w)
    if kind == "moments":
        U = rng.random((X.shape[0], sd.size)) - 0.5
        return (U * (np.sqrt(12.0) * sd)) @ Vt + mean
    Z = (X - mean) @ Vt.T
    lo, hi = Z.min(axis=0), Z.max(axis=0)
    return (lo + rng.random(Z.shape) * (hi - lo)) @ Vt + mean


def sphere(X, sample_weight=None):
    r"""X in its principal axes, each scaled to unit variance (X whitened).

    With :math:`\bar x` the weighted mean and :math:`\Sigma = V \Lambda V^\top`
    the weighted covariance (divisor: the total weight), returns
    :math:`(X - \bar x) V_r \Lambda_r^{-1/2}`, the axes of zero variance (relative
    to the largest, below ``1e-10``) left out, so that the result has r columns,
    weighted mean 0 and identity covariance. Euclidean distances between its rows
    are Mahalanobis distances of X's covariance. :func:`choose_k`'s default looks
    for clusters there when X's own geometry shows none.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    sample_weight : ndarray of shape (n_samples,), default=None
        Positive weights (None: ones).

    Returns
    -------
    Z : ndarray of shape (n_samples, r)

    Examples
    --------
    >>> X = np.random.default_rng(0).normal(size=(500, 3)) @ [[3, 1, 0], [0, 1, 0], [0, 0, 0]]
    >>> Z = sphere(X)                        # the third axis has no variance
    >>> Z.shape, np.allclose(Z.T @ Z / 500, np.eye(2))
    ((500, 2), True)
    """
    X = np.asarray(X, dtype=np.float64)
    w = np.ones(X.shape[0]) if sample_weight is None else np.asarray(sample_weight, float)
    mean, Vt, sd = _principal_axes(X, w)
    keep = sd > 1e-10 * sd[0] if sd.size and sd[0] > 0 else np.zeros(sd.size, bool)
    return (X - mean) @ Vt[keep].T / sd[keep]


def _silhouette_curve(X, w, ks, label_sets, sem):
    """Weighted mean silhouette of each labelling on rho (NaN for k = 1), with rho
    computed by row blocks: one pass over the pairs for every k at once."""
    n = X.shape[0]
    offsets = np.concatenate([[0], np.cumsum(ks)])
    H = np.zeros((n, offsets[-1]))          # weighted one-hot labels of every k, side by side
    for k, off, lab in zip(ks, offsets, label_sets):
        H[np.arange(n), off + lab] = w
    rows = max(1, min(n, SILHOUETTE_BLOCK_BYTES // (8 * n)))
    check_fits(8 * rows * (n + offsets[-1]), f"choose_k silhouette for n_samples={n} "
               f"(blocks of {rows} rows of rho)", "fewer samples")
    sums = np.empty_like(H)                 # sums[i, l] = sum_{y in cluster l} w_y rho(x_i, y)
    for start in range(0, n, rows):
        sums[start:start + rows] = pairwise(X[start:start + rows], X, **sem) @ H
    out = np.full(ks.size, np.nan)
    for j, (k, off, lab) in enumerate(zip(ks, offsets, label_sets)):
        if k > 1:
            out[j] = _mean_silhouette(sums[:, off:off + k], H[:, off:off + k].sum(0), lab, w)
    return out


def _mean_silhouette(sums, s, lab, w):
    """Weighted mean of ``(b - a) / max(a, b)`` from the per-cluster sums of rho."""
    idx = np.arange(lab.size)
    others = s[lab] - w                     # weight of the other points of i's cluster
    alone = others <= 1e-12 * s[lab]
    a = sums[idx, lab] / np.where(alone, 1.0, others)
    means = sums / s
    means[idx, lab] = np.inf
    b = means.min(axis=1)
    sil = np.where(alone, 0.0, (b - a) / np.maximum(np.maximum(a, b), 1e-300))
    return float(w @ sil / w.sum())


def _semimetric_params(params):
    return {p: params[p] for p in ("semimetric", "alpha", "sigma", "theta")}


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
