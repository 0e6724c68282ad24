"""The named semimetrics, defined once: every engine and ``pairwise`` use this module.

A semimetric is a function of the squared distance ``d2 = ||x - y||^2``
(França, Rizzo & Vogelstein, TPAMI 43(12), 2021, eqs. 52-54, and the arXiv version):

============  ====  =====================================================
name          code  rho(d2), with r = sqrt(d2)
============  ====  =====================================================
energy        0     r ** alpha, alpha in (0, 2]
laplacian     1     2 - 2 exp(-r / (2 sigma))
gaussian      2     2 - 2 exp(-d2 / (2 sigma**2))
localized     3     d2 exp(-r / 2)
sinusoidal    4     d2 theta sin(r / theta)
============  ====  =====================================================

The kernels get ``(code, alpha, sigma, theta)`` as scalars (:func:`kernel_args`).

Squared distances come from ``|x|^2 + |y|^2 - 2 x.y`` (one BLAS product, or the
matrix-free tiles), which loses relative accuracy when the two points are close
compared with their norms (duplicates give ~1e-16 instead of 0, which
``r ** alpha`` magnifies). Those pairs, ``d2 < EXACT_BELOW (|x|^2 + |y|^2)``
(:func:`needs_exact`), are recomputed from the coordinates
(:func:`guarded_sq`), so the relative error of every ``d2`` stays below about
``eps / EXACT_BELOW``.

No ``fastmath`` here: these values decide the sign of Hartigan gains.
"""

import math

import numpy as np

from .jit import njit

from .._validation import SEMIMETRIC_NAMES as NAMES

# The names accepted by ``semimetric=`` (the constraint table's) and their integer
# codes (the index).
ENERGY, LAPLACIAN, GAUSSIAN, LOCALIZED, SINUSOIDAL = range(len(NAMES))
# The named semimetrics of negative type: rho(x, y) = ||phi(x) - phi(y)||^2 in a
# Hilbert space, so distances to cluster means obey the triangle inequality
# (what the sweeps' bounds rely on, kgroups._kernels.bounds).
NEGATIVE_TYPE = ("energy", "laplacian", "gaussian")
EXACT_BELOW = 1e-4


def code_of(name):
    """Integer code of a named semimetric (its index in :data:`NAMES`)."""
    return NAMES.index(name)


def kernel_args(name, params):
    """``(code, alpha, sigma, theta)``: how a numba kernel receives a named semimetric."""
    return (code_of(name), float(params.get("alpha", 1.0)), float(params.get("sigma", 1.0)),
            float(params.get("theta", 1.0)))


# The scalar semimetrics are plain Python on ``math`` (no array): the CPU kernels use
# their ``njit`` compilations below, the CUDA kernels compile the same sources as
# device functions (kgroups._kernels.cuda), so both targets evaluate one formula.
# Their constants go through F, the float type they compute in: Python's float
# (float64) here; the device's float32 twins rebind it to numba.float32, so that
# a float32 squared distance is not promoted to float64 by a literal.
F = float


def rho_energy_src(d2, alpha):
    """``||x - y||^alpha`` from ``d2``.

    ``alpha = 1/2`` (TPAMI Table II's dermatology) as two square roots: a power
    is not vectorised without Intel's SVML, and costs many times as much per
    entry as two vectorised square roots; the two agree to one unit in the last
    place.
    """
    if alpha == F(1.0):
        return math.sqrt(d2)
    if alpha == F(0.5):
        return math.sqrt(math.sqrt(d2))
    if alpha == F(2.0):
        return d2
    return d2 ** (F(0.5) * alpha)


def rho_laplacian_src(d2, sigma):
    """``2 - 2 exp(-r / (2 sigma))``, ``r = sqrt(d2)``."""
    s = F(2.0) * sigma
    if s == F(0.0):  # sigma scaled below the smallest float: distinct pairs infinitely far
        return F(2.0) if d2 > F(0.0) else F(0.0)
    return F(2.0) - F(2.0) * math.exp(-math.sqrt(d2) / s)


def rho_gaussian_src(d2, sigma):
    """``2 - 2 exp(-d2 / (2 sigma^2))``."""
    s2 = F(2.0) * sigma * sigma
    if s2 == F(0.0):  # sigma below ~1e-154: every distinct pair is infinitely far
        return F(2.0) if d2 > F(0.0) else F(0.0)
    return F(2.0) - F(2.0) * math.exp(-d2 / s2)


def rho_localized_src(d2):
    """``d2 exp(-r / 2)``."""
    return d2 * math.exp(F(-0.5) * math.sqrt(d2))


def rho_sinusoidal_src(d2, theta):
    """``d2 theta sin(r / theta)``."""
    return d2 * theta * math.sin(math.sqrt(d2) / theta)


def rho_src(d2, code, alpha, sigma, theta):
    """``rho`` of the squared distance ``d2 >= 0`` for the semimetric ``code``."""
    if code == ENERGY:
        return rho_energy(d2, alpha)
    if code == LAPLACIAN:
        return rho_laplacian(d2, sigma)
    if code == GAUSSIAN:
        return rho_gaussian(d2, sigma)
    if code == LOCALIZED:
        return rho_localized(d2)
    return rho_sinusoidal(d2, theta)


rho_energy = njit(cache=True, inline="always")(rho_energy_src)
rho_laplacian = njit(cache=True, inline="always")(rho_laplacian_src)
rho_gaussian = njit(cache=True, inline="always")(rho_gaussian_src)
rho_localized = njit(cache=True, inline="always")(rho_localized_src)
rho_sinusoidal = njit(cache=True, inline="always")(rho_sinusoidal_src)
rho = njit(cache=True)(rho_src)


@njit(cache=True)
def rho_inplace(buf, m, code, alpha, sigma, theta):
    """``buf[t] = rho(buf[t])`` for ``t < m``: the same scalar functions as :func:`rho`,
    one loop per semimetric so that each loop vectorises."""
    if code == ENERGY:
        if alpha == 1.0:
            for t in range(m):
                buf[t] = rho_energy(buf[t], 1.0)
        elif alpha == 0.5:
            for t in range(m):
                buf[t] = rho_energy(buf[t], 0.5)
        elif alpha != 2.0:
            for t in range(m):
                buf[t] = rho_energy(buf[t], alpha)
    elif code == LAPLACIAN:
        for t in range(m):
            buf[t] = rho_laplacian(buf[t], sigma)
    elif code == GAUSSIAN:
        for t in range(m):
            buf[t] = rho_gaussian(buf[t], sigma)
    elif code == LOCALIZED:
        for t in range(m):
            buf[t] = rho_localized(buf[t])
    else:
        for t in range(m):
            buf[t] = rho_sinusoidal(buf[t], theta)


@njit(cache=True, inline="always")
def needs_exact(d2, n2):
    """Whether ``d2 = |x|^2 + |y|^2 - 2 x.y`` (with ``n2 = |x|^2 + |y|^2``) has lost
    its relative accuracy and must be recomputed from the coordinates."""
    return d2 < EXACT_BELOW * n2


@njit(cache=True, inline="always")
def exact_sq(a, b):
    """``||a - b||^2`` by direct differences (no cancellation); ``a``, ``b`` 1-D."""
    d2 = 0.0
    for d in range(a.shape[0]):
        u = a[d] - b[d]
        d2 += u * u
    return d2


@njit(cache=True, inline="always")
def guarded_sq(d2, n2, a, b):
    """The squared distance of ``a`` and ``b`` from its norm expansion ``d2``
    (``n2 = |a|^2 + |b|^2``), recomputed exactly when :func:`needs_exact`."""
    if needs_exact(d2, n2):
        return exact_sq(a, b)
    return d2


# Unit roundoff of float32.
U32 = 2.0 ** -24


def float32_kernel_error(name, params, half_ranges):
    """A bound of ``|K~ - K|`` over every pair of points, ``K = -rho/2``, where ``K~`` is
    ``K`` as the float32 passes evaluate it (the GPU engine's ``dtype="float32"``).

    The passes read ``x^ = fl32(x - c)`` with ``c`` the midpoint of the data's box, so
    that ``|x_d - c_d| <= h_d`` (``half_ranges``). With ``u = 2^-24``:

    * each coordinate ``|x^_d - (x_d - c_d)| <= u h_d``, and the difference ``t^ =
      fl32(x^_i - x^_y)`` of a pair is within ``e_d = 4.0001 u h_d`` of ``t = x_i -
      x_y`` (two roundings of the coordinates, one of the difference, ``|t| <= 2
      h_d``), so ``||t^ - t|| <= ||e|| = 4.0001 u ||h||``;
    * the squared distance is a float32 sum of D squares, within ``gamma_D ||t^||^2``
      of ``||t^||^2`` (``gamma_D = D u / (1 - D u)``, Higham's bound for a dot
      product; a fused multiply-add only rounds less), and its square root rounds
      once more: the distance ``r`` the semimetric is evaluated at is within
      ``delta_r = ||e|| + r_max (gamma_D / 2 + u)(1 + gamma_D)`` of the true one, with
      ``r_max = 2 ||h|| + ||e||`` the largest distance;
    * with ``g(r) = rho(r^2)``, ``|rho~ - rho| <= omega(delta_r) + E``: the modulus
      of continuity of ``g`` on ``[0, r_max + delta_r]`` (energy: ``delta^alpha`` for
      ``alpha <= 1``, ``alpha (r_max + delta)^(alpha - 1) delta`` above; Laplacian
      ``delta / sigma``; Gaussian ``2 delta / (sigma sqrt(e))``; localized ``2.6
      delta`` (``|g'| <= 4/e + 8/e^2``); sinusoidal ``(2 R theta + R^2) delta``) plus
      ``E``, the rounding of the float32 evaluation of ``g`` at that distance (a few
      units of ``u`` times the largest value, or of the exponential's size where
      ``2 - 2 exp(z)`` takes a difference). The parameters ``sigma`` and ``theta``
      in float32 scale ``r`` by ``1 + u`` at most (counted in ``delta_r``), ``alpha``
      in float32 moves ``d^alpha`` by about ``u alpha d^alpha |ln d|``;
    * a square below float32's smallest normal number is rounded to a multiple of
      ``2^-149``, which moves the squared distance by ``D 2^-150`` at most and the
      distance by ``sqrt(D) 2^-75`` (counted in ``delta_r``).

    Returned doubled (``|K~ - K| = |rho~ - rho| / 2``, and a factor 2 of margin).
    ``inf`` when the data's spread is outside what float32 holds (``||h||`` beyond
    ``[1e-15, 1e15]``): then no float32 pass is exact enough to certify anything.
    """
    h = float(np.sqrt(np.sum(np.square(np.asarray(half_ranges, dtype=np.float64)))))
    D = max(1, len(half_ranges))
    if not 1e-15 <= h <= 1e15:
        return float("inf")
    u = U32
    gam = D * u / (1.0 - D * u)
    e = 4.0001 * u * h
    r_max = 2.0 * h + e
    # the float32 sigma or theta scales r by 1 + u at most: as an error of r
    dr = e + r_max * (gam / 2.0 + u) * (1.0 + gam) + 2.0 * u * r_max
    # squares below float32's smallest normal round to a multiple of 2^-149: at most D
    # halves of that in the squared distance, their square root in the distance
    dr += math.sqrt(D) * 2.0 ** -75
    R = r_max + dr
    alpha = float(params.get("alpha", 1.0))
    sigma = float(params.get("sigma", 1.0))
    theta = float(params.get("theta", 1.0))
    if name == "energy":
        omega = dr ** alpha if alpha <= 1.0 else alpha * R ** (alpha - 1.0) * dr
        evaluation = 8.0 * u * R ** alpha
        if alpha not in (0.5, 1.0, 2.0):  # the float32 alpha: |d^a' - d^a| ~ u a d^a |ln d|
            evaluation += 2.0 * u * alpha * (R ** alpha * abs(math.log(R))
                                             + 1.0 / (math.e * alpha))
    elif name in ("laplacian", "gaussian") and sigma == 0.0:
        return float("inf")  # a sigma scaled below the smallest float: rho jumps at r = 0
    elif name == "laplacian":
        omega, evaluation = dr / sigma, 16.0 * u
    elif name == "gaussian":
        omega, evaluation = 2.0 * dr / (sigma * math.sqrt(math.e)), 16.0 * u
    elif name == "localized":
        top = R * R * math.exp(-R / 2.0) if R < 4.0 else 16.0 * math.exp(-2.0)
        omega, evaluation = 2.6 * dr, top * (8.0 * u + u * R / 2.0)
    else:  # sinusoidal
        omega = (2.0 * R * theta + R * R) * dr
        evaluation = R * R * (2.0 * u * R + 2.0 * u * theta) + 5.0 * u * R * R * theta
    return float(omega + evaluation)
