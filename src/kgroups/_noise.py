r"""Points set aside (``noise``): how a fit with ``noise`` runs and what it keeps.

``noise=s`` lets a fit set aside whole points of total weight at most ``s`` times the
total (label -1) and minimise the within energy of the points it keeps (trimmed
kernel k-groups; Cuesta-Albertos, Gordaliza & Matrán 1997, García-Escudero et al.
2008): :func:`run_fit` hands the starts to the one driver with the engine's runs
under the trimmed rule (:class:`kgroups._engines.trimmed.TrimmedRuns`), and
:func:`set_noise_attributes` records what was set aside and the threshold that
``predict`` sets new points aside by; :func:`out_of_one_cluster`, the rows that
``n_clusters="auto"`` leaves out of its choice. Imported only by fits with ``noise``.
"""

from __future__ import annotations

import numpy as np

from ._driver import run_starts
from ._engines.trimmed import TRIMMED_RULES, TrimmedRuns, budget_of
from ._noise_auto import resolve_noise_share
from ._rows import canonical, projection_key, sample_rows
from ._semimetrics import DATA_BUILT
from ._validation import InvalidParameterError


def run_fit(est, engine, starts, n_clusters, **driver):
    """``(best, runs, share)``: the best run of ``starts`` with points set aside within
    ``est.noise``'s share of the weight, the run interface that ran it (the trimmed
    runs of ``engine``, or ``engine`` itself where the budget is below the lightest
    point: nothing can be set aside) and the share (``"auto"`` resolved by
    :func:`~kgroups._noise_auto.resolve_noise_share` from the untrimmed runs of the
    same starts); with a semimetric built from the data, the points set aside are
    judged in the input space (:func:`_aside_in_input_space`). ``driver``:
    :func:`~kgroups._driver.run_starts`'s options."""
    share, owner = est.noise, est._owner()
    aside = [np.count_nonzero(start == n_clusters) for start in starts]
    rows = est.__dict__.pop("_input_rows", None)
    if share == "auto" and any(aside):
        raise InvalidParameterError(
            f"{owner}: init labels with -1 (points set aside) need noise given as a "
            "share, not noise='auto'")
    input_space = rows is not None and not any(aside)  # a semimetric built from the data
    if input_space or share == "auto":
        untrimmed = run_starts(engine, starts, n_clusters, rule=est._rule, **driver)
        if input_space:
            return _aside_in_input_space(est, engine, untrimmed, n_clusters, rows, share)
        share, est._noise_reason = resolve_noise_share(untrimmed, engine, n_clusters, owner)
    else:
        est._noise_reason = (f"noise={share!r}: whole points of weight at most {share:g} of "
                             "the total set aside where that lowers W most")
    w = engine.w
    budget = budget_of(share, w)
    for r, start in enumerate(starts):
        weight = float(np.sum(w[start == n_clusters]))
        if aside[r] and weight > budget:
            raise InvalidParameterError(
                f"{owner}: init labels set aside {aside[r]} point(s) of weight "
                f"{weight:.6g}, more than noise={share!r} allows ({budget:.6g} of the total "
                f"{float(np.sum(w)):.6g})")
    if not budget >= np.min(w):  # nothing can be set aside: the untrimmed search
        return run_starts(engine, starts, n_clusters, rule=est._rule, **driver), engine, share
    runs = TrimmedRuns(engine, budget)
    best = run_starts(runs, starts, n_clusters, rule=TRIMMED_RULES[est._rule], **driver)
    return best, runs, share


def _aside_in_input_space(est, engine, untrimmed, k, rows, share):
    """``noise`` with a semimetric built from the data (the neighbourhood graph's): its
    embedding places an outlier among its neighbours, where it costs little (and points
    of one component of the graph all sit at their cluster's mean), so the points set
    aside are judged by the energy semimetric's costs of belonging in the input space,
    for the partition the fit found: with ``"auto"`` those beyond their cluster's
    far-out fence, with a share the dearest within it (:func:`~kgroups._noise_auto.
    largest_costs`); the kept points keep that partition (the trimmed run's sums and
    objective of it, no move). ``predict`` sets no new point aside there (its threshold
    would be read in the embedding). ``(best, runs, share)`` as :func:`run_fit`."""
    from ._choose_k.fits import Fits, Setting
    from ._noise_auto import largest_costs

    X, w = rows
    judge = Fits(np.asarray(X, dtype=np.float64), w, Setting(alpha=est.alpha,
                                                            owner=est._owner()),
                 0, matrix=False).built(k).engine
    why = " (in the input space: the graph's embedding places an outlier among its neighbours)"
    if share == "auto":
        share, reason, flags = resolve_noise_share(untrimmed, judge, k, est._owner(),
                                                   flags=True)
    else:
        flags = largest_costs(untrimmed, judge, k, budget_of(share, judge.w))
        reason = (f"noise={share!r}: the {int(flags.sum())} points of largest cost of "
                  f"belonging, of weight at most {share:g} of the total")
    est._noise_reason = reason + why
    runs = TrimmedRuns(engine, budget_of(share, engine.w))
    state = runs.start([np.where(flags, -1, untrimmed.labels)], k, TRIMMED_RULES[est._rule])
    state.converged[:] = True
    state.n_moves = [list(untrimmed.n_moves)]
    best = runs.finish(state)[0]
    best.threshold = np.inf
    return best, runs, share


def set_noise_attributes(est, best, share):
    """The fitted attributes of a fit with ``noise``: ``noise_share_``, ``n_noise_``
    (rows labelled -1), ``noise_weight_`` (the weight set aside, in the data's units of
    weight), ``noise_threshold_`` (the smallest cost of bringing back a set-aside
    point, per unit of its weight, in the semimetric's units; ``inf`` when nothing was
    set aside) and ``noise_reasoning_`` (how many and why, in words)."""
    est.noise_share_ = float(share)
    est.noise_reasoning_ = est.__dict__.pop("_noise_reason", "")
    est.n_noise_ = int(np.count_nonzero(np.asarray(est.labels_) == -1))
    est.noise_weight_ = float(getattr(best, "noise_weight", 0.0)) * est._wscale
    est.noise_threshold_ = float(est._noise_threshold) * est._objective_unit()


def out_of_one_cluster(est, X, w, sample_n):
    """The rows that ``noise="auto"`` sets aside from one energy cluster
    (:mod:`kgroups._noise_auto`) with the parameters of ``est``, on X's rows (a uniform
    sample of ``sample_n`` past that many), less the members of groups apart, which are
    clusters: tight groups of a few rows
    (:func:`~kgroups._semimetrics.neighbors.in_separated_groups`) and groups of rows all
    set aside that the neighbourhood graph holds apart from the rest
    (:func:`~kgroups._semimetrics.neighbors.apart_from_the_rest`). What remains are strays
    and a thin background, which ``n_clusters="auto"`` with ``noise`` leaves out of the
    choice of k (they add no clusters)."""
    from ._semimetrics.neighbors import apart_from_the_rest, in_separated_groups

    rows = np.arange(X.shape[0])
    if rows.size > sample_n:
        rows = sample_rows(*canonical(projection_key(X), w), sample_n)
    params = {**est.get_params(), "n_clusters": 1, "noise": "auto", "n_init": 1,
              "engine": "auto", "verbose": 0, "init": "k-means++"}
    if not isinstance(est.semimetric, str) or est.semimetric in ("auto", *DATA_BUILT):
        params["semimetric"] = "energy" if not callable(est.semimetric) else est.semimetric
    one = type(est)(**params)
    one._fit(X[rows], w[rows])
    out = np.zeros(X.shape[0], dtype=bool)
    out[rows] = np.asarray(one.labels_) == -1
    if out.any():
        U, nn = X[rows], est.n_neighbors
        out[rows[in_separated_groups(U, nn) | apart_from_the_rest(U, out[rows], nn)]] = False
    return out
