"""Sparse backend: ``B = diag(w) K diag(w)`` held as a CSR matrix.

Memory O(nnz); building ``M`` is one pass over the nnz; a move of point ``i``
costs O(nnz of row i) (O(degree) for a graph kernel such as ``-H_r``).
"""

from __future__ import annotations

import numpy as np

from .._kernels import held_sparse as _sparse
from .._kernels.jit import kernel_array
from .._kernels.parallel import workers
from .._sparse import issparse
from .engine import Capabilities, HeldKernelEngine, abs_max
from .._memory import check_fits


class SparseEngine(HeldKernelEngine):
    """Exact engine holding a symmetric sparse ``B`` (CSR, float64 or float32).

    Only a precomputed sparse *Gram* matrix makes sense here: the kernel of a
    sparse semimetric, ``K = -rho/2`` with ``rho = 0`` off the stored entries,
    would read the missing distances as 0 (identical points), and turning it into
    a proper kernel ``K(x, y) = (rho(x, x0) + rho(y, x0) - rho(x, y)) / 2`` fills
    every entry. Graph kernels (the negative Bethe Hessian, an adjacency matrix,
    a kNN affinity) are Gram matrices.

    Parameters
    ----------
    B : scipy.sparse matrix of shape (n, n)
        Symmetric weighted kernel ``diag(w) K diag(w)``; converted to CSR with
        sorted indices and no duplicates.
    w : ndarray of shape (n,)
        Positive point weights.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> K = sp.csr_matrix(np.array([[0., 1, 0], [1, 0, 0], [0, 0, 0]]))
    >>> eng = SparseEngine.from_matrix(K, np.ones(3), is_gram=True, n_clusters=2)
    >>> eng.build_m(np.array([0, 0, 1]), 2).tolist()
    [[1.0, 1.0, 0.0], [0.0, 0.0, 0.0]]
    """

    name = "sparse"
    capabilities = Capabilities(
        exact=True, inputs=("sparse matrix",), semimetrics="any",
        memory="the stored entries of a sparse Gram matrix, O(nnz)")
    is_gram = True  # only Gram matrices (see above): predict takes K(new, train) blocks

    def __init__(self, B, w):
        import scipy.sparse as sp  # imported here: the package's other engines do not need it

        B = sp.csr_matrix(B)
        B.sum_duplicates()
        B.sort_indices()
        self.B = B
        self.build_entries = B.nnz
        self.w = kernel_array(w, np.float64)
        self.diag = np.ascontiguousarray(B.diagonal(), dtype=np.float64)

    @classmethod
    def check_input(cls, *, semimetric, kernel, sparse_input, landmarks, what, owner):
        """The sparse engine holds a sparse Gram matrix (``kernel="precomputed"``)."""
        if sparse_input and kernel == "precomputed":
            return
        if kernel == "precomputed":
            got, hint = ("a dense Gram matrix", "pass scipy.sparse.csr_matrix(X) when it is "
                         "mostly zeros, or use engine='dense'")
        elif semimetric == "precomputed":
            got = (f"a {'scipy.sparse' if sparse_input else 'NumPy'} semimetric matrix "
                   "(semimetric='precomputed')")
            hint = ("its kernel K = -rho/2 needs every pair (a missing entry would mean "
                    "rho = 0): use engine='dense', or pass a sparse Gram matrix with "
                    "kernel='precomputed'")
        else:
            got, hint = what, ("its kernel is dense n x n (every pair has a distance): use "
                               "engine='dense', engine='matrix-free' or engine='auto'")
        raise ValueError(f"{owner}: engine='sparse' needs a scipy.sparse precomputed Gram "
                         f"matrix (kernel='precomputed'), got {got}; {hint}")

    @classmethod
    def memory_bytes(cls, n_samples, n_features, *, n_clusters, n_init=1, dtype=np.float64,
                     options=None):
        """The CSR copy of ``B`` (``options["nnz"]`` stored entries, default n; twice
        while weights are applied), ``M`` (k x n) and n-sized vectors."""
        n = int(n_samples)
        nnz = int((options or {}).get("nnz", n))
        csr = nnz * (np.dtype(dtype).itemsize + 8) + 8 * (n + 1)
        return 3 * csr + 8 * n * (n_clusters + 8)

    @classmethod
    def from_semimetric(cls, X, w, semimetric, params, *, dtype=np.float64, n_clusters,
                        n_init=1, options=None):
        """Not available: raw data with a semimetric gives a dense kernel."""
        raise ValueError(
            "engine='sparse' needs a sparse precomputed Gram matrix "
            "(kernel='precomputed' with a scipy.sparse X); raw data with "
            f"semimetric={semimetric!r} gives a dense n x n kernel: use engine='dense' "
            "or engine='auto'")

    @classmethod
    def from_matrix(cls, A, w, *, is_gram, dtype=np.float64, n_clusters, n_init=1):
        """From a sparse precomputed Gram matrix ``K = A``: ``B = diag(w) A diag(w)``.

        A sparse *semimetric* is refused (see the class docstring): its kernel is
        dense.
        """
        if not is_gram:
            raise ValueError(
                "a sparse semimetric matrix gives a dense kernel (the missing entries "
                "would mean rho = 0, and K = -rho/2 needs every pair): pass a sparse "
                "Gram matrix with kernel='precomputed', or a dense semimetric matrix")
        if not issparse(A):
            raise ValueError(f"engine='sparse' needs a scipy.sparse matrix, got {type(A).__name__}")
        cls.check_memory(A.shape[0], A.shape[1], n_clusters=n_clusters, n_init=n_init,
                         dtype=dtype, options={"nnz": A.nnz},
                         alternative="a sparser kernel (fewer stored entries) or fewer clusters")
        import scipy.sparse as sp  # already loaded: A is one of its matrices

        w = np.asarray(w, dtype=np.float64)
        B = sp.csr_matrix(A, dtype=np.dtype(dtype), copy=True)
        kernel_max = abs_max(B)
        if not np.all(w == 1.0):
            B = sp.csr_matrix(sp.diags(w) @ B @ sp.diags(w), dtype=np.dtype(dtype))
        eng = cls(B, w)
        eng.kernel_max = kernel_max
        return eng

    def build_m(self, labels, k):
        B = self.B
        return _sparse.build_m_sparse(B.indptr, B.indices, B.data,
                                      np.ascontiguousarray(labels, dtype=np.int64), k,
                                      workers(B.nnz))

    def sweep_run(self, state, r):
        """One Hartigan sweep of run ``r``: O(n k) gains, O(nnz of the row) per move."""
        B = self.B
        return _sparse.sweep_sparse(B.indptr, B.indices, B.data, self.w, self.diag,
                                    state.labels[r], state.M[r], state.s[r], state.q[r],
                                    state.cnt[r])

    def move_rows(self, points, old, new, M):
        B = self.B
        _sparse.move_rows_sparse(B.indptr, B.indices, B.data,
                                 np.asarray(points, dtype=np.int64),
                                 np.asarray(old, dtype=np.int64),
                                 np.asarray(new, dtype=np.int64), M)

    def column(self, c):
        """Column ``c`` of the unweighted kernel ``K`` as a dense float64 vector."""
        B = self.B
        out = np.zeros(B.shape[0])
        lo, hi = B.indptr[c], B.indptr[c + 1]
        idx = B.indices[lo:hi]
        out[idx] = B.data[lo:hi] / (self.w[idx] * self.w[c])
        return out

    def gram(self):
        """The unweighted kernel ``K`` as a dense float64 array (small problems only)."""
        n = self.B.shape[0]
        check_fits(8 * n * n, f"a dense copy of the sparse kernel for n={n}",
                   "an initialisation that does not need the dense Gram matrix "
                   "(init='k-means++' or given labels)")
        return self.B.toarray().astype(np.float64) / np.outer(self.w, self.w)
