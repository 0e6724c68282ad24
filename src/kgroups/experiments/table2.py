"""TPAMI Table II and Fig. 6: the dermatology dataset.

366 patients, 34 attributes (missing ages set to the column mean, all columns
z-scored), k = 6, energy semimetric with alpha = 1/2; every method gets
``n_init`` starts (5 in the paper) and keeps its best objective. "spectral" is
scikit-learn's ``SpectralClustering`` on the paper's ``x0 = 0`` kernel (section 5:
"For k-means, GMM and spectral clustering we use the implementations from
scikit-learn"); with seed 0 it gives the paper's three numbers exactly. The
relaxation of eq. (29) is an extra row.

Row [5] of the caption, Székely & Rizzo's energy hierarchical clustering (aRand
0.9195 in their paper, on the 358 complete rows), is regenerated beside kernel
k-groups with :class:`kgroups.EnergyHierarchical` on the same data (deterministic:
no seed, no restarts), with their exponent alpha = 1 and with the table's alpha = 1/2.

The paper reports one run. Hartigan's method from 5 k-means++ starts does not
always reach the best objective on these data, so the report adds, for the
kernel methods and k-means, the mean ± sd over ``trials`` seeds (20 by default).
"""

from __future__ import annotations

import time

import numpy as np

from .._hierarchical import EnergyHierarchical
from ..datasets import load_dermatology
from ..metrics import accuracy, ari, nmi
from ._methods import (Method, MethodScore, markdown_table, mean_sd, method_seed, monte_carlo, pyplot,
                       run_methods, save, scores, trial_count, write_markdown)

NAME = "tpami-table2"
TITLE = "TPAMI Table II and Fig. 6: dermatology, accuracy / ARI / NMI and class-membership heatmap"

# Paper's Table II: accuracy, aRand, NMI.
PAPER = {
    "k-means": (0.738, 0.703, 0.860),
    "GMM": (0.781, 0.737, 0.821),
    "spectral": (0.956, 0.920, 0.917),
    "kernel k-means": (0.872, 0.832, 0.879),
    "kernel k-groups": (0.962, 0.936, 0.932),
}
# Caption of Table II: energy hierarchical clustering [5] (Székely & Rizzo 2005), aRand only.
PAPER_HIERARCHICAL_ARI = 0.9195
HIERARCHICAL_ALPHAS = (1.0, 0.5)
ALPHA = {"alpha": 0.5}
TRIALS, QUICK_TRIALS = 20, 2


def methods(n_init=5):
    """The rows of Table II (and the extra relaxation row), each with ``n_init`` starts."""
    return (Method("k-means", "kmeans", n_init=n_init),
            Method("GMM", "gmm", n_init=n_init, gmm_init="kmeans-fit"),
            Method("spectral", "spectral", "energy", ALPHA, n_init=n_init),
            Method("extra: relaxation (29)", "relaxation", "energy", ALPHA, n_init=n_init),
            Method("kernel k-means", "kkmeans", "energy", ALPHA, n_init=n_init),
            Method("kernel k-groups", "kgroups", "energy", ALPHA, n_init=n_init))


def membership_heatmap(y, labels, out):
    """Fig. 6: fraction of each true class in each (matched) cluster, as a PNG."""
    from scipy.optimize import linear_sum_assignment

    plt = pyplot()
    k = int(max(y.max(), labels.max()) + 1)
    C = np.zeros((k, k))
    np.add.at(C, (y, labels), 1.0)
    _, cols = linear_sum_assignment(-C)
    C = C[:, cols] / C.sum(axis=1, keepdims=True)
    fig, ax = plt.subplots(figsize=(5, 4.2))
    im = ax.imshow(C, cmap="viridis", vmin=0, vmax=1)
    for i in range(k):
        for j in range(k):
            ax.text(j, i, f"{C[i, j]:.2f}", ha="center", va="center",
                    color="white" if C[i, j] < 0.5 else "black", fontsize=8)
    ax.set_xlabel("cluster (matched to class)")
    ax.set_ylabel("true class")
    ax.set_xticks(range(k), [str(c + 1) for c in range(k)])
    ax.set_yticks(range(k), [str(c + 1) for c in range(k)])
    ax.set_title("Dermatology: kernel k-groups class membership")
    fig.colorbar(im, ax=ax)
    return save(fig, out, "fig6_dermatology_heatmap.png", dpi=120)


def hierarchical_rows(X, y):
    """Energy hierarchical clustering [5] cut at k = 6, one row per exponent."""
    rows = []
    for a in HIERARCHICAL_ALPHAS:
        start = time.perf_counter()
        labels = EnergyHierarchical(6, alpha=a).fit(X).labels_
        rows.append(MethodScore(f"energy hierarchical [5], alpha={a:g}", labels,
                                accuracy(y, labels), ari(y, labels), nmi(y, labels),
                                time.perf_counter() - start))
    return rows


def _spread(X, y, n_init, trials, seed):
    rows = [m for m in methods(n_init) if m.kind in ("kgroups", "kkmeans", "kmeans")]
    res = monte_carlo(lambda rng: scores(rows, X, y, 6, method_seed(rng)), trials,
                      seed=seed, desc="table2 seeds")
    lines = [f"Accuracy over {trials} seeds (mean ± sd, fraction of seeds >= 0.95):\n",
             "| method | mean ± sd | >= 0.95 | paper (one run) |", "|---|---|---|---|"]
    for m in rows:
        mean, sd = mean_sd(res[m.label])
        lines.append(f"| {m.label} | {mean:.3f} ± {sd:.3f} | "
                     f"{np.mean(res[m.label] >= 0.95):.2f} | {PAPER[m.label][0]:.3f} |")
    return "\n".join(lines)


def run(out, trials=None, quick=False, seed=0, n_init=5):
    """Regenerate Table II (and Fig. 6) into ``out``; returns the Markdown table."""
    X, y = load_dermatology()
    results = run_methods(X, y, 6, methods(n_init), seed=seed)
    table = markdown_table(results + hierarchical_rows(X, y), PAPER)
    groups = next(s for s in results if s.method == "kernel k-groups")
    membership_heatmap(y, groups.labels, out)
    spread = _spread(X, y, n_init, trial_count(trials, quick, TRIALS, QUICK_TRIALS), seed)
    write_markdown(out, NAME, f"# TPAMI Table II: dermatology (n=366, D=34, k=6, alpha=1/2)\n\n"
                   f"One run, seed {seed}, {n_init} starts per method; figure: "
                   f"`fig6_dermatology_heatmap.png`.\n\n{table}\n\n"
                   f"Energy hierarchical clustering [5]: the caption's aRand = "
                   f"{PAPER_HIERARCHICAL_ARI} (Székely & Rizzo 2005, complete rows only); ours "
                   f"on the table's data (mean-imputed, z-scored, 366 rows).\n\n{spread}\n")
    return table
