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

The sample start (:func:`uses_sample_start`): on an engine that can extend the
partition of a sample to every point (low-rank past ``SAMPLE_ROWS`` points; Dask
always), a ``"k-means++"`` or ``"kernel-k-means++"`` start is the estimator's own
exact fit, with ``SAMPLE_N_INIT`` starts of that init and the engine ``"auto"``
picks, of a uniform sample of ``SAMPLE_ROWS`` points (all of them when there are no
more), each point then joining the nearest mean of that partition in the engine's
feature space. Most of the work of convergence happens on the sample, in memory,
and its restarts avoid the poor local optima a single k-means++ start of a large
data set can fall into.

How many starts ``fit`` runs (:func:`resolve_n_init`): given labels run once (an
array of shape (n_starts, n_samples): once each, as restarts);
``n_init="auto"`` (the default) runs ``min(30, 40_000 // n_samples)`` starts, at
least one: 30 up to 1333 samples, 20 at 2000, 8 at 5000, 4 at 10,000, one from
40,000 on (an engine whose restarts are costly caps it: one on Dask, whose start
already keeps the best of the sample's fits). The starts' ``M`` share one pass over
the kernel (see the engines' ``build_ms``) and each start pays its sweeps, so the
restarts' extra work is at most about ``40_000 n`` kernel sums, linear in n, while
the kernel itself costs O(n^2 D): where restarts are cheap there are many, where
they would dominate there is one. Seeding in the kernel's space is the default
because it seeds the geometry being optimised, for any semimetric (also
precomputed ones); ``benchmarks/bench_defaults.py`` measures how often the default
reaches the best-known partition of the bundled tables.
"""

from __future__ import annotations

import numpy as np

from ._validation import InvalidParameterError

# n_init="auto": min(AUTO_MAX_STARTS, AUTO_START_BUDGET // n_samples) starts, at least 1.
AUTO_MAX_STARTS = 30
AUTO_START_BUDGET = 40_000

# The sample start (module docstring): SAMPLE_ROWS points, SAMPLE_N_INIT starts of
# their fit, for the inits SAMPLE_INITS.
SAMPLE_ROWS = 20_000
SAMPLE_N_INIT = 10
SAMPLE_INITS = ("kernel-k-means++", "k-means++")


def resolve_n_init(n_init, init, n_samples, max_auto=None):
    """Number of starts a fit runs: one per given labelling, the rule of the module
    docstring for ``"auto"`` (at most ``max_auto`` starts when given: an engine whose
    restarts are costly), else ``n_init``.

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
        top = AUTO_MAX_STARTS if max_auto is None else max_auto
        return int(max(1, min(top, AUTO_START_BUDGET // max(int(n_samples), 1))))
    return int(n_init)


def uses_sample_start(engine, init, semimetric):
    """Whether a named ``init`` starts from a fit of a sample on this engine: always
    where the engine has no other start (Dask), past ``SAMPLE_ROWS`` points where it
    extends a sample's partition (low-rank; not with a callable semimetric, whose
    sample fit would evaluate it on every pair of the sample)."""
    if init not in SAMPLE_INITS or engine.sample_start is None:
        return False
    if engine.sample_start == "always":
        return True
    return engine.n_samples > SAMPLE_ROWS and not callable(semimetric)


def initial_labels(init, engine, X, w, k, rng, *, gram=None, fit_sample=None, take=None,
                   semimetric="energy"):
    """A start of one run for the named ``init`` (see the module docstring), in the
    engine's form.

    ``fit_sample(X_sample, w_sample, seed)`` returns the labels of the estimator's
    fit (``SAMPLE_N_INIT`` starts, random state ``seed``) of sample rows, and
    ``take(X, w, idx)`` the rows ``idx`` of the data (all for None) in memory: the
    sample start (:func:`uses_sample_start`) draws a seed and, past ``SAMPLE_ROWS``
    points, ``SAMPLE_ROWS`` rows, fits them, and the engine extends that partition to
    every point. ``gram()`` gives the ``x0 = 0`` Gram matrix of the spectral start.
    """
    n = engine.n_samples
    if fit_sample is not None and uses_sample_start(engine, init, semimetric):
        seed = int(rng.integers(np.iinfo(np.int32).max))
        idx = None if n <= SAMPLE_ROWS else np.sort(rng.choice(n, SAMPLE_ROWS, replace=False))
        Xs, ws = take(X, w, idx)
        return engine.extend(idx, Xs, ws, fit_sample(Xs, ws, seed), k)
    if init in engine.unavailable_inits:
        raise InvalidParameterError(
            f"init={init!r} is not available with engine={engine.name!r}; use "
            f"{' or '.join(map(repr, SAMPLE_INITS))}, 'random' or an array of labels")
    if init == "k-means++" and X is not None:
        from sklearn.cluster import kmeans_plusplus  # scikit-learn's clustering: this init only

        seed = int(rng.integers(np.iinfo(np.int32).max))
        centers, _ = kmeans_plusplus(X, k, sample_weight=w, random_state=seed)
        return np.argmin(_sq_dists(X, centers), axis=1).astype(np.int64)
    if init in ("k-means++", "kernel-k-means++"):
        return engine.kmeanspp_start(k, rng)
    if init == "random":
        return engine.random_start(k, rng)
    from ._spectral import spectral_kgroups

    seed = int(rng.integers(np.iinfo(np.int32).max))
    return np.asarray(spectral_kgroups(gram(), k, sample_weight=w, random_state=seed).labels,
                      dtype=np.int64)


def _sq_dists(X, C):
    """Squared distances between rows and centres, up to a per-row constant."""
    xc = X - X.mean(axis=0)
    cc = C - X.mean(axis=0)
    return (cc**2).sum(1)[None, :] - 2 * xc @ cc.T
