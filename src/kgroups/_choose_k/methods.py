r"""The criteria of :func:`~kgroups.choose_k`, computed from kernel k-groups fits: the
reference samples of the gap statistic, the gap curve, prediction strength, the
silhouette, the eigenvalues of the random-walk Laplacian, the n x n matrix of
:math:`\rho` that the default methods fit on, and the rescaled geometries (X
standardized and sphered). The formulas are in :mod:`kgroups._choose_k`.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
import scipy.sparse.linalg

from .._memory import available_memory, check_fits
from .._semimetrics import pairwise
from .._validation import InvalidParameterError, describe
from .rules import prediction_strength_score

# bytes of one block of rho rows for the silhouette
SILHOUETTE_BLOCK_BYTES = 32 * 2**20
# largest share of the available memory that the n x n matrices (X's and one reference's) use
MATRIX_MEMORY_FRACTION = 0.25
# largest n for the dense symmetric eigensolver; above it, Lanczos (eigsh)
DENSE_EIGEN_MAX_N = 1500


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


def _silhouette_curve(X, w, ks, label_sets, sem, D=None):
    """Weighted mean silhouette of each labelling on rho (NaN for k = 1), from
    :func:`_point_silhouettes_of`."""
    out = np.full(ks.size, np.nan)
    for j, sil in enumerate(_point_silhouettes_of(X, w, ks, label_sets, sem, D)):
        if sil is not None:
            out[j] = float(w @ sil / w.sum())
    return out


def _point_silhouettes_of(X, w, ks, label_sets, sem, D=None):
    """The silhouette of every point in each labelling (None for k = 1): one pass over
    the pairs for every k at once, on the n x n matrix of rho ``D`` when given, else
    with rho computed from X by row blocks."""
    n = X.shape[0]
    offsets = np.concatenate([[0], np.cumsum(ks)])
    H = np.zeros((n, offsets[-1]))          # weighted one-hot labels of every k, side by side
    for k, off, lab in zip(ks, offsets, label_sets):
        H[np.arange(n), off + lab] = w
    if D is not None:
        sums = D @ H                        # sums[i, l] = sum_{y in cluster l} w_y rho(x_i, y)
    else:
        rows = max(1, min(n, SILHOUETTE_BLOCK_BYTES // (8 * n)))
        check_fits(8 * rows * (n + offsets[-1]), f"choose_k silhouette for n_samples={n} "
                   f"(blocks of {rows} rows of rho)", "fewer samples")
        sums = np.empty_like(H)
        for start in range(0, n, rows):
            sums[start:start + rows] = pairwise(X[start:start + rows], X, **sem) @ H
    return [_point_silhouettes(sums[:, off:off + k], H[:, off:off + k].sum(0), lab, w)
            if k > 1 else None for k, off, lab in zip(ks, offsets, label_sets)]


def _point_silhouettes(sums, s, lab, w):
    """The silhouette ``(b - a) / max(a, b)`` of every point from the per-cluster sums
    of rho (``sums[i, l]``: the weighted sum of rho from point i to cluster l; ``s``:
    the clusters' weights).

    A point alone in its cluster has silhouette 0 (Rousseeuw's convention), and so
    has a point whose cluster holds only copies of it (``a = 0``): a cluster of one
    distinct point, repeated or weighted, counts as a point alone, so that the
    silhouette does not reward cutting data into their repeated values."""
    idx = np.arange(lab.size)
    others = s[lab] - w                     # weight of the other points of i's cluster
    alone = others <= 1e-12 * s[lab]
    a = sums[idx, lab] / np.where(alone, 1.0, others)
    means = sums / s
    means[idx, lab] = np.inf
    b = means.min(axis=1)
    alone |= a <= 1e-12 * b
    return np.where(alone, 0.0, (b - a) / np.maximum(np.maximum(a, b), 1e-300))


def _semimetric_params(params):
    return {p: params[p] for p in ("semimetric", "alpha", "sigma", "theta")}


def kgroups(params, k, **kw):
    """A kernel k-groups estimator of k clusters, of the class the caller handed in
    ``params["estimator"]`` (:class:`~kgroups.KernelKGroups`: the only way this package
    clusters), with the fit parameters of ``params`` unless ``kw`` sets them."""
    fit_params = {p: v for p, v in params.items() if p != "estimator"}
    return params["estimator"](int(k), **{**fit_params, **kw})


# --------------------------------------------------------------------------- fits
class _Sample:
    """One sample (X or a reference) and the fits of every k on it.

    With ``D`` (the n x n matrix of rho) the fits run on it (``semimetric=
    "precomputed"``); without it, from the coordinates with the caller's engine.
    """

    def __init__(self, Z, w, params, dense):
        self.Z, self.w, self.params = Z, w, params
        self.D = _rho_matrix(Z, params) if dense else None

    def fit(self, k, n_init, seed):
        if self.D is not None:
            est = self.params["estimator"](int(k), semimetric="precomputed",
                                           n_init=1 if k == 1 else n_init, random_state=seed)
            return est.fit(self.D, sample_weight=self.w)
        return kgroups(self.params, k, n_init=1 if k == 1 else n_init,
                       random_state=seed).fit(self.Z, sample_weight=self.w)

    def within(self, ks, n_init, rng):
        r"""``W_k`` and labels of the fit of every k. With the matrix, k = 1 needs no
        fit: :math:`W_1 = w^\top D w / (2 s)` (one cluster, TPAMI eq. 13)."""
        W, labels = np.empty(ks.size), []
        for j, k in enumerate(ks):
            seed = int(rng.integers(2**31 - 1))
            if k == 1 and self.D is not None:
                W[j] = float(self.w @ self.D @ self.w) / (2.0 * self.w.sum())
                labels.append(np.zeros(self.w.size, dtype=np.int64))
                continue
            fit = self.fit(k, n_init, seed)
            W[j] = fit.within_energy_
            labels.append(fit.labels_)
        return W, labels

    def silhouette(self, ks, labels):
        """Weighted mean silhouette of each labelling (NaN at k = 1), one pass over D."""
        return _silhouette_curve(self.Z, self.w, ks, labels, _semimetric_params(self.params),
                                 self.D)


def _rho_matrix(Z, params):
    r"""The n x n matrix of rho. The energy semimetric comes from one matrix product
    of the centred rows, :math:`\|x - y\|^2 = \|x\|^2 + \|y\|^2 - 2 x^\top y`
    (BLAS; rounding of order 1e-16 times the squared norms, which centring keeps
    small), raised to alpha / 2; the others from :func:`~kgroups.pairwise`."""
    if params["semimetric"] != "energy":
        return pairwise(Z, **_semimetric_params(params))
    Zc = Z - Z.mean(axis=0)
    sq = np.einsum("ij,ij->i", Zc, Zc)
    D = Zc @ Zc.T
    D *= -2.0
    D += sq[:, None]
    D += sq[None, :]
    np.maximum(D, 0.0, out=D)
    np.fill_diagonal(D, 0.0)
    alpha = float(params["alpha"])
    if alpha != 2.0:
        np.power(D, alpha / 2.0, out=D)
    return D


def _dense(n, params):
    """Whether the n x n matrices fit (engine "auto" or "dense" and a named semimetric)."""
    if params["engine"] not in ("auto", "dense") or callable(params["semimetric"]):
        return False
    return 2 * 8 * n * n <= MATRIX_MEMORY_FRACTION * available_memory()


def _reference_sampler(Z, w, kind):
    """A function of ``rng`` drawing reference samples as
    :func:`~kgroups._choose_k.reference_sample` does, with the principal axes of Z
    computed once for all of them."""
    if kind == "box":
        return lambda rng: reference_sample(Z, w, kind, rng)
    mean, Vt, sd = _principal_axes(Z, w)
    if kind == "moments":
        lo, hi = -np.sqrt(3.0) * sd, np.sqrt(3.0) * sd
    else:
        P = (Z - mean) @ Vt.T
        lo, hi = P.min(axis=0), P.max(axis=0)
    return lambda rng: (lo + rng.random((Z.shape[0], sd.size)) * (hi - lo)) @ Vt + mean


def standardize(X, w):
    """X with every column of positive variance centred and scaled to unit variance
    (weighted mean and variance); constant columns left out."""
    mean = w @ X / w.sum()
    sd = np.sqrt(w @ (X - mean) ** 2 / w.sum())
    keep = sd > 1e-12 * max(float(sd.max()), 1e-300)
    return (X[:, keep] - mean[keep]) / sd[keep]


# --------------------------------------------------------------------------- fits
def _fit(X, w, k, params, n_init, seed):
    """One :class:`KernelKGroups` fit (the only way this module clusters)."""
    return kgroups(params, k, n_init=1 if k == 1 else n_init,
                   random_state=seed).fit(X, sample_weight=w)


def _fits(X, w, ks, params, n_init, rng):
    """The fit with ``n_init`` restarts of every k of ``ks``."""
    return [_fit(X, w, k, params, n_init, int(rng.integers(2**31 - 1))) for k in ks]


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


