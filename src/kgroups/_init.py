"""Starting partitions for kernel k-groups and kernel k-means.

``"k-means++"``
    Arthur & Vassilvitskii's seeding in the input space (squared Euclidean
    distances, as the paper does), then each point joins its nearest seed.
    For precomputed inputs there is no input space, so it means
    ``"kernel-k-means++"``.
``"kernel-k-means++"``
    D^2 seeding in the kernel's feature space, where the squared distance is
    ``||phi(x) - phi(y)||^2 = K(x,x) + K(y,y) - 2 K(x,y)`` (``= rho(x, y)`` for a
    kernel built from a semimetric); weighted by ``sample_weight``, with
    ``2 + log k`` greedy local trials per seed.
``"random"``
    Uniform random labels; every cluster gets at least one point.
``"spectral"``
    The spectral relaxation (paper eq. 29) on the paper's ``x0 = 0`` kernel.
array of shape (n_samples,)
    Given labels in ``[0, k)``.
"""

from __future__ import annotations

import numpy as np
from sklearn.cluster import kmeans_plusplus

from ._validation import INIT_NAMES, check_init_labels


def initial_labels(init, engine, X, k, rng, spectral_gram=None, owner="KernelKGroups"):
    """Labels to start one run from (see module docstring)."""
    n = engine.w.shape[0]
    if not isinstance(init, str):
        return check_init_labels(init, n, k, owner)
    if init == "k-means++" and X is not None:
        seed = int(rng.integers(np.iinfo(np.int32).max))
        centers, _ = kmeans_plusplus(X, k, sample_weight=engine.w, random_state=seed)
        return np.argmin(_sq_dists(X, centers), axis=1).astype(np.int64)
    if init in ("k-means++", "kernel-k-means++"):
        return _kernel_kmeanspp(engine, k, rng)
    if init == "random":
        return _random_labels(n, k, rng)
    from ._spectral import spectral_kgroups

    seed = int(rng.integers(np.iinfo(np.int32).max))
    G = spectral_gram()
    return np.asarray(spectral_kgroups(G, k, sample_weight=engine.w, random_state=seed).labels,
                      dtype=np.int64)


def _sq_dists(X, C):
    """Squared distances between rows and centres, up to a per-row constant."""
    xc = X - X.mean(axis=0)
    cc = C - X.mean(axis=0)
    return (cc**2).sum(1)[None, :] - 2 * xc @ cc.T


def _random_labels(n, k, rng):
    labels = rng.integers(0, k, size=n).astype(np.int64)
    if np.unique(labels).size < k:
        labels[rng.choice(n, size=k, replace=False)] = np.arange(k)
    return labels


def _kernel_kmeanspp(engine, k, rng):
    """Weighted D^2 seeding in feature space; returns labels of the nearest seed."""
    w = engine.w
    kdiag = engine.diag / (w * w)
    n = w.shape[0]
    n_trials = 2 + int(np.log(k))

    def dist_to(c):
        return np.maximum(kdiag + kdiag[c] - 2.0 * engine.column(c), 0.0)

    first = int(rng.choice(n, p=w / w.sum()))
    closest = dist_to(first)
    labels = np.zeros(n, dtype=np.int64)
    for c in range(1, k):
        pot = w * closest
        total = pot.sum()
        if total <= 0:  # all remaining points coincide with seeds
            cands = rng.choice(n, size=n_trials)
        else:
            cands = rng.choice(n, size=n_trials, p=pot / total)
        best = None
        for cand in cands:
            dc = dist_to(int(cand))
            score = float((w * np.minimum(closest, dc)).sum())
            if best is None or score < best[0]:
                best = (score, dc)
        dc = best[1]
        labels[dc < closest] = c
        closest = np.minimum(closest, dc)
    return labels
