"""``semimetric="auto"`` at a given k: both candidates fitted, one kept by the arbiter
(:mod:`~kgroups._choose_k.arbiter`), at about the cost of their fits. The graph's candidate is
the estimator's own fit, on the engine that holds its feature columns; its graph judges both.
Energy's is fitted on the rows of positive weight, past ``AUTO_SAMPLE_N`` on a uniform sample
(:func:`sample_size`; the graph's nodes labelled by its ``predict``); with ``noise``, the rows
the graph set aside are left out of both. The graph wins: its fit is kept; energy: energy is
fitted from the candidate's labels. ``engine_stats_["auto seconds"]`` keeps each phase's
seconds, ``engine_stats_["seconds"]["other candidates"]`` those of all but the kept fit.
"""

from __future__ import annotations

from functools import partial

import numpy as np

from .._init import resolve_n_init
from .._input import IN_MEMORY
from .._progress import FitProgress
from .._random_state import stream
from .._rows import canonical, distinct_count, projection_key, sample_rows
from .._semimetrics.auto import SemimetricChoice, normalized_cut, partition_cut
from .._validation import is_dask_collection, is_device_array
from .arbiter import ENERGY, GRAPH, judge, no_graph
from .constants import AUTO_SAMPLE_N, AUTO_SAMPLE_ROWS, ROWS_PER_CLUSTER
from .estimator import checked_input
from .fits import Fits, Setting, candidate_engines, engine_for
from .trace import Trace, render


def sample_size(n_clusters):
    """Rows of the energy candidate's sample.

    >>> sample_size(2), sample_size(30), sample_size(1000) == AUTO_SAMPLE_N
    (2000, 6000, True)
    """
    return min(AUTO_SAMPLE_N, max(AUTO_SAMPLE_ROWS, ROWS_PER_CLUSTER * n_clusters))


def fit_auto(est, X, sample_weight, plan):
    """Fit ``est`` with ``plan`` (semimetric ``"auto"``); ``semimetric_choice_`` says why.

    >>> from sklearn.datasets import make_moons
    >>> from kgroups import KernelKGroups
    >>> X, _ = make_moons(300, noise=0.05, random_state=0)
    >>> KernelKGroups(2, semimetric="auto", random_state=0).fit(X).semimetric_
    'nearest_neighbors'
    """
    progress = FitProgress(est._owner(), 1, est.verbose, bar=False)  # each fit: its own
    seconds, trace = {}, Trace()
    phase = partial(progress.phase, seconds, prefix="auto: ")
    engines = candidate_engines(plan.engine, est._owner())
    try:
        checked = None if is_dask_collection(X) or is_device_array(X) else checked_input(
            est, X, sample_weight)                  # None: data the graph refuses by name
        why = None if checked is None else no_graph(checked[0], distinct_count(
            checked[0][checked[1] > 0], est.n_neighbors, "semimetric='auto': the distinct "
            "rows of X"), est.n_neighbors)
        if why is not None:
            trace.add("arbiter", *why)
            with phase(f"{ENERGY} fit", why[-1]):
                est._fit(X, sample_weight, plan._replace(semimetric=ENERGY))
            return _done(est, SemimetricChoice(ENERGY, render(trace.steps)), seconds)
        with phase(f"{GRAPH} fit", f"fitting semimetric={GRAPH!r}"):
            est._fit(X, sample_weight, plan._replace(semimetric=GRAPH, engine=engines[GRAPH]))
        if engines[GRAPH] != plan.engine:
            trace.add("engine", "engine of the graph's candidate", est.engine_, None,
                      f"engine={plan.engine!r} does not hold the graph's feature columns: "
                      f"its candidate ran on engine={est.engine_!r}")
        pick, cuts, start = _compare(est, plan, *checked, trace, phase)
        if pick == ENERGY:
            start = start()
            with phase(f"{ENERGY} fit", "the exact energy fit of every row, from the "
                       "candidate's labels"):
                est._fit(X, sample_weight, plan._replace(semimetric=ENERGY, init=start))
        progress.say(f"auto: kept semimetric={pick!r} ({progress.elapsed():.2f} s)")
    finally:
        progress.close()
    return _done(est, SemimetricChoice(pick, render(trace.steps), cuts), seconds)


def _compare(est, plan, Xv, w, trace, phase):
    """The energy candidate beside the graph's fit held by ``est``, judged by the arbiter:
    ``(pick, cuts, a function giving the labels the energy fit starts from)``."""
    w = IN_MEMORY.normalized_weights(w, est._owner())[0]
    k, pos = plan.n_clusters, np.flatnonzero(w > 0)
    G, fmap = est.labels_[pos], est._feature_map
    sampled = pos.size > AUTO_SAMPLE_N
    with phase(f"{ENERGY} candidate",
               f"fitting semimetric={ENERGY!r}" + (" on a sample" if sampled else "")):
        cand, idx = _energy(est, plan, Xv, w, pos, sampled)
    if sampled:
        trace.add("sample", "rows the energy candidate was fitted on", idx.size, None,
                  f"a uniform sample of {idx.size} of the {pos.size} rows; the graph's nodes "
                  "labelled by its predict")
        rows = fmap.node_rows(pos)
        G, E, weights = est.labels_[rows], cand.predict(k, Xv[rows]), fmap.weights
        cut = partial(normalized_cut, fmap.graph, weights, k=k)
    else:
        E, weights, cut = cand.fits[k][0], w[pos], partial(partition_cut, fmap, k=k)
    keep = G >= 0  # rows the graph's fit set aside (noise): left out of both partitions
    pick, cuts = judge(lambda labels: cut(_placed(labels, keep, keep.size, -1)), G[keep],
                       E[keep], k, k, weights[keep], est.n_neighbors, E[keep], trace)
    return pick, cuts, lambda: (
        _labels(cand, k, Xv, pos, sampled) if isinstance(plan.init, str) else plan.init)


def _placed(values, where, n, fill):
    """An int64 array of ``n``: ``values`` at ``where``, ``fill`` elsewhere."""
    out = np.full(n, fill, dtype=np.int64)
    out[where] = values
    return out


def _labels(cand, k, Xv, pos, sampled):
    """Labels of every row from the energy candidate (0 for rows of zero weight)."""
    return _placed(cand.predict(k, Xv[pos]) if sampled else cand.fits[k][0], pos, Xv.shape[0], 0)


def _energy(est, plan, Xv, w, pos, sampled):
    """``(Fits, rows)``: the energy candidate's fit of k, on the rows of positive weight or a
    sample of them."""
    idx = pos
    if sampled:
        seed, order = canonical(projection_key(Xv[pos]), w[pos])
        idx = pos[np.sort(sample_rows(seed, order, sample_size(plan.n_clusters)))]
    seed = canonical(projection_key(Xv[idx]), w[idx])[0]
    setting = Setting.of(est, semimetric=ENERGY, engine=engine_for(est.engine, ENERGY),
                         init=plan.init if isinstance(plan.init, str) else "kernel-k-means++",
                         n_init=resolve_n_init(plan.n_init, plan.init, idx.size))
    f = Fits(Xv[idx], w[idx], setting, stream(seed, "candidate"), matrix=False)
    if isinstance(plan.init, str):
        f.fit(plan.n_clusters)
    else:  # the given labels (one start, or one per row of a 2-D init)
        f.fit_from(plan.n_clusters, [np.asarray(s)[idx] for s in np.atleast_2d(plan.init)])
    return f, idx


def _done(est, choice, seconds):
    """``semimetric_choice_`` and the candidates' seconds on ``est`` (holding the kept fit)."""
    est.semimetric_choice_ = choice
    kept = seconds.get(f"{choice.semimetric} fit", 0.0)
    est.engine_stats_ = {**est.engine_stats_,
                         "seconds": {**est.engine_stats_["seconds"],
                                     "other candidates": sum(seconds.values()) - kept},
                         "auto seconds": dict(seconds)}
    return est
