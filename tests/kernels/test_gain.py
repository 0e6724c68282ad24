"""Gains and statistics shared by the engines (``kgroups._kernels.gain``) against the
plain twins.
"""

import numpy as np

from tests import _twins
from kgroups._kernels.gain import cluster_stats, lloyd_assign
from kgroups._kernels.held_dense import build_m_dense


def test_lloyd_assign_matches_twin():
    rng = np.random.default_rng(2)
    A = rng.normal(size=(40, 40))
    w = rng.uniform(0.5, 2, 40)
    B = (A @ A.T / 40) * np.outer(w, w)
    labels = rng.integers(0, 4, 40).astype(np.int64)
    M = build_m_dense(B, labels, 4, 1)
    s, q, _ = cluster_stats(M, labels, w)
    out = labels.copy()
    lloyd_assign(M, s, q, w, out)
    assert out.tolist() == _twins.lloyd_assign_twin(B, w, labels, 4).tolist()
