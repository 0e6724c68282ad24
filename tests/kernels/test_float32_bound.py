"""The float32 mode's two guarantees, checked on the CPU: the bound of the kernel's
float32 error (``semimetric.float32_kernel_error``) holds for every pair of hostile
data, and a decision that ``gain.certified`` accepts is the decision of every set of
values within the bounds."""

import functools
import math
import types

import numpy as np
import pytest

from kgroups import pairwise
from kgroups._kernels import semimetric as sm
from kgroups._kernels.gain import best_move, certified
from kgroups._kernels.jit import with_globals
from tests._helpers import SEMIS

# NumPy's float32 functions: the float32 evaluation of the semimetrics' own sources
MATH32 = types.SimpleNamespace(sqrt=lambda v: np.sqrt(np.float32(v)),
                               exp=lambda v: np.exp(np.float32(v)),
                               sin=lambda v: np.sin(np.float32(v)), e=math.e)


def rho32(name, params):
    """``rho(d2)`` computed in float32 from the semimetric's source (``F`` float32)."""
    g = {"F": np.float32, "math": MATH32}
    parts = {key: with_globals(getattr(sm, key + "_src"), {**sm.rho_energy_src.__globals__,
                                                            **g})
             for key in ("rho_energy", "rho_laplacian", "rho_gaussian", "rho_localized",
                         "rho_sinusoidal")}
    f = with_globals(sm.rho_src, {**sm.rho_src.__globals__, **parts})
    code, alpha, sigma, theta = sm.kernel_args(name, params)
    a, s, t = np.float32(alpha), np.float32(sigma), np.float32(theta)
    return lambda d2: f(d2, code, a, s, t)


def float32_rho(X, name, params):
    """Every pair's rho as the float32 passes evaluate it: coordinates centred on the
    box's midpoint and rounded to float32, differences, squares and their sum in
    float32 (in the passes' order), rho in float32."""
    lo, hi = X.min(0), X.max(0)
    Z = (X - (0.5 * lo + 0.5 * hi)).astype(np.float32)
    n = Z.shape[0]
    d2 = np.zeros((n, n), dtype=np.float32)
    for d in range(Z.shape[1]):
        t = Z[:, d][:, None] - Z[:, d][None, :]
        d2 = d2 + t * t
    f = rho32(name, params)
    return np.array([[f(v) for v in row] for row in d2], dtype=np.float64)


def hostile(seed):
    """Data that stress float32: far from the origin, near-duplicates, one wide and
    one narrow feature, an outlier."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(40, 3)) * np.array([1.0, 1e-3, 50.0]) + np.array([1e4, -3.0, 0.0])
    X[5] = X[4] + 1e-7
    X[6] = X[4]
    X[7] *= 3.0
    return X


@pytest.mark.parametrize("semimetric, params", SEMIS)
@pytest.mark.parametrize("seed", [0, 1])
def test_float32_error_bound_holds(semimetric, params, seed):
    """|rho~ - rho| <= the bound (twice the bound of |K~ - K|, K = -rho/2), on every
    pair, and the bound is not vacuous (below 1e-2 of the largest rho)."""
    X = hostile(seed) if seed else np.random.default_rng(7).normal(size=(40, 4)) * 3.0
    eps = sm.float32_kernel_error(semimetric, params, 0.5 * (X.max(0) - X.min(0)))
    exact = pairwise(X, semimetric=semimetric, **params)
    err = np.abs(float32_rho(X, semimetric, params) - exact).max()
    assert err <= eps
    assert eps < 1e-2 * max(np.abs(exact).max(), 1e-300) or semimetric == "energy" \
        and params["alpha"] < 1.0


def test_float32_bound_refuses_spreads_float32_cannot_hold():
    assert sm.float32_kernel_error("energy", {}, [1e16]) == np.inf
    assert sm.float32_kernel_error("energy", {}, [1e-16]) == np.inf
    assert np.isfinite(sm.float32_kernel_error("energy", {}, [1.0, 2.0]))


def a_values(col, s, q, w_i, j):
    """``A_l`` of every cluster (paper eq. 50 with ``B_ii = 0``)."""
    a = (w_i * q / s - 2.0 * col) / (s + w_i)
    a[j] = (w_i * q[j] / s[j] - 2.0 * col[j]) / (s[j] - w_i)
    return a


CERTIFICATION_SEEDS = range(60)


@functools.lru_cache(maxsize=None)
def certification_case(seed):
    """One case of the test below: ``(certified, the answer flips within the bounds)``.

    Kept per seed, so that the test of the cases' coverage reads the cases this
    process ran and runs the others (under pytest-xdist they are spread over
    workers)."""
    rng = np.random.default_rng(seed)
    k = 4
    s = rng.uniform(1.0, 5.0, k)
    cnt = np.full(k, 3, dtype=np.int64)
    q = -rng.uniform(1.0, 10.0, k) * s
    col = -rng.uniform(0.1, 3.0, k)
    j, w_i = int(rng.integers(k)), float(rng.uniform(0.5, 1.0))
    eps = float(10.0 ** rng.uniform(-6, -2))
    qerr = s * s * eps * rng.uniform(1.0, 3.0, k)
    t = (w_i * qerr / s + 2.0 * w_i * s * eps) / (s + w_i)
    t[j] = (w_i * qerr[j] / s[j] + 2.0 * w_i * s[j] * eps) / (s[j] - w_i)
    a = a_values(col, s, q, w_i, j)
    others = [l for l in np.argsort(a) if l != j]
    gap = rng.uniform(-2.0, 2.0)
    if seed % 2:  # the stay against the best target
        l = others[0]
        col[j] += (a[j] - a[l] - gap * (t[j] + t[l])) * (s[j] - w_i) / 2.0
    else:  # the two best targets, the stay far above
        l, m = others[0], others[1]
        col[m] += (a[m] - a[l] - gap * (t[m] + t[l])) * (s[m] + w_i) / 2.0
        col[j] -= 10.0 * (t[j] + t[l] + t[m] + abs(a[j] - a[l]))
    best, _ = best_move(col, j, s, q, cnt, w_i, 0.0)
    ok = certified(col, j, s, q, cnt, w_i, best, eps, qerr)
    seen = set()
    for _ in range(400):
        c2 = col + w_i * s * eps * rng.choice([-1.0, 1.0, rng.uniform(-1, 1)], k)
        q2 = q + qerr * rng.choice([-1.0, 1.0, rng.uniform(-1, 1)], k)
        seen.add(best_move(c2, j, s, q2, cnt, w_i, 0.0)[0])
    if ok:
        assert seen == {best}
    return ok, len(seen) > 1


@pytest.mark.parametrize("seed", CERTIFICATION_SEEDS)
def test_certified_decisions_hold_for_every_value_within_the_bounds(seed):
    """A column and cluster sums at random, the stay and the best target (or the two
    best targets) put at a gap of -2 to 2 times their error bounds: when
    ``certified`` accepts best_move's answer, best_move gives it for every
    perturbation of the column entries within ``w_i s_l eps`` and of ``q_l`` within
    ``qerr_l`` (the perturbations include the corners, where the answer flips
    first); and at least some answers are refused and some accepted."""
    certification_case(seed)


def test_certification_cases_cover_both_answers():
    """The cases above reach both answers and answers that truly flip."""
    results = [certification_case(seed) for seed in CERTIFICATION_SEEDS]
    assert any(ok for ok, _ in results) and any(not ok for ok, _ in results)
    assert any(flips for _, flips in results)
