"""Stochastic block model generators (``kgroups.graph._sbm``)."""

import numpy as np
import pytest
import scipy.sparse as sp

from kgroups.graph import girvan_newman_benchmark, stochastic_block_model
from kgroups.graph._sbm import sbm_parameters


def test_sbm_parameters():
    a, b = sbm_parameters(4, 16.0, 3.5)
    assert (a, b) == (16 + 3.5 * 3 * 4, 16 - 3.5 * 4)
    assert (a - b) / (4 * np.sqrt(16)) == pytest.approx(3.5)
    assert (a + 3 * b) / 4 == pytest.approx(16.0)
    for bad, name in (((1, 3, 1), "n_clusters="), ((3, 0, 1), "d="), ((3, 4.0, 2.5), "lam=")):
        with pytest.raises(ValueError, match="stochastic_block_model: " + name):
            stochastic_block_model(100, *bad)
    # the number of classes is n_clusters, as everywhere in kgroups
    with pytest.raises(ValueError, match=r"^stochastic_block_model: k=3 is spelled "
                       r"n_clusters=3 \(the number of clusters is n_clusters across kgroups\)$"):
        stochastic_block_model(100, k=3, d=4.0, lam=1.0)
    A, y = stochastic_block_model(100, n_clusters=3, d=4.0, lam=1.0, random_state=0)
    assert np.unique(y).size == 3


@pytest.mark.parametrize("n, direct", [(3000, True), (60000, False)])
def test_sbm_edge_statistics(n, direct):
    k, d, lam = 3, 6.0, 1.5
    a, b = sbm_parameters(k, d, lam)
    A, y = stochastic_block_model(n, k, d, lam, balanced=True, random_state=5)
    assert (A != A.T).nnz == 0 and A.diagonal().sum() == 0 and A.max() == 1
    sizes = np.bincount(y)
    assert sizes.max() - sizes.min() <= 1
    assert (n // k) ** 2 > 2 * (1 << 20) or direct  # the large case uses pair sampling
    coo = sp.triu(A, 1).tocoo()
    same = y[coo.row] == y[coo.col]
    exp_in = a / n * np.sum(sizes * (sizes - 1) / 2)
    exp_out = b / n * (n * n - np.sum(sizes**2)) / 2
    # counts are binomial: within 5 standard deviations
    assert abs(same.sum() - exp_in) < 5 * np.sqrt(exp_in)
    assert abs((~same).sum() - exp_out) < 5 * np.sqrt(exp_out)


def test_sbm_random_classes_and_reproducible():
    A1, y1 = stochastic_block_model(5000, 5, 3.0, 1.0, random_state=9)
    A2, y2 = stochastic_block_model(5000, 5, 3.0, 1.0, random_state=9)
    assert (A1 != A2).nnz == 0 and np.array_equal(y1, y2)
    counts = np.bincount(y1)
    assert counts.min() < counts.max()  # multinomial, not forced equal
    assert abs(A1.sum() / 5000 - 3.0) < 0.15


def test_girvan_newman_benchmark():
    A, y = girvan_newman_benchmark(2.0, random_state=0)
    assert A.shape == (128, 128) and np.bincount(y).tolist() == [32] * 4
    a, _ = sbm_parameters(4, 16.0, 1.5)
    degs = [girvan_newman_benchmark(1.5, random_state=s)[0].sum() / 128 for s in range(200)]
    # each node has n/k - 1 partners at p = a/n, n - n/k at b/n: mean d - a/n
    assert abs(np.mean(degs) - (16 - a / 128)) < 0.15
