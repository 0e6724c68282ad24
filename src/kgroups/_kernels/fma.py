"""The fused multiply-add ``fma(a, b, c) = a b + c`` rounded once (IEEE 754's
fusedMultiplyAdd), in the precision of its arguments.

Compiled, it is LLVM's ``llvm.fma`` intrinsic (one instruction on processors with
FMA, vectorised in loops). As Python it is computed exactly in rational arithmetic and
rounded once to the arguments' format (float32 or float64, ties to even), so that the
compiled kernels and their Python twins give the same bits. The certified float32 pass
(:mod:`kgroups._kernels.pairs_mixed`) uses it: a fused multiply-add rounds at most as
often as a product and a sum, so the error bounds of :mod:`kgroups._kernels.certify`
hold with it.
"""

from fractions import Fraction

import numpy as np

from .jit import Intrinsic


def _fma32(a, b, c):
    """``a b + c`` rounded once to float32 (ties to even), from binary64 arithmetic: the
    product of two float32 is exact in binary64, its sum with ``c`` is ``s + e``
    exactly (TwoSum), and ``s`` rounds to the right float32 unless it lies exactly
    halfway between two, where the sign of ``e`` decides."""
    p = float(a) * float(b)
    cc = float(c)
    s = p + cc
    bb = s - p
    e = (p - (s - bb)) + (cc - bb)
    r = np.float32(s)
    if e != 0.0 and float(r) != s:
        toward = np.float32(np.inf) if s > float(r) else np.float32(-np.inf)
        other = np.nextafter(r, toward)
        if float(other) - s == s - float(r) and (e > 0.0) == (float(other) > s):
            r = other
    return r


def fma_src(a, b, c):
    """``a b + c`` with one rounding, in float32 when ``a`` is a float32, else float64
    (exact rational arithmetic, rounded once)."""
    if isinstance(a, np.float32):
        return _fma32(a, b, c)
    return np.float64(float(Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c))))


def _build():
    """The compiled ``fma``: a numba intrinsic that emits ``llvm.fma`` where it is called
    (no function of its own to compile, inline or call), or the Python twin under
    ``NUMBA_DISABLE_JIT=1``. It is called from compiled kernels only."""
    import numba
    from llvmlite import ir
    from numba.core.extending import intrinsic

    if numba.config.DISABLE_JIT:  # numba.njit returns Python functions: the twin is it
        return fma_src

    @intrinsic
    def llvm_fma(typingctx, a, b, c):
        if not (isinstance(a, numba.types.Float) and a == b == c):
            return None

        def codegen(context, builder, signature, args):
            ty = args[0].type
            fn = builder.module.declare_intrinsic("llvm.fma", [ty],
                                                  ir.FunctionType(ty, [ty, ty, ty]))
            return builder.call(fn, args)
        return a(a, b, c), codegen

    return llvm_fma


fma = Intrinsic(fma_src, _build)
