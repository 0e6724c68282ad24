"""``semimetric="auto"``: fit the candidates of :mod:`kgroups._semimetrics.auto` and keep
the one its rule chooses, at a cost near that of the cheaper candidate.

The graph candidate (``"nearest_neighbors"``) is fitted on all rows first: it refuses
the inputs it cannot take (a dask collection, data on a device), its fit grows
linearly with the rows past the graph's sample of nodes, and its neighbourhood graph
is the yardstick of both partitions (their normalised cuts, Shi & Malik 2000).

* Up to ``AUTO_SAMPLE_N`` rows of positive weight, the energy candidate is fitted
  exactly on all rows and the fit the rule chooses is kept as it is.
* Beyond, the energy candidate, whose exact fit grows with the square of the rows, is
  judged on a uniform random sample of m rows of positive weight (their weights kept;
  drawn from ``random_state``), m = ``AUTO_SAMPLE_ROWS``, or ``ROWS_PER_CLUSTER``
  per cluster when that is more (at most ``AUTO_SAMPLE_N``): its fit there, each node
  of the graph labelled by that fit's ``predict`` (the insertion rule of kernel
  k-groups, França et al. 2021, equations 47-51; O(nodes m) work), both normalised
  cuts computed on the whole graph. When the graph's partition wins, its fit is kept.
  When the energy partition wins, every row is labelled by the sample fit's
  ``predict`` (blocks of ``PREDICT_ROWS`` rows, O(n m) work) and the exact energy fit
  runs on all rows from those labels (``init=labels``; from the given labels when
  ``init`` is an array): the result is an exact fit of the energy semimetric.

With ``verbose``, each phase is said as it starts and ends, with the seconds elapsed;
``engine_stats_["auto seconds"]`` keeps each phase's seconds and
``engine_stats_["seconds"]["other candidates"]`` the seconds of all but the kept fit.

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

from ._input import checked_rows
from ._memory import check_fits
from ._progress import FitProgress
from ._semimetrics.auto import SemimetricChoice, choose
from ._validation import (as_seed, check_sample_weight, is_dask_collection,
                          is_device_array)

#: Rows of positive weight up to which both candidates are fitted on all rows (the
#: rule's constant was calibrated on such fits); beyond, the energy candidate is judged
#: on a sample. The size where the exact energy fit, quadratic in the rows, stops being
#: cheaper than judging it on a sample (the sample's fit and the ``predict`` of the
#: graph's nodes, at most ``GRAPH_NODES`` of :mod:`kgroups._semimetrics.neighbors`).
AUTO_SAMPLE_N = 20_000
#: Rows of the sample the energy candidate is judged on: its partition's normalised cut
#: there is that of the fit on all rows up to sampling noise well inside the rule's
#: margin (``CUT_RATIO``), and labelling the graph's nodes by its ``predict`` costs
#: O(nodes ``AUTO_SAMPLE_ROWS``), below the graph's own fit past ``AUTO_SAMPLE_N``.
AUTO_SAMPLE_ROWS = 2_000
#: Sample rows per cluster when that is more than ``AUTO_SAMPLE_ROWS``: every cluster
#: of the energy partition holds rows enough to be found on the sample.
ROWS_PER_CLUSTER = 200
#: Rows labelled by one call of ``predict`` when every row is labelled: bounds the
#: memory of the scores and lets ``verbose`` report progress.
PREDICT_ROWS = 1 << 16
#: The candidates' names (those of :data:`kgroups._semimetrics.auto.CANDIDATES`).
GRAPH, ENERGY = "nearest_neighbors", "energy"


def fit_auto(est, X, sample_weight):
    """Fit ``est`` (``semimetric="auto"``) on ``X`` as the module docstring says.

    Parameters
    ----------
    est : BaseKernelClustering
        The estimator; it gets the fitted attributes of the fit kept, with
        ``semimetric_`` the candidate chosen and ``semimetric_choice_`` why.
    X : array-like of shape (n_samples, n_features)
        Raw data in memory.
    sample_weight : array-like of shape (n_samples,) or None
        Weights >= 0, as ``fit`` takes them.

    Returns
    -------
    est : BaseKernelClustering
        The fitted estimator.

    Examples
    --------
    >>> from sklearn.datasets import make_moons
    >>> from kgroups import KernelKGroups
    >>> X, _ = make_moons(300, noise=0.05, random_state=0)
    >>> fit_auto(KernelKGroups(2, semimetric="auto", random_state=0), X, None).semimetric_
    'nearest_neighbors'
    """
    progress = FitProgress(est._owner(), 1, 1, est.verbose)
    seconds = {}
    few = too_few_for_graph(est, X, sample_weight)
    if few is not None:  # no graph to judge with: the energy semimetric, and why
        with _phase(progress, seconds, f"{ENERGY} fit", few):
            energy = _candidate(est, ENERGY).fit(X, sample_weight=sample_weight)
        progress.close()
        _adopt(est, energy, SemimetricChoice(ENERGY, few), seconds)
        return est
    try:
        with _phase(progress, seconds, f"{GRAPH} fit",
                    f"fitting semimetric={GRAPH!r} on every row"):
            graph = _candidate(est, GRAPH).fit(X, sample_weight=sample_weight)
        keep = graph._keep
        n_pos = graph.labels_.shape[0] if keep is None else int(np.count_nonzero(keep))
        if n_pos <= AUTO_SAMPLE_N:
            chosen, choice = _choose_exact(est, graph, X, sample_weight, progress, seconds)
        else:
            chosen, choice = _choose_sampled(est, graph, X, sample_weight, progress, seconds)
        progress.say(f"auto: kept semimetric={choice.semimetric!r} "
                     f"({progress.elapsed():.2f} s)")
    finally:
        progress.close()
    _adopt(est, chosen, choice, seconds)
    return est


def too_few_for_graph(est, X, sample_weight):
    """Why the neighbourhood graph cannot judge in-memory ``X`` (at most ``n_neighbors``
    distinct rows of positive weight: no point has that many neighbours), or None. X is
    checked at the estimator's front door first; other inputs are the graph's to judge
    (it refuses those it cannot take, by name)."""
    if is_dask_collection(X) or is_device_array(X):
        return None
    from sklearn.base import clone  # the estimator's machinery: its estimators only

    Xv = checked_rows(clone(est), X, reset=True)
    w = check_sample_weight(sample_weight, Xv.shape[0], est._owner(), allow_zero=True)
    rows, need = Xv[w > 0], est.n_neighbors + 1
    head = rows[:64 * need]  # enough distinct rows among the first: the common case
    if np.unique(head, axis=0).shape[0] >= need:
        return None
    distinct = np.unique(rows, axis=0).shape[0]
    if distinct >= need:
        return None
    return (f"X has {distinct} distinct row(s) of positive weight, not more than "
            f"n_neighbors={est.n_neighbors}: the neighbourhood graph that judges the "
            "candidates needs more, so the energy semimetric is kept: 'energy'")


def _choose_exact(est, graph, X, sample_weight, progress, seconds):
    """Both candidates fitted on every row; ``(the chosen fit, the choice)``."""
    with _phase(progress, seconds, f"{ENERGY} fit",
                f"fitting semimetric={ENERGY!r} on every row"):
        energy = _candidate(est, ENERGY).fit(X, sample_weight=sample_weight)
    keep = graph._keep
    fits = {GRAPH: graph, ENERGY: energy}
    labels = {name: f.labels_ if keep is None else f.labels_[keep] for name, f in fits.items()}
    with _phase(progress, seconds, "cuts", "normalised cuts of both partitions on the graph"):
        choice = choose(graph._feature_map, labels, est.n_clusters)
    return fits[choice.semimetric], choice


def _choose_sampled(est, graph, X, sample_weight, progress, seconds):
    """The energy candidate judged on a sample, fitted exactly on every row only when
    it wins; ``(the chosen fit, the choice)``."""
    Xv, w = _validated(est, graph, X, sample_weight)
    idx = _sample_rows(w, est.random_state, est.n_clusters)
    n_pos = int(np.count_nonzero(w > 0))
    with _phase(progress, seconds, f"{ENERGY} sample fit",
                f"fitting semimetric={ENERGY!r} on a uniform sample of {idx.size} of the "
                f"{n_pos} rows"):
        sample = _candidate(est, ENERGY, init=_sample_init(est.init, idx)).fit(
            Xv[idx], sample_weight=w[idx])
    rows = _node_rows(graph)
    with _phase(progress, seconds, "predict (graph nodes)",
                f"labelling the graph's {rows.size} nodes by the sample fit's predict"):
        at_node = {ENERGY: sample.predict(Xv[rows]), GRAPH: graph.labels_[rows]}
    with _phase(progress, seconds, "cuts", "normalised cuts of both partitions on the graph"):
        choice = choose(graph._feature_map, at_node, est.n_clusters, sample=(idx.size, n_pos))
    if choice.semimetric == GRAPH:
        return graph, choice
    given = not isinstance(est.init, str)
    start = est.init if given else _predict_all(sample, Xv, progress, seconds)
    with _phase(progress, seconds, f"{ENERGY} fit",
                f"exact fit of semimetric={ENERGY!r} on every row, from "
                + ("the given init labels" if given else "the sample fit's labels")):
        final = _candidate(est, ENERGY, init=start).fit(X, sample_weight=sample_weight)
    choice.reasoning += (f" The exact energy fit then ran on all {Xv.shape[0]} rows, "
                         + ("from the given init labels." if given else
                            "started from the sample fit's predict of every row."))
    return final, choice


def _validated(est, graph, X, sample_weight):
    """``(X as float64, weights)`` as ``fit`` checks them, after checking that a copy
    of X, the labels of every row and a block of ``predict`` fit in memory."""
    n, d, k = graph.labels_.shape[0], graph.n_features_in_, est.n_clusters
    copy = 0 if isinstance(X, np.ndarray) and X.dtype == np.float64 else 8 * n * d
    check_fits(copy + 16 * n + 8 * sample_size(k) * (d + 1) + 8 * PREDICT_ROWS * (d + k),
               f"semimetric='auto' on n={n} rows (the energy candidate's sample and the "
               "labels of every row)", "semimetric='nearest_neighbors' or 'energy'")
    from sklearn.base import clone  # the estimator's machinery: its estimators only

    Xv = checked_rows(clone(est), X, reset=True)
    w = check_sample_weight(sample_weight, n, est._owner(), allow_zero=True)
    return Xv, w


def sample_size(n_clusters):
    """Rows of the energy candidate's sample (module docstring).

    >>> sample_size(2), sample_size(30), sample_size(1000) == AUTO_SAMPLE_N
    (2000, 6000, True)
    """
    return min(AUTO_SAMPLE_N, max(AUTO_SAMPLE_ROWS, ROWS_PER_CLUSTER * n_clusters))


def _sample_rows(w, random_state, n_clusters):
    """:func:`sample_size` rows of positive weight drawn uniformly without replacement,
    in increasing order, from a stream of their own (the graph draws its nodes from
    ``random_state``'s seed itself: the energy sample is independent of them)."""
    seed = np.random.SeedSequence(as_seed(random_state)).spawn(1)[0]
    rng = np.random.default_rng(seed)
    pos = np.flatnonzero(w > 0)
    return np.sort(rng.choice(pos, min(sample_size(n_clusters), pos.size), replace=False))


def _sample_init(init, idx):
    """``init`` for the sample's fit: a name as it is, given labels (one start, or one
    per row) at the sample's rows."""
    return init if isinstance(init, str) else np.asarray(init)[..., idx]


def _node_rows(graph):
    """One row of ``X`` per node of the graph of the fit ``graph``, in the nodes' order
    (each node is a distinct row of positive weight; its copies share its label)."""
    fmap, keep = graph._feature_map, graph._keep
    kept = np.arange(graph.labels_.shape[0]) if keep is None else np.flatnonzero(keep)
    at = np.flatnonzero(fmap.node_of_row >= 0)
    _, first = np.unique(fmap.node_of_row[at], return_index=True)
    return kept[at[first]]


def _predict_all(sample, Xv, progress, seconds):
    """The sample fit's ``predict`` of every row of ``Xv``, ``PREDICT_ROWS`` at a time."""
    n = Xv.shape[0]
    labels = np.empty(n, dtype=np.int64)
    with _phase(progress, seconds, "predict (every row)",
                f"labelling all {n} rows by the sample fit's predict"):
        for a in range(0, n, PREDICT_ROWS):
            labels[a:a + PREDICT_ROWS] = sample.predict(Xv[a:a + PREDICT_ROWS])
            progress.say(f"auto: {min(a + PREDICT_ROWS, n)}/{n} rows labelled "
                         f"({progress.elapsed():.2f} s)")
    return labels


def _candidate(est, semimetric, **params):
    """An unfitted copy of ``est`` with the candidate's ``semimetric`` (and ``params``)."""
    from sklearn.base import clone

    return clone(est).set_params(semimetric=semimetric, **params)


@contextmanager
def _phase(progress, seconds, name, text):
    """Say ``text`` as the phase ``name`` starts and its seconds as it ends (with
    ``verbose``); add them to ``seconds[name]``."""
    progress.say(f"auto: {text} ({progress.elapsed():.2f} s)")
    t0 = time.perf_counter()
    yield
    seconds[name] = seconds.get(name, 0.0) + time.perf_counter() - t0
    progress.say(f"auto: {name} done in {seconds[name]:.2f} s ({progress.elapsed():.2f} s)")


def _adopt(est, chosen, choice, seconds):
    """Give ``est`` the fitted attributes of ``chosen``, the choice and the seconds:
    ``engine_stats_["seconds"]["other candidates"]``, all but the kept fit's."""
    params = est.get_params(deep=False)
    for key, value in vars(chosen).items():
        if key not in params:
            setattr(est, key, value)
    est.semimetric_choice_ = choice
    other = sum(seconds.values()) - seconds[f"{choice.semimetric} fit"]
    est.engine_stats_ = {**chosen.engine_stats_,
                         "seconds": {**chosen.engine_stats_["seconds"],
                                     "other candidates": other},
                         "auto seconds": dict(seconds)}
