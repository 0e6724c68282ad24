"""Engine selection (``kgroups._backends``, its ``__init__``): the engine table, the
``"auto"`` rule, and the ``engine_`` an estimator reports.
"""

import numpy as np
import scipy.sparse as sp

import kgroups._backends._memory as memory
from kgroups import KernelKGroups, KernelKMeans
from kgroups._backends import (
    ENGINES,
    MATRIX_FREE_MIN_N,
    DenseEngine,
    LowRankEngine,
    MatrixFreeEngine,
    SparseEngine,
    select_engine,
)

from tests._helpers import CALLABLE, blobs, sparse_psd_gram


sel = select_engine


def test_select_engine_auto(monkeypatch):
    assert select_engine("auto", 500, False, False, np.float64, n_clusters=3) is DenseEngine
    assert select_engine("low-rank", 500, False, False, np.float64, n_clusters=3) is LowRankEngine
    monkeypatch.setattr(memory, "available_memory", lambda: 10 * 2**20)  # 10 MiB
    assert select_engine("auto", 5000, False, False, np.float64, n_clusters=3) is MatrixFreeEngine
    assert select_engine("auto", 5000, False, False, np.float64,
                         semimetric=lambda a, b: a, n_clusters=3) is LowRankEngine
    assert select_engine("auto", 5000, True, False, np.float64, n_clusters=3) is DenseEngine


def test_auto_rule(monkeypatch):
    big, small = MATRIX_FREE_MIN_N, MATRIX_FREE_MIN_N - 1
    f64 = np.float64
    assert sel("auto", small, False, False, f64, n_clusters=3) is DenseEngine
    assert sel("auto", big, False, False, f64, n_clusters=3) is MatrixFreeEngine
    assert sel("auto", big, False, False, f64, n_features=10, n_clusters=3) is MatrixFreeEngine
    assert sel("auto", big, False, False, f64, n_features=50, n_clusters=3) is DenseEngine
    # callables and precomputed matrices have no matrix-free engine
    assert sel("auto", big, False, False, f64, semimetric=CALLABLE, n_clusters=3) is DenseEngine
    assert sel("auto", big, True, False, f64, n_clusters=3) is DenseEngine
    assert sel("auto", big, True, True, f64, n_clusters=3) is SparseEngine
    monkeypatch.setattr(memory, "available_memory", lambda: 2**20)  # 1 MiB
    assert sel("auto", big, False, False, f64, n_features=50, n_clusters=3) is MatrixFreeEngine
    assert sel("auto", 2000, False, False, f64, n_features=50, n_clusters=3) is MatrixFreeEngine
    assert sel("auto", 2000, False, False, f64, semimetric=CALLABLE, n_clusters=3) is LowRankEngine


def test_engine_table_and_auto_selection():
    assert ENGINES["sparse"] is SparseEngine
    assert select_engine("auto", 100, True, True, np.float64, n_clusters=2) is SparseEngine
    assert select_engine("auto", 100, True, False, np.float64, n_clusters=2) is DenseEngine


def test_engine_attribute_names_the_engine_auto_chose(monkeypatch):
    X, _ = blobs(300, 2, 3, seed=1)
    assert KernelKGroups(3, random_state=0).fit(X).engine_ == "dense"
    K = sparse_psd_gram(60, 2, seed=2)
    assert KernelKMeans(2, kernel="precomputed", random_state=0).fit(K).engine_ == "sparse"
    monkeypatch.setattr(memory, "available_memory", lambda: 2**20)  # 1 MiB: no n x n kernel
    assert KernelKGroups(3, random_state=0).fit(X).engine_ == "matrix-free"
    lr = KernelKGroups(3, semimetric=CALLABLE, n_components=20, random_state=0).fit(X)
    assert lr.engine_ == "low-rank"


def test_auto_estimator_follows_the_rule():
    """Many low-dimensional points: matrix-free, with or without restarts."""
    X, _ = blobs(MATRIX_FREE_MIN_N, 3, 3, seed=17, spread=0.5)
    one = KernelKGroups(3, random_state=0).fit(X)
    many = KernelKGroups(3, n_init=2, random_state=0).fit(X)
    given = KernelKGroups(3, init=one.labels_, n_init=5).fit(X)  # given labels run once
    assert (one.engine_, many.engine_, given.engine_) == ("matrix-free",) * 3
    assert KernelKGroups(3, random_state=0).fit(X[:-1]).engine_ == "dense"


def test_sparse_precomputed_is_not_silently_densified_without_engine():
    G = sp.random(30, 30, density=0.1, random_state=0)
    G = G + G.T
    try:
        KernelKGroups(2, kernel="precomputed", random_state=0).fit(G)
    except ValueError as err:  # before the sparse engine exists the error must be clear
        assert "sparse" in str(err)
