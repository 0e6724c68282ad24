"""
Choosing k: the gap statistic and prediction strength, in two geometries
=========================================================================

:func:`kgroups.choose_k` by default asks two questions of kernel k-groups fits
for k = 1..10. Prediction strength (Tibshirani & Walther 2005): does a fit on one
half of the data predict the clusters of the other half (``ps(k) >= 0.8``)? The gap
statistic (Tibshirani, Walther & Hastie 2001): does the fit with k clusters lower
the within energy W more than it does on reference samples without clusters
(``Gap(k) - Gap(1)`` above 3 standard errors)? The candidates pass both; the gap's
``globalSEmax`` rule picks among them. When no k passes, it asks again of the
data *sphered* (principal axes scaled to unit variance).

Top: 8 blobs on a 4 x 2 grid. The gap's first local maximum is at k = 2 (the
1-standard-error rules of the plain gap statistic stop there), but only k = 2 and
k = 8 are stable, and Gap(8) is the largest. Middle: two parallel elongated
clusters. In the data's geometry the best two-cluster cut goes across the long
axis, as in one elongated cloud, and nothing beats k = 1; sphered, the two bands
are far apart compared with their length, and k = 2 passes both questions (the
panels are those of the sphered data). Bottom: one elongated Gaussian with no
clusters. Its cut across the long axis is stable (prediction strength alone says
2), but no k beats k = 1 on the gap, in either geometry, so the answer is 1.
``result.reasoning`` says the same in words.
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
    where = "X's geometry" if result.geometry == "data" else "X sphered"
    print(f"{name}: k = {result.k} (found in {where})")
    print("  " + result.reasoning)
    axes[row, 0].scatter(X[:, 0], X[:, 1], c=result.labels, s=6, cmap="tab10")
    axes[row, 0].set_title(f"{name}: chosen k = {result.k}")
    axes[row, 0].set_aspect("equal", adjustable="datalim")
    # the gap and prediction strength of the geometry that answered last
    result.plot(ax=axes[row, 1:], criteria=result.criteria[-2:])
fig.tight_layout()
plt.show()
