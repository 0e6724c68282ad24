"""
Kernel k-groups against k-means, GMM and spectral clustering
============================================================

The papers' non-Gaussian shapes: two parallel cigars (ICML Table 1, arXiv Fig. 6a),
two concentric circles (ICML Table 1, Fig. 4) and two spirals (arXiv "weird shapes"
figure). Kernel k-groups runs with the semimetric the papers use for each shape: the
Laplacian semimetric :math:`2 - 2 e^{-\\|x-y\\|/(2\\sigma)}` with :math:`\\sigma = 2` on
the cigars (TPAMI eq. 53), the Gaussian one with :math:`\\sigma = 1` on the circles
(eq. 54), the sinusoidal one with :math:`\\theta = 0.9` on the spirals (arXiv).
The title of each panel gives the accuracy (best matching of the labels,
TPAMI eq. 55).

The last column is what the library does today with nothing given:
``KernelKGroups(n_clusters="auto", semimetric="auto")`` chooses the number of
clusters and the semimetric from the data (:doc:`/user_guide/nothing_given`). On
the cigars it keeps the energy semimetric, on the circles it takes the neighbourhood
graph's, with two clusters each time. The spirals of the arXiv figure defeat it, as
they defeat every method here: 300 points, so sparse on the outer turns that the arms
lie closer to each other than neighbouring points along one arm, and the graph of
each point's 10 nearest neighbours joins the arms (with 5 neighbours,
``KernelKGroups(2, semimetric="nearest_neighbors", n_neighbors=5)`` reaches an
accuracy of 0.76, the best of the library on them; denser spirals, as in
:doc:`/user_guide/shapes`, are separated exactly).
"""

import matplotlib.pyplot as plt
from sklearn.cluster import KMeans, SpectralClustering
from sklearn.mixture import GaussianMixture

from kgroups import KernelKGroups
from kgroups.datasets import make_cigars, make_concentric_circles, make_spirals
from kgroups.metrics import accuracy

datasets = {
    "cigars": (make_cigars(n=(200, 200), random_state=0),
               dict(semimetric="laplacian", sigma=2.0)),
    "circles": (make_concentric_circles(n=(200, 200), random_state=0),
                dict(semimetric="gaussian", sigma=1.0, init="random", n_init=10)),
    "spirals": (make_spirals(random_state=0),
                dict(semimetric="sinusoidal", theta=0.9, init="random", n_init=10)),
}

fig, axes = plt.subplots(3, 5, figsize=(15, 9))
for row, (name, ((X, y), params)) in zip(axes, datasets.items()):
    methods = {
        f"kernel k-groups ({params['semimetric']})": KernelKGroups(2, random_state=0,
                                                                   **params),
        "k-means": KMeans(2, n_init=10, random_state=0),
        "GMM": GaussianMixture(2, n_init=5, random_state=0),
        "spectral (RBF)": SpectralClustering(2, random_state=0),
        "nothing given": KernelKGroups("auto", semimetric="auto", random_state=0),
    }
    for ax, (label, est) in zip(row, methods.items()):
        pred = est.fit_predict(X)
        if label == "nothing given":
            label = f"nothing given: k={est.n_clusters_}, {est.semimetric_}"
        ax.scatter(X[:, 0], X[:, 1], c=pred, s=6, cmap="coolwarm")
        ax.set_title(f"{name}: {label}\naccuracy {accuracy(y, pred):.3f}", fontsize=9)
        ax.set_xticks([])
        ax.set_yticks([])
        ax.set_aspect("equal", adjustable="datalim")
fig.tight_layout()
plt.show()
