"""Semimetrics (``kgroups._semimetrics``) against direct formulas on exact differences.

The numba kernels behind them are tested in ``tests/kernels/test_semimetric.py`` and
``tests/kernels/test_pairwise.py``.
"""

import numpy as np
import pytest
from scipy.spatial.distance import cdist

from kgroups import KernelKGroups, pairwise
from kgroups._semimetrics import check_semimetric, rho_to_origin

from tests._helpers import FORMULAS, semimetric_params


@pytest.mark.parametrize("name, p", list(FORMULAS))
def test_named_semimetrics_match_formulas(name, p):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3)) * 2 + 5
    Y = rng.normal(size=(7, 3))
    f = FORMULAS[(name, p)]
    np.testing.assert_allclose(pairwise(X, None, name, **semimetric_params(name, p)), f(cdist(X, X)),
                               rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(pairwise(X, Y, name, **semimetric_params(name, p)), f(cdist(X, Y)),
                               rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(rho_to_origin(X, name, **semimetric_params(name, p)),
                               f(np.linalg.norm(X, axis=1)), rtol=1e-12)


def test_duplicates_far_from_origin_are_exactly_zero():
    X = np.random.default_rng(1).normal(size=(6, 4)) + 1e4
    R = pairwise(np.vstack([X, X]), alpha=0.1)
    assert np.all(np.diagonal(R, offset=6) == 0.0)
    assert np.all(np.diag(R) == 0.0)


def test_blocks_weights_scale_and_float32():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(50, 2))
    w = rng.uniform(0.5, 2, 50)
    ref = -0.5 * cdist(X, X) * np.outer(w, w)
    np.testing.assert_allclose(pairwise(X, scale=-0.5, wx=w), ref, atol=1e-12)
    out = np.empty((50, 50), dtype=np.float32)
    pairwise(X, scale=-0.5, wx=w, out=out)
    np.testing.assert_allclose(out, ref, rtol=1e-6, atol=1e-6)


def test_callable_semimetric_is_used_as_given():
    def manhattan(A, B):
        return np.abs(A[:, None, :] - B[None, :, :]).sum(axis=2)

    X = np.array([[0.0, 0], [1, 1], [10, 10], [11, 10]])
    np.testing.assert_allclose(pairwise(X, None, manhattan), cdist(X, X, "cityblock"))
    lab = KernelKGroups(2, semimetric=manhattan, init=np.array([0, 1, 0, 1])).fit(X).labels_
    assert lab[0] == lab[1] != lab[2] == lab[3]

    def bad(A, B):
        return np.zeros((2, 2))

    with pytest.raises(ValueError, match=r"returned shape \(2, 2\), expected \(4, 4\)"):
        pairwise(X, None, bad)


@pytest.mark.parametrize("args, match", [
    (("energy", 0.0, 1, 1), r"alpha=0.0 should be a number in \(0, 2\]"),
    (("energy", 2.1, 1, 1), "alpha=2.1"),
    (("laplacian", 1, 0.0, 1), "sigma=0.0"),
    (("gaussian", 1, float("nan"), 1), "sigma=nan"),
    (("sinusoidal", 1, 1, -2.0), "theta=-2.0"),
    (("euclid", 1, 1, 1), "semimetric='euclid'"),
])
def test_check_semimetric_errors(args, match):
    with pytest.raises(ValueError, match=match):
        check_semimetric(*args)


def test_pairwise_refuses_rows_it_cannot_copy_before_copying(monkeypatch):
    """The rows are copied in C order and centred before the block is computed: the
    copies are checked against memory first, even with ``out`` given."""
    from kgroups import _memory
    from kgroups._semimetrics.closed_form import pairwise_unchecked

    X = np.asfortranarray(np.random.default_rng(0).normal(size=(50, 3)))
    monkeypatch.setattr(_memory, "available_memory", lambda: 1000)
    with pytest.raises(ValueError, match=r"^pairwise: the copies of the 50 rows \(in C order, "
                       r"centred\) needs 0\.00 GiB \(2400 bytes\).*use fewer rows"):
        pairwise_unchecked(X, out=np.empty((50, 50)))
