"""Low-rank backend: approximate kernel k-groups with m features per point.

Two ways to get features ``Phi`` (n x m) with ``Phi Phi^T ~ K``:

* **Nystrom** (any semimetric, also callables) with m landmarks ``L`` chosen
  uniformly or by k-means++ (D^2 sampling in the kernel's feature space, where
  the squared distance is ``rho``). With the base point ``x0`` = mean of the
  data, ``K0(x, y) = (rho(x, x0) + rho(y, x0) - rho(x, y)) / 2`` (paper eq. 7) is
  positive semidefinite for a semimetric of negative type, and
  ``Phi = K0(X, L) U Lambda^{-1/2}`` from ``K0(L, L) = U Lambda U^T``
  (Williams & Seeger 2001), eigenvalues below ``1e-10 lambda_max`` dropped.
* **Random Fourier features** (Rahimi & Recht 2007) for the Gaussian and
  Laplacian semimetrics: ``phi(x) = sqrt(2/m) cos(Omega^T x + b)`` with
  ``b ~ U(0, 2 pi)`` and the columns of ``Omega`` drawn from the spectral
  density of ``exp(-||d||^2 / (2 sigma^2))`` (normal, scale ``1/sigma``) or of
  ``exp(-||d|| / (2 sigma))`` (multivariate Cauchy: ``g / (2 sigma |z|)`` with
  ``g ~ N(0, I)``, ``z ~ N(0, 1)``).

The engine clusters with ``Kt(x, y) = phi(x) . phi(y) - (K(x, x) + K(y, y)) / 2``
(exact diagonal of the kernel approximated), which has the same partitions as
``Phi Phi^T``; its ``-Q`` = ``sum_i w_i K(x_i, x_i) - sum_l ||S_l||^2 / s_l``
estimates the exact W. Memory
O(n m); a point's gains cost O(k m) and a move O(m)
(:mod:`kgroups._kernels.feature_space`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._kernels import feature_space as _lr
from .._kernels.bounds import refresh_bounds
from .._kernels.jit import kernel_array
from .._kernels.parallel import workers
from .._semimetrics import pairwise_unchecked as pairwise, robust_center
from .._validation import Integer, InvalidParameterError, as_seed
from .engine import PREDICT_BLOCK_BYTES, Bounds, Capabilities, Engine, RunState
from .._memory import check_fits

LANDMARKS = ("k-means++", "uniform", "fourier")
# Semimetrics whose kernel has random Fourier features (landmarks="fourier").
FOURIER_SEMIMETRICS = ("gaussian", "laplacian")
# Rows of X turned into features at once (bounds the scratch memory).
BLOCK_ROWS = 32768
# Sweeps skip the points a bound proves cannot move (same moves; see sweep_run) where a
# sweep's gains cost at least this many multiply-adds (n k m): below it a plain sweep
# costs little, and a fit that never needs the bounds' kernels does not compile them
# (the neighbourhood graph's fits, m = k columns, on a few thousand points).
BOUNDS = True
BOUNDS_MIN_WORK = 1_000_000
# k-means++ landmarks are seeded on at most this many points.
SEED_SAMPLE = 20000


def kpp_from_sample(sub, m, rng, semimetric, params):
    """``m`` landmarks by D^2 sampling among the rows of ``sub``."""
    c = robust_center(sub)
    idx = [int(rng.integers(sub.shape[0]))]
    dist = pairwise(sub, sub[idx], semimetric, center=c, **params)[:, 0]
    for _ in range(1, m):
        tot = dist.sum()
        if not tot > 0:
            break
        nxt = int(rng.choice(sub.shape[0], p=dist / tot))
        idx.append(nxt)
        d = pairwise(sub, sub[nxt:nxt + 1], semimetric, center=c, **params)[:, 0]
        np.minimum(dist, d, out=dist)
    return sub[np.array(idx)]


class NystroemMap:
    """``x -> K0(x, L) U Lambda^{-1/2}``: the Nystrom feature map (see module docstring)."""

    def __init__(self, L, c, semimetric, params):
        self.L, self.c, self.semimetric, self.params = L, c, semimetric, params
        self.r0L = self._rho0(L)
        KLL = 0.5 * (self.r0L[:, None] + self.r0L[None, :]
                     - pairwise(L, None, semimetric, center=c, **params))
        lam, U = np.linalg.eigh(0.5 * (KLL + KLL.T))
        keep = lam > 1e-10 * max(lam.max(), 0.0)
        self.T = U[:, keep] / np.sqrt(lam[keep])

    def kdiag(self, X):
        """``K0(x, x) = rho(x, x0)`` for every row (blocked)."""
        return np.concatenate([self._rho0(X[a:a + BLOCK_ROWS])
                               for a in range(0, X.shape[0], BLOCK_ROWS)])

    def _rho0(self, Xb):
        return pairwise(Xb, self.c[None, :], self.semimetric, center=self.c, **self.params)[:, 0]

    def raw(self, Xb):
        """``K0(x, L)`` for every row (n_rows x m): the features before the projection."""
        K = pairwise(Xb, self.L, self.semimetric, center=self.c, scale=-1.0, **self.params)
        K += self._rho0(Xb)[:, None]
        K += self.r0L[None, :]
        K *= 0.5
        return K

    def project(self, R, out=None):
        """Features from :meth:`raw`: ``R T``."""
        return np.matmul(R, self.T, out=out)

    def dual(self, S):
        """``S T^T``: ``phi . S_l = raw(x) . dual(S)_l``, so gains need no projection."""
        return S @ self.T.T

    def __call__(self, Xb, out=None):
        return self.project(self.raw(Xb), out=out)


class FourierMap:
    """``x -> sqrt(2/m) cos(Omega^T (x - c) + b)``: random Fourier features."""

    def __init__(self, d, m, semimetric, sigma, c, rng):
        G = rng.standard_normal((d, m))
        if semimetric == "gaussian":
            self.Omega = G / sigma
        else:
            self.Omega = G / (2.0 * sigma * np.abs(rng.standard_normal(m)))
        self.b = rng.uniform(0.0, 2.0 * np.pi, m)
        self.c = c

    def kdiag(self, X):
        """``K(x, x) = 1``."""
        return np.ones(X.shape[0])

    def __call__(self, Xb, out=None):
        out = np.matmul(Xb - self.c, self.Omega, out=out)
        out += self.b
        np.cos(out, out=out)
        out *= np.sqrt(2.0 / self.Omega.shape[1])
        return out

    def raw(self, Xb):
        """The features themselves (no projection)."""
        return self(Xb)

    def project(self, R, out=None):
        """Identity: random Fourier features need no projection."""
        if out is None:
            return R
        out[...] = R
        return out

    def dual(self, S):
        """Identity (see :meth:`NystroemMap.dual`)."""
        return S


def _apply_map(fmap, X, m):
    F = np.empty((X.shape[0], m))
    for a in range(0, X.shape[0], BLOCK_ROWS):
        fmap(X[a:a + BLOCK_ROWS], out=F[a:a + BLOCK_ROWS])
    return F


def nystroem_map(X, m, semimetric, params, landmarks="k-means++", rng=None, *, rows=None):
    """The Nystrom map with ``min(m, n)`` landmarks chosen uniformly or by k-means++.

    ``rows(index) -> ndarray`` lets a caller whose ``X`` is not in memory (a dask
    array) supply the sampled rows: the random stream, and so the landmarks, are
    those of an in-memory ``X``. The base point ``x0`` of the kernel (eq. 7) is the
    robust centre of the landmarks (:func:`~kgroups._semimetrics.robust_center`):
    near the bulk of the data whatever a few far rows do (a mean dragged towards an
    outlier at 1e20 would make ``rho(x, x0)`` huge and ``K0`` lose every digit to
    cancellation), and the same in memory and on Dask.
    """
    rng = np.random.default_rng(0) if rng is None else rng
    rows = (lambda idx: X[idx]) if rows is None else rows
    n = X.shape[0]
    m = min(m, n)
    if landmarks == "uniform":
        L = rows(rng.choice(n, m, replace=False))
    else:
        sub = rows(slice(None)) if n <= SEED_SAMPLE else rows(
            rng.choice(n, SEED_SAMPLE, replace=False))
        L = kpp_from_sample(sub, m, rng, semimetric, params)
    return NystroemMap(L, robust_center(L), semimetric, params)


def nystroem_features(X, m, semimetric, params, landmarks="k-means++", rng=None):
    """Nystrom features ``Phi`` (n x m') with ``Phi Phi^T ~ K0``, ``m' <= m``.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    m : int
        Number of landmarks.
    semimetric : str or callable
    params : dict
        ``alpha``, ``sigma``, ``theta``.
    landmarks : {"k-means++", "uniform"}
    rng : numpy Generator

    Returns
    -------
    Phi : ndarray of shape (n_samples, m')

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(30, 2))
    >>> F = nystroem_features(X, 30, "energy", {}, "uniform", np.random.default_rng(1))
    >>> rho = ((F[:, None] - F[None]) ** 2).sum(-1)
    >>> float(np.abs(rho - pairwise(X)).max()) < 1e-6
    True
    """
    fmap = nystroem_map(X, m, semimetric, params, landmarks, rng)
    return _apply_map(fmap, X, fmap.T.shape[1])


def fourier_map(X, m, semimetric, sigma, rng=None, *, center=None):
    """Random Fourier feature map for the Gaussian or Laplacian semimetric; the phases
    are taken at ``x - center`` (``center``: the robust centre of ``X``, or the one a
    caller whose ``X`` is not in memory computed), so that ``cos`` sees small arguments
    for the bulk of the data."""
    if semimetric not in FOURIER_SEMIMETRICS:
        raise ValueError(f"landmarks='fourier' needs semimetric 'gaussian' or 'laplacian', "
                         f"got semimetric={semimetric!r}; use landmarks='k-means++'")
    rng = np.random.default_rng(0) if rng is None else rng
    return FourierMap(X.shape[1], m, semimetric, sigma,
                      robust_center(X) if center is None else center, rng)


def fourier_features(X, m, semimetric, sigma, rng=None):
    """Random Fourier features for ``exp(-||d||^2/(2 sigma^2))`` or ``exp(-||d||/(2 sigma))``.

    ``K = 1 - rho/2`` for the Gaussian and Laplacian semimetrics, so
    ``Phi Phi^T ~ K`` gives the same partitions as ``-rho/2``.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(5, 2))
    >>> F = fourier_features(X, 20000, "gaussian", 1.0, np.random.default_rng(1))
    >>> K = 1 - pairwise(X, semimetric="gaussian") / 2
    >>> float(np.abs(F @ F.T - K).max()) < 0.05
    True
    """
    return _apply_map(fourier_map(X, m, semimetric, sigma, rng), X, m)


class FeatureSums:
    """What ``predict`` needs after a low-rank fit: the feature map and the clusters'
    sums in feature space (``S`` k x m, ``A`` and ``s`` of length k).

    For a new point ``x`` (weight 1) with features ``phi = fmap(x)`` and
    ``a = K(x, x) / 2``, :meth:`cross_sums` gives what an exact engine gets from
    the kernel column: ``m[l] = phi . S_l - a s_l - A_l`` (the sum of the engine
    kernel ``Kt(x, y) = phi . phi_y - a - a_y`` over cluster ``l``) and
    ``Kt(x, x) = ||phi||^2 - 2 a``, in O(k m) per point and no access to the
    training data.
    """

    device_rows = False  # new rows in host memory only

    def __init__(self, fmap, S, A, s, n_features_in):
        self.fmap, self.S, self.A, self.s = fmap, S, A, s
        self.center = fmap.c  # the map measures new rows from its centre
        self.n_features = S.shape[1]
        self.block_rows = max(1, PREDICT_BLOCK_BYTES // (8 * (self.n_features + n_features_in + 1)))

    def cross_sums(self, Xb):
        """``(m, kxx)``: shapes (n_rows, k) and (n_rows,)."""
        F = self.fmap(np.asarray(Xb, dtype=np.float64))
        a = 0.5 * self.fmap.kdiag(Xb)
        m = F @ self.S.T
        m -= a[:, None] * self.s[None, :]
        m -= self.A[None, :]
        return m, np.einsum("ij,ij->i", F, F) - 2.0 * a


def check_landmarks(semimetric, landmarks, owner):
    """Refuse ``landmarks="fourier"`` for a semimetric without random Fourier features."""
    if landmarks == "fourier" and semimetric not in FOURIER_SEMIMETRICS:
        raise ValueError(
            f"{owner}: landmarks='fourier' (random Fourier features) needs semimetric in "
            f"{FOURIER_SEMIMETRICS}, got semimetric={semimetric!r}; use "
            "landmarks='k-means++' or 'uniform' (Nystrom)")


@dataclass
class FeatureRunState(RunState):
    """Hartigan runs of the low-rank engine: besides ``M``, each run's cluster feature
    sums ``S[r]`` (k x m) and ``A[r]`` (k), ``sn2[r][l] = ||S_l||^2``, and
    ``stale[r]``: whether ``M[r]`` lags the sums (moves update the sums only)."""

    S: np.ndarray | None = None
    A: np.ndarray | None = None
    sn2: np.ndarray | None = None
    stale: np.ndarray | None = None


class LowRankEngine(Engine):
    """Approximate engine: Hartigan moves on m features per point (O(n m) memory).

    Parameters
    ----------
    F : ndarray of shape (n_samples, m)
        Features, ``Phi Phi^T ~ K``.
    w : ndarray of shape (n_samples,)
    kdiag : ndarray of shape (n_samples,), optional
        The exact ``K(x_i, x_i)``; the engine's kernel is then
        ``phi_i . phi_y - (K_ii + K_yy) / 2`` (same partitions) and its ``-Q``
        estimates the exact W. Default ``||phi_i||^2`` (feature-space W).

    Examples
    --------
    >>> import numpy as np
    >>> from kgroups._driver import run_starts
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(0, 1, (100, 2)), rng.normal(8, 1, (100, 2))])
    >>> eng = LowRankEngine.from_semimetric(X, np.ones(200), "energy", {}, n_clusters=2,
    ...                                     options={"n_components": 32})
    >>> run = run_starts(eng, [rng.integers(0, 2, 200)], 2)
    >>> sorted(np.bincount(run.labels).tolist())
    [100, 100]
    """

    name = "low-rank"
    capabilities = Capabilities(
        exact=False, inputs=("raw data", "feature columns"), semimetrics="negative type",
        memory="n_components features per point, O(n m)", exact_on=("feature columns",))
    state_class = FeatureRunState
    # The engine kernel is the Gram matrix of the features up to shifts.
    negative_type = True

    @classmethod
    def check_input(cls, *, semimetric, kernel, sparse_input, landmarks, what, owner):
        """Random Fourier features exist for the Gaussian and Laplacian kernels only (a
        semimetric this engine does not take is refused by the generic checks)."""
        if cls.capabilities.takes("raw data", semimetric):
            check_landmarks(semimetric, landmarks, owner)
    sample_start = "large"

    def __init__(self, F, w, kdiag=None):
        self.F = np.ascontiguousarray(F, dtype=np.float64)
        self.w = kernel_array(w, np.float64)
        sq = np.einsum("ij,ij->i", self.F, self.F)
        self.a = 0.5 * (sq if kdiag is None else np.asarray(kdiag, dtype=np.float64))
        self.diag = self.w * self.w * (sq - 2.0 * self.a)
        # ||phi_i - mu_l||^2 = base_i + e_l - 2 M[l, i] / (w_i s_l) (see sweep)
        self._base = sq - 2.0 * self.a
        self._base_abs = sq + 2.0 * np.abs(self.a)
        self.feature_map = None  # callable X_new -> features, set by from_semimetric

    @classmethod
    def memory_bytes(cls, n_samples, n_features, *, n_clusters, n_init=1, dtype=np.float64,
                     options=None):
        """Features (n x m), the feature map's block scratch and landmark kernel, the
        cluster sums (k x m), ``M`` and the k x n temporary that refreshes it, and
        n-sized vectors (weights, diagonal, labels, the sweeps' bounds)."""
        n, d, k = int(n_samples), int(n_features), int(n_clusters)
        m = min(int((options or {}).get("n_components", 256)), n)
        block = min(n, BLOCK_ROWS)
        return 8 * (n * (m + 2 * k + 12) + 2 * block * (m + d) + 3 * m * m + k * m
                    + min(n, SEED_SAMPLE) * d)

    @classmethod
    def from_semimetric(cls, X, w, semimetric, params, *, dtype=np.float64, n_clusters,
                        n_init=1, options=None):
        """Features from raw data (see module docstring); ``dtype`` is ignored.

        ``options``: ``n_components`` (m, default 256), ``landmarks`` (default
        ``"k-means++"``) and ``random_state``.
        """
        options = dict(options or {})
        n_components = options.get("n_components", 256)
        landmarks = options.get("landmarks", "k-means++")
        if landmarks not in LANDMARKS:
            raise ValueError(f"landmarks={landmarks!r} should be one of {LANDMARKS}")
        if not Integer(1)(n_components):
            raise InvalidParameterError(
                f"n_components={n_components!r} should be {Integer(1)}")
        n = X.shape[0]
        # at most one feature per point: n landmarks reproduce the kernel on the data,
        # and more features than points would cost more than the exact engines
        n_components = options["n_components"] = min(int(n_components), n)
        cls.check_memory(n, X.shape[1], n_clusters=n_clusters, n_init=n_init, options=options,
                         alternative="a smaller n_components or fewer clusters")
        rng = np.random.default_rng(as_seed(options.get("random_state")))
        if landmarks == "fourier":
            fmap = fourier_map(X, n_components, semimetric, params.get("sigma", 1.0), rng)
            m = n_components
        else:
            fmap = nystroem_map(X, n_components, semimetric, params, landmarks, rng)
            m = fmap.T.shape[1]
        eng = cls(_apply_map(fmap, X, m), w, fmap.kdiag(X))
        eng.feature_map = fmap
        return eng

    @classmethod
    def from_features(cls, F, w, feature_map, *, n_clusters, n_init=1):
        """The exact engine of the kernel ``F F^T`` (a semimetric built from the data,
        :mod:`kgroups._semimetrics.neighbors`): the features are the kernel, so the
        runs are those of any exact engine; ``feature_map`` places new rows."""
        n, m = F.shape
        cls.check_memory(n, 1, n_clusters=n_clusters, n_init=n_init,
                         options={"n_components": m}, alternative="fewer samples")
        eng = cls(F, w, feature_map.kdiag(F))
        eng.feature_map = feature_map
        return eng

    def predictor(self, X_fit, result):
        """:class:`FeatureSums` of a partition: new points get features from the fit's map."""
        labels = np.asarray(result.labels, dtype=np.int64)
        k = result.s.shape[0]
        S, A = self._sums(labels, k)
        return FeatureSums(self.feature_map, S, A,
                           np.bincount(labels, weights=self.w, minlength=k), X_fit.shape[1])

    def _sums(self, labels, k):
        return _lr.cluster_sums_lr(self.F, self.a, self.w, labels, k)

    def _m_from(self, S, A, s):
        M = S @ self.F.T
        M -= s[:, None] * self.a[None, :]
        M -= A[:, None]
        M *= self.w[None, :]
        return M

    def extend(self, idx, Xs, ws, labels, k):
        """Every point's nearest mean in feature space, the means being those of the
        clusters ``labels`` of the sample points ``idx`` (the sample start):
        ``argmin_l ||mu_l||^2 - 2 phi_i . mu_l``, O(n k m) (the shifts ``a`` do not
        change the order). A cluster empty in the sample attracts no point."""
        idx = np.arange(self.F.shape[0]) if idx is None else idx
        labels = np.asarray(labels, dtype=np.int64)
        w = self.w[idx]
        S, _ = _lr.cluster_sums_lr(self.F[idx], self.a[idx], w, labels, k)
        s = np.bincount(labels, weights=w, minlength=k)
        mu = S / np.where(s > 0, s, 1.0)[:, None]
        far = np.where(s > 0, np.einsum("ij,ij->i", mu, mu), np.inf)
        out = np.empty(self.F.shape[0], dtype=np.int64)
        for a in range(0, out.shape[0], BLOCK_ROWS):
            b = min(out.shape[0], a + BLOCK_ROWS)
            out[a:b] = np.argmin(far[None, :] - 2.0 * (self.F[a:b] @ mu.T), axis=1)
        return out

    def build_m(self, labels, k):
        """``M[l, i] = w_i (phi_i . S_l - a_i s_l - A_l)``, shape (k, n): O(n k m)."""
        labels = np.asarray(labels, dtype=np.int64)
        S, A = self._sums(labels, k)
        s = np.bincount(labels, weights=self.w, minlength=k)
        return self._m_from(S, A, s)

    def begin(self, state):
        """Hartigan runs sweep on their clusters' feature sums ``S``, ``A`` (and
        ``||S_l||^2``), kept on the :class:`FeatureRunState`, with skip bounds."""
        if state.rule != "hartigan":
            return
        R, k = state.s.shape
        sums = [self._sums(state.labels[r], k) for r in range(R)]
        state.S = np.stack([p[0] for p in sums])
        state.A = np.stack([p[1] for p in sums])
        state.sn2 = np.stack([np.einsum("ij,ij->i", p[0], p[0]) for p in sums])
        state.stale = np.zeros(R, dtype=bool)
        state.bounds = Bounds.unknown(R, self.F.shape[0], k)

    def sweep_run(self, state, r):
        """One sweep of run ``r`` on its cluster sums (O(k m) per point evaluated);
        ``M`` is refreshed by :meth:`sync` when the runs end.

        With ``BOUNDS`` (default) and gains of at least ``BOUNDS_MIN_WORK`` multiply-adds
        a sweep, points that a bound proves cannot move are skipped
        (:func:`~kgroups._kernels.feature_space.sweep_lowrank_bounded`): the same moves
        as the plain sweep, at a cost that falls with the number of points still near
        a boundary. Each sweep starts from exact bounds
        (:meth:`_refresh_bounds`, one matrix product); within the sweep they widen
        with each move.
        """
        b = state.bounds
        args = (self.F, self.a, self.w, self.diag, state.labels[r], state.S[r], state.A[r],
                state.s[r], state.q[r], state.cnt[r])
        if BOUNDS and self.F.size * state.s.shape[1] >= BOUNDS_MIN_WORK:
            self._refresh_bounds(state, r)
            moves, _ = _lr.sweep_lowrank_bounded(*args, state.sn2[r], b.up[r], b.lo[r],
                                                 b.own[r], b.all[r], b.drift[r])
        else:
            moves = _lr.sweep_lowrank(*args)
        state.stale[r] |= moves > 0
        return moves

    def _refresh_bounds(self, state, r):
        """Run ``r``'s ``M`` from its cluster sums (one matrix product, O(n k m)) and
        every point's exact bounds from it
        (:func:`~kgroups._kernels.bounds.refresh_bounds`, O(n k)): with ``mu_l = S_l /
        s_l`` and ``M[l, i] / w_i = phi_i . S_l - a_i s_l - A_l``, ``||phi_i - mu_l||^2
        = (|phi_i|^2 - 2 a_i) + (|S_l|^2 / s_l^2 - 2 A_l / s_l) - 2 M[l, i] / (w_i
        s_l)``."""
        b, s = state.bounds, state.s[r]
        if state.stale[r]:
            state.M[r] = self._m_from(state.S[r], state.A[r], s)
            state.stale[r] = False
        pos = np.where(s > 0, s, 1.0)
        mu2, ma = state.sn2[r] / pos ** 2, 2.0 * state.A[r] / pos
        n, k = self.F.shape[0], s.shape[0]
        refresh_bounds(state.M[r], state.labels[r], self.w, s, self._base, self._base_abs,
                       mu2 - ma, mu2 + np.abs(ma), b.up[r], b.lo[r], b.own[r], b.all[r],
                       b.drift[r], workers(n * k))

    def sync(self, state):
        """Bring each run's ``M`` up to date with its sweeps' moves (O(n k m) a run)."""
        if state.stale is None:  # Lloyd's runs keep M itself up to date
            return
        k = state.s.shape[1]
        for r in np.flatnonzero(state.stale):
            state.M[r] = self._m_from(state.S[r], state.A[r], np.bincount(
                state.labels[r], weights=self.w, minlength=k))
            state.stale[r] = False

    def move_rows(self, points, old, new, M):
        """Apply a batch of moves to ``M`` (kernel k-means): O(n k m)."""
        k = M.shape[0]
        wp = self.w[points]
        dS = np.zeros((k, self.F.shape[1]))
        np.add.at(dS, old, -wp[:, None] * self.F[points])
        np.add.at(dS, new, wp[:, None] * self.F[points])
        ds = np.bincount(new, weights=wp, minlength=k) - np.bincount(old, weights=wp, minlength=k)
        wa = wp * self.a[points]
        dA = np.bincount(new, weights=wa, minlength=k) - np.bincount(old, weights=wa, minlength=k)
        M += self._m_from(dS, dA, ds)

    def column(self, c):
        """Column ``c`` of the unweighted engine kernel ``Kt``."""
        return self.F @ self.F[c] - self.a - self.a[c]

    def gram(self):
        """Dense approximate kernel ``Kt`` (small problems only)."""
        n = self.F.shape[0]
        check_fits(8 * n * n, f"the dense Gram matrix for n={n} (spectral init)",
                   "init='k-means++'")
        return self.F @ self.F.T - self.a[:, None] - self.a[None, :]
