r"""The work of :func:`~kgroups.choose_k` and of ``n_clusters="auto"`` on validated
data: the range of k, the data's seed (:func:`canonical`: the default's answer is a
function of the data, not of ``random_state`` nor of the rows' order), the default, the
named methods, large data and lone outliers (:func:`_on_rows`)."""

from __future__ import annotations

import copy
import warnings
from dataclasses import replace
from functools import cache, partial

import numpy as np

from .._errors import DistinctRowsWarning
from .._input import IN_MEMORY
from .._memory import check_fits
from .._progress import FitProgress, running
from .._random_state import stream
from .._rows import canonical, disjoint_samples, distinct_rows, projection_key
from .._semimetrics.auto import partition_cut
from .._semimetrics.neighbors import lone_outliers
from .._semimetrics.prepare import data_scale, objective_unit
from .._stats.criteria import contingency, halvings_p
from .._stats.dip import effective_size
from .._stats.modes import group_dips, pair_dips
from .._validation import (Integer, InvalidParameterError, as_seed, check_data,
                           check_sample_weight, describe)
from ..metrics import weighted_ari
from .arbiter import ENERGY, GRAPH, judge, no_graph, tiles
from .constants import GROUP_HALVINGS, K_MAX, SAMPLE_N, SAMPLES, SPLIT_MIN
from .criteria import named
from .fits import Fits
from .graph import graph_rule
from .point import SCAN_FACTOR, SCAN_MIN, energy_rule, on_x
from .result import ChooseKResult
from .trace import GRAPH_SHOWS, Step, Trace


def choice_rows(X, w):
    """The distinct rows of X the default chooses on, each weighing its copies (the dips read
    them at the weights' effective size: one row's points, not as many modes)."""
    return distinct_rows(X, w, "choose_k's distinct rows of X", "a sample of the rows")


def relabel(r, back, own=True):
    """Index the labels of ``r`` (with ``own``), its candidates and their rescaled geometries
    by ``back`` (an ``argsort`` of rows, or the inverse of ``np.unique``)."""
    held = [r, *(r.candidates or {}).values()]
    held += [g for x in held for g in (x.multimodal_axes, x.standardized) if g is not None]
    for x in {id(x): x for x in held[0 if own else 1:]}.values():
        x.labels = x.labels[back]


def k_limit(method, semimetric, n, n_distinct):
    """The largest k the method can compare on n rows, ``n_distinct`` distinct, and why."""
    if method == "prediction_strength":
        top = min(n // 2, n_distinct)
        return top, (f"prediction strength fits halves of {n // 2} points of X's {n_distinct} "
                     f"distinct rows, k <= {top}")
    if method == "auto" and semimetric == GRAPH:
        return n_distinct - 2, (f"the graph's eigengap reads k + 1 eigenvalues of the graph "
                                f"of {n_distinct} distinct points, k <= {n_distinct - 2}")
    if method in ("gap", "auto"):
        return min(n - 1, n_distinct - 1), (f"{method!r} needs k < {n_distinct}, the number "
                                            "of distinct rows (W_k > 0), and k < n_samples")
    return min(n - 1, n_distinct), (f"the {method} needs k <= n_samples - 1 = {n - 1} and no "
                                    f"more clusters than X's {n_distinct} distinct rows")


def check_k_range(k_range, method, semimetric, n, n_distinct, rows="n_samples={}"):
    """Sorted distinct integers k >= 1 the method can use on n samples (``rows``: n in words)."""
    top, why = k_limit(method, semimetric, n, n_distinct)
    least = 2 if method in ("silhouette", "eigengap") else 1
    if k_range is None:  # the default answers 1 where X allows no k >= 2
        if top < least == 2:  # the silhouette and the eigengap
            raise InvalidParameterError(f"choose_k: method={method!r} compares k >= {least} "
                                        f"clusters, and X allows none: {why}")
        k_range = range(least, max(min(K_MAX, top), 1 if method == "auto" else least) + 1)
    values = list(k_range) if isinstance(k_range, range) else list(
        np.ravel(np.asarray(k_range, dtype=object)))
    bad = [v for v in values if not Integer(1)(v)]
    if not values or bad:
        raise InvalidParameterError(
            f"choose_k: k_range={describe(k_range)} should be a non-empty sequence of "
            f"integers >= 1" + (f"; got {describe(bad[0])}" if bad else ""))
    ks = np.array(sorted(int(v) for v in values), dtype=np.int64)
    if np.any(np.diff(ks) == 0):
        raise InvalidParameterError(f"choose_k: k_range={describe(k_range)} has repeated values")
    if ks[-1] > max(top, 1):
        raise InvalidParameterError(
            f"choose_k: k_range goes up to k={ks[-1]} but X has {rows.format(n)}; {why}")
    if ks[-1] < 2 and (least == 2 or method == "auto" and top >= 2 and semimetric != GRAPH):
        one = ("the eigengap compares k >= 2 only" if method == "eigengap" else
               "the silhouette is not defined for one cluster")
        raise InvalidParameterError(
            f"choose_k: k_range={describe(k_range)} should hold a k >= 2 for method="
            f"{method!r} ({one})" + ("" if top >= 2 else f", and X allows none: {why}"))
    return ks


def default_top(X, w, method, semimetric):
    """The top of :func:`~kgroups.choose_k`'s default ``k_range`` on X (weights ``w``)."""
    X = check_data(X, "X", "choose_k", allow_1d=True, min_samples=2)
    n_distinct = choice_rows(X, check_sample_weight(w, X.shape[0], "choose_k"))[0].size
    return int(check_k_range(None, method, semimetric, X.shape[0], n_distinct)[-1])


def default(X, w, ks, setting, opts, seed):
    """``method="auto"`` on distinct rows (:func:`_rule`); unequal weights: the trace's first
    step says how many rows and their effective size."""
    r = _rule(X, w, ks, setting, opts, seed)
    if np.any(w != 1.0):   # no outcome: not in summary()
        r.trace.steps.insert(0, Step("rows", "the distinct rows the choice ran on (a row's "
                                     "copies add to its weight) and their effective size "
                                     "(sum w)^2 / sum w^2 (Kish): the dips' sample size",
                                     {"distinct rows": w.size,
                                      "effective size": effective_size(w)}))
    return r


def _rule(X, w, ks, setting, opts, seed):
    """The graph's rule, energy's, or with ``"auto"`` both judged by the arbiter. Energy's own
    k reads the graph's groups with the arbiter's numbers: its k = 1 where they pass the
    arbiter's first clause becomes steps 2-3 on X, its answer on X's multimodal axes stands
    where they do not, and its tiles of shapes are read by
    :func:`~kgroups._choose_k.arbiter.tiles`."""
    if setting.semimetric == GRAPH:
        return graph_rule(X, w, ks, setting, seed)[0]
    auto = setting.semimetric == "auto"
    e, f = energy_rule(X, w, ks, setting.but(semimetric=ENERGY) if auto else setting,
                       opts["n_refs"], opts["reference"], seed)
    if not auto and (setting.semimetric != ENERGY or e.k == 2):  # the graph reads 1 and >= 3
        return e
    e.semimetric, trace = ENERGY, copy.deepcopy(e.trace)
    gks = ks[(ks >= 2) & (ks <= max(SCAN_MIN, SCAN_FACTOR * e.k))]
    Z = f.Z                                 # X, or X standardized: energy_rule's Fits
    why = no_graph(Z, Z.shape[0], setting.n_neighbors) or (gks.size < 2 and (
        "k >= 2 in k_range, up to max(SCAN_MIN, SCAN_FACTOR k_e)", int(gks.size), 2,
        "the graph's eigengap compares two k at least: energy"))
    if why:
        trace.add("arbiter", *why)
        return e if not auto else _with(e, e, trace, None, None)
    g, fmap = graph_rule(Z, w, gks, setting.but(semimetric=GRAPH, engine="auto"),
                         stream(seed, "graph"))
    if Z is not X:              # energy_rule judges in X standardized: the graph's groups too
        g.geometry, g.rescaling = e.geometry, e.rescaling
        g.trace.steps = [replace(s, statistic=f"{s.statistic}, on X {e.geometry}")
                         for s in g.trace.steps]
    G, kg, nn = g.labels, g.k, setting.n_neighbors
    cut = partial(partition_cut, fmap, k=kg)
    E = f.grow(kg)[0]                           # the energy partition of k_g clusters
    agree = weighted_ari(G, E, w)               # the arbiter's numbers, for energy's own k too
    held = {}   # each answer's pair_dips in the groups (cross-fitted) and pieces_split

    def tests(r):                   # made once, computed where read (r held: its id its own)
        if id(r) not in held:
            geo = r.rescaling if r.geometry == "multimodal axes" else None   # f: X's rows
            held[id(r)] = r, cache(lambda: pair_dips(f.T, w, r.labels, G, nn, f.crossfit(
                r.k, r.labels, geo) if r.k > 1 else None)), cache(
                lambda: pieces_split(f, E, r.labels, kg))
        return held[id(r)][1:]

    def arbiter(r):                 # the arbiter's pick between r and the groups, its cuts
        # the groups' dips: read by rule 1 only for components (energy one cluster; a gap
        # between each two, so weighed equally), by rule 3's mirror at their sizes
        sub_p = partial(group_dips, f.T, w, G, r.labels, nn + 1, 0.0, balanced=r.k == 1)
        p, s = tests(r)
        return judge(cut, G, E, r.k, kg, w, nn, r.labels if r.k > 1 else None, verdict, agree,
                     p, sub_p, s)

    verdict, pick, cuts = Trace(), ENERGY, None
    axes = e.geometry == "multimodal axes"      # X showed energy no structure, its axes did:
    if e.k == 1 or axes:                        # rule 1: structure only the graph shows?
        pick, cuts = arbiter(e if e.k == 1 else as_one_cluster(e, w.size))
    if axes and pick == ENERGY:     # the graph's groups of X show none either: energy's axes
        trace.steps += g.trace.steps + verdict.steps
        return e if not auto else _with(e, e, trace, g, cuts)
    if axes:                        # structure on X that the graph's groups show
        verdict.steps[-1] = replace(verdict.steps[-1], outcome=(
            f"{verdict.steps[-1].outcome}; energy's clusters on X's multimodal axes are "
            "judged against them"))
    own = e
    if e.k == 1 and pick == GRAPH:              # structure the graph's groups show
        v = verdict.steps[-1]
        own = copy.copy(e)
        own.trace = Trace(e.trace.steps[:-1] + g.trace.steps)     # less "answer: k=1"
        own = on_x(own, f, ks, opts["n_refs"], opts["reference"], Step(
            "structure", f"{v.statistic}, the arbiter's first clause", v.value, v.threshold,
            f"{v.outcome}: the graph's groups show structure; steps 2-3 on X",
            short=GRAPH_SHOWS))
        own.semimetric = ENERGY
    t = tiles(own, f, G, ks, w, nn, cut, agree, *tests(own))
    if not auto:
        if t is not own and own is e:           # the graph's rule, then the tiles
            t.trace.steps[-1:-1] = g.trace.steps
        return t
    if e.k > 1:     # energy's own answer judged, its tiles step done: the candidate kept
        pick, cuts = arbiter(t)
    tiled = t.trace.steps[-1:] if e.k > 1 and t is not e else []    # energy's own step 4
    trace.steps += g.trace.steps + tiled + verdict.steps    # the graph's rule, the arbiter
    return _with(g if pick == GRAPH else t, t, trace, g, cuts)


def as_one_cluster(r, n):
    """A copy of ``r`` as one cluster of ``n`` rows (the arbiter's first clause reads it)."""
    one = copy.copy(r)
    one.k, one.labels = 1, np.zeros(n, dtype=np.int64)
    return one


def pieces_split(f, E, labels, k):
    """Whether the clusters of ``E`` (k, in ``f``) that hold two or more of the clusters
    ``labels`` are clouds: the smallest p-value of energy's split test of each along the data
    (``Fits.bisect(gap="path")``), times their number; 0 where one is too small to test (an
    effective size below ``SPLIT_MIN``: its clusters stand). Each group's p-value is
    :func:`~kgroups._stats.criteria.halvings_p` of ``GROUP_HALVINGS`` random halvings (one
    flips with the draw where a sparse shape's halves are thin)."""
    home = contingency(labels, E, f.w).argmax(axis=1)
    held = np.flatnonzero(np.bincount(home, minlength=k) >= 2)
    if any(effective_size(f.w[E == j]) < SPLIT_MIN for j in held):
        return 0.0
    return min([1.0] + [held.size * halvings_p([  # halving h's stream: (k, 6, j[, h > 0])
        f.bisect(E, int(j), f.rng(k, 6, int(j), *((h,) if h else ())), gap="path")[0]
        for h in range(GROUP_HALVINGS)]) for j in held])


def _with(r, e, trace, g, cuts):
    """A copy of ``r`` with the candidates ``e`` and ``g`` (or None), ``trace``, ``cuts``."""
    r = copy.copy(r)
    r.candidates, r.trace, r.cuts = {ENERGY: e} | ({GRAPH: g} if g is not None else {}), trace, cuts
    return r


def run_choice(X, w, ks, method, setting, opts, random_state, refit, seed=None, drawn=None):
    """``method`` on validated X and weights > 0: the default on the rows in :func:`canonical`
    order, past ``SAMPLE_N`` on up to ``SAMPLES`` disjoint samples voting (:func:`_on_rows`);
    X and weights rescaled as the estimator's fit does, W in their units. ``seed`` and
    ``drawn`` (``(samples, n)``): those of the data of n rows X was sampled from."""
    sem = ENERGY if setting.semimetric in (GRAPH, "auto") else setting.semimetric
    n = X.shape[0]
    if method == "auto":  # choice_rows(X, w), which the caller drew the range from
        keep, inv, w = opts["distinct"]
        X = X[keep]
    owner = setting.owner
    w, wscale = IN_MEMORY.normalized_weights(w, owner)  # W is linear in the weights
    big = IN_MEMORY.summary(X, w, owner)[0]    # the largest |x - c|, c X's robust centre
    c = 1.0 if callable(sem) else data_scale(big, sem, owner)
    own, order = canonical(projection_key(X), w)     # of X in its units, whatever c
    X, setting = X * c if c != 1.0 else X, setting.but(sigma=setting.sigma * c)
    seed = own if seed is None else seed
    busy = running(f"{owner}: choosing k" + ("" if method == "auto" else f" ({method})"))
    with busy, warnings.catch_warnings():  # fits of more clusters than distinct rows are
        warnings.simplefilter("ignore", DistinctRowsWarning)  # the criteria's business
        if method != "auto":
            r = named(X, w, ks, method, setting, opts, as_seed(random_state))
        elif ks[-1] < 2 and (setting.semimetric != GRAPH or X.shape[0] < 2):  # no graph
            r = ChooseKResult(1, "auto", ks, labels=np.zeros(w.size, np.int64),
                              semimetric=ENERGY if setting.semimetric == "auto" else None)
            r.trace.add("range", "points of positive weight (too few distinct for k >= 2)",
                        {"points": n, "distinct": X.shape[0]}, None, "one cluster")
        else:
            if drawn is not None:       # X's rows: distinct (inv) as the samples' data's
                samples, n_all = [inv[s] for s in drawn[0]], drawn[1]
            elif X.shape[0] <= SAMPLE_N:
                check_fits(2 * X.nbytes, f"{owner}'s two copies of X ({X.shape[0]} x "
                           f"{X.shape[1]})", "fewer columns (a projection of X)")
                samples, n_all = [order], X.shape[0]
            else:
                samples, n_all = disjoint_samples(seed, order, SAMPLE_N, SAMPLES), X.shape[0]
            lone = [lone_outliers(X[s], w[s], setting.n_neighbors, int(ks[-1])) for s in samples]
            if samples[0].size == n_all and not lone[0].any():
                r = default(X[order], w[order], ks, setting, opts, seed)
                relabel(r, np.argsort(order))
            else:
                r = _on_rows(X, w, [s[~o] for s, o in zip(samples, lone)],
                             [int(o.sum()) for o in lone], n_all, ks, setting, opts, seed, refit)
    r.semimetric = setting.semimetric if r.semimetric is None else r.semimetric
    held = [r, *(r.candidates or {}).values()] if c != 1.0 or wscale != 1.0 else []
    for x in {id(x): x for x in held}.values():  # back to X's units (W: degree alpha)
        u = objective_unit(x.semimetric, setting.alpha, c) * wscale   # and the weights'
        with np.errstate(over="ignore"):   # W past float64 in X's units reads inf
            x.within_energy = None if x.within_energy is None else x.within_energy * u
        x.ref_log_w = None if x.ref_log_w is None else x.ref_log_w + np.log(u)
        x.rescaling = x.rescaling and x.rescaling.of_scaled(c)
    if method == "auto":  # back to the rows of X: each its distinct row's label
        if r.sample is None:
            relabel(r, inv)
        else:  # the candidates label the sample, of distinct rows (first copies)
            r.labels, r.sample = r.labels[inv], keep[r.sample]
    return r


def _on_rows(X, w, samples, lones, n_all, ks, setting, opts, seed, refit):
    """The default on each of ``samples`` of X's rows (of data of ``n_all`` rows, less their
    ``lones`` lone outliers), the answer of most kept (or the first's); every row labelled by
    the predict of that sample's fit (``refit``: then all rows fitted from it)."""
    n = X.shape[0]
    votes = [default(X[s], w[s], ks, setting, opts, seed) for s in samples]
    said = [(v.k, v.semimetric) for v in votes]
    j = next((i for i, a in enumerate(said) if said.count(a) > 1), 0)
    r, rows, lone = votes[j], samples[j], lones[j]
    sampled, Xs, ws = n_all > rows.size + lone, X[rows], w[rows]
    relabel(r, np.argsort(rows), own=False)  # r's own: the fit of the rows', below
    r.sample = np.sort(rows)
    geo = r.rescaling or (lambda A: A)  # the rows in the geometry of the labels
    if r.k == 1:
        r.labels = np.zeros(n, dtype=np.int64)
    else:
        f = chosen_fit(r, geo(Xs), ws, setting, stream(seed, "sample fit"))
        r.labels = f.predict(r.k, Z := geo(X))  # Z: every row there, once
    how = "the sample fit's predict" if sampled else "the predict of their fit"
    if refit and r.k > 1:  # its sums and sweeps on a bar (a terminal's)
        bar = FitProgress(f"{setting.owner}: fit of all {n} rows", 1, 0)
        try:
            r.labels = Fits(Z, w, f.setting, stream(seed, "all rows"), matrix=False).run(
                r.k, [r.labels], bar)[0]
        finally:
            bar.close()
        how = "the fit of all rows started from " + ("the sample's" if sampled else "theirs")
    what = (f"a uniform sample of {rows.size + lone} of the {n_all} rows" if sampled
            else f"the {n} rows")
    if lone:
        what += (f" less {lone} lone outlier(s) (each outside the neighbourhood of its "
                 f"{setting.n_neighbors} nearest rows: no cluster's point)")
    step = Step("sample" if sampled else "outliers", "rows the choice ran on", rows.size,
                None, f"{what}; every row labelled by {how}",
                short="" if sampled else f"{lone} lone outlier(s) left out")
    r.trace.steps.insert(len(r.trace.steps) if sampled else 0, step)  # outliers: first
    if len(votes) > 1:
        r.trace.steps.insert(-1, Step(
            "samples", f"answers of {len(votes)} disjoint uniform samples of the rows",
            {f"sample {i + 1}": f"k={k} {m or ''}".strip() for i, (k, m) in enumerate(said)},
            None, (f"most samples: sample {j + 1}'s" if said.count(said[j]) > 1 else
                   "no two agree: the first sample's") + f" k={r.k}",
            short=f"k voted by {len(votes)} samples"))
    return r


def with_removed_rows(r, X, pos, w, setting):
    """``r`` of X's rows ``pos`` for every row, those of weight 0 labelled by ``predict``."""
    rows = np.flatnonzero(pos)
    labels = np.zeros(X.shape[0], dtype=np.int64)
    labels[rows] = r.labels
    if r.k > 1:
        geo = r.rescaling or (lambda A: A)
        Z = geo(X[rows])
        f = chosen_fit(r, Z, w, setting, canonical(projection_key(Z), w)[0])
        labels[~pos] = f.predict(r.k, geo(X[~pos]))
    r.labels, r.sample = labels, rows if r.sample is None else rows[r.sample]


def chosen_fit(r, Z, w, setting, seed):
    """The :class:`Fits` of ``r``'s semimetric on the rows ``Z`` (in ``r``'s geometry) that
    ``r.labels`` label, its fit of k run from them (its ``predict`` labels other rows)."""
    f = Fits(Z, w, setting.but(semimetric=r.semimetric or setting.semimetric), seed,
             matrix=False)
    f.fit_from(r.k, [r.labels])
    return f
