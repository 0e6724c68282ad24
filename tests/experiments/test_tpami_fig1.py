"""TPAMI Fig. 1 (``tpami_fig1``): quick run (the session's quick reproduction,
``conftest.py``), Bayes accuracy, kernel-space seeding."""

import numpy as np

from kgroups.experiments import tpami_fig1

from tests._helpers import assert_png


def test_fig1_quick(quick_reproduction):
    md = quick_reproduction.report("tpami-fig1")
    assert "| 800 |" in md and "GMM is the most accurate" in md
    assert "kernel k-means++" in md
    assert_png(quick_reproduction.out / "fig1_onedim.png")
    # 1/2 int max(f1, f2) by quadrature; the function under test is Monte Carlo.
    from scipy.stats import norm

    x = np.linspace(-20.0, 20.0, 400001)
    f = np.maximum(norm.pdf(x, 0.0, 1.5), norm.pdf(x, 1.5, 0.3))
    assert abs(tpami_fig1.bayes() - 0.5 * np.sum(f) * (x[1] - x[0])) < 0.003


def test_fig1b_kernel_space_seeding_reaches_the_exact_optimum():
    # Lognormal Fig. 1b sample: k-means++ in the kernel space (sampling by |x - y|)
    # must match the exact 1-D algorithm's W on most draws (the paper's claim).
    from kgroups import KernelKGroups, onedim_kgroups
    from kgroups.datasets import make_lognormal_1d

    hits = 0
    for t in range(10):
        X, _ = make_lognormal_1d(400, random_state=np.random.default_rng([5, t]))
        exact = onedim_kgroups(X[:, 0]).within_energy
        est = KernelKGroups(2, init="kernel-k-means++", n_init=5, random_state=t).fit(X)
        hits += est.within_energy_ <= exact * (1 + 1e-9)
    assert hits >= 8
