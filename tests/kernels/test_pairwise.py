"""The finishing pass of pairwise blocks (``kgroups._kernels.pairwise``): every semimetric
against brute force, and the parallel kernel against the serial one.
"""

import numpy as np
import pytest

from kgroups import pairwise

from tests._helpers import SEMIS, brute_B, tiny_data


@pytest.mark.parametrize("semimetric,params", SEMIS)
def test_tiny_pairwise_finish_every_semimetric(semimetric, params):
    X, w, _ = tiny_data()
    np.testing.assert_allclose(pairwise(X, None, semimetric, scale=-0.5, wx=w, **params),
                               brute_B(X, w, semimetric, params), rtol=1e-10, atol=1e-12)
    Y = X[:4] + 0.5
    want = brute_B(np.vstack([X, Y]), np.ones(15), semimetric, params)[:11, 11:] * -2.0
    np.testing.assert_allclose(pairwise(X, Y, semimetric, **params), want, rtol=1e-10,
                               atol=1e-12)


def test_parallel_and_serial_kernels_agree(monkeypatch):
    from kgroups._kernels import parallel as _parallel

    X = np.random.default_rng(3).normal(size=(300, 5))
    serial = pairwise(X, alpha=0.7)
    monkeypatch.setattr(_parallel, "PARALLEL_MIN_WORK", 1)
    np.testing.assert_array_equal(pairwise(X, alpha=0.7), serial)
