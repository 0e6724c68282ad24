"""Which engine runs a fit: ``engine="auto"``, and the checks of an input against an
engine, both read from the engines' declared capabilities (:mod:`kgroups._engines.
registry`); no engine is named here.

``engine="auto"`` takes, among the engines that can run the input on this machine,

1. one whose memory (:meth:`~kgroups._engines.engine.Engine.memory_bytes`, times
   ``HEADROOM``) is within ``MEMORY_FRACTION`` of the machine's total memory (fixed,
   so that two identical calls choose the same engine; what is free at call time is
   checked when the engine is built, which refuses with a clear error);
2. an exact engine over an approximate one;
3. on raw data, the one predicted fastest (:meth:`~kgroups._engines.engine.Engine.
   predicted_seconds`: each engine's cost model of a fit from raw data, ``inf`` where
   it is never the choice, none for an engine without a model);
4. the one made for the narrowest set of inputs (a sparse matrix goes to the engine
   that holds sparse matrices, not to one that would densify it);
5. the first in the registry's order.

An engine "can run" an input when the input's array kind, its form (raw data, a dense
or a sparse matrix) and its semimetric are among the engine's capabilities and the
engine is available (a device, an extra installed).
"""

from __future__ import annotations

import math

from .._memory import MEMORY_FRACTION, total_memory
from .._semimetrics import DATA_BUILT
from .._validation import EngineNames, InvalidParameterError
from . import registry

# An engine is a candidate of "auto" when HEADROOM times its memory estimate is within
# MEMORY_FRACTION of the machine's total memory.
HEADROOM = 1.5


def input_form(precomputed, sparse_input, features=False):
    """The form of ``X`` as :data:`~kgroups._engines.engine.INPUTS` names it (``features``:
    the feature columns of a semimetric built from the data)."""
    if features:
        return "feature columns"
    if not precomputed:
        return "raw data"
    return "sparse matrix" if sparse_input else "dense matrix"


def engine_for(name, semimetric):
    """``name`` where that engine takes points in memory with ``semimetric``, else auto."""
    if name == "auto":
        return name
    caps = registry.engine_class(name).capabilities
    form = input_form(False, False, isinstance(semimetric, str) and semimetric in DATA_BUILT)
    return name if caps.array_kind == "numpy" and caps.takes(form, semimetric) else "auto"


def candidate_engines(name, owner):
    """``{semimetric: engine}`` of the candidates of ``semimetric="auto"`` for
    ``engine=name``: ``name`` for each candidate it runs, ``"auto"`` for the other;
    refused by name where it runs neither."""
    out = {s: engine_for(name, s) for s in ("energy", "nearest_neighbors")}
    if name != "auto" and name not in out.values():
        raise InvalidParameterError(
            f"{owner}: semimetric='auto' chooses between 'energy' and 'nearest_neighbors' on "
            f"point data, and engine={name!r} runs neither; use engine='auto', or name the "
            "semimetric")
    return out


def _fits(cls, n_samples, n_features, n_clusters, n_init, dtype, options):
    need = cls.memory_bytes(n_samples, n_features, n_clusters=n_clusters, n_init=n_init,
                            dtype=dtype, options=options)
    return HEADROOM * need <= MEMORY_FRACTION * total_memory(), need


def choose_engine(name, n_samples, precomputed, sparse_input, dtype, semimetric="energy",
                  n_features=None, *, n_clusters, n_init=1, input_kind="numpy",
                  owner="KernelKGroups", options=None, features=False):
    """``(engine class, why)`` for ``engine=name``; ``"auto"`` as the module docstring
    says. The choice depends only on the arguments, so two identical calls choose the
    same engine. ``n_init`` is the number of starts the fit runs (1 for given labels);
    ``features``: X is the feature columns of a semimetric built from the data;
    ``n_features=None`` counts as 1; ``options`` are the engines' options
    (``n_components``) their memory estimates read."""
    if name != registry.AUTO:
        cls = registry.engine_class(name)
        if input_kind not in cls.capabilities.array_kinds:
            what = {"dask": "a dask collection",
                    "cuda": "an array on a CUDA device"}.get(input_kind, f"{input_kind} data")
            raise InvalidParameterError(
                f"{owner}: X is {what} and engine={name!r} takes "
                f"{' or '.join(cls.capabilities.array_kinds)} arrays; use engine='auto' or "
                f"{_quoted(registry.names_for(input_kind))}"
                + (", or pass X.compute() for an in-memory engine" if input_kind == "dask"
                   else ""))
        return cls, "asked for"
    form, d = input_form(precomputed, sparse_input, features), n_features or 1
    ranked, notes = [], []
    for order, (ename, cls) in enumerate(registry.engines().items()):
        caps = cls.capabilities
        if input_kind not in caps.array_kinds or not caps.takes(form, semimetric):
            continue
        ok, need = _fits(cls, n_samples, d, n_clusters, n_init, dtype, options)
        if not ok:
            notes.append(f"{ename} needs {need / 2**30:.2f} GiB (x{HEADROOM:g}), over "
                         f"{MEMORY_FRACTION:.0%} of the total memory "
                         f"({total_memory() / 2**30:.1f} GiB)")
        t = (cls.predicted_seconds(n_samples, d, n_clusters=n_clusters, n_init=n_init)
             if form == "raw data" else None)
        key = (not ok, not caps.exact_for(form), math.inf if t is None else t, len(caps.inputs),
               order)
        ranked.append((key, ename, cls, t))
    if not ranked:
        raise InvalidParameterError(
            f"{owner}: no engine takes {form} with semimetric={semimetric!r} as "
            f"{input_kind} arrays on this machine")
    ranked.sort(key=lambda r: r[0])
    # whether a device is there is asked last, of the best engines only (asking may
    # import the device's libraries)
    _, ename, cls, t = next((r for r in ranked if r[2].available()), ranked[0])
    why = [f"auto: {ename}"] + ([f"of the {len(ranked)} engines that take {form}"]
                                if len(ranked) > 1 else [f"the only engine for {form}"])
    timed = [f"{e} {s:.3g} s" for _, e, _, s in ranked if s is not None and math.isfinite(s)]
    if len(timed) > 1:
        why.append(f"predicted {', '.join(timed)} (n={n_samples}, D={d}, n_init={n_init})")
    return cls, "; ".join(why + notes)


def select_engine(name, n_samples, precomputed, sparse_input, dtype, semimetric="energy",
                  n_features=None, *, n_clusters, n_init=1, input_kind="numpy"):
    """The engine class for ``engine=name``; see :func:`choose_engine`."""
    return choose_engine(name, n_samples, precomputed, sparse_input, dtype, semimetric,
                         n_features, n_clusters=n_clusters, n_init=n_init,
                         input_kind=input_kind)[0]


def _quoted(names):
    return " or ".join(f"engine={n!r}" for n in names)


def _trimming():
    """The in-memory engines that run the trimmed rules (``noise``)."""
    return [n for n, cls in registry.engines().items()
            if cls.capabilities.array_kind == "numpy" and "trimmed" in cls.capabilities.rules]


def _takers(form, semimetric, *, exact=None):
    """The engines that take ``form`` with ``semimetric`` (in-memory arrays)."""
    return [n for n, cls in registry.engines().items()
            if cls.capabilities.array_kind == "numpy" and cls.capabilities.takes(form, semimetric)
            and (exact is None or cls.capabilities.exact == exact)]


def check_engine_input(name, n_samples, *, kernel, semimetric, sparse_input, n_clusters,
                       n_components=256, landmarks="k-means++", owner="KernelKGroups",
                       init=None, rule="hartigan"):
    """Refuse, with a ValueError naming the value and what is expected, an engine that
    cannot hold this input or run this fit (called once ``"auto"`` is resolved, before
    any work). ``kernel`` is ``None`` or ``"precomputed"``; ``semimetric`` may be
    ``"precomputed"`` (X is an n x n semimetric matrix); ``init`` is the named start or
    labels, ``rule`` the move rule of the estimator (``"trimmed"`` or
    ``"concentration"`` with ``noise``)."""
    cls = registry.engine_class(name)
    caps = cls.capabilities
    if rule not in caps.rules and rule in ("trimmed", "concentration"):
        raise InvalidParameterError(
            f"{owner}: engine={name!r} does not set points aside (noise): the trimmed "
            f"search needs an engine that gives kernel columns; use noise=None, or an "
            f"in-memory engine ({_quoted(_trimming())}) on X.compute() or a sample")
    if rule not in caps.rules:
        raise InvalidParameterError(
            f"{owner}: engine={name!r} is supported by KernelKGroups only (Hartigan's "
            f"rule); pass X.compute() for an in-memory {owner}")
    if isinstance(init, str) and init in cls.unavailable_inits:
        raise InvalidParameterError(
            f"{owner}: init={init!r} is not available with engine={name!r}; use "
            "'kernel-k-means++' or 'k-means++' (an in-memory fit of a sample), 'random' "
            "or an array of labels")
    precomputed = kernel == "precomputed" or semimetric == "precomputed"
    form = input_form(precomputed, sparse_input, not precomputed
                      and isinstance(semimetric, str) and semimetric in DATA_BUILT)
    if form not in caps.inputs and form == "feature columns":
        raise ValueError(
            f"{owner}: engine={name!r} does not take semimetric={semimetric!r}, whose kernel "
            f"is the Gram matrix of feature columns built from the data; use "
            f"{_quoted(_takers(form, semimetric))} or engine='auto'")
    what = ("a precomputed Gram matrix" if kernel == "precomputed" else
            "a precomputed semimetric matrix" if precomputed else
            f"raw data with semimetric={semimetric!r}")
    cls.check_input(semimetric=semimetric, kernel=kernel, sparse_input=sparse_input,
                    landmarks=landmarks, what=what, owner=owner)
    if form not in caps.inputs:
        if form == "raw data":
            raise ValueError(f"{owner}: engine={name!r} needs a precomputed matrix, got "
                             f"{what}; use {_quoted(_takers(form, semimetric))}")
        raise ValueError(f"{owner}: engine={name!r} needs raw data, got {what}; use "
                         f"{_quoted(_takers(form, semimetric))}")
    if form == "raw data" and not caps.takes(form, semimetric):
        if isinstance(semimetric, str):
            raise ValueError(
                f"{owner}: engine={name!r} approximates a positive semidefinite kernel (its "
                f"features span K = -rho/2 plus a base point, which needs a semimetric of "
                f"negative type) and semimetric={semimetric!r} is not of negative type: its "
                f"objective would be wrong; use "
                f"{_quoted(_takers(form, semimetric, exact=True))} (exact)")
        raise ValueError(
            f"{owner}: engine={name!r} needs a named semimetric, got a callable "
            f"semimetric={semimetric!r}; use {_quoted(_takers(form, semimetric))}")


# The parameter check of engine= (kgroups._validation) reads the names from the registry.
EngineNames.source = staticmethod(registry.names_for)
