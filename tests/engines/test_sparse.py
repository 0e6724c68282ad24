"""Sparse backend (``kgroups._engines.sparse``): full runs against the dense backend,
``from_matrix``, float32 storage and errors.
"""

import numpy as np
import pytest
import scipy.sparse as sp

from kgroups import KernelKGroups
from kgroups._engines.dense import DenseEngine
from kgroups._engines.sparse import SparseEngine

from tests._helpers import random_sparse_B, single_run


def test_engines_agree_on_full_runs():
    rng = np.random.default_rng(11)
    B, w = random_sparse_B(80, 0.08, rng, rng.uniform(0.5, 2, 80))
    lab0 = rng.integers(0, 4, 80)
    run_s = single_run(SparseEngine(B, w), lab0, 4, 100)
    run_d = single_run(DenseEngine(B.toarray(), w), lab0, 4, 100)
    np.testing.assert_array_equal(run_s.labels, run_d.labels)
    assert run_s.objective == pytest.approx(run_d.objective, rel=1e-12)
    assert run_s.converged


def test_from_matrix_weights_and_views():
    rng = np.random.default_rng(13)
    K, _ = random_sparse_B(25, 0.2, rng)
    w = rng.uniform(0.5, 2.0, 25)
    eng = SparseEngine.from_matrix(K, w, is_gram=True, n_clusters=3)
    Kd = K.toarray()
    np.testing.assert_allclose(eng.B.toarray(), Kd * np.outer(w, w), rtol=1e-14)
    np.testing.assert_allclose(eng.diag, np.diagonal(Kd) * w * w, rtol=1e-14)
    np.testing.assert_allclose(eng.column(4), Kd[:, 4], rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(eng.gram(), Kd, rtol=1e-12, atol=1e-14)
    e32 = SparseEngine.from_matrix(K, w, is_gram=True, dtype=np.float32, n_clusters=3)
    assert e32.B.dtype == np.float32


def test_float32_storage_same_partition():
    rng = np.random.default_rng(14)
    K, w = random_sparse_B(60, 0.1, rng)
    lab0 = rng.integers(0, 3, 60)
    e64 = SparseEngine.from_matrix(K, w, is_gram=True, n_clusters=3)
    e32 = SparseEngine.from_matrix(K, w, is_gram=True, dtype=np.float32, n_clusters=3)
    r64 = single_run(e64, lab0, 3, 100)
    r32 = single_run(e32, lab0, 3, 100)
    np.testing.assert_array_equal(r64.labels, r32.labels)
    assert r32.objective == pytest.approx(r64.objective, rel=1e-5)


def test_clear_errors():
    K = sp.identity(5, format="csr")
    with pytest.raises(ValueError, match="sparse semimetric matrix gives a dense kernel"):
        SparseEngine.from_matrix(K, np.ones(5), is_gram=False, n_clusters=2)
    with pytest.raises(ValueError, match="raw data with semimetric='energy'"):
        SparseEngine.from_semimetric(np.zeros((5, 2)), np.ones(5), "energy", {}, n_clusters=2)
    with pytest.raises(ValueError, match="semimetric matrix should have a zero diagonal"):
        KernelKGroups(2, semimetric="precomputed").fit(K)
    with pytest.raises(ValueError, match="sparse semimetric"):
        KernelKGroups(2, semimetric="precomputed").fit(sp.csr_matrix(np.ones((5, 5)) - np.eye(5)))
