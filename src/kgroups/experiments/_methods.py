"""Method runners and the Monte Carlo harness shared by every experiment.

One :class:`Method` is one curve of a figure or one row of a table: an algorithm
(``kind``), its semimetric, its initialisation and its restarts. :func:`fit_labels`
fits it, :func:`scores` scores several on one sample, :func:`run_methods` adds
ARI, NMI and time (Table II). Two Monte Carlo loops share one context
(:func:`single_thread`: one BLAS/OpenMP thread, since these are thousands of
small problems and threads on a shared machine make them slower, not faster;
and the expected warnings of :data:`EXPECTED_WARNINGS` filtered, each by
category and message; every other warning is shown):

* :func:`monte_carlo` runs ``trial(rng) -> dict`` on ``trials`` independent
  generators (TPAMI experiments: one trial sweeps the whole grid);
* :func:`grid_monte_carlo` scores a tuple of methods on ``trials`` fresh samples
  at every grid value and returns an array (n_grid, trials, n_methods) (ICML and
  arXiv experiments).

Both feed the same reporting helpers: :func:`as_curves`, :func:`sweep_table`,
:func:`plot_curves`, :func:`claims_markdown`, :func:`write_markdown`.
Accuracy is the best-permutation accuracy (TPAMI eq. 60, ICML eq. 22).

Failures are loud. :func:`fit_labels` turns exactly one failure into a failed
fit (``None``, scored NaN and counted in the report): the documented breakdown
of EM in scikit-learn's ``GaussianMixture`` (:data:`GMM_BREAKDOWN`). Any other
exception, in any method, propagates.
"""

from __future__ import annotations

import os
import re
import time
import warnings
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np

from .._errors import pyplot as pyplot_for
from .._kernel_kmeans import KernelKMeans
from .._kgroups import KernelKGroups
from .._onedim import onedim_kgroups
from .._semimetrics import pairwise, rho_to_origin
from .._spectral import kernel_from_semimetric_x0, spectral_kgroups
from ..metrics import accuracy, ari, nmi

KINDS = ("kgroups", "kkmeans", "spectral", "relaxation", "kmeans", "gmm", "onedim")
GMM_INITS = ("kmeans", "kmeans-fit", "k-means++")
METRICS = {"accuracy": accuracy, "ari": ari, "nmi": nmi}

#: Start of the ``ValueError`` message scikit-learn's ``GaussianMixture`` raises
#: when EM breaks down: a component collapses onto too few points and its
#: covariance is no longer positive definite (``sklearn.mixture._gaussian_mixture.
#: _compute_precision_cholesky``; the same text from scikit-learn 0.20 to 1.9).
#: This is a property of EM on the papers' data, not a bug of the harness: the
#: papers report such runs as failures, so do we (a failed fit, NaN, counted).
GMM_BREAKDOWN = ("Fitting the mixture model failed because some components have "
                 "ill-defined empirical covariance")


# ------------------------------------------------------------------ methods
@dataclass(frozen=True)
class Method:
    """One curve / row: an algorithm with its semimetric, initialisation and restarts.

    ``kind``:

    * ``"kgroups"`` kernel k-groups (TPAMI Algorithm 2), ``"kkmeans"`` kernel
      k-means (Algorithm 1); ``init`` is passed to the estimator (``"k-means++"``
      seeds in the input space, as the authors' code does; ``"kernel-k-means++"``
      seeds with the semimetric, i.e. in the kernel space);
    * ``"spectral"`` the papers' "spectral clustering": scikit-learn's
      normalised-cut ``SpectralClustering(affinity="precomputed")`` on the Gram
      matrix of the paper's kernel with base point ``x0 = 0`` (TPAMI eq. 7, ICML
      eq. 8), with ``n_init`` k-means restarts on the embedding; the papers say
      they used scikit-learn's implementation, and the authors' code
      (``wrapper.spectral_clustering``, GitHub guisf/kgroups) passes that matrix
      as the affinity;
    * ``"relaxation"`` the relaxation of TPAMI eq. (29) / ICML eq. (14): top-k
      eigenvectors of that matrix, rows normalised, k-means
      (:func:`kgroups.spectral_kgroups`);
    * ``"kmeans"``, ``"gmm"`` scikit-learn; ``"onedim"`` the exact 1-D algorithm
      (TPAMI Algorithm 3, :func:`kgroups.onedim_kgroups`) on the first column.

    ``n_init`` restarts keep the best objective. ``init="random"`` also makes
    k-means start from random centres. ``gmm_init``, the start of EM ("GMM with
    the output of k-means", TPAMI section 5, ICML section 5.1):

    * ``"kmeans"``: scikit-learn's ``init_params="kmeans"`` (EM from a k-means
      labelling), best likelihood of ``n_init`` starts, as the authors' code
      runs it (``GaussianMixture(k, n_init=5, init_params="kmeans")``);
    * ``"kmeans-fit"``: one EM run from the centres of a full k-means fit
      (k-means++, ``n_init`` starts), see :func:`kmeans_then_gmm`;
    * ``"k-means++"``: scikit-learn's k-means++ seeding of EM (for comparison).
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
    """Gram matrix of the paper's kernel with base point ``x0 = 0`` (TPAMI eq. 7)."""
    rho = pairwise(X, semimetric=semimetric, **params)
    return kernel_from_semimetric_x0(rho, rho_to_origin(X, semimetric, **params))


def kmeans_then_gmm(X, k, n_init, seed):
    """k-means (k-means++, ``n_init`` starts), then a full-covariance GMM started
    from its centres; returns both fitted models (TPAMI Fig. 2 plots both)."""
    from sklearn.cluster import KMeans
    from sklearn.mixture import GaussianMixture

    km = KMeans(k, n_init=n_init, random_state=seed).fit(X)
    gmm = GaussianMixture(k, means_init=km.cluster_centers_, random_state=seed).fit(X)
    return km, gmm


def _gmm(X, k, method, seed):
    from sklearn.mixture import GaussianMixture

    if method.gmm_init == "kmeans-fit":
        return kmeans_then_gmm(X, k, method.n_init, seed)[1].predict(X)
    gmm = GaussianMixture(k, init_params=method.gmm_init, n_init=method.n_init,
                          random_state=seed)
    return gmm.fit(X).predict(X)


def _fit(method, X, k, seed):
    kw = dict(semimetric=method.semimetric, n_init=method.n_init, init=method.init,
              random_state=seed, **method.params)
    if method.kind == "kgroups":
        return KernelKGroups(k, **kw).fit(X).labels_
    if method.kind == "kkmeans":
        return KernelKMeans(k, **kw).fit(X).labels_
    if method.kind == "spectral":
        from sklearn.cluster import SpectralClustering

        G = paper_gram(X, method.semimetric, method.params)
        sc = SpectralClustering(k, affinity="precomputed", n_init=method.n_init,
                                random_state=seed)
        return sc.fit(G).labels_
    if method.kind == "relaxation":
        return spectral_kgroups(paper_gram(X, method.semimetric, method.params), k,
                                random_state=seed).labels
    if method.kind == "kmeans":
        from sklearn.cluster import KMeans

        init = "random" if method.init == "random" else "k-means++"
        return KMeans(k, init=init, n_init=method.n_init, random_state=seed).fit(X).labels_
    if method.kind == "gmm":
        return _gmm(X, k, method, seed)
    return onedim_kgroups(X[:, 0]).labels


def is_expected_failure(method, err):
    """Whether ``err``, raised by fitting ``method``, is the one expected failure:
    EM's breakdown in a GMM (a ``ValueError`` starting with :data:`GMM_BREAKDOWN`)."""
    return (method.kind == "gmm" and isinstance(err, ValueError)
            and str(err).startswith(GMM_BREAKDOWN))


def fit_labels(method, X, k, seed):
    """Labels of one method on ``X``; ``None`` when EM of a GMM breaks down.

    Only that documented failure (:data:`GMM_BREAKDOWN`) is a failed fit; the
    caller scores it NaN and the report counts it. Every other exception
    propagates: a failing method is a bug to see, not a number to average away.

    Raises
    ------
    ValueError
        If ``method.kind`` is not one of :data:`KINDS`, or ``method.gmm_init``
        not one of :data:`GMM_INITS`; and whatever the method itself raises,
        except EM's breakdown.
    """
    if method.kind not in KINDS:
        raise ValueError(f"method.kind={method.kind!r}; expected one of {KINDS}")
    if method.kind == "gmm" and method.gmm_init not in GMM_INITS:
        raise ValueError(f"method.gmm_init={method.gmm_init!r}; expected one of {GMM_INITS}")
    try:
        return np.asarray(_fit(method, X, k, seed))
    except ValueError as err:
        if is_expected_failure(method, err):
            return None
        raise


def score(method, X, y, k, seed, metric="accuracy"):
    """``metric`` (accuracy, ari or nmi) of one method on one sample; NaN if the fit failed."""
    labels = fit_labels(method, X, k, seed)
    return np.nan if labels is None else METRICS[metric](y, labels)


def scores(methods, X, y, k, seed, metric="accuracy"):
    """``{label: score}`` of every method on one sample, all with the same ``seed``."""
    return {m.label: score(m, X, y, k, seed, metric) for m in methods}


@dataclass
class MethodScore:
    """Accuracy, ARI, NMI and time of one method on one dataset."""

    method: str
    labels: np.ndarray
    accuracy: float
    ari: float
    nmi: float
    seconds: float


def run_methods(X, y, k, methods, seed=0):
    """Fit every method on ``X`` and score it against ``y`` (list of :class:`MethodScore`).

    Raises
    ------
    ValueError
        If a method fails to fit (EM's breakdown included: one dataset, no
        average to exclude it from) or has an unknown kind.
    """
    out = []
    for method in methods:
        start = time.perf_counter()
        labels = fit_labels(method, X, k, seed)
        if labels is None:
            raise ValueError(f"method {method.label!r} failed to fit")
        out.append(MethodScore(method.label, labels, accuracy(y, labels), ari(y, labels),
                               nmi(y, labels), time.perf_counter() - start))
    return out


def markdown_table(results, paper=None):
    """Markdown table of :class:`MethodScore`; ``paper`` maps a label to (acc, ari, nmi)."""
    head = "| method | accuracy | ARI | NMI | seconds |"
    if paper:
        head += " paper accuracy | paper ARI | paper NMI |"
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for s in results:
        row = f"| {s.method} | {s.accuracy:.3f} | {s.ari:.3f} | {s.nmi:.3f} | {s.seconds:.2f} |"
        if paper:
            ref = paper.get(s.method)
            cells = [f"{v:.3f}" for v in ref] if ref else ["–"] * 3
            row += " " + " | ".join(cells) + " |"
        lines.append(row)
    return "\n".join(lines)


# --------------------------------------------------------------- the loops
#: The warnings the papers' methods are expected to give on the papers' data,
#: filtered inside :func:`single_thread` (and only there): ``(category name,
#: start of the message, why it is expected)``. Everything else is shown.
EXPECTED_WARNINGS = (
    ("ConvergenceWarning", "KernelKMeans: the assignments cycle after",
     "kernel k-means (TPAMI Algorithm 1) with a semimetric not of negative type "
     "(arXiv fig:weird: localized and sinusoidal) has a kernel that is not positive "
     "semidefinite; Lloyd's iterations can cycle and KernelKMeans stops, as documented"),
)


def _category(name):
    if name == "ConvergenceWarning":
        from sklearn.exceptions import ConvergenceWarning

        return ConvergenceWarning
    return {"UserWarning": UserWarning, "RuntimeWarning": RuntimeWarning}[name]


@contextmanager
def expected_warnings_filtered():
    """Inside the block, ignore the warnings of :data:`EXPECTED_WARNINGS` (by category
    and message) and no other."""
    with warnings.catch_warnings():
        for name, message, _why in EXPECTED_WARNINGS:
            warnings.filterwarnings("ignore", message=re.escape(message), category=_category(name))
        yield


@contextmanager
def single_thread():
    """One BLAS/OpenMP thread inside the block, and :func:`expected_warnings_filtered`."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1), expected_warnings_filtered():
        yield


def method_seed(rng):
    """An int seed for a scikit-learn style ``random_state``, drawn from ``rng``."""
    return int(rng.integers(2**31 - 1))


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
    from .._progress import progress_bar as tqdm

    if not isinstance(trials, (int, np.integer)) or trials < 1:
        raise ValueError(f"trials={trials!r}; expected an integer >= 1")
    stacked = {}
    children = np.random.SeedSequence(seed).spawn(int(trials))
    with single_thread():
        for child in tqdm(children, desc=desc, disable=None if progress else True):
            for key, value in trial(np.random.default_rng(child)).items():
                stacked.setdefault(key, []).append(value)
    return {key: np.asarray(values, dtype=np.float64) for key, values in stacked.items()}


def grid_monte_carlo(grid, make_data, methods, k, trials, seed=0, desc="trials"):
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
        NaN where a fit failed.
    """
    from .._progress import progress_bar as tqdm

    acc = np.full((len(grid), trials, len(methods)), np.nan)
    with single_thread(), tqdm(total=len(grid) * trials, desc=desc) as bar:
        for g, value in enumerate(grid):
            for t in range(trials):
                rng = np.random.default_rng([seed, g, t])
                X, y = make_data(value, rng)
                acc[g, t] = list(scores(methods, X, y, k, method_seed(rng)).values())
                bar.update()
    return acc


def trial_count(trials, quick, default, quick_default=5):
    """Trials to run: the caller's, else the quick or the paper's default."""
    if trials is not None:
        if int(trials) < 1:
            raise ValueError(f"trials={trials!r}; expected a positive integer")
        return int(trials)
    return quick_default if quick else default


# --------------------------------------------------------------- statistics
@contextmanager
def _all_nan_ok():
    """numpy's two warnings for statistics of an all-NaN slice (every fit failed, or
    one trial): the result is NaN (mean) or 0 (sd, by :func:`_mean_spread`) as meant."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Mean of empty slice", RuntimeWarning)
        warnings.filterwarnings("ignore", r"Degrees of freedom <= 0 for slice", RuntimeWarning)
        yield


def _mean_spread(values, axis, spread):
    values = np.asarray(values, dtype=np.float64)
    count = np.sum(~np.isnan(values), axis=axis)
    with _all_nan_ok():
        mean = np.nanmean(values, axis=axis)
        sd = np.nan_to_num(np.nanstd(values, axis=axis, ddof=1))
    return mean, (sd / np.sqrt(np.maximum(count, 1)) if spread == "se" else sd)


def mean_sd(values, axis=0):
    """Mean and sample sd (ddof=1; 0 for one value) over ``axis``, ignoring NaN."""
    return _mean_spread(values, axis, "sd")


def mean_sem(acc, axis=1):
    """Mean and standard error over ``axis`` (the trials), ignoring failed fits (NaN)."""
    return _mean_spread(acc, axis, "se")


def as_curves(acc, methods):
    """``{label: array (trials, n_grid)}`` from a :func:`grid_monte_carlo` array."""
    return {m.label: acc[:, :, j].T for j, m in enumerate(methods)}


def column(acc, methods, label):
    """Accuracies of the method called ``label``: array (n_grid, trials)."""
    return acc[:, :, [m.label for m in methods].index(label)]


def avg(acc, methods, label, where=slice(None)):
    """Mean accuracy of a method over the grid values ``where`` and all trials."""
    with _all_nan_ok():
        return float(np.nanmean(column(acc, methods, label)[where]))


# ------------------------------------------------------------------ reports
@dataclass
class Claim:
    """A statement of the paper checked on our numbers."""

    text: str
    holds: bool
    detail: str


def better(acc, methods, a, b, where=slice(None), margin=0.0, grid_name="grid"):
    """Claim helper: mean accuracy of ``a`` exceeds that of ``b`` by more than ``margin``."""
    va, vb = avg(acc, methods, a, where), avg(acc, methods, b, where)
    return va - vb > margin, f"{a} {va:.3f} vs {b} {vb:.3f} ({grid_name})"


def claims_markdown(claims):
    """Markdown table: each claim of the paper (a :class:`Claim` or a ``(text, holds,
    detail)`` tuple), whether our run reproduces it, and the evidence."""
    lines = ["| paper says (ordering / shape) | ours | evidence |", "|---|---|---|"]
    for c in claims:
        c = c if isinstance(c, Claim) else Claim(*c)
        lines.append(f"| {c.text} | {'reproduced' if c.holds else '**not reproduced**'} "
                     f"| {c.detail} |")
    return "\n".join(lines)


def failed_fits_note(curves):
    """``""``, or a line counting the failed fits (NaN) of each curve that has some.

    ``curves`` maps a label to an array of scores (any shape); see :func:`fit_labels`.
    """
    counts = {label: int(np.sum(np.isnan(np.asarray(v, dtype=np.float64))))
              for label, v in curves.items()}
    notes = [f"{label}: {c} of {np.size(curves[label])}" for label, c in counts.items() if c]
    if not notes:
        return ""
    return ("\n\nFailed fits (EM breakdown of the GMM, see GMM_BREAKDOWN), excluded from "
            "the means: " + "; ".join(notes))


def sweep_table(xname, grid, curves, digits=3, spread="sd", count_failed=True):
    """Markdown table, one row per grid value, one ``mean ± spread`` column per curve.

    ``curves`` maps a label to an array of shape (trials, len(grid)); ``spread`` is
    ``"sd"`` (sample standard deviation) or ``"se"`` (standard error); NaN (a failed
    fit) ignored, and counted below the table (:func:`failed_fits_note`) unless
    ``count_failed=False``.
    """
    head = f"| {xname} | " + " | ".join(curves) + " |"
    lines = [head, "|" + "---|" * (len(curves) + 1)]
    stats = {label: _mean_spread(values, 0, spread) for label, values in curves.items()}
    for j, x in enumerate(grid):
        cells = [f"{stats[c][0][j]:.{digits}f} ± {stats[c][1][j]:.{digits}f}" for c in curves]
        lines.append(f"| {x} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + (failed_fits_note(curves) if count_failed else "")


def grid_table(grid, acc, methods, xname, bayes=None):
    """:func:`sweep_table` (mean ± standard error) of a :func:`grid_monte_carlo`
    array, with the Bayes accuracy and the count of failed fits."""
    text = sweep_table(xname, grid, as_curves(acc, methods), spread="se", count_failed=False)
    failed = np.sum(np.isnan(acc), axis=(0, 1))
    notes = [f"{m.label}: {int(f)} failed fits (excluded)" for m, f in zip(methods, failed) if f]
    if bayes is not None:
        text += f"\n\nBayes accuracy (Monte Carlo): {bayes:.3f}"
    if notes:
        text += "\n\n" + "; ".join(notes)
    return text


def grid_report(out, name, text, claims, tables, figure):
    """Write the report of a :func:`grid_monte_carlo` experiment and return it.

    ``text`` (header and notes), then the claims table, then one mean ± se table
    per entry ``title: (grid, acc, methods, xname)`` of ``tables``, then the
    figure's file name.
    """
    text += claims_markdown(claims)
    for title, (grid, acc, methods, xname) in tables.items():
        text += f"\n\n## {title}\n\n" + grid_table(grid, acc, methods, xname)
    return write_markdown(out, name, text + f"\n\nFigure: {figure}\n")


def header(title, trials, quick, seed, extra=""):
    """First lines of a report."""
    mode = "quick (reduced grid)" if quick else "full grid"
    return (f"# {title}\n\n{trials} Monte Carlo trials per point, {mode}, seed {seed}. "
            f"{extra}\n")


def write_markdown(out, name, text):
    """Write ``NAME.md`` under ``out`` (created if needed); returns what it wrote."""
    os.makedirs(out, exist_ok=True)
    text = text.rstrip() + "\n"
    with open(os.path.join(out, f"{name}.md"), "w") as fh:
        fh.write(text)
    return text


# -------------------------------------------------------------------- plots
HARNESS = "the paper harness, which draws figures,"


def pyplot():
    """matplotlib.pyplot with the non-interactive Agg backend.

    Raises
    ------
    ModuleNotFoundError
        If matplotlib is not installed; the message names the extra
        (``pip install 'kgroups[plot]'``).
    """
    return pyplot_for(HARNESS, backend="Agg")


def plot_curves(ax, grid, curves, styles=None, hline=None, *, spread="sd", chance=None,
                xlabel=None, title=None, legend=False):
    """Mean curves with error bars (``spread`` "sd" or "se") against the grid.

    ``curves`` as in :func:`sweep_table`; ``styles`` maps a label to plot keywords;
    ``hline`` is the Bayes accuracy (dashed), ``chance`` a dotted line.
    """
    for label, values in curves.items():
        mean, err = _mean_spread(values, 0, spread)
        ax.errorbar(grid, mean, yerr=err, label=label, capsize=2, elinewidth=0.7,
                    markersize=4, **(styles or {}).get(label, {"marker": "o"}))
    if hline is not None:
        ax.axhline(hline, color="k", linestyle="--", linewidth=0.8,
                   label=f"Bayes {hline:.3f}" if legend else None)
    if chance is not None:
        ax.axhline(chance, ls=":", color="gray", lw=1)
    ax.set_ylabel("accuracy")
    ax.grid(alpha=0.3)
    if xlabel:
        ax.set_xlabel(xlabel)
    if title:
        ax.set_title(title, fontsize=9)
    if legend:
        ax.legend(fontsize=7)


def plot_grid(ax, grid, acc, methods, xlabel, title, bayes=None, chance=None):
    """:func:`plot_curves` (mean ± standard error, legend) of a :func:`grid_monte_carlo` array."""
    plot_curves(ax, grid, as_curves(acc, methods), hline=bayes, spread="se", chance=chance,
                xlabel=xlabel, title=title, legend=True)


def save(fig, out, filename, dpi=110):
    """Save a figure as a PNG under ``out`` (created if needed); returns the path."""
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, filename)
    fig.tight_layout()
    fig.savefig(path, dpi=dpi)
    pyplot().close(fig)
    return path


# -------------------------------------------------------------------- Bayes
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
