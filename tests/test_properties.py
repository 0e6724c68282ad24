"""Properties that must hold on any data, searched by hypothesis over the public API
and the exact engines (profile ``ci`` in CI; ``KGROUPS_HYPOTHESIS=long`` for more, see
tests/conftest.py): a fit's labels do not depend on the data's scale (1e-300 to 1e150)
or a translation; a converged fit is a Hartigan optimum whatever the order of the
rows; integer weights equal repeated rows; W + S = T; W >= 0; never NaN, never an
empty cluster."""

import warnings

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from kgroups import (KernelKGroups, between_energy, improving_moves, total_energy,
                     within_energy)

ENGINES = st.sampled_from(["dense", "matrix-free"])
ALPHAS = st.sampled_from([0.5, 1.0, 1.5, 2.0])


def blobs(seed, n, d, k):
    """k overlapping Gaussian clusters (the data hypothesis explores through the seed)."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(0.0, 3.0, (k, d))
    return centres[rng.integers(0, k, n)] + rng.normal(size=(n, d))


def fit(X, k, start, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return KernelKGroups(k, init=start, max_iter=500, **kw).fit(X)


def same_partition(a, b):
    """Whether two labelings make the same partition (up to renaming)."""
    pairs = set(zip(a.tolist(), b.tolist()))
    return len(pairs) == len(set(a.tolist())) == len(set(b.tolist()))


@given(seed=st.integers(0, 2**31), n=st.integers(8, 60), d=st.integers(1, 3),
       k=st.integers(2, 4), e=st.integers(-300, 150), shift=st.floats(-1e6, 1e6),
       alpha=ALPHAS, engine=ENGINES)
def test_labels_do_not_depend_on_scale_or_translation(seed, n, d, k, e, shift, alpha, engine):
    X = blobs(seed, n, d, k)
    start = np.random.default_rng(seed + 1).integers(0, k, n)
    base = fit(X, k, start, alpha=alpha, engine=engine)
    scaled = fit(X * 10.0 ** e, k, start, alpha=alpha, engine=engine)
    moved = fit(X + shift, k, start, alpha=alpha, engine=engine)
    assert same_partition(base.labels_, scaled.labels_)
    assert same_partition(base.labels_, moved.labels_)
    assert np.isclose(scaled.within_energy_, base.within_energy_ * 10.0 ** (e * alpha),
                      rtol=1e-9)


@given(seed=st.integers(0, 2**31), n=st.integers(6, 50), k=st.integers(2, 4),
       alpha=ALPHAS, engine=ENGINES)
def test_a_converged_fit_is_an_optimum_in_any_row_order(seed, n, k, alpha, engine):
    X = blobs(seed, n, 2, k)
    est = KernelKGroups(k, alpha=alpha, engine=engine, random_state=seed % 1000).fit(X)
    assert est.n_moves_[-1] == 0
    labels = est.labels_
    assert np.bincount(labels, minlength=k).min() >= 1 and np.isfinite(est.within_energy_)
    assert est.within_energy_ >= 0
    perm = np.random.default_rng(seed).permutation(n)
    assert improving_moves(X[perm], labels[perm], alpha=alpha, engine=engine) == 0
    assert np.isclose(within_energy(X[perm], labels[perm], alpha=alpha), est.within_energy_,
                      rtol=1e-10)


@given(seed=st.integers(0, 2**31), n=st.integers(4, 30), k=st.integers(1, 4),
       alpha=ALPHAS)
def test_integer_weights_equal_repeated_rows(seed, n, k, alpha):
    rng = np.random.default_rng(seed)
    X = blobs(seed, n, 2, max(k, 1))
    w = rng.integers(1, 4, n)
    labels = rng.integers(0, k, n)
    rep = np.repeat(np.arange(n), w)
    for f in (within_energy, between_energy):
        assert np.isclose(f(X, labels, sample_weight=w, alpha=alpha),
                          f(X[rep], labels[rep], alpha=alpha), rtol=1e-10, atol=1e-12)
    est = KernelKGroups(max(k, 1), alpha=alpha, random_state=0).fit(X, sample_weight=w)
    assert np.isclose(est.within_energy_,
                      within_energy(X[rep], est.labels_[rep], alpha=alpha), rtol=1e-10)


@given(seed=st.integers(0, 2**31), n=st.integers(2, 40), k=st.integers(1, 5),
       e=st.integers(-150, 150), f=st.integers(-70, 70), alpha=ALPHAS)
def test_within_plus_between_is_the_total(seed, n, k, e, f, alpha):
    """Weights 1e-150..1e150 and data 1e-70..1e70 (the statistics stay within float64)."""
    rng = np.random.default_rng(seed)
    X = blobs(seed, n, 3, 3) * 10.0 ** f
    w = rng.uniform(0.1, 10.0, n) * 10.0 ** e
    labels = rng.integers(0, k, n)
    W = within_energy(X, labels, sample_weight=w, alpha=alpha)
    S = between_energy(X, labels, sample_weight=w, alpha=alpha)
    T = total_energy(X, sample_weight=w, alpha=alpha)
    assert W >= 0 and S >= -1e-12 * T and np.isfinite(T)
    assert np.isclose(W + S, T, rtol=1e-9)
