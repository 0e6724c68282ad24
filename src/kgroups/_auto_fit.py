"""``semimetric="auto"`` at a given k: both candidates fitted, the arbiter of
:mod:`kgroups._choose_k.arbiter` keeps one (the same rule as ``n_clusters="auto"``),
at a cost near that of the candidates' fits.

The graph candidate (``"nearest_neighbors"``) is fitted on the estimator itself, on all
rows: it refuses the inputs it cannot take (a dask collection, data on a device), and
its neighbourhood graph is the yardstick of both partitions (their normalised cuts,
Shi & Malik 2000). The energy candidate is fitted through the choice's private path
(:mod:`kgroups._choose_k.fits`, X validated once):

* up to ``AUTO_SAMPLE_N`` rows of positive weight, on all rows, both cuts on the rows;
* beyond, its exact fit growing with the square of the rows, on a uniform sample of
  m rows of positive weight (m = ``AUTO_SAMPLE_ROWS``, or ``ROWS_PER_CLUSTER`` per
  cluster when that is more, at most ``AUTO_SAMPLE_N``), each node of the graph
  labelled by that fit's ``predict`` (the insertion rule, TPAMI eqs. 47-51), both
  cuts on the nodes.

When the graph wins, the estimator keeps its fit. When energy wins, the estimator is
fitted with the energy semimetric from the candidate's labels (every row labelled by
the sample fit's ``predict`` past ``AUTO_SAMPLE_N``; the given labels when ``init`` is
an array): the result is an exact fit of the energy semimetric. Where X has no more
distinct rows than ``n_neighbors``, there is no graph to judge with, and where X has one
column the graph has nothing to add (on a line every group is an interval) and falls
apart at wide gaps: energy, and ``semimetric_choice_`` says so.

With ``verbose``, each phase is said as it starts and ends; ``engine_stats_["auto
seconds"]`` keeps each phase's seconds and ``engine_stats_["seconds"]["other
candidates"]`` the seconds of all but the kept fit.

References
----------
.. [1] J. Shi, J. Malik, "Normalized cuts and image segmentation", IEEE TPAMI 22(8),
   888-905, 2000.
.. [2] G. França, M. L. Rizzo, J. T. Vogelstein, "Kernel k-Groups via Hartigan's
   Method", IEEE TPAMI 43(12), 2021.
"""

from __future__ import annotations

import time
from contextlib import contextmanager

import numpy as np

from ._init import resolve_n_init
from ._input import checked_rows
from ._progress import FitProgress
from ._semimetrics.auto import ONE_COLUMN, SemimetricChoice, normalized_cut, partition_cut
from ._validation import (as_seed, check_sample_weight, is_dask_collection,
                          is_device_array)

# The sample's sizes, as :mod:`kgroups._choose_k.constants` records them (written here:
# importing the choice of k would load what a fit at a given k does not need).
#: Rows of positive weight up to which the energy candidate is fitted on all rows.
AUTO_SAMPLE_N = 20_000
#: Rows of the sample the energy candidate is judged on past ``AUTO_SAMPLE_N``.
AUTO_SAMPLE_ROWS = 2_000
#: Sample rows per cluster when that is more than ``AUTO_SAMPLE_ROWS``.
ROWS_PER_CLUSTER = 200
#: The candidates' names.
GRAPH, ENERGY = "nearest_neighbors", "energy"


def sample_size(n_clusters):
    """Rows of the energy candidate's sample.

    >>> sample_size(2), sample_size(30), sample_size(1000) == AUTO_SAMPLE_N
    (2000, 6000, True)
    """
    return min(AUTO_SAMPLE_N, max(AUTO_SAMPLE_ROWS, ROWS_PER_CLUSTER * n_clusters))


def fit_auto(est, X, sample_weight, plan):
    """Fit ``est`` with ``plan`` (whose semimetric is ``"auto"``) as the module
    docstring says; ``semimetric_choice_`` says which candidate and why.

    Examples
    --------
    >>> from sklearn.datasets import make_moons
    >>> from kgroups import KernelKGroups
    >>> X, _ = make_moons(300, noise=0.05, random_state=0)
    >>> KernelKGroups(2, semimetric="auto", random_state=0).fit(X).semimetric_
    'nearest_neighbors'
    """
    from ._choose_k.arbiter import decide, smallest_group, within_share
    from ._choose_k.fits import candidate_engines
    from ._choose_k.trace import Trace, render

    progress = FitProgress(est._owner(), 1, 1, est.verbose)
    seconds, k = {}, plan.n_clusters
    engines = candidate_engines(plan.engine, est._owner())
    try:
        checked = _validated(est, X, sample_weight)
        why = None if checked is None else _no_graph(est, *checked)
        if why is not None:
            with _phase(progress, seconds, f"{ENERGY} fit", why):
                est._fit(X, sample_weight, plan._replace(semimetric=ENERGY))
            return _done(est, SemimetricChoice(ENERGY, why), seconds)
        with _phase(progress, seconds, f"{GRAPH} fit", f"fitting semimetric={GRAPH!r}"):
            est._fit(X, sample_weight, plan._replace(semimetric=GRAPH, engine=engines[GRAPH]))
        Xv, w = checked
        pos = w > 0
        G, fmap = est.labels_[pos], est._feature_map
        sampled = int(pos.sum()) > AUTO_SAMPLE_N
        with _phase(progress, seconds, f"{ENERGY} candidate",
                    f"fitting semimetric={ENERGY!r}" + (" on a sample" if sampled else "")):
            cand = _energy(est, plan, Xv, w, pos, sampled)
        trace = Trace()
        if engines[GRAPH] != plan.engine:
            trace.add("engine", "engine of the graph's candidate", est.engine_, None,
                      f"engine={plan.engine!r} does not hold the graph's feature columns: "
                      f"its candidate ran on engine={est.engine_!r}")
        if sampled:
            m = cand.w.size
            trace.add("sample", "rows the energy candidate was fitted on", m, None,
                      f"a uniform sample of {m} of the {int(pos.sum())} rows; the graph's "
                      "nodes labelled by its predict")
            rows = _node_rows(fmap, np.flatnonzero(pos))
            E_nodes, G_nodes = cand.predict(k, Xv[rows]), est.labels_[rows]
            cut_g, cut_e = (normalized_cut(fmap.graph, fmap.weights, lab, k)
                            for lab in (G_nodes, E_nodes))
            within = within_share(E_nodes, G_nodes, fmap.weights)
        else:
            E_nodes = cand.fits[k][0]
            cut_g, cut_e = partition_cut(fmap, G, k), partition_cut(fmap, E_nodes, k)
            within = within_share(E_nodes, G, w[pos])
        smallest = smallest_group(G, w[pos], k, est.n_neighbors)
        pick = decide(cut_g, cut_e, k, k, within, smallest, trace)
        choice = SemimetricChoice(pick, render(trace.steps), {GRAPH: cut_g, ENERGY: cut_e})
        if pick == ENERGY:
            start = plan.init if not isinstance(plan.init, str) else _labels(cand, k, Xv, pos,
                                                                             sampled)
            with _phase(progress, seconds, f"{ENERGY} fit", "the exact energy fit of every "
                        "row, from the candidate's labels"):
                est._fit(X, sample_weight, plan._replace(semimetric=ENERGY, init=start))
        progress.say(f"auto: kept semimetric={pick!r} ({progress.elapsed():.2f} s)")
    finally:
        progress.close()
    return _done(est, choice, seconds)


def _validated(est, X, sample_weight):
    """``(X as float64, weights)`` through the fit's front door, or None for data the
    graph refuses by name (dask, device arrays)."""
    if is_dask_collection(X) or is_device_array(X):
        return None
    Xv = checked_rows(est, X, reset=True)
    return Xv, check_sample_weight(sample_weight, Xv.shape[0], est._owner(), allow_zero=True)


def _no_graph(est, Xv, w):
    """Why the neighbourhood graph cannot judge (one column, ``ONE_COLUMN``; at most
    ``n_neighbors`` distinct rows of positive weight: no point has that many
    neighbours), or None."""
    if Xv.shape[1] == 1:
        return f"X has {ONE_COLUMN}, so the energy semimetric is kept: 'energy'"
    rows, need = Xv[w > 0], est.n_neighbors + 1
    if np.unique(rows[:64 * need], axis=0).shape[0] >= need:
        return None  # enough distinct rows among the first: the common case
    distinct = np.unique(rows, axis=0).shape[0]
    if distinct >= need:
        return None
    return (f"X has {distinct} distinct row(s) of positive weight, not more than "
            f"n_neighbors={est.n_neighbors}: the neighbourhood graph that judges the "
            "candidates needs more, so the energy semimetric is kept: 'energy'")


def _energy(est, plan, Xv, w, pos, sampled):
    """The energy candidate's fits (:class:`~kgroups._choose_k.fits.Fits`), on the rows
    of positive weight or on a uniform sample of them; its fit of k in ``fits[k]``."""
    from ._choose_k.fits import Fits, Setting, engine_for

    idx = np.flatnonzero(pos)
    if sampled:
        rng = np.random.default_rng(np.random.SeedSequence(as_seed(est.random_state)).spawn(1)[0])
        idx = np.sort(rng.choice(idx, min(sample_size(plan.n_clusters), idx.size),
                                 replace=False))
    n_init = resolve_n_init(plan.n_init, plan.init, idx.size)
    setting = Setting(semimetric=ENERGY, alpha=est.alpha, n_neighbors=est.n_neighbors,
                      init=plan.init if isinstance(plan.init, str) else "kernel-k-means++",
                      n_init=n_init, max_iter=est.max_iter, tol=est.tol,
                      engine=engine_for(est.engine, ENERGY))
    f = Fits(Xv[idx], w[idx], setting, as_seed(est.random_state), matrix=False)
    if isinstance(plan.init, str):
        f.fit(plan.n_clusters)
    else:  # the given labels (one start, or one per row of a 2-D init)
        starts = [np.asarray(s)[idx] for s in np.atleast_2d(plan.init)]
        labels, W, run = f.run(plan.n_clusters, starts)
        f.fits[plan.n_clusters], f.runs[plan.n_clusters] = (labels, W), run
    return f


def _labels(cand, k, Xv, pos, sampled):
    """Labels of every row from the energy candidate (the rows of zero weight get 0:
    the fit labels them by ``predict`` after)."""
    out = np.zeros(Xv.shape[0], dtype=np.int64)
    out[pos] = cand.predict(k, Xv[pos]) if sampled else cand.fits[k][0]
    return out


def _node_rows(fmap, kept):
    """One row of ``X`` per node of the graph, in the nodes' order (``kept``: the rows of
    positive weight, which the map was fitted on)."""
    at = np.flatnonzero(fmap.node_of_row >= 0)
    _, first = np.unique(fmap.node_of_row[at], return_index=True)
    return kept[at[first]]


@contextmanager
def _phase(progress, seconds, name, text):
    """Say ``text`` as the phase ``name`` starts and its seconds as it ends (with
    ``verbose``); add them to ``seconds[name]``."""
    progress.say(f"auto: {text} ({progress.elapsed():.2f} s)")
    t0 = time.perf_counter()
    yield
    seconds[name] = seconds.get(name, 0.0) + time.perf_counter() - t0
    progress.say(f"auto: {name} done in {seconds[name]:.2f} s ({progress.elapsed():.2f} s)")


def _done(est, choice, seconds):
    """``semimetric_choice_`` and the seconds of the candidates on ``est`` (which holds
    the kept fit)."""
    est.semimetric_choice_ = choice
    kept = seconds.get(f"{choice.semimetric} fit", 0.0)
    est.engine_stats_ = {**est.engine_stats_,
                         "seconds": {**est.engine_stats_["seconds"],
                                     "other candidates": sum(seconds.values()) - kept},
                         "auto seconds": dict(seconds)}
    return est
