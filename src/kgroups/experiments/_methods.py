"""Run the methods the papers compare on one dataset and score them.

Besides :data:`METHODS` (used by Table II), :func:`run_methods` knows
``"sklearn spectral"`` (scikit-learn's ``SpectralClustering`` with
``affinity="precomputed"`` on the paper's ``x0 = 0`` kernel, as the authors' code
runs it) and ``"1-D exact"`` (:func:`kgroups.onedim_kgroups`, paper Algorithm 3).
:func:`monte_carlo` repeats a trial over independent seeds (progress bar, one BLAS
thread, convergence warnings silenced); :func:`sweep_table` and :func:`plot_curves`
report mean ± sd curves against a grid.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass

import numpy as np
from sklearn.cluster import KMeans, SpectralClustering
from sklearn.exceptions import ConvergenceWarning
from sklearn.mixture import GaussianMixture

from .. import KernelKGroups, KernelKMeans, onedim_kgroups, spectral_kgroups
from .._backends import DenseEngine
from .._semimetrics import rho_to_origin
from ..metrics import accuracy, ari, nmi

METHODS = ("kernel k-groups", "kernel k-means", "spectral", "k-means", "GMM")
EXTRA_METHODS = ("sklearn spectral", "1-D exact")


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


def kmeans_then_gmm(X, k, n_init, seed):
    """k-means (k-means++, ``n_init`` starts), then a full-covariance GMM started
    from its centres, as in the paper (section 5); returns both fitted models."""
    km = KMeans(k, n_init=n_init, random_state=seed).fit(X)
    gmm = GaussianMixture(k, means_init=km.cluster_centers_, random_state=seed).fit(X)
    return km, gmm


def _fit(method, X, k, semimetric, params, n_init, seed):
    if method not in METHODS + EXTRA_METHODS:
        raise ValueError(f"method={method!r}; expected one of {METHODS + EXTRA_METHODS}")
    if method == "1-D exact":
        return onedim_kgroups(X).labels
    if method == "sklearn spectral":
        sc = SpectralClustering(k, affinity="precomputed", n_init=n_init, random_state=seed)
        return sc.fit_predict(paper_gram(X, semimetric, params))
    if method == "kernel k-groups":
        return KernelKGroups(k, semimetric=semimetric, n_init=n_init, random_state=seed,
                             **params).fit(X).labels_
    if method == "kernel k-means":
        return KernelKMeans(k, semimetric=semimetric, n_init=n_init, random_state=seed,
                            **params).fit(X).labels_
    if method == "spectral":
        return spectral_kgroups(paper_gram(X, semimetric, params), k, random_state=seed)
    if method == "k-means":
        return KMeans(k, n_init=n_init, random_state=seed).fit(X).labels_
    # GMM initialised with the output of k-means, as in the paper (section 5).
    return kmeans_then_gmm(X, k, n_init, seed)[1].predict(X)


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


# ------------------------------------------------------------ Monte Carlo helpers
def monte_carlo(trial, trials, *, seed=0, desc=None, progress=True):
    """Run ``trial(rng)`` on ``trials`` independent generators and stack the results.

    Parameters
    ----------
    trial : callable
        ``trial(rng) -> dict``: one Monte Carlo run; ``rng`` is a
        ``numpy.random.Generator``. Values are floats or equal-length arrays.
    trials : int >= 1
    seed : int, default=0
        Root of the ``SeedSequence`` that spawns one child per trial.
    desc : str, optional
        Label of the tqdm progress bar (on stderr).
    progress : bool, default=True

    Returns
    -------
    results : dict
        Same keys; each value an ndarray of shape (trials,) or (trials, m).

    Examples
    --------
    >>> out = monte_carlo(lambda rng: {"u": rng.uniform()}, 50, progress=False)
    >>> out["u"].shape, bool(0.3 < out["u"].mean() < 0.7)
    ((50,), True)
    """
    from threadpoolctl import threadpool_limits
    from tqdm.auto import tqdm

    if not isinstance(trials, (int, np.integer)) or trials < 1:
        raise ValueError(f"trials={trials!r}; expected an integer >= 1")
    stacked = {}
    children = np.random.SeedSequence(seed).spawn(int(trials))
    with threadpool_limits(limits=1), warnings.catch_warnings():
        # Many small fits: one BLAS thread each is faster; repeated warnings are noise.
        warnings.simplefilter("ignore", ConvergenceWarning)
        warnings.simplefilter("ignore", UserWarning)
        for child in tqdm(children, desc=desc, disable=not progress, leave=False):
            for key, value in trial(np.random.default_rng(child)).items():
                stacked.setdefault(key, []).append(value)
    return {key: np.asarray(values, dtype=np.float64) for key, values in stacked.items()}


def method_seed(rng):
    """An int seed for scikit-learn style ``random_state`` drawn from ``rng``."""
    return int(rng.integers(2**31 - 1))


def mean_sd(values):
    """``(mean, sd)`` over the first axis (sample sd, ddof=1; 0 for one value)."""
    values = np.asarray(values, dtype=np.float64)
    sd = values.std(axis=0, ddof=1) if values.shape[0] > 1 else np.zeros(values.shape[1:])
    return values.mean(axis=0), sd


def sweep_table(xname, grid, curves, digits=3):
    """Markdown table, one row per grid value, one ``mean ± sd`` column per curve.

    ``curves`` maps a label to an array of shape (trials, len(grid)).
    """
    head = f"| {xname} | " + " | ".join(curves) + " |"
    lines = [head, "|" + "---|" * (len(curves) + 1)]
    stats = {label: mean_sd(values) for label, values in curves.items()}
    for j, x in enumerate(grid):
        cells = [f"{stats[c][0][j]:.{digits}f} ± {stats[c][1][j]:.{digits}f}" for c in curves]
        lines.append(f"| {x} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def pyplot():
    """matplotlib.pyplot with the non-interactive Agg backend."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_curves(ax, grid, curves, styles=None, hline=None):
    """Mean curves with sd error bars; ``styles`` maps a label to plot keywords."""
    for label, values in curves.items():
        mean, sd = mean_sd(values)
        ax.errorbar(grid, mean, yerr=sd, label=label, capsize=2, elinewidth=0.7,
                    markersize=4, **(styles or {}).get(label, {"marker": "o"}))
    if hline is not None:
        ax.axhline(hline, color="k", linestyle="--", linewidth=0.8)
    ax.set_ylabel("accuracy")
    ax.grid(alpha=0.3)


def run_configs(X, y, k, configs, *, n_init=5, seed=0, score="accuracy"):
    """``{label: score}`` for labelled method configurations on one dataset.

    ``configs`` maps a label to ``(method, semimetric, params)``, so one method can
    appear with several semimetrics (e.g. TPAMI Fig. 3c).
    """
    out = {}
    for label, (method, semimetric, params) in configs.items():
        s = run_methods(X, y, k, semimetric=semimetric, params=params, n_init=n_init,
                        seed=seed, methods=(method,))[0]
        out[label] = getattr(s, score)
    return out


def claims_markdown(checks):
    """Markdown bullets ``(paper's statement, holds?, our numbers)``, one per check."""
    return "\n".join(f"- **{'agrees' if ok else 'DIFFERS'}** — paper: {text} — ours: {detail}"
                     for text, ok, detail in checks)
