"""Labelled clusters of many shapes (not convex blobs) for the benchmark batteries.

Every generator takes a ``numpy.random.Generator`` and returns ``(X, y)``: float64
points of shape (n, d) and int64 labels from 0, one label per cluster as a person
would name the clusters (a ring, an arm of a spiral, a stripe). Noise is kept modest
so that the labels stay what the picture shows. :func:`shapes` lists them as
``(name, note, generator)``; :func:`draw` makes one with a seed.

:func:`hard` lists 25 harder sets, all generated here: background noise (uniform
over the bounding box grown 10 %) and far outliers, both labelled -1 (not a
cluster: clustered but not scored), unequal densities and sizes, touching, bridged
and crossing shapes, up to 10 clusters, up to 10,000 points and 10 dimensions.

Five use scikit-learn's generators (``make_moons``, ``make_circles``,
``make_blobs`` as in scikit-learn's clustering comparison example, ``make_s_curve``
and ``make_swiss_roll`` cut into three segments along their parameter); the others
are written here: parametric curves and surfaces with Gaussian noise across them,
uniform boxes and disks, and Gaussian blobs.
"""

from __future__ import annotations

import zlib

import numpy as np


# --------------------------------------------------------------------------- pieces
def _stack(parts, labels=None):
    """Stack point arrays; label ``labels[i]`` (default i) for part i."""
    labels = range(len(parts)) if labels is None else labels
    X = np.vstack(parts).astype(np.float64)
    y = np.concatenate([np.full(len(p), lab, np.int64) for p, lab in zip(parts, labels)])
    return X, y


def _state(rng):
    """An integer random_state for scikit-learn drawn from ``rng``."""
    return int(rng.integers(2**31 - 1))


def _gauss(rng, n, centre, sd):
    centre = np.asarray(centre, np.float64)
    return centre + rng.normal(0.0, 1.0, (n, len(centre))) * np.asarray(sd, np.float64)


def _box(rng, n, lo, hi):
    lo, hi = np.asarray(lo, np.float64), np.asarray(hi, np.float64)
    return lo + rng.random((n, len(lo))) * (hi - lo)


def _arc(rng, n, centre, radius, a0, a1, width):
    """Points uniform in angle on an arc (angles in degrees), Gaussian across it."""
    a = np.deg2rad(rng.uniform(a0, a1, n))
    r = radius + rng.normal(0.0, width, n)
    return np.asarray(centre, np.float64) + np.c_[r * np.cos(a), r * np.sin(a)]


def _ring(rng, n, centre, radius, width):
    return _arc(rng, n, centre, radius, 0.0, 360.0, width)


def _disk(rng, n, centre, radius):
    """Uniform over a disk."""
    a = rng.uniform(0.0, 2 * np.pi, n)
    r = radius * np.sqrt(rng.random(n))
    return np.asarray(centre, np.float64) + np.c_[r * np.cos(a), r * np.sin(a)]


def _rotate(P, degrees):
    t = np.deg2rad(degrees)
    return P @ np.array([[np.cos(t), np.sin(t)], [-np.sin(t), np.cos(t)]])


def _sphere(rng, n, radius, width, centre=(0.0, 0.0, 0.0)):
    """A sphere shell in 3-D: uniform directions, Gaussian radius."""
    u = rng.normal(size=(n, 3))
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    return np.asarray(centre) + u * (radius + rng.normal(0.0, width, (n, 1)))


def _ball(rng, n, radius):
    """Uniform over a 3-D ball."""
    u = rng.normal(size=(n, 3))
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    return u * radius * np.cbrt(rng.random((n, 1)))


# --------------------------------------------------------------------------- scikit-learn
def moons(noise):
    def make(rng):
        from sklearn.datasets import make_moons
        X, y = make_moons(1000, noise=noise, random_state=_state(rng))
        return X, y
    return make


def circles(rng):
    from sklearn.datasets import make_circles
    return make_circles(1000, factor=0.5, noise=0.05, random_state=_state(rng))


def _example_blobs(seed, **kw):
    """scikit-learn's clustering comparison example: 1500 points, random_state 170
    (170 + seed for the other draws)."""
    from sklearn.datasets import make_blobs
    return make_blobs(n_samples=1500, random_state=170 + seed, **kw)


def anisotropic(seed):
    def make(rng):
        X, y = _example_blobs(seed)
        return X @ np.array([[0.6, -0.6], [-0.4, 0.8]]), y
    return make


def varied(seed):
    def make(rng):
        return _example_blobs(seed, cluster_std=[1.0, 2.5, 0.5])
    return make


def _segments(X, t, lo, hi, gap):
    """Cut at the thirds of [lo, hi]; drop ``gap`` (a fraction of the range) around
    each cut; label = segment."""
    cuts = lo + (hi - lo) * np.array([1 / 3, 2 / 3])
    half = gap * (hi - lo) / 2
    keep = np.all(np.abs(t[:, None] - cuts) > half, axis=1)
    return X[keep], np.searchsorted(cuts, t[keep]).astype(np.int64)


def s_curve(rng):
    from sklearn.datasets import make_s_curve
    X, t = make_s_curve(1500, noise=0.05, random_state=_state(rng))
    return _segments(X, t, -1.5 * np.pi, 1.5 * np.pi, 0.10)


def swiss_roll(rng):
    from sklearn.datasets import make_swiss_roll
    X, t = make_swiss_roll(1500, noise=0.3, random_state=_state(rng))
    return _segments(X, t, 1.5 * np.pi, 4.5 * np.pi, 0.08)


# --------------------------------------------------------------------------- 2-D, own
def rings3(rng):
    """Three concentric rings (radii 1, 2, 3), as many points per unit length."""
    return _stack([_ring(rng, 300 * r, (0, 0), r, 0.08) for r in (1, 2, 3)])


def _spiral_arms(rng, n, arms, a, t0, t1, sd):
    """``arms`` Archimedean arms r = a t, t in [t0, t1] (radians), rotated by
    2 pi / arms, points uniform along the arc length (density of t ~ t)."""
    parts = []
    for j in range(arms):
        t = np.sqrt(rng.uniform(t0**2, t1**2, n))
        phase = 2 * np.pi * j / arms
        P = np.c_[a * t * np.cos(t + phase), a * t * np.sin(t + phase)]
        parts.append(P + rng.normal(0.0, sd, P.shape))
    return _stack(parts)


def spirals2(rng):
    return _spiral_arms(rng, 600, 2, 1.0, 0.5 * np.pi, 4 * np.pi, 0.3)


def spirals3(rng):
    return _spiral_arms(rng, 500, 3, 1.5, 0.6 * np.pi, 3 * np.pi, 0.25)


def stripes3(rng):
    """Three long thin uniform bands 10 x 0.5, gaps 0.3."""
    return _stack([_box(rng, 400, (0, 0.8 * j), (10, 0.8 * j + 0.5)) for j in range(3)])


def diagonal2(rng):
    """Two parallel diagonal bands: uniform along 10 units, Gaussian across (sd 0.2),
    1.5 apart."""
    parts = []
    for off in (-0.75, 0.75):
        s = rng.uniform(-5, 5, 500)
        c = off + rng.normal(0.0, 0.2, 500)
        parts.append(np.c_[s - c, s + c] / np.sqrt(2))
    return _stack(parts)


def blob_in_ring(rng):
    return _stack([_gauss(rng, 400, (0, 0), 0.4), _ring(rng, 600, (0, 0), 3.0, 0.15)])


def ring_core_blobs(rng):
    return _stack([_gauss(rng, 300, (0, 0), 0.5), _ring(rng, 600, (0, 0), 3.0, 0.15),
                   _gauss(rng, 200, (7.0, 0.5), 0.6), _gauss(rng, 200, (-5.5, 5.0), 0.6)])


def square_blob(rng):
    """A uniform 4 x 4 square and a Gaussian blob (sd 0.5) whose 3-sd disk touches it."""
    return _stack([_box(rng, 800, (0, 0), (4, 4)), _gauss(rng, 400, (5.5, 2.0), 0.5)])


def l_rect_blob(rng):
    """An L (two uniform bars, one label), a uniform rectangle in its corner, a blob."""
    return _stack([_box(rng, 500, (0, 0), (1, 5)), _box(rng, 300, (1, 0), (4, 1)),
                   _box(rng, 450, (1.6, 1.6), (5, 3)), _gauss(rng, 250, (3.3, 4.6), 0.3)],
                  [0, 0, 1, 2])


def overlap2(rng):
    """Two unit Gaussians 3 sd apart, labels by component (Bayes error 6.7 %)."""
    return _stack([_gauss(rng, 500, (0, 0), 1.0), _gauss(rng, 500, (3, 0), 1.0)])


def dense_sparse(rng):
    """A small dense blob (sd 0.3) beside a wide sparse one (sd 2), 6 apart."""
    return _stack([_gauss(rng, 500, (0, 0), 0.3), _gauss(rng, 500, (6, 0), 2.0)])


def smiley(rng):
    """Face outline, two eyes, a mouth arc."""
    return _stack([_ring(rng, 700, (0, 0), 5.0, 0.12), _gauss(rng, 150, (-1.8, 1.8), 0.35),
                   _gauss(rng, 150, (1.8, 1.8), 0.35),
                   _arc(rng, 300, (0, 0.5), 2.8, 205, 335, 0.12)])


def crescent_blob(rng):
    """A crescent (open to the right, thickest at its middle) around a blob."""
    a = rng.uniform(60, 300, 600)
    half = 0.05 + 0.45 * np.sin(np.pi * (a - 60) / 240)
    r = 2.6 + half * rng.uniform(-1, 1, 600)
    t = np.deg2rad(a)
    return _stack([_gauss(rng, 400, (0, 0), 0.5), np.c_[r * np.cos(t), r * np.sin(t)]])


def wavy3(rng):
    """Three sinusoidal worms y = 1.6 j + 0.6 sin x, sd 0.12 across."""
    parts = []
    for j in range(3):
        x = rng.uniform(0, 4 * np.pi, 500)
        parts.append(np.c_[x, 1.6 * j + 0.6 * np.sin(x) + rng.normal(0, 0.12, 500)])
    return _stack(parts)


def _banana(rng, n, centre, degrees):
    """A bent band: (1.2 u, 0.35 u^2), u uniform in [-2, 2], sd 0.18 around it."""
    u = rng.uniform(-2.0, 2.0, n)
    P = np.c_[1.2 * u, 0.35 * u**2] + rng.normal(0.0, 0.18, (n, 2))
    return _rotate(P, degrees) + np.asarray(centre, np.float64)


def bananas(rng):
    """Three banana-shaped bands of unequal sizes, bent different ways."""
    return _stack([_banana(rng, 600, (0, 0), 0), _banana(rng, 400, (4.6, 3.6), 180),
                   _banana(rng, 250, (-1.6, 4.8), -60)])


def grid9(rng):
    """A 3 x 3 grid (spacing 4) of blobs of different sizes and spreads."""
    n = [400, 50, 200, 100, 300, 60, 150, 250, 80]
    sd = [0.8, 0.3, 0.6, 0.4, 0.7, 0.3, 0.5, 0.6, 0.4]
    return _stack([_gauss(rng, n[j], (4 * (j % 3), 4 * (j // 3)), sd[j]) for j in range(9)])


def ring_chain(rng):
    """Four rings of radius 1 in a row, 0.6 apart."""
    return _stack([_ring(rng, 350, (2.6 * j, 0), 1.0, 0.06) for j in range(4)])


def blob_ring8(rng):
    """Eight touching blobs (sd 1) on a circle of radius 5 (3.8 sd apart)."""
    a = 2 * np.pi * np.arange(8) / 8
    return _stack([_gauss(rng, 150, (5 * np.cos(t), 5 * np.sin(t)), 1.0) for t in a])


# --------------------------------------------------------------------------- 3-D, own
def core_shell(rng):
    """A dense ball (radius 1) inside a hollow sphere shell (radius 3)."""
    return _stack([_ball(rng, 500, 1.0), _sphere(rng, 1000, 3.0, 0.1)])


def _torus(rng, n, R, sd):
    """Points uniform in angle on a circle of radius R in the xy-plane, Gaussian
    (sd) around it in 3-D: a torus tube."""
    phi = rng.uniform(0, 2 * np.pi, n)
    return np.c_[R * np.cos(phi), R * np.sin(phi), np.zeros(n)] + rng.normal(0, sd, (n, 3))


def tori(rng):
    """Two interlocked tori (chain links): one in the xy-plane at 0, one in the
    xz-plane at (2, 0, 0); each passes through the other's hole."""
    second = _torus(rng, 800, 2.0, 0.2)[:, [0, 2, 1]] + [2.0, 0.0, 0.0]
    return _stack([_torus(rng, 800, 2.0, 0.2), second])


def shells2(rng):
    """Two nested sphere shells (radii 1.5 and 3), as many points per unit area."""
    return _stack([_sphere(rng, 400, 1.5, 0.08), _sphere(rng, 1600, 3.0, 0.08)])


def blobs7_3d(rng):
    """Seven Gaussian blobs (sd 1) in 3-D, centres >= 5 apart, unequal sizes."""
    for _ in range(10_000):
        c = rng.uniform(-7, 7, (7, 3))
        dist = np.linalg.norm(c[:, None] - c[None], axis=2)[np.triu_indices(7, 1)]
        if dist.min() >= 5.0:
            break
    else:
        raise RuntimeError("no 7 centres 5 apart in [-7, 7]^3")
    n = [250, 100, 200, 150, 250, 120, 180]
    return _stack([_gauss(rng, n[j], c[j], 1.0) for j in range(7)])


def tetra4(rng):
    """Four touching blobs (sd 0.8) at the vertices of a tetrahedron of edge 3."""
    v = np.array([[1, 1, 1], [1, -1, -1], [-1, 1, -1], [-1, -1, 1]]) * 3 / np.sqrt(8)
    return _stack([_gauss(rng, 300, c, 0.8) for c in v])


def helices2(rng):
    """Two intertwined helices (radius 1, pitch 0.4 per radian, three turns)."""
    parts = []
    for phase in (0.0, np.pi):
        t = rng.uniform(0, 6 * np.pi, 600)
        P = np.c_[np.cos(t + phase), np.sin(t + phase), 0.4 * t]
        parts.append(P + rng.normal(0, 0.1, P.shape))
    return _stack(parts)


# --------------------------------------------------------------------------- hard: pieces
def _noisy(rng, X, y, share):
    """Add points uniform over the bounding box of ``X`` grown by 10 % of its extent
    (5 % each side), labelled -1, so that they make ``share`` of the result."""
    lo, hi = X.min(axis=0), X.max(axis=0)
    pad = 0.05 * (hi - lo)
    m = int(round(share * len(X) / (1.0 - share)))
    return np.vstack([X, _box(rng, m, lo - pad, hi + pad)]), np.r_[y, np.full(m, -1)]


def _far(rng, X, y, m):
    """Add ``m`` outliers (label -1) in uniform directions from the centre of the
    bounding box, at 1.2 to 2 times the largest distance of a point from it."""
    c = (X.min(axis=0) + X.max(axis=0)) / 2
    u = rng.normal(size=(m, X.shape[1]))
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    R = np.linalg.norm(X - c, axis=1).max() * rng.uniform(1.2, 2.0, (m, 1))
    return np.vstack([X, c + u * R]), np.r_[y, np.full(m, -1)]


def _bar(rng, n, p, q, width):
    """Uniform over the rectangle of the given width around the segment p-q."""
    p, d = np.asarray(p, np.float64), np.subtract(q, p).astype(np.float64)
    across = np.array([-d[1], d[0]]) / np.linalg.norm(d)
    return p + rng.random((n, 1)) * d + (rng.random((n, 1)) - 0.5) * width * across


def _triangle(rng, n, a, b, c):
    """Uniform over the triangle abc (folded unit square)."""
    u, v = rng.random((2, n, 1))
    flip = (u + v) > 1
    u, v = np.where(flip, 1 - u, u), np.where(flip, 1 - v, v)
    a = np.asarray(a, np.float64)
    return a + u * np.subtract(b, a) + v * np.subtract(c, a)


def _diamond(rng, n, centre, r):
    """Uniform over |x - cx| + |y - cy| <= r."""
    h = r / np.sqrt(2)
    return _rotate(_box(rng, n, (-h, -h), (h, h)), 45) + np.asarray(centre, np.float64)


def _unit(rng, n, d):
    u = rng.normal(size=(n, d))
    return u / np.linalg.norm(u, axis=1, keepdims=True)


def _wave(rng, n, x0, x1, f, sd):
    """Points uniform in x on [x0, x1] around the curve y = f(x), Gaussian in y."""
    x = rng.uniform(x0, x1, n)
    return np.c_[x, f(x) + rng.normal(0.0, sd, n)]


def _zigzag(x, period, amplitude):
    """Triangle wave from 0 to ``amplitude``."""
    return amplitude * 2 * np.abs(x / period - np.floor(x / period + 0.5))


def _spiral_piece(rng, n, centre, a, t0, t1, sd):
    return _spiral_arms(rng, n, 1, a, t0, t1, sd)[0] + np.asarray(centre, np.float64)


# --------------------------------------------------------------------------- hard: 2-D
def moons_5x(rng):
    """Two moons (sd 0.07), the upper one 5x denser (1500 / 300 points); 10 % noise."""
    a, b = rng.uniform(0, np.pi, 1500), rng.uniform(0, np.pi, 300)
    parts = [np.c_[np.cos(a), np.sin(a)], np.c_[1 - np.cos(b), 0.5 - np.sin(b)]]
    return _noisy(rng, *_stack([p + rng.normal(0, 0.07, p.shape) for p in parts]), 0.10)


def core_by_ring(rng):
    """A dense Gaussian core (800, sd 0.3) just outside a sparse ring (300, r 2);
    5 % noise."""
    X, y = _stack([_ring(rng, 300, (0, 0), 2.0, 0.1), _gauss(rng, 800, (3.0, 0), 0.3)])
    return _noisy(rng, X, y, 0.05)


def sizes_2000_50(rng):
    """Blobs of 2000 (sd 1), 400 (sd 0.5) and 50 points (sd 0.2)."""
    return _stack([_gauss(rng, 2000, (0, 0), 1.0), _gauss(rng, 400, (4.6, 0), 0.5),
                   _gauss(rng, 50, (2.4, 3.6), 0.2)])


def bridged(rng):
    """Two blobs (600 each, sd 0.6, 6 apart) joined by a bridge of 150 points
    (sd 0.04 across); every point takes the label of its side of x = 0."""
    bridge = np.c_[rng.uniform(-2.4, 2.4, 150), rng.normal(0, 0.04, 150)]
    X = np.vstack([_gauss(rng, 600, (-3, 0), 0.6), _gauss(rng, 600, (3, 0), 0.6), bridge])
    return X, (X[:, 0] > 0).astype(np.int64)


def ring_two_blobs(rng):
    """A ring (r 3) around two blobs (sd 0.5, 5 sd apart) that nearly touch it."""
    return _stack([_ring(rng, 900, (0, 0), 3.0, 0.1), _gauss(rng, 400, (-1.25, 0), 0.5),
                   _gauss(rng, 400, (1.25, 0), 0.5)])


def diamonds(rng):
    """Two uniform diamonds touching at a vertex, 800 and 400 points."""
    return _stack([_diamond(rng, 800, (-1, 0), 1.0), _diamond(rng, 400, (1, 0), 1.0)])


def wingnut(rng):
    """Two 2 x 1 rectangles 0.02 apart, the right one 0.4 higher; the density falls
    linearly from the shared edge to zero at the far edges; 1000 points each."""
    parts = []
    for side, dy in ((-1, 0.0), (1, 0.4)):
        s = 2 * (1 - np.sqrt(rng.random(1000)))      # distance to the edge, density 2 - s
        parts.append(np.c_[side * (0.01 + s), dy + rng.random(1000)])
    return _stack(parts)


def engytime(rng):
    """Two overlapping Gaussians of 1500: sd (1, 0.5) turned 30 deg at 0, sd
    (0.6, 1.1) turned -20 deg at (2.2, 1)."""
    a = _rotate(rng.normal(size=(1500, 2)) * (1.0, 0.5), 30)
    b = _rotate(rng.normal(size=(1500, 2)) * (0.6, 1.1), -20) + (2.2, 1.0)
    return _stack([a, b])


def close_pair_far(rng):
    """Blobs sd 1 and 0.8 at 3.4 apart, a third (sd 1.5) 15 away; 700 / 500 / 300."""
    return _stack([_gauss(rng, 700, (0, 0), 1.0), _gauss(rng, 500, (3.4, 0), 0.8),
                   _gauss(rng, 300, (14, 6), 1.5)])


def chameleon_a(rng):
    """Ring with a core, two bars, a spiral piece with a core, an elongated blob
    (k = 7); 10 % noise."""
    X, y = _stack([
        _ring(rng, 1100, (2, 4), 1.2, 0.07), _gauss(rng, 500, (2, 4), 0.25),
        _bar(rng, 1400, (0.5, 0.5), (9.5, 0.5), 0.3), _bar(rng, 800, (4.4, 1.3), (4.4, 5.6), 0.3),
        _spiral_piece(rng, 1500, (7.3, 3.5), 0.2, 1.4 * np.pi, 3.6 * np.pi, 0.07),
        _gauss(rng, 400, (7.3, 3.5), 0.2), _gauss(rng, 600, (2.2, 1.6), (0.6, 0.18))])
    return _noisy(rng, X, y, 0.10)


def chameleon_b(rng):
    """Two interleaved moons, a triangle, a sine band, a bar, an elliptic ring and
    three blobs of unequal spread (k = 9); 10 % noise."""
    t1, t2 = rng.uniform(0, np.pi, (2, 1400))
    moon1 = np.c_[2.5 + 1.6 * np.cos(t1), 5.0 + 1.6 * np.sin(t1)]
    moon2 = np.c_[4.1 - 1.6 * np.cos(t2), 5.8 - 1.6 * np.sin(t2)]
    t = rng.uniform(0, 2 * np.pi, 1000)
    ellipse = np.c_[9.5 + 1.5 * np.cos(t), 1.0 + 0.6 * np.sin(t)]
    X, y = _stack([
        moon1 + rng.normal(0, 0.08, moon1.shape), moon2 + rng.normal(0, 0.08, moon2.shape),
        _triangle(rng, 1200, (7, 5), (9, 5), (8, 7.2)),
        _wave(rng, 1500, 0.5, 6.0, lambda x: 1.2 + 0.5 * np.sin(2 * x), 0.08),
        _bar(rng, 700, (6.5, 0.5), (6.5, 4.0), 0.25), ellipse + rng.normal(0, 0.06, (1000, 2)),
        _gauss(rng, 600, (10.5, 6.5), 0.3), _gauss(rng, 700, (10.5, 3.5), 0.7),
        _gauss(rng, 400, (8.3, 3.2), 0.35)])
    return _noisy(rng, X, y, 0.10)


def chameleon_c(rng):
    """A zig-zag band, two concentric rings, a diagonal bar, a blob touching a small
    dense blob (k = 6); 10 % noise."""
    X, y = _stack([
        _wave(rng, 1200, 0.5, 7.0, lambda x: 0.6 + _zigzag(x, 2.0, 0.8), 0.07),
        _ring(rng, 600, (2.5, 4.5), 0.8, 0.06), _ring(rng, 1200, (2.5, 4.5), 1.6, 0.06),
        _bar(rng, 700, (5.0, 3.0), (7.5, 5.5), 0.3), _gauss(rng, 600, (8.7, 2.4), 0.5),
        _gauss(rng, 300, (9.9, 3.0), 0.22)])
    return _noisy(rng, X, y, 0.10)


def blobs10(rng):
    """Ten Gaussian blobs of 60..600 points and sd 0.25..1, some touching."""
    c = [(0, 0), (3, 0.5), (6.5, 0), (1, 4), (4, 3.7), (7.5, 4), (10, 1.5), (10.5, 5),
         (2.5, 7.5), (7, 7.5)]
    n = [600, 150, 400, 80, 500, 200, 300, 60, 250, 400]
    sd = [0.9, 0.4, 0.8, 0.3, 1.0, 0.5, 0.7, 0.25, 0.6, 0.9]
    return _stack([_gauss(rng, n[j], c[j], sd[j]) for j in range(10)])


def shapes8(rng):
    """Eight small shapes: ring, cross, triangle, blob, bar, arc and two touching
    blobs; 5 % noise."""
    cross = np.vstack([_bar(rng, 200, (2.9, 1), (4.1, 1), 0.15),
                       _bar(rng, 200, (3.5, 0.4), (3.5, 1.6), 0.15)])
    X, y = _stack([
        _ring(rng, 300, (1, 1), 0.6, 0.04), cross,
        _triangle(rng, 300, (5, 0.4), (6.4, 0.4), (5.7, 1.6)), _gauss(rng, 250, (7.8, 1), 0.3),
        _bar(rng, 300, (0.3, 2.6), (4, 2.6), 0.2), _arc(rng, 250, (5.5, 2.0), 1.0, 30, 150, 0.05),
        _gauss(rng, 200, (7.5, 3.0), 0.3), _gauss(rng, 200, (8.4, 3.2), 0.3)])
    return _noisy(rng, X, y, 0.05)


def tight_stripes(rng):
    """Four uniform stripes 8 x 0.3, 500 points each, gaps of 1.5, 4 and 8 times the
    mean within-stripe nearest-neighbour distance."""
    from scipy.spatial import cKDTree
    S = [_box(rng, 500, (0, 0), (8, 0.3)) for _ in range(4)]
    s = np.mean([cKDTree(P).query(P, 2)[0][:, 1].mean() for P in S])
    y0 = np.r_[0.0, np.cumsum(0.3 + s * np.array([1.5, 4.0, 8.0]))]
    return _stack([P + (0, y0[j]) for j, P in enumerate(S)])


def zigzag_outliers(rng):
    """Three zig-zag bands (amplitude 0.8, period 2, 1.1 apart, sd 0.07), 600 each,
    and 20 far outliers."""
    X, y = _stack([_wave(rng, 600, 0, 8, lambda x, j=j: 1.1 * j + _zigzag(x, 2.0, 0.8), 0.07)
                   for j in range(3)])
    return _far(rng, X, y, 20)


def sines4(rng):
    """Four parallel sine waves y = j + 0.9 sin x (sd 0.1), 500 each; 5 % noise."""
    X, y = _stack([_wave(rng, 500, 0, 4 * np.pi, lambda x, j=j: j + 0.9 * np.sin(x), 0.1)
                   for j in range(4)])
    return _noisy(rng, X, y, 0.05)


def nested3(rng):
    """A dense blob (600, sd 0.25) in a ring (600, r 2) in a sparse ring (400, r 4);
    5 % noise."""
    X, y = _stack([_gauss(rng, 600, (0, 0), 0.25), _ring(rng, 600, (0, 0), 2.0, 0.1),
                   _ring(rng, 400, (0, 0), 4.0, 0.15)])
    return _noisy(rng, X, y, 0.05)


def blobs_outliers(rng):
    """Four elongated blobs (sd 1 x 0.3, turned) of 300..500 points, 30 far outliers."""
    spec = [((0, 0), 20, 500), ((3.5, 2.5), -40, 400), ((0.5, 4), 80, 300), ((5, -1), 10, 350)]
    X, y = _stack([_rotate(rng.normal(size=(n, 2)) * (1.0, 0.3), a) + c for c, a, n in spec])
    return _far(rng, X, y, 30)


def spirals_noisy(rng):
    """Two spiral arms (sd 0.25) in 15 % noise."""
    X, y = _spiral_arms(rng, 700, 2, 1.0, 0.5 * np.pi, 4 * np.pi, 0.25)
    return _noisy(rng, X, y, 0.15)


def crossing_rings(rng):
    """Two rings (r 2, sd 0.08, 800 each) with centres 2.4 apart, crossing twice."""
    return _stack([_ring(rng, 800, (-1.2, 0), 2.0, 0.08), _ring(rng, 800, (1.2, 0), 2.0, 0.08)])


# --------------------------------------------------------------------------- hard: d > 2
def gauss10d(rng):
    """Four unit Gaussians in 5 dimensions, centres 5 apart (scaled simplex
    vertices), 400 each, and 5 more dimensions uniform on [-4, 4]."""
    X, y = _stack([_gauss(rng, 400, c, 1.0) for c in np.eye(5)[:4] * 5 / np.sqrt(2)])
    return np.c_[X, rng.uniform(-4, 4, (len(X), 5))], y


def hyperspheres5d(rng):
    """Two concentric sphere shells in 5-D, r 1 (600) and r 2 (1400), sd 0.08."""
    return _stack([_unit(rng, n, 5) * (r + rng.normal(0, 0.08, (n, 1)))
                   for n, r in ((600, 1.0), (1400, 2.0))])


def sphere_caps(rng):
    """Five caps on the unit sphere (angular sd 0.15..0.3 rad, two 50 deg apart),
    radial sd 0.02; 10 % noise uniform over the sphere."""
    spec = [(0, 0, 0.25, 500), (0, 50, 0.2, 400), (60, 150, 0.3, 600), (-50, 120, 0.15, 300),
            (-20, -100, 0.25, 400)]
    parts = []
    for lat, lon, sd, n in spec:
        la, lo = np.deg2rad(lat), np.deg2rad(lon)
        mu = np.array([np.cos(la) * np.cos(lo), np.cos(la) * np.sin(lo), np.sin(la)])
        e1 = np.cross(mu, [0.0, 0.0, 1.0]) if abs(lat) < 80 else np.array([1.0, 0, 0])
        e1 /= np.linalg.norm(e1)
        P = mu + rng.normal(0, sd, (n, 2)) @ np.vstack([e1, np.cross(mu, e1)])
        parts.append(P / np.linalg.norm(P, axis=1, keepdims=True))
    m = int(round(0.1 * 2200 / 0.9))
    X, y = _stack(parts + [_unit(rng, m, 3)], [0, 1, 2, 3, 4, -1])
    return X * (1 + rng.normal(0, 0.02, (len(X), 1))), y


def blobs3d_noise(rng):
    """Five 3-D Gaussians (sd 0.4..0.8, 300..500 points) about 3 apart; 15 % noise."""
    c = [(0, 0, 0), (3, 0, 0), (0, 3, 0), (0, 0, 3), (3, 3, 3)]
    sd, n = [0.5, 0.7, 0.4, 0.6, 0.8], [400, 500, 300, 400, 450]
    X, y = _stack([_gauss(rng, n[j], c[j], sd[j]) for j in range(5)])
    return _noisy(rng, X, y, 0.15)


# --------------------------------------------------------------------------- registry
def shapes(seed=0):
    """``[(name, note, generator(rng) -> (X, y))]``; the seed enters the
    generators of scikit-learn's example that fix their own random_state."""
    sk = "scikit-learn "
    return [
        ("moons", sk + "make_moons(1000, noise=0.05)", moons(0.05)),
        ("moons noisy", sk + "make_moons(1000, noise=0.12)", moons(0.12)),
        ("circles", sk + "make_circles(1000, factor=0.5, noise=0.05)", circles),
        ("anisotropic blobs", sk + "make_blobs(1500, random_state=170+seed) @ "
         "[[0.6, -0.6], [-0.4, 0.8]] (clustering comparison example)", anisotropic(seed)),
        ("varied blobs", sk + "make_blobs(1500, cluster_std=[1, 2.5, 0.5], "
         "random_state=170+seed) (clustering comparison example)", varied(seed)),
        ("S-curve in 3 segments", sk + "make_s_curve(1500, noise=0.05), cut in thirds "
         "of t, 10 % gaps dropped", s_curve),
        ("swiss roll in 3 segments", sk + "make_swiss_roll(1500, noise=0.3), cut in "
         "thirds of t, 8 % gaps dropped", swiss_roll),
        ("three rings", "concentric rings r = 1, 2, 3, sd 0.08", rings3),
        ("two spirals", "interleaved Archimedean arms, sd 0.3", spirals2),
        ("three-arm spiral", "three Archimedean arms, sd 0.25", spirals3),
        ("parallel stripes", "3 uniform bands 10 x 0.5, gaps 0.3", stripes3),
        ("diagonal stripes", "2 diagonal bands, sd 0.2 across, 1.5 apart", diagonal2),
        ("blob in ring", "Gaussian core sd 0.4 in a ring r = 3", blob_in_ring),
        ("ring, core, 2 blobs", "core, ring r = 3, two outside blobs", ring_core_blobs),
        ("square touching blob", "uniform square + Gaussian touching it", square_blob),
        ("L, rectangle, blob", "uniform L, uniform rectangle, Gaussian", l_rect_blob),
        ("overlapping Gaussians", "two unit Gaussians 3 sd apart", overlap2),
        ("dense + sparse blob", "sd 0.3 and sd 2, 6 apart, 500 each", dense_sparse),
        ("smiley", "outline ring, two eyes, mouth arc", smiley),
        ("crescent around blob", "tapered crescent around a Gaussian", crescent_blob),
        ("wavy bands", "three sinusoidal worms, sd 0.12", wavy3),
        ("bananas", "three bananas 600/400/250", bananas),
        ("grid of 9 unequal blobs", "3 x 3 grid, 50..400 points, sd 0.3..0.8", grid9),
        ("chain of 4 rings", "rings r = 1 in a row, 0.6 apart", ring_chain),
        ("8 touching blobs on a circle", "sd 1, neighbours 3.8 sd apart", blob_ring8),
        ("3-D core in shell", "uniform ball r = 1 in a sphere shell r = 3", core_shell),
        ("3-D interlocked tori", "two chain-link tori R = 2, tube sd 0.2", tori),
        ("3-D nested shells", "sphere shells r = 1.5 and 3, sd 0.08", shells2),
        ("3-D 7 blobs", "7 Gaussians sd 1, centres >= 5 apart", blobs7_3d),
        ("3-D tetrahedron blobs", "4 Gaussians sd 0.8 at tetrahedron vertices, "
         "edge 3", tetra4),
        ("3-D two helices", "intertwined helices, sd 0.1", helices2),
    ]


def hard(seed=0):
    """``[(name, note, generator(rng) -> (X, y))]`` of the hard battery: noise
    (label -1: uniform over the bounding box grown 10 %, or far outliers), unequal
    densities, touching and bridged shapes, many clusters, larger n, d > 3."""
    return [
        ("moons 5x denser + noise", "density 5:1, 10 % noise", moons_5x),
        ("dense core by sparse ring", "density, near contact, 5 % noise", core_by_ring),
        ("sizes 2000/400/50", "cluster sizes 40:8:1, small cluster near the big one",
         sizes_2000_50),
        ("bridged blobs", "a thin bridge of points joins two blobs", bridged),
        ("ring around two blobs", "blobs nearly touch the ring and each other", ring_two_blobs),
        ("diamonds touching at a vertex", "contact at one point, density 2:1", diamonds),
        ("wingnut-like", "density rises toward a shared edge, gap ~ 1 NN spacing", wingnut),
        ("engytime-like", "two overlapping Gaussians, unequal covariances", engytime),
        ("two close, one far", "scales: two touching blobs and a far one", close_pair_far),
        ("chameleon-like 7 shapes", "n ~ 7000, ring+core, bars, spiral piece, 10 % noise",
         chameleon_a),
        ("chameleon-like 9 shapes", "n ~ 10000, moons, triangle, sine, bar, ellipse, "
         "3 blobs, 10 % noise", chameleon_b),
        ("chameleon-like 6 shapes", "n ~ 5000, zig-zag, 2 rings, bar, touching blobs, "
         "10 % noise", chameleon_c),
        ("10 unequal blobs", "k = 10, sizes 60..600, sd 0.25..1, some touching", blobs10),
        ("8 small shapes", "k = 8 shapes of 200..400 points, 5 % noise", shapes8),
        ("tight stripes", "gaps 1.5, 4, 8 times the mean NN distance", tight_stripes),
        ("zig-zags + outliers", "3 zig-zag bands, 20 far outliers", zigzag_outliers),
        ("4 sine waves + noise", "parallel curved bands, 5 % noise", sines4),
        ("nested blob, ring, ring", "nesting with densities 3:1 along the rings, 5 % noise",
         nested3),
        ("elongated blobs + outliers", "4 turned cigars, 30 far outliers", blobs_outliers),
        ("two spirals in 15 % noise", "spiral arms sd 0.25, 15 % noise", spirals_noisy),
        ("crossing rings", "two rings crossing at two points", crossing_rings),
        ("10-D 4 Gaussians + 5 noise dims", "half the dimensions carry no signal", gauss10d),
        ("5-D concentric hyperspheres", "nested shells in 5-D", hyperspheres5d),
        ("3-D caps on a sphere", "5 caps on a sphere surface, 10 % noise on the sphere",
         sphere_caps),
        ("3-D 5 blobs in 15 % noise", "touching 3-D blobs, 15 % noise", blobs3d_noise),
    ]


def draw(name, make, seed=0):
    """``make(rng)`` with a generator seeded by ``seed`` and the set's name, so that
    a set's draw does not depend on its place in the list."""
    rng = np.random.default_rng([seed, zlib.crc32(name.encode())])
    X, y = make(rng)
    return np.asarray(X, np.float64), np.asarray(y, np.int64)
