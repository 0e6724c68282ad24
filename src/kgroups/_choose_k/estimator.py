r"""``KernelKGroups(n_clusters="auto")``: k (with ``semimetric="auto"`` the semimetric too)
chosen by :func:`~kgroups.choose_k`'s default over ``k = 1..K_MAX`` with the estimator's
parameters, then the estimator fitted from the choice's labels in the geometry where k was
found. Data out of host memory: k chosen on the samples in-memory data would be chosen on,
then every row fitted (the graph: the sample's fit, every row labelled by ``predict``).
"""

from __future__ import annotations

import numpy as np

from .._init import resolve_n_init
from .._input import DASK, checked_rows, input_kind, row_keys
from .._progress import FitProgress
from .._rows import canonical, disjoint_samples, distinct_rows
from .._semimetrics import DATA_BUILT
from .._semimetrics.auto import SemimetricChoice
from .._validation import InvalidParameterError, check_sample_weight
from .constants import CHOICE_STARTS, N_REFS, SAMPLES
from .core import K_MAX, SAMPLE_N, choice_rows, k_limit, run_choice
from .fits import (TRIMMED_RULES, Setting, candidate_engines, check_engine_input,
                   choose_engine, engine_for)
from .trace import Step

def _refuse(est):
    owner = est._owner()
    if est._precomputed():
        raise InvalidParameterError(f"{owner}: n_clusters='auto' chooses k from point data; with "
                                    f"semimetric={est.semimetric!r}, kernel={est.kernel!r} X is "
                                    "a matrix: give n_clusters as an integer")
    if est.semimetric == "auto":
        candidate_engines(est.engine, owner)  # refuses an engine that runs neither candidate
    if not isinstance(est.init, str):
        raise InvalidParameterError(f"{owner}: init given as labels fixes the number of clusters, "
                                    "while n_clusters='auto' chooses it: give n_clusters as an "
                                    "integer, or init as a name ('k-means++', ...)")


def fit_choosing_k(est, X, sample_weight):
    """Fit ``est`` (whose ``n_clusters`` is ``"auto"``) as the module docstring says."""
    _refuse(est)
    kind = input_kind(X, sample_weight)
    if not kind.host_rows or kind is DASK:
        return _fit_from_a_sample(est, X, sample_weight, kind)
    r, _, _, keep = _choose(est, X, sample_weight)
    labels = np.zeros(keep.size, dtype=np.int64)
    labels[keep] = r.labels
    init = labels if np.unique(labels[keep]).size == r.k else est.init
    est._fit(X, sample_weight, n_clusters=int(r.k), semimetric=r.semimetric, init=init,
             n_init=1 if init is labels else est.n_init, rescaling=r.rescaling,
             engine=_engine(est, r))
    return _record(est, r)


def _fit_from_a_sample(est, X, sample_weight, kind):
    """``n_clusters="auto"`` on data out of host memory (the module docstring)."""
    rows, _ = kind.check_fit(est, X, precomputed=False)
    if est.noise is not None and est.semimetric not in (*DATA_BUILT, "auto"):
        # every row is then fitted where X lives: the engine that fit runs on must set
        # points aside, which its checks say before the choice rather than after it
        cls = choose_engine(est.engine, rows.shape[0], False, False, np.float64,
                            est.semimetric, rows.shape[1], n_clusters=2,
                            input_kind=kind.name, owner=est._owner())[0]
        check_engine_input(cls.name, rows.shape[0], kernel=None, semimetric=est.semimetric,
                           sparse_input=False, n_clusters=2, owner=est._owner(),
                           rule=TRIMMED_RULES[est._rule])
    w = kind.weights(sample_weight, rows, est._owner())
    n, key = int(rows.shape[0]), row_keys(kind, rows, w, est._owner())
    wh = np.asarray(w, dtype=np.float64)
    pos = np.flatnonzero(wh > 0)
    # a row's copies (one key) are the row with their weight, as in memory (choice_rows)
    first, _, wd = distinct_rows(key[pos, None], wh[pos], "n_clusters='auto': the distinct "
                                 "keys of the rows", "fewer rows")
    seed, order = canonical(key[pos][first], wd)
    picks = disjoint_samples(seed, order, SAMPLE_N, SAMPLES)
    pick = np.concatenate(picks)            # the samples' rows, one after the other
    at = np.cumsum([0] + [p.size for p in picks])
    drawn = ([np.arange(a, b) for a, b in zip(at[:-1], at[1:])], first.size)
    idx = pos[first[pick]]
    r, Xs, ws, kept = _choose(est, kind.take(rows, w, idx)[0], wd[pick], f"uniform samples "
                              f"of {picks[0].size} of the {n} rows ({kind.name} input)", seed,
                              drawn)
    main = np.flatnonzero(kept)         # the rows of the kept sample (the vote's)
    main = main if r.sample is None else main[r.sample]
    r.sample = np.sort(idx[main])
    r.trace.steps = [s for s in r.trace.steps if s.step != "sample"]   # said below
    plan = {"n_clusters": int(r.k), "semimetric": r.semimetric, "engine": _engine(est, r)}
    if r.semimetric in DATA_BUILT:  # runs on neither Dask nor a device: the sample's fit
        est._fit(Xs[main], ws[main], **plan, rescaling=r.rescaling)
        labels, how = est.predict(X), "fitted on the sample, every row labelled by predict"
    else:
        est._fit(X, sample_weight, **plan, rescaling=r.rescaling if kind is DASK else None)
        labels, how = est.labels_, f"fitted on every row ({est.engine_} engine)"
    est.labels_ = labels
    r.trace.add("sample", "rows the choice ran on", int(r.sample.size), None,
                f"a uniform sample of {r.sample.size} of the {n} rows, drawn from the "
                f"{kind.name} input; k={r.k} {how}")
    return _record(est, r)


def _engine(est, r):
    """The engine of the chosen semimetric's fit: the one asked for, or with ``"auto"`` the
    one that holds the chosen candidate (said in the trace)."""
    if est.semimetric != "auto":
        return est.engine
    engine = candidate_engines(est.engine, est._owner())[r.semimetric]
    if engine != est.engine:
        r.trace.add("engine", "engine of the chosen semimetric", engine, None,
                    f"engine={est.engine!r} does not hold {r.semimetric!r}: the fit runs on "
                    "the engine that does")
    return engine


def checked_input(est, X, sample_weight):
    """X (float64) and its weights (zeros allowed), checked at the fit's front door."""
    X = checked_rows(est, X, reset=True)
    return X, check_sample_weight(sample_weight, X.shape[0], est._owner(), allow_zero=True)


def _choose(est, X, sample_weight, what=None, seed=None, drawn=None):
    """``(result, X, weights, rows kept)``: the choice with ``est``'s parameters on the rows of
    positive weight (``what``: them in words; ``seed``, ``drawn``: as :func:`run_choice`'s)."""
    X, w = checked_input(est, X, sample_weight)
    keep = w > 0
    say = FitProgress(est._owner(), 1, est.verbose, bar=False).say
    say(f"n_clusters='auto': choosing k with semimetric={est.semimetric!r} on "
        f"{what or f'{int(keep.sum())} points'}")
    far = 0
    if est.noise is not None:
        from .._noise import out_of_one_cluster

        out = out_of_one_cluster(est, X[keep], w[keep], SAMPLE_N)
        keep[keep], far = ~out, int(out.sum())
    Xk, wk = X[keep], w[keep]
    if drawn is not None:               # the samples' rows among those kept
        at = np.cumsum(keep) - 1
        drawn = ([at[s[keep[s]]] for s in drawn[0]], drawn[1])
    distinct = choice_rows(Xk, wk)
    n = Xk.shape[0]
    top = k_limit("auto", est.semimetric, n, distinct[0].size)[0]
    engine = engine_for(est.engine, "energy" if est.semimetric == "auto" else est.semimetric)
    setting = Setting.of(est, engine=engine, n_init=est.n_init if est.n_init != "auto" else min(
        resolve_n_init(est.n_init, est.init, min(n, SAMPLE_N)), CHOICE_STARTS))
    opts = {"n_refs": N_REFS, "reference": "pca", "distinct": distinct}
    r = run_choice(Xk, wk, np.arange(1, max(1, min(K_MAX, top)) + 1), "auto", setting, opts,
                   est.random_state, refit=False, seed=seed, drawn=drawn)
    if est.noise is not None:
        r.trace.steps.insert(0, Step("noise", "rows far out of one cluster (beyond Tukey's "
                                     "far-out fence of their costs of belonging)", far, None,
                                     f"{far} left out of the choice of k"))
    say(f"chose {r.summary()}")        # the why: n_clusters_choice_.reasoning
    return r, X, w, keep


def _record(est, r):
    """The choice's attributes on the fitted estimator."""
    est.n_clusters_, est.n_clusters_choice_ = int(r.k), r
    if est.semimetric == "auto":
        est.semimetric_choice_ = SemimetricChoice(r.semimetric, r.reasoning, dict(r.cuts or {}))
    return est
