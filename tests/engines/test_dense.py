"""Dense backend (``kgroups._engines.dense``): its memory estimate."""

import numpy as np
import pytest

import kgroups._memory as memory
from kgroups._engines.dense import DenseEngine


def test_dense_estimate_counts_k(monkeypatch):
    n = 1000
    small = DenseEngine.memory_bytes(n, 5, n_clusters=2)
    big = DenseEngine.memory_bytes(n, 5, n_clusters=900)
    assert big - small == 2 * 8 * n * 898  # M and one more k x n array per extra cluster
    # the n x n kernel (8 MB) fits in 12 MiB but not with k = 900 clusters
    monkeypatch.setattr(memory, "available_memory", lambda: 12 * 2**20)
    X = np.random.default_rng(23).normal(size=(n, 5))
    with pytest.raises(ValueError, match="n_clusters=900"):
        DenseEngine.from_semimetric(X, np.ones(n), "energy", {}, n_clusters=900)
    DenseEngine.from_semimetric(X, np.ones(n), "energy", {}, n_clusters=2)


@pytest.mark.parametrize("kind", ["dense", "sparse"])
def test_restarts_sum_classes_of_points(monkeypatch, kind):
    """Restarts on an engine that holds B: one pass sums the classes of points with one
    label in every start, and each start's M equals its own build (brute force
    ``Z^T B`` here) up to rounding. With the class sums not fitting in memory, and on
    the sparse engine with classes whose sums outnumber B's entries (random starts),
    each start takes its own build."""
    import scipy.sparse as sp

    from kgroups._engines.sparse import SparseEngine

    rng = np.random.default_rng(4)
    n, k = 300, 5
    w = rng.uniform(0.5, 2.0, n)
    A = rng.normal(size=(n, n))
    A = A + A.T
    if kind == "sparse":
        A[np.abs(A) < 0.5] = 0.0  # about 72% of entries kept: G n of the near starts fit
        eng = SparseEngine.from_matrix(sp.csr_matrix(A), w, is_gram=True, n_clusters=k)
    else:
        eng = DenseEngine.from_matrix(A, w, is_gram=True, n_clusters=k)
    B = np.asarray(sp.csr_matrix(A).toarray() if kind == "sparse" else A) * np.outer(w, w)
    base_labels = rng.integers(0, k, n)
    near = []
    for _ in range(6):
        lab = base_labels.copy()
        flip = rng.choice(n, 40, replace=False)
        lab[flip] = rng.integers(0, k, 40)
        near.append(lab)
    far = [rng.integers(0, k, n) for _ in range(6)]
    far_pass = "class" if kind == "dense" else "each"
    for starts, avail, passes in ((near, None, "class"), (far, None, far_pass),
                                  (near, 1, "each")):
        if avail is not None:
            monkeypatch.setattr(memory, "available_memory", lambda: avail)
        seen = []
        build = type(eng).build_m
        monkeypatch.setattr(type(eng), "build_m",
                            lambda self, labels, kk: seen.append(kk) or build(self, labels, kk))
        for lab, M in zip(starts, eng.build_ms(starts, k)):
            Z = np.eye(k)[lab]
            np.testing.assert_allclose(M, (B @ Z).T, rtol=1e-12, atol=1e-9)
        monkeypatch.setattr(type(eng), "build_m", build)
        # one pass over the G > k classes, or one build of k clusters per start
        assert (len(seen) == 1 and seen[0] > k) if passes == "class" else seen == [k] * 6
