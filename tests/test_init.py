"""Initialisations (``kgroups._init``): every ``init`` finds separated blobs."""

import numpy as np
import pytest

from kgroups import KernelKGroups


@pytest.mark.parametrize("init", ["k-means++", "kernel-k-means++", "random", "spectral"])
def test_inits_cluster_separated_blobs(init):
    rng = np.random.default_rng(10)
    y = np.repeat(np.arange(3), 40)
    X = np.array([[0, 0], [10, 0], [0, 10]])[y] + rng.normal(size=(120, 2))
    km = KernelKGroups(3, init=init, n_init=3, random_state=0).fit(X)
    from sklearn.metrics import adjusted_rand_score
    assert adjusted_rand_score(y, km.labels_) == 1.0
    assert km.fit_predict(X).tolist() == KernelKGroups(
        3, init=init, n_init=3, random_state=0).fit(X).labels_.tolist()
