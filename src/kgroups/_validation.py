"""Input checks shared by the estimators: each error names the value and what was expected."""

from __future__ import annotations

import numbers

import numpy as np
import scipy.sparse as sp


def check_n_clusters(n_clusters, n_samples, owner="KernelKGroups"):
    """``1 <= n_clusters <= n_samples`` as an integer."""
    if isinstance(n_clusters, bool) or not isinstance(n_clusters, numbers.Integral):
        raise ValueError(
            f"{owner}: n_clusters={n_clusters!r} should be an integer >= 1"
        )
    if n_clusters < 1:
        raise ValueError(f"{owner}: n_clusters={n_clusters} should be >= 1")
    if n_samples < n_clusters:
        raise ValueError(
            f"{owner}: n_samples={n_samples} should be >= n_clusters={n_clusters}"
        )
    return int(n_clusters)


def check_int_param(name, value, low, owner):
    """An integer parameter ``>= low``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
        raise ValueError(f"{owner}: {name}={value!r} should be an integer >= {low}")
    return int(value)


def check_sample_weight(sample_weight, n_samples, owner="KernelKGroups"):
    """Float64 weights of shape (n_samples,), finite and > 0 (default: ones)."""
    if sample_weight is None:
        return np.ones(n_samples)
    if isinstance(sample_weight, numbers.Real):
        w = np.full(n_samples, float(sample_weight))
    else:
        w = np.asarray(sample_weight, dtype=np.float64)
    if w.ndim != 1 or w.shape[0] != n_samples:
        raise ValueError(
            f"{owner}: sample_weight has shape {w.shape}, expected ({n_samples},)"
        )
    bad = ~np.isfinite(w) | (w <= 0)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"{owner}: sample_weight[{i}]={float(w[i])!r}; weights should be finite and "
            "> 0 (no zero, negative, NaN or inf weight)"
        )
    return w


def check_square_symmetric(A, what, owner="KernelKGroups", rtol=1e-10):
    """A finite, square, symmetric matrix (dense or sparse) as float64."""
    if sp.issparse(A):
        A = sp.csr_matrix(A, dtype=np.float64)
        data = A.data
    else:
        A = np.asarray(A, dtype=np.float64)
        data = A
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise ValueError(f"{owner}: a precomputed {what} should be square, got shape {A.shape}")
    if not np.all(np.isfinite(data)):
        raise ValueError(f"{owner}: the precomputed {what} contains NaN or inf")
    diff = abs(A - A.T)
    worst = diff.max() if diff.shape[0] else 0.0
    scale = abs(A).max() if A.shape[0] else 0.0
    if worst > rtol * max(scale, 1e-300):
        if sp.issparse(diff):
            diff = diff.tocoo()
            t = int(np.argmax(diff.data))
            i, j = int(diff.row[t]), int(diff.col[t])
        else:
            i, j = np.unravel_index(int(np.argmax(diff)), diff.shape)
        raise ValueError(
            f"{owner}: the precomputed {what} should be symmetric, but "
            f"X[{i}, {j}]={float(A[i, j])!r} != X[{j}, {i}]={float(A[j, i])!r}"
        )
    return A


def check_init_labels(labels, n_samples, n_clusters, owner="KernelKGroups"):
    """Given starting labels: integers in [0, n_clusters), one per sample."""
    lab = np.asarray(labels)
    if lab.ndim != 1 or lab.shape[0] != n_samples:
        raise ValueError(
            f"{owner}: init labels have shape {lab.shape}, expected ({n_samples},)"
        )
    if not np.issubdtype(lab.dtype, np.integer):
        if not np.all(np.isfinite(lab)) or np.any(lab != np.round(lab)):
            raise ValueError(f"{owner}: init labels should be integers, got dtype {lab.dtype}")
    lab = lab.astype(np.int64)
    if lab.min() < 0 or lab.max() >= n_clusters:
        raise ValueError(
            f"{owner}: init labels should lie in [0, {n_clusters - 1}], "
            f"got min={lab.min()} max={lab.max()}"
        )
    return lab
