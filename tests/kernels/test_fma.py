"""The fused multiply-add: compiled (LLVM's ``llvm.fma``) and as Python (exact
arithmetic, one rounding) give the same bits, in float32 and float64, on random
arguments, cancellations and results exactly halfway between two floats."""

from fractions import Fraction

import numpy as np
import pytest

from kgroups._kernels.fma import fma, fma_src
from kgroups._kernels.jit import njit


@njit(cache=False)
def fma_all(a, b, c, out):
    for i in range(a.shape[0]):
        out[i] = fma(a[i], b[i], c[i])


def cases(dtype, seed=0, n=4000):
    rng = np.random.default_rng(seed)
    a = (rng.normal(size=n) * 10.0 ** rng.uniform(-4, 4, n)).astype(dtype)
    b = rng.normal(size=n).astype(dtype)
    c = (rng.normal(size=n) * 10.0 ** rng.uniform(-4, 4, n)).astype(dtype)
    c[: n // 4] = -(a[: n // 4] * b[: n // 4])  # cancellation: the rounding error left
    return a, b, c


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_compiled_equals_python(dtype):
    a, b, c = cases(dtype)
    out = np.empty_like(a)
    fma_all(a, b, c, out)
    py = np.array([fma_src(x, y, z) for x, y, z in zip(a, b, c)], dtype=dtype)
    np.testing.assert_array_equal(out, py)
    assert (out != a * b + c).sum() > 100  # one rounding, not two


def test_float32_rounds_once_at_midpoints():
    """(1 + 2^-12)^2 = 1 + 2^-11 + 2^-24: halfway between two float32, ties to even;
    adding 2^-40 or -2^-40 decides the direction, as one rounding of the exact value."""
    a = np.float32(1.0 + 2.0 ** -12)
    lo, hi = np.float32(1.0 + 2.0 ** -11), np.float32(1.0 + 2.0 ** -11 + 2.0 ** -23)
    for c, want in ((0.0, lo), (2.0 ** -40, hi), (-(2.0 ** -40), lo)):
        c = np.float32(c)
        out = np.empty(1, dtype=np.float32)
        fma_all(np.array([a]), np.array([a]), np.array([c]), out)
        assert out[0] == want and fma_src(a, a, c) == want
        exact = Fraction(float(a)) ** 2 + Fraction(float(c))
        assert abs(Fraction(float(want)) - exact) <= abs(Fraction(float(hi)) - exact)
