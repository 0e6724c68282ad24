r"""Choosing the number of clusters k for point data.

Every criterion below judges the partitions that kernel k-groups finds
(:class:`~kgroups.KernelKGroups`, the only way this module clusters) for each k of
a range, with the semimetric :math:`\rho` of the fits.

**The gap statistic** (Tibshirani, Walther & Hastie, J. R. Statist. Soc. B 63(2),
2001, eqs. 3-5 and section 3). With :math:`W_k` the within energy of the fit with
k clusters (TPAMI eq. 13, :attr:`KernelKGroups.within_energy_`),

.. math:: \mathrm{Gap}(k) = \frac{1}{B} \sum_{b=1}^B \log W^*_{kb} - \log W_k,
          \qquad s_k = \mathrm{sd}_k \sqrt{1 + 1/B},

where :math:`W^*_{kb}` is the within energy of the same clustering of the
:math:`b`-th of :math:`B` reference samples, drawn uniformly over the box of the
data (``reference="box"``, the paper's (a)) or over the box of the data in its
principal axes (``reference="pca"``, the paper's (b)), and :math:`\mathrm{sd}_k`
is the standard deviation (divisor B) of :math:`\log W^*_{kb}`. For the energy
semimetric with ``alpha=2``, :math:`W_k` is k-means' within sum of squares and
this is the original statistic; for other semimetrics the log keeps the gap free
of the units of :math:`\rho`. The decision rules are those of R's
``cluster::maxSE`` (Maechler et al.), applied to :math:`f = \mathrm{Gap}` and
:math:`s` (``se_factor`` times :math:`s_k`), over the k of the range in order:

* ``"globalmax"``: the k of the largest :math:`f(k)`;
* ``"firstmax"``: the first local maximum, the first k with
  :math:`f(k) \ge f(k^+)` (:math:`k^+` the next k of the range; the last k when
  none);
* ``"Tibs2001SEmax"``: Tibshirani et al.'s rule, the smallest k with
  :math:`f(k) \ge f(k^+) - s_{k^+}` (the last k when none);
* ``"firstSEmax"``: the smallest k with :math:`f(k) \ge f(\hat k) - s_{\hat k}`,
  :math:`\hat k` the first local maximum;
* ``"globalSEmax"``: the same with :math:`\hat k` the global maximum (Dudoit &
  Fridlyand 2002).

**Prediction strength** (Tibshirani & Walther, J. Comput. Graph. Statist. 14(3),
2005, eqs. 2.1-2.2). Split the points at random into halves, fit k clusters to
each half, and for the test half's clusters :math:`A_1, \dots, A_k` count the
pairs of points that the training half's fit (:meth:`KernelKGroups.predict`) also
puts together:

.. math:: \mathrm{ps}(k) = \min_{1 \le j \le k} \frac{1}{n_j (n_j - 1)}
          \sum_{i \ne i' \in A_j} \mathbb 1[\hat c(x_i) = \hat c(x_{i'})],

with pairs weighted by :math:`w_i w_{i'}` for weighted points and clusters of one
point left out of the minimum (they have no pair). Each half is test half once,
over ``n_splits`` random splits; ``ps(1) = 1``. The chosen k is the largest k with
mean :math:`\mathrm{ps}(k) \ge` ``cutoff`` (the paper's 0.8).

**The silhouette** (Rousseeuw, J. Comput. Appl. Math. 20, 1987) of the fits, on
:math:`\rho`: :math:`s(i) = (b_i - a_i) / \max(a_i, b_i)`, with :math:`a_i` the
weighted mean of :math:`\rho(x_i, \cdot)` over the other points of its cluster
and :math:`b_i` the smallest such mean over another cluster (:math:`s(i) = 0`
alone in its cluster); the chosen k has the largest weighted mean of
:math:`s(i)`. It is not defined for k = 1, so it never answers 1.

**The eigengap** of the random-walk Laplacian of the energy kernel (ICML draft,
section 5.2 and Fig. 5; von Luxburg 2007, section 8.1): with
:math:`G_{ij} = K(x_i, x_j)`, :math:`K(x, y) = \frac12 [\rho(x, x_0) + \rho(y, x_0)
- \rho(x, y)]` (ICML eqs. 8 and 12, :math:`x_0` the weighted mean of X),
:math:`L_{rw} = I - D^{-1} G W`, :math:`D = \mathrm{diag}(G w)`, and
:math:`\delta_k = \lambda_{k+1} - \lambda_k` over its ascending eigenvalues; the
chosen k has the largest :math:`\delta_k`. It needs positive degrees (the energy
semimetric with ``alpha <= 1``, the Gaussian or Laplacian ones).

**Gap and prediction strength** (``method="gap+ps"``). The candidates are the
k > 1 whose partitions are stable, :math:`\mathrm{ps}(k) \ge` ``cutoff``, and beat
the reference samples by ``STRUCTURE_Z`` = 3 standard errors,
:math:`\mathrm{Gap}(k) - \mathrm{Gap}(1) > 3\,\sigma_k`, with
:math:`\sigma_k = \mathrm{sd}_b(\log W^*_{kb} - \log W^*_{1b}) \sqrt{1 + 1/B}`
the spread of that gain over samples without structure (:func:`gap_gain_se`).
No candidate: k = 1. Otherwise the gap's ``rule`` (``"globalSEmax"``) picks among
the candidates. Prediction strength rejects the gap's plateau past the true k
(unstable partitions); the gain over k = 1 rejects prediction strength's stable
cuts of an elongated cloud.

**The default** (``method="gap+ps+sphered"``): ``"gap+ps"`` on X; when it finds
no structure (k = 1 with 1 in the range), ``"gap+ps"`` again on X *sphered*
(:func:`sphere`: X in its principal axes, each scaled to unit variance, the
geometry of the Mahalanobis distance of its covariance), with reference samples
uniform over the cube of unit variance :math:`[-\sqrt 3, \sqrt 3]^r`
(``reference="moments"``: uniform with the mean and covariance of the data, in its
principal axes). The energy semimetric is invariant under rotations but not under
a change of scale of one axis: clusters separated along a short principal axis
(parallel elongated clusters) are invisible at the scale of the long one, where the
best two-cluster cut goes across the long axis, as in one elongated Gaussian; after
sphering, every axis has the same scale and they separate. The data's own geometry
answers first because sphering also scales up the noise directions: in high
dimensions it can hide clusters that the data's geometry shows. The sphered
reference matches the variances rather than the ranges: in the sphered geometry of
300 points the long axis of two parallel Gaussian clusters spans about
:math:`\pm 3` and their short axis about :math:`\pm 1.6`, so a box of ranges
would be elongated and its own cut across it would out-gain the data's. Only with
the energy semimetric (whose partitions do not depend on the units) and data of
rank r with 2 <= r < n - 1 (sphered, the points of rank n - 1 are all
the same distance apart); the performance page of the documentation has the
study (``benchmarks/bench_choose_k.py``).

**Cost.** The gap statistic: ``(B + 1) * len(k_range)`` fits of n points, each
with ``n_init`` restarts sharing the engine. Prediction strength:
``2 * n_splits * len(k_range)`` fits of n/2 points and as many ``predict``. The
silhouette reuses the data's fits and computes :math:`\rho` by row blocks (no n x n
matrix); the eigengap needs the n x n kernel. The default costs what ``"gap+ps"``
costs, twice when the data's geometry shows no structure.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

import numpy as np
import scipy.linalg
import scipy.sparse.linalg

from ._kgroups import KernelKGroups
from ._memory import check_fits
from ._semimetrics import pairwise
from ._validation import (
    Integer,
    InvalidParameterError,
    as_seed,
    check_data,
    check_sample_weight,
    describe,
    validated,
)

GAP_RULES = ("firstSEmax", "Tibs2001SEmax", "globalSEmax", "firstmax", "globalmax")

# largest n for the dense symmetric eigensolver; above it, Lanczos (eigsh)
DENSE_EIGEN_MAX_N = 1500
# bytes of one block of rho rows for the silhouette
SILHOUETTE_BLOCK_BYTES = 32 * 2**20
# the default method, and the prefix of the sphered geometry's criteria in ChooseKResult
DEFAULT_METHOD = "gap+ps+sphered"
SPHERED = "sphered "
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
    "prediction_strength": ("prediction_strength", "prediction_strength_se",
                            "prediction strength ps(k) +- se"),
    "silhouette": ("silhouette", None, "mean silhouette"),
    "eigengap": ("eigengap", None, "eigengap lambda_(k+1) - lambda_k"),
}


@dataclass(repr=False)
class ChooseKResult:
    r"""What :func:`choose_k` returns: the chosen k, every curve computed, and why.

    One instance per call; :func:`choose_k` fills it. With the default method, when
    the data's geometry shows no structure, ``sphered`` holds the same criteria
    computed on the sphered data (principal axes scaled to unit variance) and
    :meth:`plot` draws them too.

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
        Labels of the fit with the chosen k (of the sphered data when
        ``geometry == "sphered"``).
    sphered : ChooseKResult or None
        The default only, when the data's geometry shows no structure:
        ``method="gap+ps"`` on the sphered data, with references uniform over the
        cube of unit variance (its own curves, reasoning, k and labels).
    geometry : {"data", "sphered"}
        Where the chosen k was found.

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
    >>> r = choose_k(X, range(1, 5), n_refs=4, n_splits=4, random_state=0)
    >>> r  # doctest: +NORMALIZE_WHITESPACE
    ChooseKResult(k=2, method='gap+ps+sphered', rule='globalSEmax', cutoff=0.8,
                  k_values=1..4, geometry='data', curves=[gap(4,), prediction_strength(4,)])
    >>> r.criteria, np.bincount(r.labels).tolist()
    (['gap', 'prediction_strength'], [30, 30])
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

    @property
    def criteria(self):
        """Names of the curves computed, in the order :meth:`plot` draws them.

        Those of :attr:`sphered` follow, prefixed ``"sphered "``.
        """
        own = [name for name, (attr, _, _) in _CURVES.items() if getattr(self, attr) is not None]
        return own + ([SPHERED + c for c in self.sphered.criteria]
                      if self.sphered is not None else [])

    def __repr__(self):
        ks = self.k_values
        span = f"{ks[0]}..{ks[-1]}" if ks.size == ks[-1] - ks[0] + 1 else ks.tolist()
        curves = ", ".join(f"{c}{getattr(self, _CURVES[c][0]).shape}" for c in self.criteria
                           if c in _CURVES)
        extra = "".join(f", {a}={getattr(self, a)!r}" for a in ("rule", "cutoff")
                        if getattr(self, a) is not None)
        if self.method == DEFAULT_METHOD:
            extra += f", k_values={span}, geometry={self.geometry!r}"
        else:
            extra += f", k_values={span}"
        tail = f", sphered=k {self.sphered.k}" if self.sphered is not None else ""
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
                "ChooseKResult.plot needs matplotlib: pip install 'kgroups[plot]'",
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
            if name.startswith(SPHERED):
                self.sphered._plot_one(a, name[len(SPHERED):], self.k, "X sphered: ")
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
        ax.axvline(chosen, color="C3", linestyle="--", label=f"chosen k = {chosen}")
        ax.set_xlabel("k")
        ax.set_ylabel(label)
        rule = f" ({self.rule})" if name == "gap" and self.rule else ""
        ax.set_title(prefix + name.replace("_", " ") + rule)
        ax.legend(fontsize="small")


# --------------------------------------------------------------------------- fits
def _fit(X, w, k, params, n_init, seed):
    """One :class:`KernelKGroups` fit (the only way this module clusters)."""
    return KernelKGroups(int(k), **params, n_init=1 if k == 1 else n_init,
                         random_state=seed).fit(X, sample_weight=w)


def _fits(X, w, ks, params, n_init, rng):
    """The fit with ``n_init`` restarts of every k of ``ks``."""
    return [_fit(X, w, k, params, n_init, int(rng.integers(2**31 - 1))) for k in ks]


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


def _gap_curve(X, w, ks, params, n_refs, reference, n_init, rng, fits):
    """``Gap(k)``, ``s_k``, ``W_k`` and ``log W*_kb``, equations 3-5 of Tibshirani et al."""
    W = np.array([f.within_energy_ for f in fits])
    if not np.all(W > 0):
        k = int(ks[np.argmax(~(W > 0))])
        raise InvalidParameterError(
            f"choose_k: the within energy of the fit with k={k} is {W[ks == k][0]!r}; the "
            "gap statistic needs W_k > 0 (log W_k); use a smaller k_range")
    ref = np.empty((n_refs, ks.size))
    for b in range(n_refs):
        Z = reference_sample(X, w, reference, rng)
        ref[b] = np.log([f.within_energy_ for f in _fits(Z, w, ks, params, n_init, rng)])
    gap = ref.mean(axis=0) - np.log(W)
    se = ref.std(axis=0) * np.sqrt(1.0 + 1.0 / n_refs)  # sd with divisor B, as the paper
    return gap, se, W, ref


def _prediction_strength_curve(X, w, ks, params, n_splits, n_init, rng):
    """Prediction strength of every test half (rows) and k (columns)."""
    n = X.shape[0]
    runs = np.ones((2 * n_splits, ks.size))
    for s in range(n_splits):
        perm = rng.permutation(n)
        halves = (np.sort(perm[:n // 2]), np.sort(perm[n // 2:]))
        fits = [_fits(X[h], w[h], ks, params, n_init, rng) for h in halves]
        for t in (0, 1):
            test, train = halves[t], fits[1 - t]
            for j, k in enumerate(ks):
                if k > 1:
                    runs[2 * s + t, j] = prediction_strength_score(
                        fits[t][j].labels_, train[j].predict(X[test]), w[test])
    return runs


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


# --------------------------------------------------------------------------- eigengap
def laplacian_eigenvalues(X, w, n_eigen, params):
    """The ``n_eigen`` smallest eigenvalues of ``L_rw = I - D^-1 G W``, ascending.

    G is the Gram matrix of the kernel with base point the weighted mean (ICML
    eqs. 8 and 12), W the diagonal of the weights and D that of the degrees G w.
    """
    n = X.shape[0]
    check_fits(2 * 8 * n * n, f"choose_k(method='eigengap') for n_samples={n} (the n x n "
               "kernel and its normalised copy)", "method='gap+ps' (no n x n matrix with "
               "engine='matrix-free'), or fewer samples")
    x0 = (w @ X / w.sum())[None, :]
    sem = _semimetric_params(params)
    r0 = pairwise(X, x0, **sem)[:, 0]
    G = pairwise(X, **sem)                       # rho, then in place
    G *= -0.5
    G += 0.5 * r0[:, None]
    G += 0.5 * r0[None, :]                       # G = K(x_i, x_j), ICML eq. 8 with x0
    d = G @ w
    if not np.all(d > 0):
        i = int(np.argmin(d))
        scale = "alpha" if params["semimetric"] == "energy" else "sigma"
        raise InvalidParameterError(
            f"choose_k: method='eigengap' needs positive degrees (row sums of the kernel "
            f"matrix), but point {i} has degree {float(d[i])!r} with semimetric="
            f"{describe(params['semimetric'])}, {scale}={params[scale]!r}; the energy "
            "semimetric with alpha <= 1 has a non-negative kernel; or use another method")
    s = np.sqrt(w / d)
    G *= s[:, None]
    G *= s[None, :]                              # D^-1/2 W^1/2 G W^1/2 D^-1/2, similar
    if n <= DENSE_EIGEN_MAX_N or n_eigen >= n - 1:
        mu = scipy.linalg.eigh(G, eigvals_only=True, subset_by_index=[n - n_eigen, n - 1])
    else:
        mu = scipy.sparse.linalg.eigsh(G, k=n_eigen, which="LA", return_eigenvectors=False)
    return np.sort(1.0 - mu)


def _semimetric_params(params):
    return {p: params[p] for p in ("semimetric", "alpha", "sigma", "theta")}


# --------------------------------------------------------------------------- decisions
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


# --------------------------------------------------------------------------- inputs
def _k_limits(method, n, n_distinct):
    """Largest k each criterion allows, and why (for the error message)."""
    lim = []
    if "gap" in _NEEDS[method]:
        lim.append((n_distinct - 1, (f"the gap statistic needs k < {n_distinct}, the number "
                                     "of distinct rows (log W_k is undefined at W_k = 0)")))
    if "prediction_strength" in _NEEDS[method]:
        lim.append((n // 2, f"prediction strength fits halves of {n // 2} points, k <= {n // 2}"))
    if method in ("silhouette", "eigengap"):
        lim.append((n - 1, f"the {method} needs k <= n_samples - 1 = {n - 1}"))
    return min(lim, key=lambda t: t[0])


def _check_k_range(k_range, method, n, n_distinct):
    """Sorted distinct integers k >= 1 that the method can use on n samples."""
    top, why = _k_limits(method, n, n_distinct)
    if k_range is None:
        first = 2 if method in ("silhouette", "eigengap") else 1
        k_range = range(first, max(min(10, top), first) + 1)
    values = list(k_range) if isinstance(k_range, range) else list(
        np.ravel(np.asarray(k_range, dtype=object)))
    bad = [v for v in values if not Integer(1)(v)]
    if not values or bad:
        raise InvalidParameterError(
            f"choose_k: k_range={describe(k_range)} should be a non-empty sequence of integers "
            f">= 1" + (f"; got {describe(bad[0])}" if bad else ""))
    ks = np.array(sorted(int(v) for v in values), dtype=np.int64)
    if np.any(np.diff(ks) == 0):
        raise InvalidParameterError(f"choose_k: k_range={describe(k_range)} has repeated values")
    if ks[-1] > max(top, 1):
        raise InvalidParameterError(
            f"choose_k: k_range goes up to k={ks[-1]} but X has n_samples={n}; {why}")
    if method == "silhouette" and ks[-1] < 2:
        raise InvalidParameterError(
            f"choose_k: k_range={describe(k_range)} should hold a k >= 2 for "
            "method='silhouette' (the silhouette is not defined for one cluster)")
    return ks


_GAP_PS = ("gap+ps", DEFAULT_METHOD)


def _check_rule(rule, method):
    if rule is None:
        return "globalSEmax" if method in _GAP_PS else "firstSEmax"
    if method not in ("gap",) + _GAP_PS:
        raise InvalidParameterError(
            f"choose_k: rule={rule!r} applies to method='gap', 'gap+ps' or "
            f"{DEFAULT_METHOD!r} only; got method={method!r} (leave rule=None)")
    return rule


# --------------------------------------------------------------------------- public
_NEEDS = {DEFAULT_METHOD: ("gap", "prediction_strength"),
          "gap+ps": ("gap", "prediction_strength"), "gap": ("gap",),
          "prediction_strength": ("prediction_strength",), "silhouette": ("silhouette",),
          "eigengap": ("eigengap",)}


def _curves(X, w, ks, method, params, opts, rng):
    """Every criterion ``method`` needs, as :class:`ChooseKResult` fields."""
    need, out, fits = _NEEDS[method], {}, None
    if "gap" in need or "silhouette" in need:
        fits = _fits(X, w, ks, params, opts["n_init"], rng)
        out["within_energy"] = np.array([f.within_energy_ for f in fits])
    if "gap" in need:
        out["gap"], out["gap_se"], _, out["ref_log_w"] = _gap_curve(
            X, w, ks, params, opts["n_refs"], opts["reference"], opts["n_init"], rng, fits)
    if "prediction_strength" in need:
        runs = _prediction_strength_curve(X, w, ks, params, opts["n_splits"], opts["n_init"],
                                          rng)
        out.update(prediction_strength=runs.mean(axis=0), prediction_strength_runs=runs,
                   prediction_strength_se=runs.std(axis=0, ddof=1) / np.sqrt(runs.shape[0]))
    if "silhouette" in need:
        out["silhouette"] = _silhouette_curve(X, w, ks, [f.labels_ for f in fits],
                                              _semimetric_params(params))
    if "eigengap" in need:
        lam = laplacian_eigenvalues(X, w, int(ks[-1]) + 1, params)
        out["eigenvalues"], out["eigengap"] = lam, lam[ks] - lam[ks - 1]
    return out, fits


def _choose(X, w, ks, method, rule, se_factor, cutoff, params, opts, rng):
    """One method on one geometry: the result with k, reasoning and labels."""
    curves, fits = _curves(X, w, ks, method, params, opts, rng)
    r = ChooseKResult(0, method, ks, rule=rule if "gap" in _NEEDS[method] else None,
                      cutoff=cutoff if "prediction_strength" in _NEEDS[method] else None,
                      **curves)
    i, r.reasoning = _decide(r, method, rule, se_factor, cutoff)
    r.k = int(ks[i])
    r.labels = (fits[i] if fits is not None else _fit(X, w, r.k, params, opts["n_init"], int(
        rng.integers(2**31 - 1)))).labels_
    return r


def _why_not_sphered(X, ks, params):
    """Why the default does not look at the sphered data (None: it does)."""
    if ks[0] != 1:
        return "k = 1 is not in k_range, so there is no 'no structure' answer to revisit"
    if params["semimetric"] != "energy":
        return (f"semimetric={describe(params['semimetric'])}, not 'energy', depends on the "
                "units, which sphering changes")
    return None


def _choose_default(X, w, ks, rule, se_factor, cutoff, params, opts, rng):
    """``"gap+ps"`` on X; when it finds no structure, on X sphered (references
    uniform with the sphered data's mean and covariance)."""
    r = _choose(X, w, ks, "gap+ps", rule, se_factor, cutoff, params, opts, rng)
    r.method = DEFAULT_METHOD
    on_x = r.reasoning.removeprefix("gap+ps: ")
    r.reasoning = f"{DEFAULT_METHOD}: on X, {on_x}"
    if r.k > 1:
        return r
    why_not = _why_not_sphered(X, ks, params)
    Z = sphere(X, w) if why_not is None else None
    if Z is not None and Z.shape[1] < 2:
        why_not = "X has one axis of variance, so sphering only rescales it"
    elif Z is not None and Z.shape[1] >= X.shape[0] - 1:
        why_not = (f"X has {Z.shape[1]} axes of variance for {X.shape[0]} points, so sphered "
                   "(unweighted) every two points are the same distance apart")
    if why_not is not None:
        r.reasoning += f" X sphered is not tried: {why_not}."
        return r
    s = _choose(Z, w, ks, "gap+ps", rule, se_factor, cutoff, params,
                {**opts, "reference": "moments"}, rng)
    r.sphered = s
    on_z = s.reasoning.removeprefix("gap+ps: ")
    r.reasoning += (f" No structure in X's geometry, so X sphered (principal axes scaled to "
                    f"unit variance; references uniform with its mean and covariance): {on_z}")
    if s.k > 1:
        r.k, r.labels, r.geometry = s.k, s.labels, "sphered"
        r.reasoning += f" The answer is k={s.k}, found in X sphered (labels: its fit)."
    return r


@validated
def choose_k(X, k_range=None, *, method=DEFAULT_METHOD, rule=None, se_factor=1.0, cutoff=0.8,
             n_refs=10, reference="pca", n_splits=20, semimetric="energy", alpha=1.0,
             sigma=1.0, theta=1.0, sample_weight=None, n_init=5, engine="auto",
             random_state=None):
    r"""Choose the number of clusters k of point data, and say why.

    Every method judges kernel k-groups fits (:class:`~kgroups.KernelKGroups`) for
    each k of ``k_range``; :doc:`/user_guide/choosing_k` has the formulas.

    - ``"gap+ps+sphered"`` (default): ``"gap+ps"`` on X; when that finds no
      structure, ``"gap+ps"`` on X sphered (principal axes
      scaled to unit variance), with reference samples uniform
      with the sphered data's mean and covariance. Clusters separated along a
      short principal axis, such as parallel elongated clusters, show only there.
      Chosen by the study on the :doc:`/performance` page.
    - ``"gap+ps"``: the k > 1 whose partitions are stable
      (:math:`\mathrm{ps}(k) \ge` ``cutoff``) and beat the reference samples
      (:math:`\mathrm{Gap}(k) - \mathrm{Gap}(1)` above 3 standard errors) are the
      candidates; none: k = 1; else the gap's ``rule`` (default
      ``"globalSEmax"``) picks among them.
    - ``"gap"``: the gap statistic (Tibshirani, Walther & Hastie 2001) on
      :math:`W_k`, :math:`\mathrm{Gap}(k) = \overline{\log W^*_k} - \log W_k`,
      with a decision rule of R's ``cluster::maxSE`` (default ``"firstSEmax"``).
    - ``"prediction_strength"``: the largest k with mean
      :math:`\mathrm{ps}(k) \ge` ``cutoff`` (Tibshirani & Walther 2005).
    - ``"silhouette"``: the largest weighted mean silhouette on the semimetric
      (Rousseeuw 1987); k >= 2.
    - ``"eigengap"``: the largest :math:`\lambda_{k+1} - \lambda_k` of the
      random-walk Laplacian of the kernel matrix (França, Rizzo & Vogelstein,
      ICML draft, section 5.2); k >= 2.

    When each fails, in the study: the gap's 1-standard-error rules stop at the
    coarse level of nested structure (a grid of blobs in two rows: 2); prediction
    strength and the silhouette cut one elongated cloud in two; the eigengap
    answers 2 or 3 on most two-dimensional settings, whatever k; ``"gap+ps"``
    answers 1 on parallel elongated clusters (its fits cut across them, as across
    one elongated cloud); the default sometimes also halves each of them (4 on 1
    draw of 5); every method misses, on most draws, clusters that the best kernel
    k-groups partitions do not separate (three parallel elongated clusters).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Data (a 1-D array is one feature).
    k_range : sequence of int, default=None
        The k to compare (distinct, >= 1; sorted here). None: ``1..10``
        (``2..10`` for the silhouette and the eigengap), cut to what X allows:
        the gap needs k below the number of distinct rows, prediction strength
        ``k <= n_samples // 2``, the others ``k <= n_samples - 1``.
    method : {"gap+ps+sphered", "gap+ps", "gap", "prediction_strength", "silhouette", "eigengap"}, default="gap+ps+sphered"
        How k is chosen.
    rule : {"firstSEmax", "Tibs2001SEmax", "globalSEmax", "firstmax", "globalmax"}, default=None
        The gap statistic's decision rule (``method="gap"``: over the whole
        range, default ``"firstSEmax"``, R's default; ``"gap+ps"`` and the
        default: over the candidates, default ``"globalSEmax"``).
    se_factor : float, default=1.0
        Standard errors allowed by the ``*SEmax`` rules (R's ``SE.factor``).
    cutoff : float, default=0.8
        Prediction strength a partition needs to count as stable (the paper's 0.8).
    n_refs : int, default=10
        The number B of reference samples of the gap statistic.
    reference : {"pca", "box", "moments"}, default="pca"
        Reference samples uniform over the box of the data in its principal axes
        (``"pca"``, the paper's (b)), over the box of its coordinates (``"box"``,
        (a)), or over the box in its principal axes with the data's variances
        (``"moments"``: sides :math:`\sqrt{12}` standard deviations). Reference
        point i has weight :math:`w_i`. The default method uses ``"moments"`` on
        the sphered data whatever this is.
    n_splits : int, default=20
        Random halvings of prediction strength; each half is test half once.
    semimetric : {"energy", "laplacian", "gaussian", "localized", "sinusoidal"} or callable, default="energy"
        The semimetric of the fits (see :class:`~kgroups.KernelKGroups`). The
        default method looks at the sphered data with ``"energy"`` only.
    alpha : float, default=1.0
        Exponent of the energy semimetric, in (0, 2]; ``alpha=2`` makes the gap
        statistic the original one; the eigengap needs ``alpha <= 1``.
    sigma : float, default=1.0
        Scale of the Gaussian and Laplacian semimetrics.
    theta : float, default=1.0
        Scale of the sinusoidal semimetric.
    sample_weight : array-like of shape (n_samples,), default=None
        Positive weights (None: all ones).
    n_init : int, default=5
        Restarts of every :class:`~kgroups.KernelKGroups` fit.
    engine : {"auto", "dense", "sparse", "matrix-free", "low-rank"}, default="auto"
        The engine of every fit.
    random_state : int, RandomState instance or None, default=None
        Seeds the reference samples, the splits and the fits.

    Returns
    -------
    result : ChooseKResult
        ``k``, ``reasoning``, the curves computed (``gap``, ``gap_se``,
        ``prediction_strength``, ``silhouette``, ``eigengap``, ...), those of
        the sphered data in ``sphered`` (default method, when computed), the
        labels of the fit with the chosen k, and ``plot()``.

    Raises
    ------
    InvalidParameterError
        Bad parameters, a k_range the data cannot support, a non-positive degree
        for the eigengap, or an n x n kernel that does not fit in memory (eigengap).

    See Also
    --------
    ChooseKResult : The result, its curves and its plot.
    KernelKGroups : The fits that every criterion judges.

    Notes
    -----
    Cost: ``(n_refs + 1) * len(k_range)`` fits of n points for the gap statistic
    and ``2 * n_splits * len(k_range)`` fits of n/2 points for prediction
    strength; the default pays this twice when X's geometry shows no structure.

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
    Three blobs, then two parallel elongated clusters, which only the sphered
    data shows, then one elongated Gaussian, which has no clusters:

    >>> import numpy as np
    >>> from kgroups import choose_k
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(c, 0.5, (40, 2)) for c in ([0, 0], [5, 0], [0, 5])])
    >>> r = choose_k(X, range(1, 7), random_state=0)
    >>> r.k, r.geometry, r.criteria
    (3, 'data', ['gap', 'prediction_strength'])
    >>> choose_k(X, range(1, 7), method="gap", rule="Tibs2001SEmax", random_state=0).k
    3
    >>> cigars = np.vstack([rng.normal(size=(100, 2)) * [6, 0.5] + [0, 4 * j] for j in (0, 1)])
    >>> r = choose_k(cigars, range(1, 5), n_refs=5, n_splits=5, random_state=0)
    >>> r.k, r.geometry, r.sphered.k
    (2, 'sphered', 2)
    >>> choose_k(rng.normal(size=(200, 2)) * [3, 1], range(1, 5), random_state=0).k
    1
    """
    X = check_data(X, "X", "choose_k", allow_1d=True, min_samples=2)
    n = X.shape[0]
    w = check_sample_weight(sample_weight, n, "choose_k")
    rule = _check_rule(rule, method)
    n_distinct = np.unique(X, axis=0).shape[0] if "gap" in _NEEDS[method] else n
    ks = _check_k_range(k_range, method, n, n_distinct)
    params = {"semimetric": semimetric, "alpha": alpha, "sigma": sigma, "theta": theta,
              "engine": engine}
    opts = {"n_refs": n_refs, "reference": reference, "n_splits": n_splits, "n_init": n_init}
    rng = np.random.default_rng(as_seed(random_state))
    if method == DEFAULT_METHOD:
        return _choose_default(X, w, ks, rule, se_factor, cutoff, params, opts, rng)
    return _choose(X, w, ks, method, rule, se_factor, cutoff, params, opts, rng)
