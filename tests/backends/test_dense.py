"""Dense backend (``kgroups._backends.dense``): its memory estimate."""

import numpy as np
import pytest

import kgroups._backends._memory as memory
from kgroups._backends import DenseEngine


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
