"""The one definition of each semimetric (``kgroups._kernels.semimetric``): scalar and
in place, and the cancellation guard (run as plain Python by ``make test-python``).
"""

import numpy as np
import pytest

from tests._helpers import FORMULAS, semimetric_params


@pytest.mark.parametrize("name, p", list(FORMULAS))
def test_tiny_one_definition_scalar_and_inplace(name, p):
    """rho of a squared distance, scalar and in place, against the formulas; the guard
    recomputes exactly what cancellation spoiled (run as plain Python too)."""
    from kgroups._kernels import semimetric as sm
    args = sm.kernel_args(name, semimetric_params(name, p))
    r = np.array([0.0, 0.3, 1.0, 2.5, 7.0])
    want = FORMULAS[(name, p)](r)
    buf = r**2
    sm.rho_inplace(buf, 5, *args)
    np.testing.assert_allclose(buf, want, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose([sm.rho(v * v, *args) for v in r], want, rtol=1e-13, atol=1e-15)
    assert sm.NAMES.index(name) == args[0] == sm.code_of(name)
    a, b = np.array([1e4, 1e4 + 1e-6]), np.array([1e4, 1e4])
    n2 = a @ a + b @ b
    assert sm.needs_exact(n2 - 2 * (a @ b), n2)
    assert sm.guarded_sq(n2 - 2 * (a @ b), n2, a, b) == pytest.approx(1e-12, rel=1e-6)
    assert sm.guarded_sq(5.0, 1.0, a, b) == 5.0
