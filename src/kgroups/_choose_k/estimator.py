r"""``KernelKGroups(n_clusters="auto")``: the fit chooses k from the data.

The number of clusters is chosen by :func:`~kgroups.choose_k` with the estimator's
semimetric (and its ``alpha``, ``sigma``, ``theta``, ``n_neighbors``) over
``k = 1..K_MAX`` (at most ``n_samples - 1``): the point rule for the semimetrics of
point data, the graph's eigengap for ``"nearest_neighbors"``, and with
``semimetric="auto"`` the choice of k and the semimetric together
(:mod:`kgroups._choose_k.joint`). The rules stop where they have decided, so the
range only bounds the answer. The estimator is then fitted with the chosen k and
semimetric from the labels of the choice (one start: they are already the best of
the choice's starts), so that its fitted attributes, :meth:`predict` and
:meth:`transform` are those of an ordinary fit of that k.

Fitted attributes added: ``n_clusters_`` (the k chosen), ``n_clusters_choice_``
(the :class:`~kgroups._choose_k.result.ChooseKResult`, with its ``reasoning``) and,
with ``semimetric="auto"``, ``semimetric_choice_`` saying which semimetric and why.
"""

from __future__ import annotations

import numpy as np

from .._input import DASK, checked_rows, input_kind
from .._validation import EngineNames, InvalidParameterError, as_seed, check_sample_weight
from .core import _k_limits, choose
from .rules import auto_method

#: The value of ``n_clusters`` that chooses k from the data.
AUTO = "auto"
#: The largest k compared (the rules decide before it on most data).
K_MAX = 30


def _refuse(est, X):
    owner = est._owner()
    if est._precomputed():
        raise InvalidParameterError(
            f"{owner}: n_clusters='auto' chooses k from point data; with "
            f"semimetric={est.semimetric!r}, kernel={est.kernel!r} X is a matrix: give "
            "n_clusters as an integer")
    if not isinstance(est.init, str):
        raise InvalidParameterError(
            f"{owner}: init given as labels fixes the number of clusters, while "
            "n_clusters='auto' chooses it: give n_clusters as an integer, or init as a "
            "name ('k-means++', ...)")


def fit_choosing_k(est, X, sample_weight):
    """Fit ``est`` (whose ``n_clusters`` is ``"auto"``) as the module docstring says;
    returns ``est``."""
    from sklearn.base import clone

    _refuse(est, X)
    kind = input_kind(X, sample_weight)
    if not kind.host_rows or kind is DASK:
        return _fit_from_a_sample(est, X, sample_weight, kind)
    owner = est._owner()
    given = X  # the final fit takes X as given (its column names, its kind)
    X = checked_rows(clone(est), X, reset=True)  # the fit's own front door
    w = check_sample_weight(sample_weight, X.shape[0], owner, allow_zero=True)
    keep = w > 0
    say = _Say(est)
    say(f"n_clusters='auto': choosing k with semimetric={est.semimetric!r} on "
        f"{int(keep.sum())} points")
    r = _choice(est, X[keep], w[keep])
    say(f"chose k={r.k} with semimetric={r.semimetric!r}: {r.reasoning}")
    labels = np.zeros(X.shape[0], dtype=np.int64)
    labels[keep] = r.labels if r.labels is not None else 0
    fixed = {"n_clusters": int(r.k), "semimetric": r.semimetric}
    if np.unique(labels[keep]).size == r.k:
        fixed["init"] = labels
    final = clone(est).set_params(**fixed).fit(given, sample_weight=sample_weight)
    params = est.get_params(deep=False)
    for key, value in vars(final).items():
        if key not in params:
            setattr(est, key, value)
    est.n_clusters_, est.n_clusters_choice_ = int(r.k), r
    if est.semimetric == "auto":
        est.semimetric_choice_ = _semimetric_choice(r)
    return est


def _fit_from_a_sample(est, X, sample_weight, kind):
    """``n_clusters="auto"`` on data out of host memory (a dask collection, an array on a
    CUDA device): k and the semimetric chosen on a uniform sample of ``SAMPLE_N`` rows
    brought to the host, as the in-memory choice does past that size; then the
    chosen k fitted on all rows where the chosen semimetric runs on that kind of
    data (the Dask and GPU engines take the named semimetrics), or, for the
    neighbourhood graph, fitted on the sample and every row labelled by its
    ``predict`` (lazily, block by block, for a dask collection)."""
    from sklearn.base import clone

    from .._semimetrics import DATA_BUILT
    from .sample import SAMPLE_N

    owner = est._owner()
    rows, _ = kind.check_fit(clone(est), X, precomputed=False)
    w = kind.weights(sample_weight, rows, owner)
    n = int(rows.shape[0])
    rng = np.random.default_rng(as_seed(est.random_state))
    idx = np.sort(rng.choice(n, min(n, SAMPLE_N), replace=False))
    Xs, ws = kind.take(rows, w, idx)
    Xs = checked_rows(clone(est), Xs, reset=True)
    ws = check_sample_weight(ws, Xs.shape[0], owner, allow_zero=True)
    keep = ws > 0
    if not keep.any():
        raise InvalidParameterError(
            f"{owner}: every row of the uniform sample of {idx.size} rows that "
            "n_clusters='auto' chooses k on has sample_weight 0; give the rows of "
            "positive weight only")
    say = _Say(est)
    say(f"n_clusters='auto': choosing k with semimetric={est.semimetric!r} on a uniform "
        f"sample of {idx.size} of the {n} rows ({kind.name} input)")
    r = _choice(est, Xs[keep], ws[keep])
    r.sample = idx[keep]
    r.reasoning += (f" The choice was made on a uniform sample of {idx.size} of the {n} "
                    f"rows, drawn from the {kind.name} input to host memory")
    fixed = {"n_clusters": int(r.k), "semimetric": r.semimetric}
    if r.semimetric in DATA_BUILT:
        final = clone(est).set_params(**fixed).fit(Xs, sample_weight=ws)
        labels = final.predict(X)
        r.reasoning += (f"; semimetric={r.semimetric!r} does not run on {kind.name} data, so "
                        f"k={r.k} was fitted on the sample and every row is labelled by "
                        "that fit's predict.")
    else:
        final = clone(est).set_params(**fixed).fit(X, sample_weight=sample_weight)
        labels = final.labels_
        r.reasoning += f"; k={r.k} was then fitted on every row ({final.engine_} engine)."
    say(f"chose k={r.k} with semimetric={r.semimetric!r}: {r.reasoning}")
    params = est.get_params(deep=False)
    for key, value in vars(final).items():
        if key not in params:
            setattr(est, key, value)
    est.labels_, est.n_clusters_, est.n_clusters_choice_ = labels, int(r.k), r
    if est.semimetric == "auto":
        est.semimetric_choice_ = _semimetric_choice(r)
    return est


def _choice(est, X, w):
    """The :class:`ChooseKResult` of ``est``'s parameters on the points of positive
    weight, over k = 1..K_MAX cut to what X allows (k = 1 when that leaves no k >= 2 to
    compare: too few points or distinct rows)."""
    from .result import ChooseKResult

    n, n_distinct = X.shape[0], np.unique(X, axis=0).shape[0]
    top, why = _k_limits(auto_method(est.semimetric), n, n_distinct)
    if top < 2:
        semimetric = "energy" if est.semimetric == "auto" else est.semimetric
        return ChooseKResult(1, "auto", np.array([1]), reasoning=(
            f"{n} point(s) of positive weight, {n_distinct} distinct: {why}, so no number "
            "of clusters can be compared with another: one cluster."),
            labels=np.zeros(n, np.int64), semimetric=semimetric)
    # the engines choose_k runs its fits with (in-memory arrays); any other: "auto"
    engine = est.engine if EngineNames("numpy")(est.engine) else "auto"
    return choose(X, range(1, min(K_MAX, top) + 1), estimator=type(est), method="auto",
                  rule=None, se_factor=1.0, cutoff=0.8, n_refs=10, reference="pca",
                  n_splits=20, semimetric=est.semimetric, alpha=est.alpha, sigma=est.sigma,
                  theta=est.theta, sample_weight=w, n_neighbors=est.n_neighbors, n_init=5,
                  engine=engine, random_state=est.random_state, stacklevel=5, refit=False)


def _semimetric_choice(r):
    """``semimetric_choice_`` of a joint choice (the result ``r``)."""
    from sklearn.metrics import adjusted_rand_score

    from .._semimetrics.auto import SemimetricChoice

    cand = r.candidates or {}
    agree = (float(adjusted_rand_score(cand["energy"].labels,
                                       cand["nearest_neighbors"].labels))
             if len(cand) == 2 else float("nan"))
    return SemimetricChoice(r.semimetric, r.reasoning, dict(r.cuts or {}), agree)


class _Say:
    """``verbose`` lines of the choice, as the fit's own (:mod:`kgroups._progress`)."""

    def __init__(self, est):
        from .._progress import FitProgress

        self.progress = FitProgress(est._owner(), 1, est.max_iter, est.verbose)

    def __call__(self, text):
        self.progress.say(text)
