"""Run the methods the papers compare on one dataset and score them."""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from sklearn.cluster import KMeans
from sklearn.mixture import GaussianMixture

from .. import KernelKGroups, KernelKMeans, spectral_kgroups
from .._backends import DenseEngine
from .._semimetrics import rho_to_origin
from ..metrics import accuracy, ari, nmi

METHODS = ("kernel k-groups", "kernel k-means", "spectral", "k-means", "GMM")


@dataclass
class MethodScore:
    """Accuracy, ARI, NMI and time of one method on one dataset."""

    method: str
    labels: np.ndarray
    accuracy: float
    ari: float
    nmi: float
    seconds: float


def paper_gram(X, semimetric, params):
    """The paper's kernel with base point x0 = 0 (eq. 7), for the spectral method."""
    K = DenseEngine.from_semimetric(X, np.ones(len(X)), semimetric, params).gram()
    r0 = rho_to_origin(X, semimetric, **params)
    return K + 0.5 * (r0[:, None] + r0[None, :])


def _fit(method, X, k, semimetric, params, n_init, seed):
    if method == "kernel k-groups":
        return KernelKGroups(k, semimetric=semimetric, n_init=n_init, random_state=seed,
                             **params).fit(X).labels_
    if method == "kernel k-means":
        return KernelKMeans(k, semimetric=semimetric, n_init=n_init, random_state=seed,
                            **params).fit(X).labels_
    if method == "spectral":
        return spectral_kgroups(paper_gram(X, semimetric, params), k, random_state=seed)
    km = KMeans(k, n_init=n_init, random_state=seed).fit(X)
    if method == "k-means":
        return km.labels_
    # GMM initialised with the output of k-means, as in the paper (section 5).
    gmm = GaussianMixture(k, means_init=km.cluster_centers_, random_state=seed)
    return gmm.fit(X).predict(X)


def run_methods(X, y, k, *, semimetric="energy", params=None, n_init=5, seed=0,
                methods=METHODS):
    """Fit every method on ``X`` and score it against ``y``."""
    params = {"alpha": 1.0} if params is None else params
    scores = []
    for method in methods:
        start = time.perf_counter()
        labels = np.asarray(_fit(method, X, k, semimetric, params, n_init, seed))
        seconds = time.perf_counter() - start
        scores.append(MethodScore(method, labels, accuracy(y, labels), ari(y, labels),
                                  nmi(y, labels), seconds))
    return scores


def markdown_table(scores, paper=None):
    """Markdown table of scores; ``paper`` maps a method to its (acc, ari, nmi)."""
    head = "| method | accuracy | ARI | NMI | seconds |"
    if paper:
        head += " paper accuracy | paper ARI | paper NMI |"
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for s in scores:
        row = f"| {s.method} | {s.accuracy:.3f} | {s.ari:.3f} | {s.nmi:.3f} | {s.seconds:.2f} |"
        if paper:
            ref = paper.get(s.method)
            row += (" " + " | ".join(f"{v:.3f}" for v in ref) + " |") if ref else " – | – | – |"
        lines.append(row)
    return "\n".join(lines)
