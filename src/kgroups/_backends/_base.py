"""The one interface every backend shares, and what ``predict`` gets from it.

An engine holds ``B = diag(w) K diag(w)`` in some form and offers

* construction: ``from_semimetric(X, w, semimetric, params, *, dtype, n_clusters,
  n_init, options)`` (raw data) and ``from_matrix(A, w, *, is_gram, dtype,
  n_clusters, n_init)`` (a precomputed semimetric, ``K = -A/2``, or Gram matrix,
  ``K = A``). ``options`` holds ``n_components``, ``landmarks`` and
  ``random_state``; a backend ignores what it does not use. A backend that
  cannot take the input raises a ValueError naming the alternative.
* ``memory_bytes(n_samples, n_features, *, n_clusters, n_init, dtype, options)``:
  what a fit allocates (the build, ``M`` and its scratch, restarts), used by
  ``engine="auto"`` and by the guard that runs before anything is allocated;
* the driver's view: ``w``, ``diag`` (``B[i, i]``), ``build_m``, ``sweep``,
  ``move_rows``, ``column`` and ``gram`` (see :mod:`kgroups._backends`);
* ``predictor(X_fit, labels, k)``: an object whose ``cross_sums(X_block)``
  returns ``(m, kxx)``, ``m[x, l] = sum_{y in C_l} w_y K(x, y)`` for new rows
  and ``kxx = K(x, x)`` (``None`` when unknown), ``block_rows`` rows at a time.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .._engine import dense as _dense
from .._engine._gain import class_signatures, sum_classes
from .._engine._parallel import pick
from .._semimetrics import pairwise_unchecked
from ._memory import check_fits, fits

__all__ = ["Engine", "MatrixPredictor", "RawDataPredictor", "PREDICT_BLOCK_BYTES",
           "cluster_sums_rows", "signatures", "HeldKernelEngine"]

# Rows of new data scored at once by ``predict``: bounds its scratch memory.
PREDICT_BLOCK_BYTES = 64 * 2**20


def cluster_sums_rows(K, w, labels, k):
    """``m[i, l] = sum_{y in C_l} w_y K[i, y]`` for a float64 block ``K`` (b x n)."""
    fn = pick(_dense.cluster_sums_rows_serial, _dense.cluster_sums_rows, K.size)
    return fn(np.ascontiguousarray(K, dtype=np.float64), w, labels, k)


def signatures(starts, k):
    """Each point's class among the points with one label in every start, and
    ``classes[c, g]``, the label of class ``c`` in start ``g`` (G x len(starts))."""
    labs = np.ascontiguousarray(np.stack([np.asarray(l, dtype=np.int64) for l in starts]))
    return class_signatures(labs, int(k))


class Engine:
    """Base class of the backends: the shared constructors' contract and ``predictor``.

    Subclasses set ``name``, implement the driver's methods and
    ``memory_bytes``; ``semimetric``/``params`` (raw data) or ``is_gram``
    (precomputed matrix) record what the kernel was built from.
    """

    name = "engine"
    semimetric = None
    params = None
    is_gram = None

    @classmethod
    def from_semimetric(cls, X, w, semimetric, params, *, dtype=np.float64, n_clusters,
                        n_init=1, options=None):
        raise ValueError(f"engine={cls.name!r} cannot be built from raw data")

    @classmethod
    def from_matrix(cls, A, w, *, is_gram, dtype=np.float64, n_clusters, n_init=1):
        raise ValueError(f"engine={cls.name!r} needs raw data, not a precomputed matrix; "
                         "use engine='dense' or engine='sparse'")

    @classmethod
    def memory_bytes(cls, n_samples, n_features, *, n_clusters, n_init=1, dtype=np.float64,
                     options=None):
        raise NotImplementedError

    @classmethod
    def check_memory(cls, n_samples, n_features, *, n_clusters, n_init=1, dtype=np.float64,
                     options=None, alternative):
        """Refuse, before allocating, a fit whose :meth:`memory_bytes` do not fit."""
        need = cls.memory_bytes(n_samples, n_features, n_clusters=n_clusters, n_init=n_init,
                                dtype=dtype, options=options)
        check_fits(need, f"engine={cls.name!r} for n_samples={n_samples}, "
                   f"n_features={n_features}, n_clusters={n_clusters}", alternative)

    def sync(self, labels, M):
        """Bring ``M`` up to date at the end of a run (engines that defer its updates)."""

    def build_ms(self, starts, k):
        """``M`` for each starting partition of ``starts``, in order (a generator):
        one :meth:`build_m` per start. :class:`HeldKernelEngine` and the
        matrix-free engine share one pass among the starts instead."""
        for labels in starts:
            yield self.build_m(labels, k)

    def predictor(self, X_fit, labels, k):
        """What ``predict`` needs after a fit on ``X_fit`` with these labels."""
        if self.semimetric is not None:
            return RawDataPredictor(X_fit, self.w, labels, k, self.semimetric, self.params)
        return MatrixPredictor(self.w, labels, k, bool(self.is_gram))


class HeldKernelEngine(Engine):
    """An engine that holds ``B`` (dense, sparse): :meth:`build_m` is one pass over
    the ``build_entries`` stored entries of ``B`` whatever the number of clusters,
    so restarts sum classes of points."""

    build_entries = 0  # stored entries of B: what one build_m reads

    def build_ms(self, starts, k):
        """``M`` for each starting partition of ``starts``, in order (a generator).

        Restarts share most of their labels: the points with one label in every
        start form G classes (:func:`signatures`). One pass over ``B`` sums each
        class (:meth:`build_m` with the classes as labels, ``S[c, i] = sum_{y in
        class c} B[i, y]``) and a start's ``M[l]`` adds the rows of ``S`` whose
        class has label ``l`` in it: G n additions in order, against a build's
        scattered additions over all of ``B``. Thirty kernel k-means++ starts of
        dermatology (k = 6) make 295-343 classes of 366 points; a start's sums
        then took 18 us against 145 us for its own build. Taken when the G n
        additions are at most one build's entries (always on the dense engine;
        on the sparse one only when the classes are few) and the G x n sums fit
        in the memory free now (``memory_bytes`` does not count them, as for the
        matrix-free engine's class pass); else one build per start. Exact: only
        the order of the additions differs from :meth:`build_m`.
        """
        n = len(starts[0])
        if len(starts) > 1:
            sig, classes = signatures(starts, k)
            G = classes.shape[0]
            if G * n <= self.build_entries and fits(8 * n * (G + k)):
                S, order = self.build_m(sig, G), np.arange(n)
                for r in range(len(starts)):
                    yield sum_classes(S, classes[:, r], k, order)
                return
        for labels in starts:
            yield self.build_m(labels, k)


class RawDataPredictor:
    """``m[x, l] = -1/2 sum_{y in C_l} w_y rho(x, y)`` (``K = -rho/2``, ``K(x, x) = 0``)
    against the training rows, by blocks of new rows (exact engines on raw data)."""

    def __init__(self, X_fit, w, labels, k, semimetric, params):
        self.X_fit = X_fit
        self.w = np.ascontiguousarray(w, dtype=np.float64)
        self.labels = np.ascontiguousarray(labels, dtype=np.int64)
        self.k = k
        self.semimetric, self.params = semimetric, dict(params)
        self.center = X_fit.mean(axis=0)
        self.block_rows = max(1, PREDICT_BLOCK_BYTES // (8 * X_fit.shape[0]))

    def cross_sums(self, Xb):
        K = pairwise_unchecked(Xb, self.X_fit, self.semimetric, center=self.center,
                               scale=-0.5, **self.params)
        return cluster_sums_rows(K, self.w, self.labels, self.k), 0.0


class MatrixPredictor:
    """The new rows are ``A(new, train)``: a Gram block (``K = A``, ``K(x, x)``
    unknown) or a semimetric block (``K = -A/2``, ``K(x, x) = 0``)."""

    def __init__(self, w, labels, k, is_gram):
        self.w = np.ascontiguousarray(w, dtype=np.float64)
        self.labels = np.ascontiguousarray(labels, dtype=np.int64)
        self.k, self.is_gram = k, is_gram
        self.block_rows = None  # all rows at once: the caller already holds them

    def cross_sums(self, Ab):
        if sp.issparse(Ab):
            Z = sp.csr_matrix((self.w, (np.arange(self.w.shape[0]), self.labels)),
                              shape=(self.w.shape[0], self.k))
            m = np.asarray((Ab @ Z).toarray(), dtype=np.float64)
        else:
            m = cluster_sums_rows(Ab, self.w, self.labels, self.k)
        if self.is_gram:
            return m, None
        return -0.5 * m, 0.0
