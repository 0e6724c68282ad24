"""
Choosing k: structure, separation, and a second look with standardized columns
===============================================================================

:func:`kgroups.choose_k` by default asks three questions of kernel k-groups fits
for k = 1..10. Which k show structure: does the fit with k clusters lower the
within energy W more than it does on reference samples without clusters, by more
than 3 standard errors of that gain (the gap statistic of Tibshirani, Walther &
Hastie 2001)? Which of them separates best: the largest mean silhouette
(Rousseeuw 1987)? Is there a finer level: the gap's ``globalSEmax`` k, when it is
larger and keeps 0.8 of that silhouette? When no k shows structure, it looks
again at the data with every column scaled to unit variance, then sphered.

Top: 8 blobs on a 4 x 2 grid. Every k from 2 on beats the reference samples, and
the silhouette is largest at k = 8. Middle: two parallel elongated clusters. In the
data's geometry the best two-cluster cut goes across the long axis, as in one
elongated cloud, and no k beats the references; with standardized columns the two
bands are far apart compared with their length, and k = 2 is the gap's first
maximum among the k that show structure (the panels are those of the standardized
data). Bottom: one elongated Gaussian with no clusters: no k beats the reference
samples in any geometry, so the answer is 1. ``result.reasoning`` says the same in
words, with every number it used.
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
    print("  " + result.reasoning)
    axes[row, 0].scatter(X[:, 0], X[:, 1], c=result.labels, s=6, cmap="tab10")
    axes[row, 0].set_title(f"{name}: chosen k = {result.k}")
    axes[row, 0].set_aspect("equal", adjustable="datalim")
    # the structure test of the geometry that answered, and what chose among its k
    prefix = "" if result.geometry == "data" else result.geometry + " "
    second = "silhouette" if result.geometry == "data" else prefix + "gap"
    result.plot(ax=axes[row, 1:], criteria=[prefix + "structure", second])
fig.tight_layout()
plt.show()
