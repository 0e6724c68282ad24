"""
Choosing k: structure, separation, and a split test
===================================================

:func:`kgroups.choose_k` by default (``method="auto"``, the energy rule for point
data) asks three questions of kernel k-groups fits for k = 1, 2, ... Is there structure: is X multimodal by Hartigan's dip test
(of each half along the line of a 2-cluster fit of the other half, and of
the distances from the mean), or does some fit with k = 2..5 lower the within
energy W more than on reference samples without clusters (the gap statistic of
Tibshirani, Walther & Hastie 2001)? Which k separates best: the smallest k whose
mean silhouette (Rousseeuw 1987) is within half a standard error of the largest,
the curve followed to twice its best k and at least to 10, and read from the first
k that beat the references where they decided? Does a
cluster still split: the same dip test of each cluster, one more
cluster while some cluster splits and the silhouette keeps 0.7 of its best? And,
with three clusters or more, are they tiles of long shapes that the neighbourhood
graph cuts cleanly apart (then the answer is the fewest energy clusters within the
shapes)? None of the three sets below has such shapes.

Top: 8 blobs on a 4 x 2 grid: X is multimodal, the silhouette is largest at
k = 8 and no cluster splits. Middle: two parallel elongated clusters. In the
data's geometry the best two-cluster cut goes across the long axis, as in one
elongated cloud: no modes, and no k beats the references. Sphered, one principal
axis is multimodal, and on that axis the silhouette is largest at k = 2 (the
panels are those of the multimodal axes). Bottom: one elongated Gaussian with no
clusters: no modes and no gain over the reference samples, in the data's geometry
or with standardized columns (the panels of the gain in standard errors, against its
threshold), so the answer is 1. ``result.trace`` holds every step with its numbers
and ``result.explain()`` says them in words, a line per step; the answer does not
change when ``k_range`` is widened past the k where the rule decided, nor with
``random_state``.
"""


import matplotlib.pyplot as plt
import numpy as np

from kgroups import choose_k

rng = np.random.default_rng(0)
grid = np.vstack([rng.normal([4.0 * i, 4.0 * j], 0.5, (40, 2))
                  for i in range(4) for j in range(2)])
cigars = np.vstack([rng.normal(size=(150, 2)) * [6.0, 0.5] + [0.0, 4.0 * j]
                    for j in range(2)])
cloud = rng.normal(size=(300, 2)) * [3.0, 1.0]

fig, axes = plt.subplots(3, 3, figsize=(13, 11))
for row, (name, X) in enumerate([("8 blobs on a grid", grid),
                                 ("two parallel elongated clusters", cigars),
                                 ("one elongated Gaussian", cloud)]):
    result = choose_k(X, range(1, 11), random_state=0)
    print(f"{name}: k = {result.k} (found in the {result.geometry} geometry)")
    print("  " + result.explain("\n  "))
    axes[row, 0].scatter(X[:, 0], X[:, 1], c=result.labels, s=6, cmap="tab10")
    axes[row, 0].set_title(f"{name}: chosen k = {result.k}")
    axes[row, 0].set_aspect("equal", adjustable="datalim")
    # what chose k in the geometry that answered: the silhouette and the split
    # test where there was structure, the reference test of each geometry where not
    prefix = "" if result.geometry == "data" else result.geometry + " "
    chose = ([prefix + "silhouette", prefix + "split"] if result.k > 1 else
             [c for c in result.criteria if c.endswith("structure")][:2])
    result.plot(ax=axes[row, 1:], criteria=chose)
fig.tight_layout()
plt.show()
