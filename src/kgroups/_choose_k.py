r"""Choosing the number of clusters k for point data.

Two methods, both for the kernel of a semimetric of negative type (energy
statistics):

**The gap statistic** (Tibshirani, Walther & Hastie, J. R. Statist. Soc. B 63(2),
2001, eqs. 3-5 and the 1-standard-error rule of their section 3). With
:math:`W_k` the within energy of kernel k-groups with k clusters (TPAMI eq. 13,
:attr:`KernelKGroups.within_energy_`),

.. math:: \mathrm{Gap}(k) = \frac{1}{B} \sum_{b=1}^B \log W^*_{kb} - \log W_k,
          \qquad s_k = \mathrm{sd}_k \sqrt{1 + 1/B},

where :math:`W^*_{kb}` is the within energy of the same clustering of the
:math:`b`-th of :math:`B` reference samples, drawn uniformly over the box of the
data (``reference="box"``) or over the box of the data in its principal axes
(``reference="pca"``, Tibshirani et al.'s method (b)), and :math:`\mathrm{sd}_k`
is the standard deviation (over b, divisor B) of :math:`\log W^*_{kb}`. The
chosen k is the smallest k with :math:`\mathrm{Gap}(k) \ge \mathrm{Gap}(k') - s_{k'}`,
k' the next k of the range (the largest k when none qualifies).

*Why log W.* Tibshirani et al. take the log of the pooled within-cluster sum of
squares; here :math:`W_k` is the within energy, a sum of :math:`\rho` values that
is not a sum of squares unless :math:`\rho = \|x - y\|^2`. The log is kept for
every semimetric: the gap is then the log of the ratio of the expected reference
:math:`W^*_k` to :math:`W_k`, free of the units of :math:`\rho`, and
:math:`s_k` is the relative spread of :math:`W^*_k`, which is what the
1-standard-error rule needs. For the energy semimetric with ``alpha=2``,
:math:`W_k = \sum_j \frac{1}{2 n_j} \sum_{x, y \in C_j} \|x - y\|^2
= \sum_j \sum_{x \in C_j} \|x - \bar x_j\|^2`, k-means' within sum of squares
exactly, and this is the original gap statistic (with Hartigan's method in place
of Lloyd's).

**The eigengap** of the random-walk Laplacian of the energy kernel (ICML draft,
section 5.2 and Fig. 5, first panel, which cites von Luxburg 2007, section 8.1):
with the Gram matrix :math:`G_{ij} = K(x_i, x_j)` of the kernel
:math:`K(x, y) = \frac12 [\rho(x, x_0) + \rho(y, x_0) - \rho(x, y)]` (ICML eqs. 8
and 12; the draft z-scores the synapse data, so its :math:`x_0 = 0` is the data
mean: here :math:`x_0` is the weighted mean of X),

.. math:: L_{rw} = I - D^{-1} G W, \qquad D = \mathrm{diag}(G w), \qquad
          \delta_k = \lambda_{k+1} - \lambda_k,

with :math:`0 = \lambda_1 \le \lambda_2 \le \dots` its eigenvalues (W the
diagonal matrix of weights; unit weights give :math:`I - D^{-1} G`; integer
weights give the low spectrum of repeated rows). The chosen k has the largest
:math:`\delta_k` over the range; the draft picks "the first meaningful peak" by
eye. The Laplacian needs positive degrees: the energy semimetric with
``alpha <= 1`` has :math:`G \ge 0`; with ``alpha=2``, :math:`G` is the centred
linear kernel and every degree is 0.

**Cost.** The gap statistic fits kernel k-groups for every k of the range on the
data and on each of the B reference samples: ``(B + 1) * len(k_range)`` fits of
:class:`~kgroups.KernelKGroups`, each with ``n_init`` restarts. The restarts of
one fit share its engine: the dense kernel is built once, and the matrix-free
engine builds the ``M`` of all restarts in one pass over the pairs, so a fit with
``n_init`` restarts costs less than ``n_init`` separate fits. Each k is fitted
from its own starts: warm starts across k (each k started from the previous
solution with one cluster split in two) save time only on small data and cost
more on larger data; the user guide page "Choosing k" and
``benchmarks/bench_choose_k.py --timing`` compare the two.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg
import scipy.sparse.linalg

from ._memory import check_fits
from ._kgroups import KernelKGroups
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

__all__ = ["ChooseKResult", "choose_k"]

# largest n for the dense symmetric eigensolver; above it, Lanczos (eigsh)
DENSE_EIGEN_MAX_N = 1500


@dataclass
class ChooseKResult:
    """What :func:`choose_k` returns.

    Attributes
    ----------
    k : int
        The chosen number of clusters.
    method : str
        ``"gap"`` or ``"eigengap"``.
    k_values : ndarray of shape (n_k,)
        The k of the range, ascending.
    values : ndarray of shape (n_k,)
        The curve: ``Gap(k)`` (gap) or ``lambda_{k+1} - lambda_k`` (eigengap).
    se : ndarray of shape (n_k,) or None
        Gap: ``s_k = sd_k sqrt(1 + 1/B)``; None for the eigengap.
    within_energy : ndarray of shape (n_k,) or None
        Gap: ``W_k`` of the data's fit; None for the eigengap.
    ref_log_w : ndarray of shape (n_refs, n_k) or None
        Gap: ``log W*_kb`` of each reference sample; None for the eigengap.
    eigenvalues : ndarray of shape (max(k_values) + 1,) or None
        Eigengap: the smallest eigenvalues of ``L_rw``, ascending; None for the gap.
    labels : ndarray of shape (n_samples,) or None
        Gap: the labels of the data's fit with the chosen k; None for the eigengap
        (fit :class:`~kgroups.KernelKGroups` with ``k``).
    """

    k: int
    method: str
    k_values: np.ndarray
    values: np.ndarray
    se: np.ndarray | None = None
    within_energy: np.ndarray | None = None
    ref_log_w: np.ndarray | None = None
    eigenvalues: np.ndarray | None = None
    labels: np.ndarray | None = None

    def plot(self, ax=None):
        """Draw the curve against k with the chosen k marked (needs matplotlib).

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Where to draw; None draws on a new figure.

        Returns
        -------
        ax : matplotlib Axes
            The axes drawn on.

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> r = ChooseKResult(2, "gap", np.array([1, 2, 3]), np.array([0.1, 0.9, 0.8]),
        ...                   se=np.array([0.05, 0.05, 0.05]))
        >>> r.plot().get_xlabel()
        'k'
        """
        try:
            import matplotlib.pyplot as plt
        except ModuleNotFoundError as exc:  # the `plot` extra
            raise ModuleNotFoundError(
                "ChooseKResult.plot needs matplotlib: pip install 'kgroups[plot]'",
                name="matplotlib") from exc
        if ax is None:
            ax = plt.figure().add_subplot()
        if self.method == "gap":
            ax.errorbar(self.k_values, self.values, yerr=self.se, fmt="o-", capsize=3)
            ax.set_ylabel("Gap(k) with s_k")
        else:
            ax.plot(self.k_values, self.values, "o-")
            ax.set_ylabel("eigengap lambda_{k+1} - lambda_k")
        ax.axvline(self.k, color="C3", linestyle="--", label=f"chosen k = {self.k}")
        ax.set_xlabel("k")
        ax.set_title(f"choose_k: method={self.method!r}")
        ax.legend()
        return ax


# --------------------------------------------------------------------------- inputs
def _check_k_range(k_range, method, n, n_distinct):
    """Sorted distinct integers k >= 1 that the method can use on n samples."""
    owner = "choose_k"
    if k_range is None:
        k_range = range(1 if method == "gap" else 2, 11)
        top = (n_distinct - 1) if method == "gap" else (n - 1)
        k_range = [k for k in k_range if k <= max(top, 1)]
    values = list(np.ravel(np.asarray(k_range, dtype=object))) if not isinstance(
        k_range, range) else list(k_range)
    bad = [v for v in values if not Integer(1)(v)]
    if not values or bad:
        raise InvalidParameterError(
            f"{owner}: k_range={describe(k_range)} should be a non-empty sequence of integers "
            f">= 1" + (f"; got {describe(bad[0])}" if bad else ""))
    ks = np.array(sorted(int(v) for v in values), dtype=np.int64)
    if np.any(np.diff(ks) == 0):
        raise InvalidParameterError(f"{owner}: k_range={describe(k_range)} has repeated values")
    if method == "gap" and ks[-1] >= max(n_distinct, 2) and ks[-1] > 1:
        raise InvalidParameterError(
            f"{owner}: k_range goes up to k={ks[-1]} but X has n_samples={n} with "
            f"{n_distinct} distinct rows; the gap statistic needs k < {n_distinct} "
            "(W_k = 0 at k = the number of distinct rows, and log W_k is undefined)")
    if method == "eigengap" and ks[-1] >= n:
        raise InvalidParameterError(
            f"{owner}: k_range goes up to k={ks[-1]} but the eigengap needs "
            f"lambda_(k+1), so k <= n_samples - 1 = {n - 1}")
    return ks


def _fit(X, w, k, params, **fit_params):
    """One :class:`KernelKGroups` fit (the only way this module clusters)."""
    if k == 1:  # one partition: restarts would repeat it
        fit_params["n_init"] = 1
    return KernelKGroups(k, **params, **fit_params).fit(X, sample_weight=w)


def _fits(X, w, ks, params, n_init, rng):
    """``W_k`` and the labels of one fit with ``n_init`` restarts for every k of ``ks``."""
    fits = [_fit(X, w, int(k), params, n_init=n_init, random_state=int(rng.integers(2**31 - 1)))
            for k in ks]
    return np.array([f.within_energy_ for f in fits]), [f.labels_ for f in fits]


# --------------------------------------------------------------------------- gap
def reference_sample(X, w, kind, rng):
    """One reference sample: uniform over the box of X (``"box"``) or of X in its
    principal axes, rotated back (``"pca"``; weighted mean and covariance)."""
    if kind == "box":
        lo, hi = X.min(axis=0), X.max(axis=0)
        return lo + rng.random(X.shape) * (hi - lo)
    mean = w @ X / w.sum()
    Xc = (X - mean) * np.sqrt(w / w.sum())[:, None]
    V = np.linalg.svd(Xc, full_matrices=False)[2].T  # principal axes as columns
    Z = (X - mean) @ V
    lo, hi = Z.min(axis=0), Z.max(axis=0)
    return (lo + rng.random(Z.shape) * (hi - lo)) @ V.T + mean


def gap_rule(gap, se):
    """Index of the smallest k with ``Gap(k) >= Gap(k') - s_k'`` (k' the next k); the
    last index when none qualifies (Tibshirani, Walther & Hastie 2001, section 3)."""
    ok = gap[:-1] >= gap[1:] - se[1:]
    return int(np.argmax(ok)) if ok.any() else gap.size - 1


def _gap(X, w, ks, params, n_refs, reference, n_init, rng):
    W, labels = _fits(X, w, ks, params, n_init, rng)
    if not np.all(W > 0):
        k = int(ks[np.argmax(~(W > 0))])
        raise InvalidParameterError(
            f"choose_k: the within energy of the fit with k={k} is {W[ks == k][0]!r}; the "
            "gap statistic needs W_k > 0 (log W_k); use a smaller k_range")
    ref = np.empty((n_refs, ks.size))
    for b in range(n_refs):
        Z = reference_sample(X, w, reference, rng)
        ref[b] = np.log(_fits(Z, w, ks, params, n_init, rng)[0])
    gap = ref.mean(axis=0) - np.log(W)
    se = ref.std(axis=0) * np.sqrt(1.0 + 1.0 / n_refs)  # sd with divisor B, as the paper
    i = gap_rule(gap, se)
    return ChooseKResult(int(ks[i]), "gap", ks, gap, se=se, within_energy=W, ref_log_w=ref,
                         labels=labels[i])


# --------------------------------------------------------------------------- eigengap
def laplacian_eigenvalues(X, w, n_eigen, params):
    """The ``n_eigen`` smallest eigenvalues of ``L_rw = I - D^-1 G W`` (ascending), G the
    Gram matrix of the kernel with base point the weighted mean (ICML eqs. 8, 12)."""
    n = X.shape[0]
    check_fits(2 * 8 * n * n, f"choose_k(method='eigengap') for n_samples={n} (the n x n "
               "kernel and its normalised copy)", "method='gap' (no n x n matrix with "
               "engine='matrix-free'), or fewer samples")
    x0 = (w @ X / w.sum())[None, :]
    sem = {"semimetric": params["semimetric"], "alpha": params["alpha"],
           "sigma": params["sigma"], "theta": params["theta"]}
    r0 = pairwise(X, x0, **sem)[:, 0]
    G = pairwise(X, **sem)                       # rho, then in place
    G *= -0.5
    G += 0.5 * r0[:, None]
    G += 0.5 * r0[None, :]                       # G = K(x_i, x_j), ICML eq. 8 with x0
    d = G @ w
    if not np.all(d > 0):
        i = int(np.argmin(d))
        raise InvalidParameterError(
            f"choose_k: method='eigengap' needs positive degrees (row sums of the kernel "
            f"matrix), but point {i} has degree {float(d[i])!r} with semimetric="
            f"{describe(params['semimetric'])}, alpha={params['alpha']!r}; use alpha <= 1 "
            "(then the energy kernel is non-negative), semimetric='gaussian', or method='gap'")
    s = np.sqrt(w / d)
    G *= s[:, None]
    G *= s[None, :]                              # D^-1/2 W^1/2 G W^1/2 D^-1/2, similar
    if n <= DENSE_EIGEN_MAX_N or n_eigen >= n - 1:
        mu = scipy.linalg.eigh(G, eigvals_only=True, subset_by_index=[n - n_eigen, n - 1])
    else:
        mu = scipy.sparse.linalg.eigsh(G, k=n_eigen, which="LA", return_eigenvectors=False)
    return np.sort(1.0 - mu)


def _eigengap(X, w, ks, params):
    lam = laplacian_eigenvalues(X, w, int(ks[-1]) + 1, params)
    gaps = lam[ks] - lam[ks - 1]                 # delta_k = lambda_(k+1) - lambda_k
    return ChooseKResult(int(ks[int(np.argmax(gaps))]), "eigengap", ks, gaps,
                         eigenvalues=lam)


# --------------------------------------------------------------------------- public
@validated
def choose_k(X, k_range=None, *, method="gap", semimetric="energy", alpha=1.0, sigma=1.0,
             theta=1.0, n_refs=10, reference="pca", sample_weight=None, n_init=5,
             engine="auto", random_state=None):
    r"""Choose the number of clusters k of point data (gap statistic or eigengap).

    ``method="gap"``: the gap statistic of Tibshirani, Walther & Hastie (2001) on
    the within energy :math:`W_k` of kernel k-groups,
    :math:`\mathrm{Gap}(k) = \overline{\log W^*_k} - \log W_k`, with their
    1-standard-error rule (the smallest k with
    :math:`\mathrm{Gap}(k) \ge \mathrm{Gap}(k+1) - s_{k+1}`). ``method="eigengap"``:
    the largest gap :math:`\lambda_{k+1} - \lambda_k` between eigenvalues of the
    random-walk Laplacian of the kernel matrix (ICML draft, section 5.2). See
    :mod:`kgroups._choose_k` for the formulas and the user guide page "Choosing
    k" for a study of how often each picks the true k.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Data (a 1-D array is one feature).
    k_range : sequence of int, default=None
        The k to compare (distinct, >= 1; sorted here). None: ``1..10`` for the gap,
        ``2..10`` for the eigengap (with a dense kernel the gap after
        :math:`\lambda_1 = 0` is nearly always the largest), cut to what ``X``
        allows. The gap needs k below the number of distinct rows; the eigengap
        ``k <= n_samples - 1``.
    method : {"gap", "eigengap"}, default="gap"
        How k is chosen.
    semimetric : {"energy", "laplacian", "gaussian", "localized", "sinusoidal"} or callable, default="energy"
        The semimetric of the kernel (see :class:`~kgroups.KernelKGroups`).
    alpha : float, default=1.0
        Exponent of the energy semimetric, in (0, 2]. ``alpha=2`` makes the gap
        statistic the original one (W is k-means' within sum of squares); the
        eigengap needs ``alpha <= 1`` (positive degrees).
    sigma : float, default=1.0
        Scale of the Gaussian and Laplacian semimetrics.
    theta : float, default=1.0
        Scale of the sinusoidal semimetric.
    n_refs : int, default=10
        Gap: the number B of reference samples.
    reference : {"pca", "box"}, default="pca"
        Gap: reference samples uniform over the box of the data in its principal
        axes (``"pca"``, Tibshirani et al.'s (b)) or over the box of the data's
        coordinates (``"box"``, their (a)). Reference point i has weight ``w_i``.
    sample_weight : array-like of shape (n_samples,), default=None
        Positive weights (None: all ones); integer weights act as repeated rows.
    n_init : int, default=5
        Gap: restarts of each :class:`~kgroups.KernelKGroups` fit (one fit per k
        and data set, its restarts sharing the kernel or the pass over the pairs).
    engine : {"auto", "dense", "sparse", "matrix-free", "low-rank"}, default="auto"
        Gap: the engine of every :class:`~kgroups.KernelKGroups` fit.
    random_state : int, RandomState instance or None, default=None
        Seeds the reference samples and the fits.

    Returns
    -------
    result : ChooseKResult
        ``k`` (the chosen k), ``k_values``, ``values`` (the curve), ``se``,
        ``within_energy``, ``ref_log_w``, ``labels`` (gap) or ``eigenvalues``
        (eigengap), and ``plot(ax=None)``.

    Raises
    ------
    InvalidParameterError
        Bad parameters, a k_range the data cannot support, a non-positive degree
        for the eigengap, or an n x n kernel that does not fit in memory (eigengap).

    Examples
    --------
    >>> import numpy as np
    >>> from kgroups import choose_k
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(c, 0.5, (40, 2)) for c in ([0, 0], [5, 0], [0, 5])])
    >>> choose_k(X, range(1, 7), random_state=0).k
    3
    >>> choose_k(X, range(2, 7), method="eigengap", semimetric="gaussian", sigma=2.0).k
    3
    """
    owner = "choose_k"
    X = check_data(X, "X", owner, allow_1d=True, min_samples=2)
    n = X.shape[0]
    w = check_sample_weight(sample_weight, n, owner)
    n_distinct = np.unique(X, axis=0).shape[0] if method == "gap" else n
    ks = _check_k_range(k_range, method, n, n_distinct)
    params = {"semimetric": semimetric, "alpha": alpha, "sigma": sigma, "theta": theta,
              "engine": engine}
    if method == "eigengap":
        return _eigengap(X, w, ks, params)
    rng = np.random.default_rng(as_seed(random_state))
    return _gap(X, w, ks, params, n_refs, reference, n_init, rng)
