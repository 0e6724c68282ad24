"""TPAMI Fig. 2: 2000 points from each mixture of Fig. 1, densities and fits.

One sample of n = 2000 from (a) ``1/2 N(0, 1.5^2) + 1/2 N(1.5, 0.3^2)`` and (b) its
exponential. We plot, for each class or cluster, a Gaussian kernel density
estimate (bandwidth 0.5, as in the authors' script) of the true classes (grey)
and of the kernel k-groups clusters (red), and the Gaussian fits of k-means
(each cluster's mean and variance, blue) and of the GMM (its components, green).
Every curve is a per-cluster density (integrates to 1). Methods as in Fig. 1:
k-means (k-means++, 5 starts), GMM from k-means, kernel k-groups (rho = |x - y|,
k-means++, best of 5); the exact 1-D algorithm and the kernel-space k-means++
start of kernel k-groups are listed too (see :mod:`kgroups.experiments.tpami_fig1`).

The caption's accuracies come from one draw. We report our one draw (the one
plotted) and, because one draw varies, the mean ± sd over ``trials`` further
draws (100 by default; the paper has none).
"""

from __future__ import annotations

import numpy as np
from scipy.stats import norm

from ..datasets import make_lognormal_1d, make_normal_1d
from ._methods import (failed_fits_note, fit_labels, kmeans_then_gmm, mean_sd, method_seed,
                       monte_carlo, pyplot, save, scores, trial_count, write_markdown)
from .tpami_fig1 import METHODS

NAME = "tpami-fig2"
TITLE = "TPAMI Fig. 2: n=2000 draws of the Fig. 1 mixtures, densities and accuracies"

N = 2000
BANDWIDTH = 0.5
PANELS = {"a": ("normal", make_normal_1d, (-6.0, 6.0)),
          "b": ("lognormal", make_lognormal_1d, (-2.0, 20.0))}
# Caption of Fig. 2: accuracies of k-means, GMM, kernel k-groups.
PAPER = {"a": {"k-means": 0.764, "GMM": 0.870, "kernel k-groups": 0.800},
         "b": {"k-means": 0.516, "GMM": 0.533, "kernel k-groups": 0.851}}
TRIALS, QUICK_TRIALS = 100, 3


def kde(sample, grid, bandwidth=BANDWIDTH):
    """Gaussian kernel density estimate of a 1-D ``sample`` evaluated on ``grid``."""
    sample = np.asarray(sample, dtype=np.float64).ravel()
    return norm.pdf(grid[:, None], sample[None, :], bandwidth).mean(axis=1)


def _densities(ax, X, y, kg_labels, seed, span):
    grid = np.linspace(span[0], span[1], 1500)
    x = X[:, 0]
    for c in (0, 1):
        d = kde(x[y == c], grid)
        ax.fill_between(grid, d, color="k", alpha=0.1)
        ax.plot(grid, d, color="k", lw=2, label="truth (KDE)" if c == 0 else None)
    km, gmm = kmeans_then_gmm(X, 2, 5, seed)
    for c in (0, 1):
        part = x[km.labels_ == c]
        ax.plot(grid, norm.pdf(grid, part.mean(), part.std()), color="blue",
                label="k-means (Gaussian fit)" if c == 0 else None)
        ax.plot(grid, norm.pdf(grid, gmm.means_[c, 0], np.sqrt(gmm.covariances_[c, 0, 0])),
                color="green", label="GMM (components)" if c == 0 else None)
        ax.plot(grid, kde(x[kg_labels == c], grid), color="red",
                label="kernel k-groups (KDE)" if c == 0 else None)
    ax.set_xlim(*span)
    ax.set_xlabel("x")
    ax.set_ylabel("density")


def _one_draw(rng, generate):
    X, y = generate(N, random_state=rng)
    seed = method_seed(rng)
    return X, y, seed, scores(METHODS, X, y, 2, seed)


def _table(panel, single, repeated):
    lines = ["| method | ours (plotted draw) | paper (caption) | ours, mean ± sd over draws |",
             "|---|---|---|---|"]
    for label in (m.label for m in METHODS):
        paper = PAPER[panel].get(label)
        m, s = mean_sd(repeated[label])
        lines.append(f"| {label} | {single[label]:.3f} | "
                     f"{'–' if paper is None else f'{paper:.3f}'} | {m:.3f} ± {s:.3f} |")
    return "\n".join(lines) + failed_fits_note(repeated)


def run(out, trials=None, quick=False, seed=0):
    """Regenerate Fig. 2 (a)(b) into ``out``; returns the Markdown report."""
    trials = trial_count(trials, quick, TRIALS, QUICK_TRIALS)
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    parts = [f"# TPAMI Fig. 2: n = {N} draws of the Fig. 1 mixtures\n",
             "Accuracy of one draw (plotted in `fig2_densities.png`) beside the caption's "
             f"one draw, and the mean ± sd over {trials} independent draws (the spread of a "
             "single draw).\n"]
    for i, (panel, (kind, generate, span)) in enumerate(PANELS.items()):
        rng = np.random.default_rng([seed, i])
        X, y, mseed, single = _one_draw(rng, generate)
        kg = fit_labels(METHODS[0], X, 2, mseed)
        _densities(axes[i], X, y, kg, mseed, span)
        axes[i].set_title(f"({panel}) {kind}, n={N}")
        repeated = monte_carlo(lambda r: _one_draw(r, generate)[3], trials,
                               seed=seed + 10 + i, desc=f"fig2{panel} {kind}")
        parts += [f"## ({panel}) {kind} mixture\n", _table(panel, single, repeated), ""]
    axes[0].legend(fontsize=8)
    save(fig, out, "fig2_densities.png", dpi=120)
    return write_markdown(out, NAME, "\n".join(parts))
