"""ICML draft, Fig. 2: two-class Gaussian mixtures in growing dimension D.

Left: ICML eq. (26), ``mu_2 = 0.7 (1_10, 0_{D-10})``, identity covariances
(:func:`kgroups.datasets.make_mean_shift_gaussians`), Bayes accuracy about 0.86.
Right: eq. (27), ``mu_2 = (1_10, 0)``, ``Sigma_2 = diag(Sigma~_10, I_{D-10})``
(:func:`kgroups.datasets.make_unequal_covariance_gaussians`), Bayes about 0.95.
200 points per sample (multinomial split), 100 Monte Carlo trials, every method
with 5 restarts; the kernel methods use rho_1 (spectral: scikit-learn's normalised
cut on the Gram matrix G with ``x0 = 0``, as the draft and the authors' code do).
The draft gives no grid for D; we use D in [10, 200].

The same experiment is TPAMI Fig. 3a-b. The arXiv paper's fig:gauss (a) is the
mixture (26) again but with exactly 100 points per class, 10 restarts and no
spectral curve, and its panel (b) is a different covariance; it is run by
:mod:`kgroups.experiments.arxiv_fig_gauss` with those settings.
"""

from __future__ import annotations

import numpy as np

from ..datasets import SIGMA_TILDE_10, make_mean_shift_gaussians, make_unequal_covariance_gaussians
from . import _methods as _m

NAME = "icml-fig2"
TITLE = "ICML draft Fig. 2: Gaussian mixtures (26), (27) in dimension D, accuracy vs D"
PAPER = {
    "bayes": {"(26)": 0.86, "(27)": 0.95},
    "ordering": [
        "(26): E^H-clustering ≈ spectral, both much better than kernel k-means, k-means, GMM "
        "(noticeable in higher D)",
        "(27): GMM best in low D, then degrades quickly with D, as do kernel k-means and "
        "k-means; E^H-clustering and spectral remain much more stable",
    ],
}
TRIALS = 100
GRID = (10, 20, 40, 60, 80, 100, 120, 140, 160, 180, 200)
QUICK_GRID = (10, 100)
EH, KKM, SPEC = "E^H-clustering rho_1", "kernel k-means rho_1", "spectral rho_1"
METHODS = (
    _m.Method(EH, "kgroups"),
    _m.Method(KKM, "kkmeans"),
    _m.Method(SPEC, "spectral", n_init=10),  # scikit-learn's default
    _m.Method("k-means", "kmeans"),
    _m.Method("GMM", "gmm"),
)
OTHERS = (KKM, "k-means", "GMM")


def bayes():
    """Bayes accuracies of (26) (closed form Phi(0.7 sqrt(10) / 2)) and (27) (Monte Carlo)."""
    from scipy.stats import norm

    b26 = float(norm.cdf(0.7 * np.sqrt(10) / 2))
    b27 = _m.bayes_accuracy(np.vstack([np.zeros(10), np.ones(10)]),
                             np.vstack([np.ones(10), SIGMA_TILDE_10]))
    return b26, b27


def claims(acc26, acc27, grid):
    hi = slice(len(grid) // 2, None)
    out = []
    gap = abs(_m.avg(acc26, METHODS, EH, hi) - _m.avg(acc26, METHODS, SPEC, hi))
    out.append(_m.Claim("(26): E^H-clustering and spectral perform closely", gap < 0.03,
                         f"absolute difference {gap:.3f} for D >= {grid[len(grid) // 2]}"))
    for other in OTHERS:
        ok, d = _m.better(acc26, METHODS, EH, other, hi, grid_name=f"D >= {grid[len(grid) // 2]}")
        out.append(_m.Claim(f"(26): E^H-clustering better than {other} in higher D", ok, d))
    best_low = max(range(len(METHODS)), key=lambda j: np.nanmean(acc27[0, :, j]))
    out.append(_m.Claim("(27): GMM is the best method in low dimension",
                         METHODS[best_low].label == "GMM",
                         f"best at D={grid[0]}: {METHODS[best_low].label}"))
    drops = {m.label: _m.avg(acc27, METHODS, m.label, slice(0, 1))
             - _m.avg(acc27, METHODS, m.label, slice(-1, None)) for m in METHODS}
    stable = max(drops[EH], drops[SPEC]) < min(drops[o] for o in OTHERS)
    out.append(_m.Claim("(27): E^H-clustering and spectral degrade less with D than GMM, "
                         "kernel k-means, k-means", stable,
                         "drop from D=%s to D=%s: " % (grid[0], grid[-1])
                         + ", ".join(f"{k} {v:.3f}" for k, v in drops.items())))
    return out


def run(out, trials=None, quick=False, seed=0):
    """Regenerate ICML Fig. 2 into ``out``; returns the Markdown report."""
    trials = _m.trial_count(trials, quick, TRIALS)
    grid = QUICK_GRID if quick else GRID
    b26, b27 = bayes()
    acc26 = _m.grid_monte_carlo(
        grid, lambda D, rng: make_mean_shift_gaussians(200, int(D), random_state=rng),
        METHODS, 2, trials, seed=seed, desc=f"{NAME} (26)")
    acc27 = _m.grid_monte_carlo(
        grid, lambda D, rng: make_unequal_covariance_gaussians(200, int(D), random_state=rng),
        METHODS, 2, trials, seed=seed + 1, desc=f"{NAME} (27)")
    plt = _m.pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    _m.plot_grid(axes[0], grid, acc26, METHODS, "D", "Gaussian mixture (26)", b26, 0.5)
    _m.plot_grid(axes[1], grid, acc27, METHODS, "D", "Gaussian mixture (27)", b27, 0.5)
    _m.save(fig, out, "icml_fig2.png")
    text = _m.header(TITLE, trials, quick, seed, "n = 200, 5 restarts per method.")
    text += (f"\nPaper: Bayes accuracy ≈ 0.86 for (26) (ours {b26:.3f}) and ≈ 0.95 for (27) "
             f"(ours {b27:.3f}); no other numbers are printed, so we check the ORDERING the "
             "draft reports.\n\n")
    tables = {"Mixture (26)": (grid, acc26, METHODS, "D"),
              "Mixture (27)": (grid, acc27, METHODS, "D")}
    return _m.grid_report(out, NAME, text, claims(acc26, acc27, grid), tables, "icml_fig2.png")
