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

Large inputs on the low-rank engine with a named semimetric: past ``SAMPLE_ROWS``
(20,000) points a ``"k-means++"`` or ``"kernel-k-means++"`` start is the estimator's
own fit, with
``SAMPLE_N_INIT`` (10) starts of that init and the engine ``"auto"`` picks, on a
uniform sample of 20,000 points, each point then joining the nearest mean of that
partition in the engine's feature space (as the Dask engine starts). Measured on
``make_blobs(10**6, 10, centers=10, cluster_std=2.5)``, k = 10, one start, random
states 0-3: the plain k-means++ start fell into a poor local optimum on one of the
four (ARI 0.865 to the generating labels, W 14.7% above the exact engine's on a
20,000-point subsample); from the sample start all four reach ARI 0.9995 and the
exact engine's W, in 2 sweeps and 8.6 to 14.2 s.

How many starts ``fit`` runs (:func:`resolve_n_init`): given labels run once (an
array of shape (n_starts, n_samples): once each, as restarts);
``n_init="auto"`` (the default) runs ``min(30, 40_000 // n_samples)`` starts, at
least one: 30 up to 1333 samples, 20 at 2000, 8 at 5000, 4 at 10,000, one from
40,000 on. The starts' ``M`` share one pass over the kernel (the points with one
label in every start form classes whose sums are added per start: O(G n) for G
classes on the dense engine, see ``HeldKernelEngine.build_ms``; the matrix-free one
shares one pass over the pairs among up to ten starts, and sums O(n^2) per start
only when they share few labels), and each start pays its sweeps, so the
restarts' extra work is at most about ``40_000 n`` kernel sums, linear in n,
while the kernel itself costs
O(n^2 D): where restarts are cheap there are many, where they would dominate
there is one. On the dense engine the seeding runs compiled
(:mod:`kgroups._engine.seeding`): the 30 default starts on the six bundled tables
took 2.3-6.2 ms per fit against 6.0-17.1 ms before (dermatology 5.8-6.2 against
15.9-16.5 ms), still up to 2.4 times the former default, one input-space k-means++
start (1.5-4.3 ms, reaching the best-known W on 1 to 20 seeds of 20 by table;
``benchmarks/results/bench_defaults_ab.txt``). Measured with
``benchmarks/bench_defaults.py``: from one ``"kernel-k-means++"`` start, Hartigan's
method reaches the best-known partition of dermatology (energy, alpha = 1/2, k = 6)
on 3 seeds of 20, of glass (alpha = 1) on 3 of 20; from 20 starts on 20 and 19, and
from the ``"auto"`` number on every seed of 20 on dermatology, wine, iris, seeds,
glass, ionosphere (energy, k = number of classes) and overlapping blobs (n = 2000,
5000, D = 10, k = 10, cluster_std = 2.5). Not everywhere: glass with TPAMI
Table III's Laplacian semimetric (sigma = 2) has many close optima, and 20
starts reached its best-known W on 14 seeds of 20 (2 of 20 from input-space
k-means++). Seeding in the kernel's space is the default because it seeds the
geometry being optimised (with that Laplacian semimetric it beat input-space
k-means++ on wine, 20 against 17 of 20, and on glass) and costs less per start
than scikit-learn's input-space seeding on small data.
"""

from __future__ import annotations

import numpy as np
from sklearn.cluster import kmeans_plusplus

from ._engine import seeding as _seeding

# n_init="auto": min(AUTO_MAX_STARTS, AUTO_START_BUDGET // n_samples) starts, at least 1.
AUTO_MAX_STARTS = 30
AUTO_START_BUDGET = 40_000

# Past SAMPLE_ROWS points, an engine that can extend a partition of some of its
# points to all of them (``nearest_mean_labels``: the low-rank engine) starts a
# "k-means++" or "kernel-k-means++" run from the best of SAMPLE_N_INIT fits of the
# estimator on a uniform sample of SAMPLE_ROWS points (exact, in memory), each
# point joining the nearest of that partition's means in the engine's feature
# space. The Dask engine starts the same way (kgroups._dask).
SAMPLE_ROWS = 20_000
SAMPLE_N_INIT = 10
SAMPLE_INITS = ("kernel-k-means++", "k-means++")


def resolve_n_init(n_init, init, n_samples):
    """Number of starts a fit runs: one per given labelling, the rule of the module
    docstring for ``"auto"``, else ``n_init``.

    >>> resolve_n_init("auto", "kernel-k-means++", 366), resolve_n_init("auto", "random", 5000)
    (30, 8)
    >>> resolve_n_init("auto", "k-means++", 10**6), resolve_n_init(5, [0, 1, 1], 3)
    (1, 1)
    >>> resolve_n_init("auto", [[0, 1, 1], [1, 1, 0]], 3)
    2
    """
    if not isinstance(init, str):
        try:
            return np.shape(init)[0] if np.ndim(init) == 2 else 1
        except ValueError:  # ragged: refused by name where the labels are checked
            return 1
    if isinstance(n_init, str):  # "auto", the only string the constraint table allows
        return int(max(1, min(AUTO_MAX_STARTS, AUTO_START_BUDGET // max(int(n_samples), 1))))
    return int(n_init)


def initial_labels(init, engine, X, k, rng, spectral_gram=None, sample_fit=None):
    """Labels to start one run from ``init``, a name (see module docstring; given
    labels are checked by :func:`kgroups._validation.check_init_starts`).

    ``sample_fit(idx, seed)``, when given, returns the labels of the estimator's
    fit (``SAMPLE_N_INIT`` starts, random state ``seed``) on the rows ``idx``: a
    sample start for large inputs (see ``SAMPLE_ROWS``).
    """
    n = engine.w.shape[0]
    if (sample_fit is not None and init in SAMPLE_INITS and n > SAMPLE_ROWS
            and hasattr(engine, "nearest_mean_labels")):
        idx = np.sort(rng.choice(n, SAMPLE_ROWS, replace=False))
        seed = int(rng.integers(np.iinfo(np.int32).max))
        return engine.nearest_mean_labels(idx, sample_fit(idx, seed), k)
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
    """Weighted D^2 seeding in feature space; returns labels of the nearest seed.

    Draws its ``1 + (k - 1) n_trials`` uniforms first (as many as
    ``Generator.choice`` would draw one seed at a time), then seeds with the
    engine's compiled seeding when it has one (``kmeanspp_labels``: the dense
    engine) or with :func:`_kmeanspp_columns`; both pick the same seeds from the
    same uniforms (:mod:`kgroups._engine.seeding`).
    """
    n_trials = 2 + int(np.log(k))
    u = rng.random(1 + (k - 1) * n_trials)
    compiled = getattr(engine, "kmeanspp_labels", None)
    if compiled is not None:
        return compiled(k, u, n_trials)
    return _kmeanspp_columns(engine, k, u, n_trials)


def _kmeanspp_columns(engine, k, u, n_trials):
    """The seeding of :func:`_kernel_kmeanspp` from the engine's kernel columns."""
    w = engine.w
    kdiag = engine.diag / (w * w)

    def dist_to(c):
        return np.maximum(kdiag + kdiag[c] - 2.0 * engine.column(c), 0.0)

    closest = dist_to(_seeding.draw(w, u[0]))
    labels = np.zeros(w.shape[0], dtype=np.int64)
    for c in range(1, k):
        pot = w * closest
        best = None
        for t in range(n_trials):
            dc = dist_to(_seeding.draw(pot, u[1 + (c - 1) * n_trials + t]))
            score = _seeding.trial_score(w, closest, dc)
            if best is None or score < best[0]:
                best = (score, dc)
        _seeding.take_seed(c, closest, best[1], labels)
    return labels
