"""The fits whose results ``pinned_runs.npz`` holds (see ``make_pinned.py``).

Each case is a name and a function that fits one estimator through the public API
and returns its ``labels_``, ``within_energy_``, ``n_iter_`` and ``n_moves_``. The
cases cover every engine (dense, sparse, matrix-free, low-rank, Dask on the local
scheduler), both move rules (KernelKGroups, KernelKMeans), weights, four
semimetrics (energy with alpha = 1 and 1/2, Gaussian, the indefinite sinusoidal),
every named start (random, kernel k-means++, k-means++, spectral, the sample
start of large data) and given starts: each start alone and all of them as the
restarts of one fit (one start per row of ``init``, where engines share passes and
sweep in lockstep).

Only public names are used, except ``kgroups._init.SAMPLE_ROWS``, lowered so that
the sample start runs on small data.
"""

from __future__ import annotations

import numpy as np

from tests._helpers import sparse_psd_gram

SEEDS = (0, 1, 2)
K = 4


def overlapping(n, d, k, seed):
    """``n`` points of ``k`` overlapping Gaussian clusters in ``d`` dimensions."""
    rng = np.random.default_rng(seed)
    centres = rng.uniform(-4.0, 4.0, (k, d))
    y = rng.integers(0, k, n)
    return centres[y] + 2.0 * rng.standard_normal((n, d))


def weights(n, seed):
    return np.random.default_rng(seed + 100).uniform(0.5, 2.0, n)


def starts(X, k, seed, n_random=2, n_near=2):
    """Given starts: uniform random labels, and nearest of k random points with 10%
    of labels redrawn (a k-means++-like start that moves few points)."""
    rng = np.random.default_rng(seed + 200)
    n = X.shape[0]
    out = [rng.integers(0, k, n) for _ in range(n_random)]
    for _ in range(n_near):
        near = np.argmin(((X[:, None] - X[rng.choice(n, k, replace=False)]) ** 2).sum(-1), 1)
        out.append(np.where(rng.random(n) < 0.1, rng.integers(0, k, n), near))
    return [np.asarray(s, dtype=np.int64) for s in out]


def sparse_gram(n, k, seed):
    """A sparse PSD Gram matrix with k clusters (:func:`tests._helpers.sparse_psd_gram`)."""
    return sparse_psd_gram(n, k, seed + 300)


SEMIMETRICS = {
    "energy1": {"semimetric": "energy", "alpha": 1.0},
    "energy05w": {"semimetric": "energy", "alpha": 0.5},  # with weights
    "gaussian": {"semimetric": "gaussian", "sigma": 2.0},
    "sinusoidal": {"semimetric": "sinusoidal", "theta": 3.0},
}


def _result(est):
    labels = est.labels_
    if hasattr(labels, "compute"):
        labels = labels.compute()
    return {"labels": np.asarray(labels, dtype=np.int8),
            "W": np.float64(est.within_energy_), "n_iter": np.int64(est.n_iter_),
            "n_moves": np.asarray(est.n_moves_, dtype=np.int32)}


def _fit(cls, X, w, **params):
    return _result(cls(**params).fit(X, sample_weight=w))


def _cases():
    from kgroups import KernelKGroups, KernelKMeans

    cases = {}
    for seed in SEEDS:
        # raw data: dense and matrix-free (exact), low-rank (approximate)
        X = overlapping(400, 3, K, seed)
        for sname, sem in SEMIMETRICS.items():
            w = weights(400, seed) if sname.endswith("w") else None
            given = starts(X, K, seed)
            for engine in ("dense", "matrix-free", "low-rank"):
                if engine == "low-rank" and sname == "sinusoidal":
                    continue  # not of negative type: no Nystrom features (issue 27)
                extra = {"n_components": 40, "random_state": seed} if engine == "low-rank" else {}
                for cname, cls in (("kg", KernelKGroups), ("km", KernelKMeans)):
                    if cls is KernelKMeans and sname == "sinusoidal":
                        continue  # Lloyd on an indefinite kernel: cycles by design
                    base = f"{cname}/{engine}/{sname}/{seed}"
                    kw = dict(n_clusters=K, engine=engine, **sem, **extra)
                    for r, st in enumerate(given):
                        cases[f"{base}/start{r}"] = (cls, X, w, dict(kw, init=st))
                    cases[f"{base}/restarts"] = (cls, X, w, dict(kw, init=np.stack(given)))
                    inits = ["kernel-k-means++", "random", "k-means++"]
                    if engine == "dense":
                        inits.append("spectral")
                    for init in inits:
                        cases[f"{base}/{init}"] = (cls, X, w, dict(
                            kw, init=init, n_init=3, random_state=seed))
        # a precomputed sparse Gram matrix
        G = sparse_gram(300, K, seed)
        given = [np.random.default_rng(seed + 400 + r).integers(0, K, 300) for r in range(3)]
        for cname, cls in (("kg", KernelKGroups), ("km", KernelKMeans)):
            kw = dict(n_clusters=K, kernel="precomputed", engine="sparse")
            base = f"{cname}/sparse/gram/{seed}"
            for r, st in enumerate(given):
                cases[f"{base}/start{r}"] = (cls, G, None, dict(kw, init=st))
            cases[f"{base}/restarts"] = (cls, G, None, dict(kw, init=np.stack(given)))
            cases[f"{base}/kernel-k-means++"] = (cls, G, None, dict(
                kw, init="kernel-k-means++", n_init=3, random_state=seed))
    return cases


def _sample_start_cases():
    """The sample start of large data (low-rank engine, SAMPLE_ROWS lowered to 500)."""
    from kgroups import KernelKGroups

    cases = {}
    for seed in SEEDS:
        X = overlapping(1500, 3, K, seed + 10)
        for init in ("kernel-k-means++", "k-means++"):
            cases[f"kg/low-rank/sample-start/{seed}/{init}"] = (KernelKGroups, X, None, dict(
                n_clusters=K, engine="low-rank", n_components=40, init=init, n_init=2,
                random_state=seed))
    return cases


def _dask_cases():
    """Dask on the local scheduler (no client): the blocks' proposals, exact acceptance."""
    from kgroups import KernelKGroups

    cases = {}
    for seed in SEEDS:
        X = overlapping(600, 3, K, seed + 20)
        w = weights(600, seed)
        st = starts(X, K, seed, n_random=1, n_near=1)
        for wname, ww in (("unweighted", None), ("weighted", w)):
            kw = dict(n_clusters=K, engine="dask", n_components=24, random_state=seed)
            base = f"kg/dask/{wname}/{seed}"
            cases[f"{base}/kernel-k-means++"] = (KernelKGroups, X, ww, dict(kw))
            cases[f"{base}/random"] = (KernelKGroups, X, ww, dict(kw, init="random"))
            for r, s in enumerate(st):
                cases[f"{base}/start{r}"] = (KernelKGroups, X, ww, dict(kw, init=s))
    return cases


class lowered_sample_rows:
    """Context: ``kgroups._init.SAMPLE_ROWS`` set to 500 (the sample start on small data)."""

    def __enter__(self):
        from kgroups import _init

        self.old = _init.SAMPLE_ROWS
        _init.SAMPLE_ROWS = 500

    def __exit__(self, *exc):
        from kgroups import _init

        _init.SAMPLE_ROWS = self.old


def dask_chunks(X):
    """The dask array the Dask cases fit: row blocks of 150."""
    import dask.array as da

    return da.from_array(X, chunks=(150, X.shape[1]))


def all_cases():
    """name -> (estimator class, X, sample_weight, parameters), every case."""
    return {**_cases(), **_sample_start_cases(), **_dask_cases()}


def run_case(name, case):
    """The pinned quantities of one case, fitted with the current code."""
    cls, X, w, params = case
    if "/dask/" in name:
        return _fit(cls, dask_chunks(X), w, **params)
    if "/sample-start/" in name:
        with lowered_sample_rows():
            return _fit(cls, X, w, **params)
    return _fit(cls, X, w, **params)
