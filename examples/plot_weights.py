"""
Weights
=======

Every point carries a weight :math:`w_i > 0` (TPAMI eqs. 13-16): cluster sizes
become cluster weights :math:`s_j = \\sum_{x \\in C_j} w(x)`, and an integer weight is
the same as repeating the point. Left: 600 points of a mixture of three Gaussians.
Middle: the same points snapped to a coarse grid and merged, each distinct point
weighted by how many points fell there (``sample_weight``); the weighted fit of the
98 distinct points finds the partition of the 600 points on the grid, with the same
within energy W. Right: weighting the points of one
Gaussian by 5 moves the boundary towards the others.
"""

import matplotlib.pyplot as plt
import numpy as np

from kgroups import KernelKGroups, within_energy

rng = np.random.default_rng(0)
centres = np.array([[0.0, 0.0], [3.0, 0.0], [1.5, 2.5]])
y = rng.integers(0, 3, 600)
X = centres[y] + rng.normal(scale=0.8, size=(600, 2))

# Snap to a grid: the distinct points and how many times each occurs.
Xg = np.round(X / 0.6) * 0.6
U, inverse, counts = np.unique(Xg, axis=0, return_inverse=True, return_counts=True)
inverse = inverse.ravel()

full = KernelKGroups(3, n_init=5, random_state=0).fit(Xg)
weighted = KernelKGroups(3, n_init=5, random_state=0).fit(U, sample_weight=counts)
same = np.mean(weighted.labels_[inverse] == full.labels_)
print(f"{len(U)} distinct points; W repeated rows {full.within_energy_:.3f}, "
      f"W weighted {weighted.within_energy_:.3f}")
print("W of the weighted partition on the repeated rows:",
      round(within_energy(Xg, weighted.labels_[inverse]), 3))

w = np.where(y == 0, 5.0, 1.0)
heavy = KernelKGroups(3, n_init=5, random_state=0).fit(X, sample_weight=w)
plain = KernelKGroups(3, n_init=5, random_state=0).fit(X)

fig, axes = plt.subplots(1, 3, figsize=(12, 4))
axes[0].scatter(Xg[:, 0], Xg[:, 1], c=full.labels_, s=8, cmap="viridis")
axes[0].set_title(f"600 points (on the grid), W = {full.within_energy_:.2f}")
axes[1].scatter(U[:, 0], U[:, 1], c=weighted.labels_, s=6 * counts, cmap="viridis",
                alpha=0.8)
axes[1].set_title(f"{len(U)} weighted points, W = {weighted.within_energy_:.2f}")
changed = heavy.labels_ != plain.labels_
changed_idx = np.flatnonzero(changed)
axes[2].scatter(X[:, 0], X[:, 1], c=heavy.labels_, s=3 + 12 * (w > 1), cmap="viridis")
axes[2].scatter(X[changed_idx, 0], X[changed_idx, 1], s=40, facecolors="none",
                edgecolors="r", label=f"{changed.sum()} points change cluster")
axes[2].set_title("weight 5 on one Gaussian (larger dots)")
axes[2].legend(loc="lower right", fontsize=8)
for ax in axes:
    ax.set_aspect("equal", adjustable="datalim")
fig.tight_layout()
plt.show()
