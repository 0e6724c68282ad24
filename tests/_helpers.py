"""Helpers shared by several test modules: data, brute-force kernels, report checks.

Each is used by more than one file; a helper used by one file stays in it.
"""

import numpy as np
import scipy.sparse as sp

from kgroups import pairwise


# -- data and brute-force kernels ------------------------------------------------
SEMIS = [("energy", {"alpha": 1.0}), ("energy", {"alpha": 0.7}), ("energy", {"alpha": 2.0}),
         ("gaussian", {"sigma": 1.3}), ("laplacian", {"sigma": 0.8}),
         ("localized", {}), ("sinusoidal", {"theta": 2.0})]


def on_a_device(*values):
    """A ``pytest.param`` of ``values`` that runs on a CUDA device and not under numba's
    CUDA simulator: the simulator runs every thread as a Python thread, so it runs one
    case of each path of a GPU test and a device runs them all."""
    import pytest
    from numba import config

    return pytest.param(*values, marks=pytest.mark.skipif(
        bool(config.ENABLE_CUDASIM), reason="a further case of a path the simulator runs "
        "once (every case runs on a device)"))


def blobs(n, d, k, seed, spread=1.0):
    rng = np.random.default_rng(seed)
    centres = rng.normal(0, 3, (k, d))
    y = rng.integers(0, k, n)
    return centres[y] + spread * rng.normal(size=(n, d)), y


def brute_B(X, w, semimetric, params):
    """``B = -diag(w) rho diag(w) / 2`` by explicit differences (no norm trick)."""
    D = np.sqrt(((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))
    r = {"energy": lambda: D ** params.get("alpha", 1.0),
         "gaussian": lambda: 2 - 2 * np.exp(-D**2 / (2 * params["sigma"] ** 2)),
         "laplacian": lambda: 2 - 2 * np.exp(-D / (2 * params["sigma"])),
         "localized": lambda: D**2 * np.exp(-D / 2),
         "sinusoidal": lambda: D**2 * params["theta"] * np.sin(D / params["theta"])}[semimetric]()
    return -0.5 * w[:, None] * r * w[None, :]


def tiny_data(n=11, d=3, k=3, seed=30):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) + 4.0
    X[n - 1] = X[0]  # a duplicate: the cancellation guard
    return X, rng.uniform(0.5, 2.0, n), rng.integers(0, k, n)


def random_B(n, rng, psd=False):
    """A symmetric (possibly indefinite) weighted kernel and its weights."""
    A = rng.normal(size=(n, n))
    K = A @ A.T / n if psd else (A + A.T) / 2
    w = rng.uniform(0.5, 2.0, n)
    return K * np.outer(w, w), w


def random_sparse_B(n, density, rng, w=None):
    """Symmetric indefinite sparse kernel with a nonzero diagonal."""
    R = sp.random(n, n, density=density, random_state=np.random.RandomState(rng.integers(1 << 30)),
                  data_rvs=lambda m: rng.normal(size=m))
    K = (R + R.T).tocsr() + sp.diags(rng.normal(size=n))
    if w is None:
        w = np.ones(n)
    return sp.csr_matrix(sp.diags(w) @ K @ sp.diags(w)), w


def sparse_psd_gram(n, k, seed):
    """A sparse PSD Gram matrix ``F F^T`` with k clusters: each point has two features
    among its cluster's 20 and one anywhere (bag-of-words-like)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    rows = np.repeat(np.arange(n), 3)
    cols = np.stack([20 * y + rng.integers(0, 20, n), 20 * y + rng.integers(0, 20, n),
                     rng.integers(0, 20 * k, n)], 1).ravel()
    F = sp.csr_matrix((rng.uniform(0.5, 1.5, 3 * n), (rows, cols)), shape=(n, 20 * k))
    return sp.csr_matrix(F @ F.T)


CALLABLE = pairwise  # a callable semimetric (the energy distance, alpha = 1)


# -- named semimetrics against their formulas --------------------------------------
FORMULAS = {
    ("energy", 1.0): lambda r: r,
    ("energy", 0.5): lambda r: r**0.5,
    ("energy", 2.0): lambda r: r**2,
    ("laplacian", 1.5): lambda r: 2 - 2 * np.exp(-r / 3.0),
    ("gaussian", 1.5): lambda r: 2 - 2 * np.exp(-(r**2) / 4.5),
    ("localized", None): lambda r: r**2 * np.exp(-r / 2),
    ("sinusoidal", 2.0): lambda r: r**2 * 2.0 * np.sin(r / 2.0),
}


def semimetric_params(name, p):
    return {"energy": {"alpha": p}, "laplacian": {"sigma": p}, "gaussian": {"sigma": p},
            "sinusoidal": {"theta": p}}.get(name, {})


# -- experiment reports ------------------------------------------------------------
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def assert_png(path):
    data = path.read_bytes()
    assert data[:8] == PNG_MAGIC and len(data) > 5000, path


def read_report(tmp_path, name, text):
    md = (tmp_path / f"{name}.md").read_text()
    assert md.strip() == text.strip()
    return md


# -- runs through the driver ---------------------------------------------------------
def single_run(engine, labels, k, max_iter=100, tol=0.0, rule="hartigan"):
    """One run from ``labels`` on ``engine`` through the one run loop (a RunResult)."""
    import warnings

    from kgroups._driver import run_starts

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a run stopped by max_iter on purpose
        return run_starts(engine, [np.asarray(labels)], k, rule=rule, max_iter=max_iter,
                          tol=tol)


def sweep_once(engine, labels, k):
    """``(state, moves)``: ``engine`` started from ``labels`` and swept once (Hartigan);
    ``state.labels[0]``, ``state.M[0]``, ``s``, ``q`` are the run's after the sweep."""
    state = engine.start([np.asarray(labels)], k, "hartigan")
    return state, int(engine.sweep(state)[0])


def runs_together_and_apart(make_engine, starts, k):
    """``(engine, state, alone, states)``: the starts (R x n) run together on one engine
    (``make_engine()``) and each alone on an engine of its own, all started (Hartigan),
    for tests that sweep both and compare the runs."""
    engine = make_engine()
    alone = [make_engine() for _ in starts]
    return (engine, engine.start(starts, k, "hartigan"), alone,
            [e.start([s], k, "hartigan") for e, s in zip(alone, starts)])


def sweeps_counted(eng, start, k):
    """Sweep one run to convergence; per sweep its moves and the device calls made."""
    state = eng.start([start], k, "hartigan")
    rows = []
    for _ in range(30):
        before = dict(eng.tally.phases.get("sweeps", {}))
        moves = int(eng.sweep(state)[0])
        after = eng.tally.phases["sweeps"]
        rows.append((moves, {key: after[key] - before.get(key, 0) for key in after}))
        if moves == 0:
            return state, rows
    raise AssertionError("no convergence in 30 sweeps")
