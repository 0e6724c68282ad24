"""Monte Carlo loops, Bayes accuracies, claim checks and plots for the experiments
of the ICML draft ("Clustering via Generalized Energy Statistics") and the arXiv
paper ("Nonparametric Clustering from Energy Statistics").

One :class:`Method` describes one curve of a figure (an algorithm, its semimetric,
its initialisation and restarts); :func:`monte_carlo` runs every method on
``trials`` fresh samples at every grid value, behind one tqdm progress bar, and
returns the accuracies (paper eq. (22) of the ICML draft, eq. (accuracy) of the
arXiv paper) as an array of shape (n_grid, trials, n_methods).

Everything runs single-threaded (``threadpoolctl``): these are thousands of small
problems, and BLAS/OpenMP threads on a shared machine make them many times
slower, not faster.
"""

from __future__ import annotations

import os
import warnings
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np

from .. import KernelKGroups, KernelKMeans, onedim_kgroups, pairwise, spectral_kgroups
from .._semimetrics import rho_to_origin
from .._spectral import kernel_from_semimetric_x0
from ..metrics import accuracy

KINDS = ("kgroups", "kkmeans", "spectral", "relaxation", "kmeans", "gmm", "onedim")


# ------------------------------------------------------------------ methods
@dataclass(frozen=True)
class Method:
    """One curve: an algorithm with its semimetric, initialisation and restarts.

    ``kind``:

    * ``"kgroups"`` kernel k-groups (Hartigan), ``"kkmeans"`` kernel k-means (Lloyd);
    * ``"spectral"`` the papers' "spectral clustering": scikit-learn's
      normalised-cut ``SpectralClustering(affinity="precomputed")`` on the Gram
      matrix G of the paper's kernel with base point ``x0 = 0`` (ICML eq. (8));
      the ICML draft says it used scikit-learn's implementation "based on Shi &
      Malik (2000)", and the authors' public code (GitHub guisf/kgroups,
      ``wrapper.spectral_clustering``) passes G as the affinity;
    * ``"relaxation"`` the relaxation of ICML eq. (14) / TPAMI eq. (29): top-k
      eigenvectors of G, rows normalised, k-means (:func:`kgroups.spectral_kgroups`);
    * ``"kmeans"``, ``"gmm"`` scikit-learn; ``"onedim"`` the exact 1-D algorithm.

    ``gmm_init="kmeans"``: EM started from scikit-learn's k-means labelling, best
    likelihood of ``n_init`` starts ("GMM with the output of k-means", ICML section
    5.1; the authors' code runs ``GaussianMixture(k, n_init=5,
    init_params="kmeans")``; for the arXiv paper's "k-means++ start" too, see
    :mod:`kgroups.experiments.arxiv_fig_gauss`); ``"k-means++"``: scikit-learn's
    k-means++ seeding of EM (available for comparison, used by no experiment).
    ``init="random"`` also makes k-means start from random centres.
    """

    label: str
    kind: str
    semimetric: str = "energy"
    params: dict = field(default_factory=lambda: {"alpha": 1.0})
    init: str = "k-means++"
    n_init: int = 5
    gmm_init: str = "kmeans"

    def __hash__(self):
        return hash((self.label, self.kind))


def rho_label(semimetric, params):
    """Paper notation for a semimetric: rho_1, rho_1/2, rho~_2 (Laplacian), rho^_2 (Gaussian)."""
    if semimetric == "energy":
        a = params.get("alpha", 1.0)
        return "rho_" + ("1/2" if a == 0.5 else f"{a:g}")
    if semimetric == "laplacian":
        return f"rho~_{params.get('sigma', 1.0):g}"
    if semimetric == "gaussian":
        return f"rho^_{params.get('sigma', 1.0):g}"
    return semimetric


def paper_gram(X, semimetric, params):
    """Gram matrix of the paper's kernel with base point ``x0 = 0`` (ICML eq. (8))."""
    rho = pairwise(X, semimetric=semimetric, **params)
    return kernel_from_semimetric_x0(rho, rho_to_origin(X, semimetric, **params))


def _km_init(method):
    return "random" if method.init == "random" else "k-means++"


def _gmm(X, k, method, seed):
    from sklearn.mixture import GaussianMixture

    params = "k-means++" if method.gmm_init == "k-means++" else "kmeans"
    gmm = GaussianMixture(k, init_params=params, n_init=method.n_init, random_state=seed)
    return gmm.fit(X).predict(X)


def fit_labels(method, X, k, seed):
    """Labels of one method on ``X``; ``None`` when the fit fails (e.g. EM breaks down)."""
    kw = dict(semimetric=method.semimetric, n_init=method.n_init, init=method.init,
              random_state=seed, **method.params)
    try:
        if method.kind == "kgroups":
            return KernelKGroups(k, **kw).fit(X).labels_
        if method.kind == "kkmeans":
            return KernelKMeans(k, **kw).fit(X).labels_
        if method.kind == "spectral":
            from sklearn.cluster import SpectralClustering

            G = paper_gram(X, method.semimetric, method.params)
            return SpectralClustering(k, affinity="precomputed", random_state=seed).fit(G).labels_
        if method.kind == "relaxation":
            return spectral_kgroups(paper_gram(X, method.semimetric, method.params), k,
                                    random_state=seed)
        if method.kind == "kmeans":
            from sklearn.cluster import KMeans

            return KMeans(k, init=_km_init(method), n_init=method.n_init,
                          random_state=seed).fit(X).labels_
        if method.kind == "gmm":
            return _gmm(X, k, method, seed)
        if method.kind == "onedim":
            return onedim_kgroups(X[:, 0]).labels
    except (ValueError, np.linalg.LinAlgError):
        return None
    raise ValueError(f"method.kind={method.kind!r}; expected one of {KINDS}")


def score(method, X, y, k, seed):
    """Accuracy of one method on one sample (NaN when the fit failed)."""
    labels = fit_labels(method, X, k, seed)
    return np.nan if labels is None else accuracy(y, labels)


# --------------------------------------------------------------- the loop
@contextmanager
def quiet_single_thread():
    """One BLAS/OpenMP thread and no convergence warnings inside the block."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def monte_carlo(grid, make_data, methods, k, trials, seed=0, desc="trials"):
    """Accuracies of every method on ``trials`` samples at every grid value.

    Parameters
    ----------
    grid : sequence
        Values of the varied parameter (n, D, m, ...).
    make_data : callable ``(value, rng) -> (X, y)``
    methods : sequence of Method
    k : int
    trials : int
    seed : int
        Sample ``t`` at grid index ``g`` uses ``default_rng([seed, g, t])``, so
        results do not depend on the order of evaluation.

    Returns
    -------
    acc : ndarray of shape (len(grid), trials, len(methods))
    """
    from tqdm.auto import tqdm

    acc = np.full((len(grid), trials, len(methods)), np.nan)
    with quiet_single_thread(), tqdm(total=len(grid) * trials, desc=desc, leave=False) as bar:
        for g, value in enumerate(grid):
            for t in range(trials):
                rng = np.random.default_rng([seed, g, t])
                X, y = make_data(value, rng)
                s = int(rng.integers(2**31 - 1))
                acc[g, t] = [score(m, X, y, k, s) for m in methods]
                bar.update()
    return acc


def mean_sem(acc, axis=1):
    """Mean and standard error over trials, ignoring failed fits (NaN)."""
    count = np.sum(~np.isnan(acc), axis=axis)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        mean = np.nanmean(acc, axis=axis)
        sem = np.nanstd(acc, axis=axis, ddof=1) / np.sqrt(np.maximum(count, 1))
    return mean, np.nan_to_num(sem)


# ---------------------------------------------------------------- Bayes
def bayes_accuracy(means, variances, weights=None, n=400_000, seed=12345):
    """Accuracy of the Bayes classifier of a diagonal Gaussian mixture (Monte Carlo).

    .. math:: \\mathrm{acc} = E\\big[\\mathbb{1}\\{\\arg\\max_j w_j f_j(x) = y\\}\\big]

    The lognormal mixture with the same parameters has the same Bayes accuracy
    (``exp`` is one-to-one). Coordinates where every component has the same mean
    and variance do not change it, so pass only the signal coordinates.

    Parameters
    ----------
    means, variances : array-like of shape (k, d)
    weights : array-like of shape (k,), default: equal
    n : int
        Monte Carlo sample size (standard error below 0.001 for the default).

    Returns
    -------
    accuracy : float

    Examples
    --------
    >>> print(round(bayes_accuracy([[0.0], [2.0]], [[1.0], [1.0]]), 2))  # Phi(1)
    0.84
    """
    means = np.atleast_2d(np.asarray(means, float))
    var = np.broadcast_to(np.asarray(variances, float), means.shape)
    k = means.shape[0]
    w = np.full(k, 1.0 / k) if weights is None else np.asarray(weights, float) / np.sum(weights)
    rng = np.random.default_rng(seed)
    y = rng.choice(k, size=n, p=w)
    X = means[y] + np.sqrt(var[y]) * rng.standard_normal((n, means.shape[1]))
    logp = np.stack([np.log(w[j]) - 0.5 * np.sum(np.log(var[j]) + (X - means[j]) ** 2 / var[j],
                                                 axis=1) for j in range(k)], axis=1)
    return float(np.mean(np.argmax(logp, axis=1) == y))


# --------------------------------------------------------------- claims
@dataclass
class Claim:
    """A statement of the paper checked on our numbers."""

    text: str
    holds: bool
    detail: str


def claims_markdown(claims):
    """Markdown list: each claim of the paper, whether our run reproduces it, and why."""
    lines = ["| paper says (ordering / shape) | ours | evidence |", "|---|---|---|"]
    for c in claims:
        lines.append(f"| {c.text} | {'reproduced' if c.holds else '**not reproduced**'} "
                     f"| {c.detail} |")
    return "\n".join(lines)


def grid_table(grid, acc, methods, xname, bayes=None):
    """Markdown table: mean ± standard error of each method at each grid value."""
    mean, sem = mean_sem(acc)
    head = f"| {xname} | " + " | ".join(m.label for m in methods) + " |"
    lines = [head, "|" + "---|" * (len(methods) + 1)]
    for g, value in enumerate(grid):
        cells = [f"{mean[g, j]:.3f} ± {sem[g, j]:.3f}" for j in range(len(methods))]
        lines.append(f"| {value} | " + " | ".join(cells) + " |")
    failed = np.sum(np.isnan(acc), axis=(0, 1))
    notes = [f"{m.label}: {int(f)} failed fits (excluded)" for m, f in zip(methods, failed) if f]
    text = "\n".join(lines)
    if bayes is not None:
        text += f"\n\nBayes accuracy (Monte Carlo): {bayes:.3f}"
    if notes:
        text += "\n\n" + "; ".join(notes)
    return text


def column(acc, methods, label):
    """Accuracies of the method called ``label``: array (n_grid, trials)."""
    return acc[:, :, [m.label for m in methods].index(label)]


def avg(acc, methods, label, where=slice(None)):
    """Mean accuracy of a method over the grid values ``where`` and all trials."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return float(np.nanmean(column(acc, methods, label)[where]))


def better(acc, methods, a, b, where=slice(None), margin=0.0, grid_name="grid"):
    """Claim helper: mean accuracy of ``a`` exceeds that of ``b`` by more than ``margin``."""
    va, vb = avg(acc, methods, a, where), avg(acc, methods, b, where)
    return va - vb > margin, f"{a} {va:.3f} vs {b} {vb:.3f} ({grid_name})"


# ---------------------------------------------------------------- plots
def pyplot():
    """matplotlib.pyplot with the Agg backend."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_curves(ax, grid, acc, methods, xlabel, title, bayes=None, chance=None):
    """Mean accuracy ± standard error of each method against the grid."""
    mean, sem = mean_sem(acc)
    for j, m in enumerate(methods):
        ax.errorbar(grid, mean[:, j], yerr=sem[:, j], marker="o", ms=3, capsize=2,
                    label=m.label)
    if bayes is not None:
        ax.axhline(bayes, ls="--", color="k", lw=1, label=f"Bayes {bayes:.3f}")
    if chance is not None:
        ax.axhline(chance, ls=":", color="gray", lw=1)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("accuracy")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7)


def save(fig, out, filename):
    """Save a figure as a PNG under ``out``; returns the path."""
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, filename)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    pyplot().close(fig)
    return path


def write_markdown(out, name, text):
    """Write ``NAME.md`` under ``out`` (created if needed); returns the text."""
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, f"{name}.md"), "w") as fh:
        fh.write(text.rstrip() + "\n")
    return text


def trial_count(trials, quick, default, quick_default=5):
    """Trials to run: the caller's, else the quick or the paper's default."""
    if trials is not None:
        if int(trials) < 1:
            raise ValueError(f"trials={trials!r}; expected a positive integer")
        return int(trials)
    return quick_default if quick else default


def header(title, trials, quick, seed, extra=""):
    """First lines of every report."""
    mode = "quick (reduced grid)" if quick else "full grid"
    return (f"# {title}\n\n{trials} Monte Carlo trials per point, {mode}, seed {seed}. "
            f"{extra}\n")
