"""Kernels of trimmed kernel k-groups (``kgroups._kernels.trimmed``) against their plain
twins (tests/_twins.py), on tiny inputs (they also run as plain Python in
``make test``'s NUMBA_DISABLE_JIT subset)."""

import numpy as np
import pytest

from kgroups._engines.trimmed import budget_of
from kgroups._kernels import trimmed as tk
from kgroups._kernels.gain import cluster_stats
from tests._helpers import random_B
from tests._twins import (build_m_twin, concentrate_twin, trimmed_W, trimmed_neighbours)


def state(B, w, labels, k):
    """``M`` (k + 1 rows, the set-aside points as label k), ``s``, ``q``, ``cnt`` and the
    labels with k for -1, as the trimmed runs hold them."""
    lab = np.where(labels < 0, k, labels).astype(np.int64)
    M = build_m_twin(B, lab, k + 1)
    s, q, cnt = cluster_stats(M, lab, w)
    return lab, M, s, q, cnt


def start(n, k, rng, aside):
    labels = rng.integers(0, k, n)
    labels[:k] = np.arange(k)
    labels[rng.choice(np.arange(k, n), aside, replace=False)] = -1
    return labels


@pytest.mark.parametrize("psd", [True, False])
def test_tiny_concentration_step_matches_twin(psd):
    rng = np.random.default_rng(5)
    n, k = 12, 3
    B, w = random_B(n, rng, psd)
    K = B / np.outer(w, w)
    labels = start(n, k, rng, 2)
    budget = budget_of(0.3, w)
    lab, M, s, q, _ = state(B, w, labels, k)
    out = np.empty(n, dtype=np.int64)
    tk.concentrate(M, w, np.diag(B).copy(), s, q, k, budget, out)
    np.testing.assert_array_equal(np.where(out == k, -1, out),
                                  concentrate_twin(K, w, labels, k, budget))
    assert w[out == k].sum() <= budget


def scan(B, w, labels, k, budget, hilbert, kmax):
    """Every point's best improving move as the trimmed runs find them: ``next_move``
    from each point on, settled by ``best_swap`` from the point's column; ``{point:
    gain}``."""
    lab, M, s, q, cnt = state(B, w, labels, k)
    diag = np.diag(B).copy()
    noise = np.flatnonzero(lab == k)
    cmin, dmin, vmax = np.empty(k), np.empty(k), np.empty(k)
    cidx = np.empty(k, dtype=np.int64)
    tk.noise_summary(M, w, diag, s, q, k, noise, noise.size, np.ones(k, dtype=bool), cmin,
                     cidx, dmin, vmax)
    wn = w[noise]
    bounds = (wn.min(), wn.max(), float(np.min(diag[noise] / wn ** 2)))
    room = budget - s[k]
    found, pos = {}, 0
    while True:
        i, kind, _, _, gain, check = tk.next_move(M, lab, w, diag, s, q, cnt, k, room, pos,
                                                  cmin, cidx, dmin, vmax, *bounds, hilbert,
                                                  kmax)
        if i < 0:
            return found
        pos = i + 1
        if check:
            t, _, g = tk.best_swap(M, lab, w, diag, s, q, k, room, noise, noise.size, i,
                                   B[:, i].copy())
            if t >= 0 and g > gain:
                kind, gain = tk.SWAP, g
        if kind != tk.NONE:
            found[int(i)] = gain


def scan_twin(K, w, labels, k, budget):
    """The same by recomputing W for every single move (the gain: the largest fall of
    W over the point's moves)."""
    base = trimmed_W(K, w, labels, k)
    found = {}
    for _, i, m in trimmed_neighbours(labels, w, k, budget):
        gain = base - trimmed_W(K, w, m, k)
        if gain > 1e-9 * (1 + abs(base)):
            found[i] = max(found.get(i, -np.inf), gain)
    return found


@pytest.mark.parametrize("psd, weighted", [(True, False), (True, True), (False, False),
                                           (False, True)])
def test_tiny_next_move_and_best_swap_match_twin(psd, weighted):
    """The points with an improving move and the best gain of each, against the brute
    force, for a positive semidefinite kernel (the triangle bound of ``own_bound``) and
    an indefinite one (the bound from ``kmax``; points brought back too), with and
    without weights, from several labellings (the budget full, and with room)."""
    rng = np.random.default_rng(8 + 2 * psd + weighted)
    n, k = 10, 3
    B, w = random_B(n, rng, psd)
    if not weighted:
        B, w = B / np.outer(w, w), np.ones(n)
    K = B / np.outer(w, w)
    kmax = float(np.abs(K).max())
    for trial in range(6):
        labels = start(n, k, rng, 2)
        budget = w[labels == -1].sum() + (0.0 if trial % 2 else 1.5)
        got = scan(B, w, labels, k, budget, psd, kmax)
        want = scan_twin(K, w, labels, k, budget)
        assert sorted(got) == sorted(want)
        for i, gain in want.items():
            assert got[i] == pytest.approx(gain, rel=1e-9, abs=1e-12)


def test_tiny_noise_threshold_matches_twin():
    rng = np.random.default_rng(9)
    n, k = 9, 2
    B, w = random_B(n, rng, True)
    K = B / np.outer(w, w)
    labels = start(n, k, rng, 3)
    lab, M, s, q, _ = state(B, w, labels, k)
    noise = np.flatnonzero(lab == k)
    got = [tk.noise_threshold(M, w, np.diag(B).copy(), s, q, k, noise, noise.size, per)
           for per in (True, False)]
    d = np.empty((noise.size, k))
    for l in range(k):
        idx = np.flatnonzero(labels == l)
        wl = w[idx]
        d[:, l] = (np.diag(K)[noise] - 2 * K[np.ix_(noise, idx)] @ wl / wl.sum()
                   + wl @ K[np.ix_(idx, idx)] @ wl / wl.sum() ** 2)
    sl = np.array([w[labels == l].sum() for l in range(k)])
    assert got[0] == pytest.approx(np.min(sl * d / (sl + w[noise][:, None])), rel=1e-10)
    assert got[1] == pytest.approx(d.min(), rel=1e-10)
