"""The figure of the user guide's page "Noise and outliers" (``noise.rst``, through
Matplotlib's plot directive): four blobs in a 10 % uniform background with ten far
strays, clustered by kernel k-groups without and with ``noise="auto"`` and by
scikit-learn's HDBSCAN at its defaults; points labelled -1 are grey crosses.

Run alone, ``python docs/user_guide/noise_figure.py OUT.png`` writes it to a file.
"""

import sys

import matplotlib.pyplot as plt
import numpy as np
from sklearn.cluster import HDBSCAN

from kgroups import KernelKGroups


def data(seed=0):
    """Four blobs of 200 points, 90 points uniform over the blobs' box and 10 strays
    18 to 26 away from its centre; ``y`` is -1 for the last 100."""
    rng = np.random.default_rng(seed)
    centres = np.array([[0, 0], [9, 1], [2, 10], [11, 11]])
    blobs = np.vstack([rng.normal(c, 1.0, (200, 2)) for c in centres])
    background = rng.uniform(-5, 16, (90, 2))
    angle = rng.uniform(0, 2 * np.pi, 10)
    strays = np.c_[np.cos(angle), np.sin(angle)] * rng.uniform(18, 26, (10, 1)) + 5.5
    y = np.r_[np.repeat(np.arange(4), 200), -np.ones(100, int)]
    return np.vstack([blobs, background, strays]), y


def draw(ax, X, labels, title):
    """The clusters in colour, the points labelled -1 as grey crosses."""
    aside = labels == -1
    ax.scatter(X[~aside, 0], X[~aside, 1], c=labels[~aside], cmap="tab10", vmin=0, vmax=9,
               s=6)
    ax.scatter(X[aside, 0], X[aside, 1], marker="x", color="0.45", s=14, linewidths=0.8,
               label="-1 (no cluster)")
    ax.set_title(title, fontsize=9)
    ax.set_xticks([])
    ax.set_yticks([])
    ax.set_aspect("equal", adjustable="datalim")
    if aside.any():
        ax.legend(loc="lower left", fontsize=7, frameon=False)


def figure():
    X, _ = data()
    plain = KernelKGroups(4, random_state=0).fit(X)
    auto = KernelKGroups(4, noise="auto", random_state=0).fit(X)
    hdb = HDBSCAN(copy=True).fit_predict(X)  # the defaults (copy only silences a warning)
    fig, axes = plt.subplots(1, 3, figsize=(10, 3.7))
    draw(axes[0], X, plain.labels_, "KernelKGroups(4)\nevery point in a cluster")
    draw(axes[1], X, auto.labels_,
         f'KernelKGroups(4, noise="auto")\n{auto.n_noise_} points set aside')
    n_found = np.unique(hdb[hdb >= 0]).size
    draw(axes[2], X, hdb, f"HDBSCAN()\n{n_found} clusters, {int((hdb == -1).sum())} noise")
    fig.tight_layout()
    return fig


if __name__ == "__main__":
    fig = figure()
    if len(sys.argv) > 1:
        fig.savefig(sys.argv[1], dpi=110)
