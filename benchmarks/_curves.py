"""Random draws of long curved clusters for the ``"curves"`` battery: the shapes of the
outside battery's 2-D sets (arms, waves, rings) at settings drawn at random, so that a
rule for the choice of k is judged on many of them rather than on a few fixed pictures.

Draw ``s`` (:func:`draw`) is of kind ``s % 3``, its parameters drawn from
``numpy.random.default_rng([seed, s])``:

* **spiral**: 2 to 4 arms of 150 to 400 points each, 0.8 to 1.8 turns, Gaussian noise
  of sd 0.05 to 0.35 across them; the angle uniform, or its square uniform (arms
  denser at their outer ends);
* **sine waves**: 2 to 5 waves :math:`y = \\sin x + g j` over two periods, 150 to 400
  points each uniform in x, noise sd 0.05 to 0.2, the waves 1.8 to 3.0 apart, and 0 to
  15 % of background points uniform over the box (label -1, not scored);
* **rings**: 2 to 4 concentric rings of radii 1, 2, ..., 100 to 500 points each
  (unequal), noise sd 0.03 to 0.12.

Draws from :data:`N_DRAWS` on (:data:`N_APART` of them) alternate two kinds whose
shapes lie apart, each a component of the neighbourhood graph, where energy sees the
shapes but may cut one into pieces:

* **rings apart**: 2 to 5 rings of radius 0.7 to 1.3 at the nodes of a grid of step
  3, 100 to 300 points each, noise sd 0.03 to 0.10;
* **zigzags**: 2 to 4 parallel zigzags of 3 to 6 strokes, 2.5 apart, 150 to 300
  points each uniform along x, noise sd 0.03 to 0.08, and 0 to 5 % of outliers
  uniform over the box (label -1, not scored).

The last :data:`N_LARGE` draws are rings apart at the size of the outside battery's sets
(Gagolewski's ``circles`` has 4,000 points): 3 to 5 rings as above, 500 to 1,000 points
each, noise sd 0.02 to 0.08. With many points the split tests have the power to see a
ring's chance thin spots.

Every parameter is in the set's name, which holds the draw's number.
"""

from __future__ import annotations

import numpy as np

N_DRAWS = 36
N_APART = 24
N_LARGE = 12


def _spiral(rng):
    arms, turns, n = int(rng.integers(2, 5)), rng.uniform(0.8, 1.8), int(rng.integers(150, 400))
    sd, outer = rng.uniform(0.05, 0.35), bool(rng.random() < 0.5)
    parts = []
    for a in range(arms):
        u = rng.uniform(0.15, 1.0, n)
        t = (np.sqrt(u) if outer else u) * turns * 2.0 * np.pi
        phase = t + a * 2.0 * np.pi / arms
        parts.append(np.c_[t * np.cos(phase), t * np.sin(phase)] + rng.normal(0.0, sd, (n, 2)))
    name = f"spiral {arms} arms {turns:.1f} turns sd {sd:.2f}" + (" outer-dense" if outer else "")
    return np.vstack(parts), np.repeat(np.arange(arms), n), name


def _sines(rng):
    m, n, sd = int(rng.integers(2, 6)), int(rng.integers(150, 400)), rng.uniform(0.05, 0.2)
    gap, share = rng.uniform(1.8, 3.0), rng.uniform(0.0, 0.15)
    parts = []
    for j in range(m):
        x = rng.uniform(0.0, 4.0 * np.pi, n)
        parts.append(np.c_[x, np.sin(x) + gap * j] + rng.normal(0.0, sd, (n, 2)))
    nb = int(share * m * n)
    back = np.c_[rng.uniform(0.0, 4.0 * np.pi, nb), rng.uniform(-1.5, gap * m, nb)]
    name = f"{m} sine waves gap {gap:.1f} sd {sd:.2f} background {share:.2f}"
    return np.vstack(parts + [back]), np.r_[np.repeat(np.arange(m), n), np.full(nb, -1)], name


def _rings(rng):
    m, sd = int(rng.integers(2, 5)), rng.uniform(0.03, 0.12)
    parts = []
    for j in range(m):
        t = rng.uniform(0.0, 2.0 * np.pi, int(rng.integers(100, 500)))
        ring = (1 + j) * np.c_[np.cos(t), np.sin(t)]
        parts.append(ring + rng.normal(0.0, sd, (t.size, 2)))
    y = np.concatenate([np.full(len(p), j) for j, p in enumerate(parts)])
    return np.vstack(parts), y, f"{m} rings sd {sd:.2f}"


def _rings_apart(rng, rings=(2, 6), sds=(0.03, 0.10), points=(100, 300), what=""):
    m, sd = int(rng.integers(*rings)), rng.uniform(*sds)
    nodes = rng.permutation(9)[:m]
    parts = []
    for j, node in enumerate(nodes):
        t = rng.uniform(0.0, 2.0 * np.pi, int(rng.integers(*points)))
        r, centre = rng.uniform(0.7, 1.3), 3.0 * np.array([node % 3, node // 3])
        parts.append(centre + r * np.c_[np.cos(t), np.sin(t)] + rng.normal(0.0, sd, (t.size, 2)))
    y = np.concatenate([np.full(len(p), j) for j, p in enumerate(parts)])
    return np.vstack(parts), y, f"{m} rings apart{what} sd {sd:.2f}"


def _large_rings_apart(rng):
    return _rings_apart(rng, (3, 6), (0.02, 0.08), (500, 1000), " of 500-1000 points")


def _zigzags(rng):
    m, strokes, sd = int(rng.integers(2, 5)), int(rng.integers(3, 7)), rng.uniform(0.03, 0.08)
    share, parts = rng.uniform(0.0, 0.05), []
    for j in range(m):
        x = rng.uniform(0.0, strokes, int(rng.integers(150, 300)))
        height = 0.8 * np.abs((x % 2.0) - 1.0)          # a stroke up, a stroke down
        parts.append(np.c_[x, height + 2.5 * j] + rng.normal(0.0, sd, (x.size, 2)))
    nb = int(share * sum(len(p) for p in parts))
    back = np.c_[rng.uniform(-1.0, strokes + 1.0, nb), rng.uniform(-1.0, 2.5 * m, nb)]
    y = np.r_[np.concatenate([np.full(len(p), j) for j, p in enumerate(parts)]), np.full(nb, -1)]
    name = f"{m} zigzags of {strokes} strokes sd {sd:.2f} outliers {share:.2f}"
    return np.vstack(parts + [back]), y, name


KINDS = (_spiral, _sines, _rings)
APART = (_rings_apart, _zigzags)


def draw(s, seed=0):
    """``(X, y, name)`` of draw ``s``.

    >>> X, y, name = draw(1)
    >>> name.split(" gap")[0], X.shape[1], int(y.min()) >= -1
    ('4 sine waves', 2, True)
    """
    kind = (KINDS[s % len(KINDS)] if s < N_DRAWS else APART[s % len(APART)]
            if s < N_DRAWS + N_APART else _large_rings_apart)
    X, y, name = kind(np.random.default_rng([seed, s]))
    return X.astype(np.float64), y.astype(np.int64), f"{name} #{s}"


def loaders(seed=0):
    """``[(name, note, load)]`` of the ``N_DRAWS + N_APART + N_LARGE`` draws."""
    out = []
    for s in range(N_DRAWS + N_APART + N_LARGE):
        name = draw(s, seed)[2]
        out.append((name, f"_curves.draw({s}, seed={seed})", lambda s=s: draw(s, seed)[:2]))
    return out
