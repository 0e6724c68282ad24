"""The front door: one table of parameter constraints, and the checks that share its rules.

Every public callable of kgroups (estimators and functions) is described once in
:data:`PARAMETER_CONSTRAINTS`, keyed by its public name, and checked by
:func:`validate_params` (estimators call it in ``fit``; functions are wrapped by
:func:`validated`). An error names the callable, the parameter, the value and
what was expected, and is an :class:`InvalidParameterError` (both a
``ValueError`` and a ``TypeError``, so either ``except`` catches it).

Here are the rules the whole code base shares: the constraint classes (one
integer rule, :class:`Integer`) and one symmetry tolerance (:data:`SYMMETRY_RTOL`)
of precomputed semimetric and Gram matrices (:func:`check_precomputed`,
:func:`check_semimetric_matrix`), with :func:`check_n_clusters`. The rest of the
front door has a module per role, and the package imports all of it from here:
the errors and their words (:mod:`kgroups._errors`), the array checks of data,
weights and labels (:mod:`kgroups._arrays`: :func:`check_data`,
:func:`check_sample_weight`, :func:`encode_labels`, :func:`check_init_labels`, ...),
random states (:mod:`kgroups._random_state`) and exact rescaling by powers of two
(:mod:`kgroups._scales`).
"""

from __future__ import annotations

import functools
import inspect
import numbers
from dataclasses import dataclass

import numpy as np

from ._arrays import (  # noqa: F401  (the names the rest of the package imports)
    check_data,
    check_finite,
    check_in_memory,
    check_init_labels,
    check_init_starts,
    check_numeric_columns,
    check_sample_weight,
    encode_labels,
    integral_labels,
    is_dask_collection,
    is_device_array,
    label_array,
    text_as_numbers,
)
from ._errors import (  # noqa: F401  (the names the rest of the package imports)
    LIKELY_MEANT,
    InvalidParameterError,
    describe,
    did_you_mean,
    named_init,
    signature_error,
)
from ._random_state import as_random_state, as_seed, uniform_sample  # noqa: F401
from ._scales import SAFE_MAGNITUDE, pow2_scale, pow2_weight_scale  # noqa: F401
from ._sparse import issparse

# Relative tolerance of every symmetry (and zero-diagonal) check of a matrix.
SYMMETRY_RTOL = 1e-10


# --------------------------------------------------------------------------- constraints
@dataclass(frozen=True)
class Integer:
    """An integral number (numpy integers too; not bool, not 2.0) in ``[low, high]``."""

    low: int | None = None
    high: int | None = None

    def __call__(self, v):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Integral):
            return False
        return (self.low is None or v >= self.low) and (self.high is None or v <= self.high)

    def __str__(self):
        if self.low is not None and self.high is not None:
            return f"an integer in [{self.low}, {self.high}]"
        if self.low is not None:
            return f"an integer >= {self.low}"
        return "an integer" if self.high is None else f"an integer <= {self.high}"


@dataclass(frozen=True)
class Real:
    """A finite real number (integers too, not bool) in an interval."""

    low: float | None = None
    high: float | None = None
    closed: str = "both"  # "both", "left", "right" or "neither"

    def __call__(self, v):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (numbers.Integral, float,
                                                                np.floating)):
            return False            # a Fraction or Decimal is not a number numpy computes with
        try:
            if not np.isfinite(float(v)):
                return False
        except OverflowError:       # an integer beyond float64
            return False
        lo_ok = self.low is None or (v >= self.low if self.closed in ("both", "left")
                                     else v > self.low)
        hi_ok = self.high is None or (v <= self.high if self.closed in ("both", "right")
                                      else v < self.high)
        return lo_ok and hi_ok

    def __str__(self):
        if self.low is None and self.high is None:
            return "a finite number"
        if self.high is None:
            return f"a number {'>=' if self.closed in ('both', 'left') else '>'} {self.low}"
        if self.low is None:
            return f"a number {'<=' if self.closed in ('both', 'right') else '<'} {self.high}"
        left = "[" if self.closed in ("both", "left") else "("
        right = "]" if self.closed in ("both", "right") else ")"
        return f"a number in {left}{self.low}, {self.high}{right}"


@dataclass(frozen=True)
class Options:
    """One of a fixed set of strings."""

    values: tuple

    def __call__(self, v):
        return isinstance(v, str) and v in self.values

    def __str__(self):
        return quoted_choices(self.values)


def quoted_choices(values):
    """The words of a choice among strings: ``'auto'`` for one, ``one of 'a', 'b',
    'c'`` for several.

    >>> quoted_choices(("auto",)), quoted_choices(("a", "b"))
    ("'auto'", "one of 'a', 'b'")
    """
    names = [repr(v) for v in values]
    return names[0] if len(names) == 1 else "one of " + ", ".join(names)


def expected(rules):
    """What a parameter with constraints ``rules`` (any of which may hold) should be,
    in words: the one text every error of a parameter's value gives.

    >>> expected(PARAMETER_CONSTRAINTS["KernelKGroups"]["n_clusters"])
    "'auto' or an integer >= 1"
    """
    return " or ".join(str(rule) for rule in rules)


class EngineNames:
    """One of the engine names of the registry (:mod:`kgroups._engines.registry`), or
    ``"auto"``; with ``array_kind``, only the engines that take that kind of array.
    The registry gives the names: ``EngineNames.source`` is its ``names_for``, set when
    :mod:`kgroups._engines.select` is imported (every estimator imports it)."""

    source = None  # array_kind or None -> the names (kgroups._engines.registry.names_for)

    def __init__(self, array_kind=None):
        self.array_kind = array_kind

    @property
    def values(self):
        return ("auto",) + tuple(EngineNames.source(self.array_kind))

    def __call__(self, v):
        return isinstance(v, str) and v in self.values

    def __str__(self):
        return quoted_choices(self.values)


@dataclass(frozen=True)
class _Kind:
    test: object
    text: str

    def __call__(self, v):
        return self.test(v)

    def __str__(self):
        return self.text


def _is_array_like(v):
    return (issparse(v) or isinstance(v, np.ndarray)
            or (hasattr(v, "__len__") and not isinstance(v, (str, bytes, dict)))
            or hasattr(v, "__array__"))


NONE = _Kind(lambda v: v is None, "None")
BOOLEAN = _Kind(lambda v: isinstance(v, (bool, np.bool_)), "a boolean")
CALLABLE = _Kind(callable, "a callable")
ARRAY = _Kind(_is_array_like, "array-like")
RANDOM_STATE = _Kind(
    lambda v: v is None or (Integer(0, 2**32 - 1)(v))
    or isinstance(v, (np.random.RandomState, np.random.Generator)),
    "None, an integer in [0, 2**32 - 1], a numpy RandomState or Generator")
PATH = _Kind(lambda v: isinstance(v, (str, bytes)) or hasattr(v, "__fspath__"), "a file path")
ANY = _Kind(lambda v: True, "anything")

SEMIMETRIC_NAMES = ("energy", "laplacian", "gaussian", "localized", "sinusoidal")
# How the numerical kernels run (kgroups.set_config(kernels=...)).
KERNEL_MODES = ("auto", "compiled", "python")
INIT_NAMES = ("k-means++", "kernel-k-means++", "random", "spectral")

# Shared groups of constraints (parameters with one meaning everywhere).
_SEMIMETRIC = {
    "semimetric": [Options(SEMIMETRIC_NAMES + ("precomputed",)), CALLABLE],
    "alpha": [Real(0, 2, "right")],
    "sigma": [Real(0, None, "neither")],
    "theta": [Real(0, None, "neither")],
}
_WEIGHT = [NONE, ARRAY, Real(0, None, "neither")]
_N_CLUSTERS = [Integer(1)]
# A graph: networkx graph, adjacency matrix, GraphData or path; its content is checked
# by kgroups.graph.as_adjacency (square, finite, non-negative, readable file, ...).
_GRAPH = [_Kind(lambda v: ((hasattr(v, "adj") and hasattr(v, "nodes")) or hasattr(v, "adjacency")
                           or issparse(v) or isinstance(v, (np.ndarray, str, bytes))
                           or hasattr(v, "__fspath__")),
                "a networkx graph, a scipy.sparse or NumPy adjacency matrix, a GraphData or "
                "a path to an edge list / GML file (not a list: it could be a matrix or a "
                "list of edges; pass np.asarray(...) or a networkx graph)")]
_R = [Options(("sqrt-mean-degree", "zeta")), Real(0, 1e150, "neither")]  # r^2 in float64
# Edge weights of a graph: the networkx edge attribute holding them (default "weight",
# an edge without it weighs 1), or None (unweighted).
_EDGE_WEIGHT = [NONE, _Kind(lambda v: isinstance(v, str), "a string (an edge attribute name)")]

# The semimetrics built from the data, and "auto" (kgroups._semimetrics.neighbors and
# .auto): estimators only, the energy statistics take closed-form semimetrics.
DATA_SEMIMETRIC_NAMES = ("nearest_neighbors", "auto")

_ESTIMATOR = {
    "n_clusters": _N_CLUSTERS,
    **_SEMIMETRIC,
    "semimetric": [Options(SEMIMETRIC_NAMES + ("precomputed",) + DATA_SEMIMETRIC_NAMES),
                   CALLABLE],
    "n_neighbors": [Integer(1)],
    "kernel": [NONE, Options(("precomputed",))],
    "init": [Options(INIT_NAMES), ARRAY],
    "n_init": [Options(("auto",)), Integer(1)],
    "max_iter": [Integer(1)],
    "tol": [Real(0, 1, "left")],
    "engine": [EngineNames()],
    "dtype": [Options(("auto", "float64", "float32")),
              _Kind(lambda v: isinstance(v, (type, np.dtype)) and v in (np.float64, np.float32),
                    "a numpy float64 or float32 type or dtype")],
    "n_components": [Integer(1)],
    "landmarks": [Options(("k-means++", "uniform", "fourier"))],
    "random_state": [RANDOM_STATE],
    "verbose": [Integer(0), BOOLEAN],
    # the share of the total weight that may be set aside (label -1), "auto", or None
    "noise": [NONE, Options(("auto",)), Real(0, 0.5, "left")],
}

_COMMUNITY = {
    "n_clusters": [NONE, Integer(1)],
    "r": _R,
    "weight": _EDGE_WEIGHT,
    "weights": [Options(("none", "degree"))],
    "init": [Options(("bethe", "random")), ARRAY],
    "n_init": [Integer(1)],
    "max_k": [Integer(1)],
    "max_iter": [Integer(1)],
    "tol": [Real(0, 1, "left")],
    "kmeans_n_init": [Integer(1)],
    "random_state": [RANDOM_STATE],
    "verbose": [Integer(0), BOOLEAN],
}

# The table: public name -> {parameter: [constraints, any of which may hold]}.
PARAMETER_CONSTRAINTS = {
    # estimators and their function forms
    # n_clusters="auto": the fit chooses k (and with semimetric="auto" the semimetric)
    "KernelKGroups": {**_ESTIMATOR, "n_clusters": [Options(("auto",))] + _N_CLUSTERS},
    "KernelKMeans": {**_ESTIMATOR, "n_clusters": [Options(("auto",))] + _N_CLUSTERS},
    "kernel_kgroups": {"X": [ARRAY], "n_clusters": _N_CLUSTERS, "sample_weight": _WEIGHT,
                       **_ESTIMATOR},
    "kernel_kmeans": {"X": [ARRAY], "n_clusters": _N_CLUSTERS, "sample_weight": _WEIGHT,
                      **_ESTIMATOR},
    "improving_moves": {"X": [ARRAY], "labels": [ARRAY], "sample_weight": _WEIGHT,
                        **_ESTIMATOR,
                        "engine": [EngineNames("numpy")]},
    "spectral_kgroups": {"G": [ARRAY], "n_clusters": _N_CLUSTERS, "sample_weight": _WEIGHT,
                         "random_state": [RANDOM_STATE], "n_init": [Integer(1)],
                         "eigen_solver": [Options(("auto", "dense", "arpack"))]},
    "spectral_embedding": {"G": [ARRAY], "n_clusters": _N_CLUSTERS, "sample_weight": _WEIGHT,
                           "random_state": [RANDOM_STATE],
                           "eigen_solver": [Options(("auto", "dense", "arpack"))]},
    "kernel_from_semimetric_x0": {"rho_matrix": [ARRAY], "rho_to_x0": [ARRAY]},
    "onedim_kgroups": {"x": [ARRAY], "sample_weight": _WEIGHT},
    "choose_k": {"X": [ARRAY], "k_range": [NONE, ARRAY],
                 "method": [Options(("auto", "gap", "prediction_strength", "silhouette",
                                     "eigengap"))],
                 "rule": [NONE, Options(("firstSEmax", "Tibs2001SEmax", "globalSEmax",
                                         "firstmax", "globalmax"))],
                 "se_factor": [Real(0, None)], "cutoff": [Real(0, 1, "right")],
                 "semimetric": [Options(SEMIMETRIC_NAMES + DATA_SEMIMETRIC_NAMES), CALLABLE],
                 **{p: c for p, c in _SEMIMETRIC.items() if p != "semimetric"},
                 "n_neighbors": [Integer(1)],
                 "n_refs": [Integer(1)], "reference": [Options(("pca", "box", "moments"))],
                 "n_splits": [Integer(1)],
                 "sample_weight": _WEIGHT, "n_init": [Integer(1)],
                 "engine": [EngineNames("numpy")],
                 "random_state": [RANDOM_STATE]},
    "EnergyHierarchical": {"n_clusters": [NONE, Integer(1)],
                           "distance_threshold": [NONE, Real(0, None)], **_SEMIMETRIC},
    "energy_hclust": {"X": [ARRAY], "n_clusters": [NONE, Integer(1)], "sample_weight": _WEIGHT,
                      "distance_threshold": [NONE, Real(0, None)], **_SEMIMETRIC},
    # energy statistics
    "disco": {"X": [ARRAY], "labels": [ARRAY], **_SEMIMETRIC, "n_permutations": [Integer(0)],
              "random_state": [RANDOM_STATE]},
    "energy_distance": {"X": [ARRAY], "Y": [ARRAY], **_SEMIMETRIC,
                        "sample_weight_x": _WEIGHT, "sample_weight_y": _WEIGHT},
    "g": {"X": [ARRAY], "Y": [NONE, ARRAY], **_SEMIMETRIC, "sample_weight_x": _WEIGHT,
          "sample_weight_y": _WEIGHT, "precomputed": [BOOLEAN]},
    "within_energy": {"X": [ARRAY], "labels": [ARRAY], **_SEMIMETRIC,
                      "sample_weight": _WEIGHT, "precomputed": [BOOLEAN]},
    "between_energy": {"X": [ARRAY], "labels": [ARRAY], **_SEMIMETRIC,
                       "sample_weight": _WEIGHT, "precomputed": [BOOLEAN]},
    "total_energy": {"X": [ARRAY], **_SEMIMETRIC, "sample_weight": _WEIGHT,
                     "precomputed": [BOOLEAN]},
    "energy_test": {"samples": [ARRAY], "n_permutations": [Integer(0)], **_SEMIMETRIC,
                    "random_state": [RANDOM_STATE]},
    "rho_to_origin": {"X": [ARRAY], **_SEMIMETRIC,
                      "semimetric": [Options(SEMIMETRIC_NAMES), CALLABLE]},
    "pairwise": {"X": [ARRAY], "Y": [NONE, ARRAY], **_SEMIMETRIC, "out": [NONE, ARRAY],
                 "center": [NONE, ARRAY], "scale": [Real()], "wx": [NONE, ARRAY],
                 "wy": [NONE, ARRAY]},
    # graphs
    "CommunityKGroups": _COMMUNITY,
    "detect_communities": {"graph": _GRAPH, **_COMMUNITY},
    "estimate_k": {"graph": _GRAPH, "r": _R, "weight": _EDGE_WEIGHT, "max_k": [Integer(1)],
                   "random_state": [RANDOM_STATE]},
    "bethe_hessian": {"graph": _GRAPH, "r": _R, "weight": _EDGE_WEIGHT},
    "bethe_spectral": {"graph": _GRAPH, "n_clusters": _N_CLUSTERS, "r": _R,
                       "weight": _EDGE_WEIGHT,
                       "n_init": [Integer(1)], "random_state": [RANDOM_STATE]},
    "read_graph": {"path": [PATH], "label": [NONE, _Kind(lambda v: isinstance(v, str),
                                                         "a string")],
                   "delimiter": [NONE, _Kind(lambda v: isinstance(v, str) and len(v) == 1,
                                             "a one-character string")],
                   "header": [NONE, BOOLEAN], "directed": [BOOLEAN], "weight": _EDGE_WEIGHT},
    "as_adjacency": {"graph": _GRAPH, "label": [NONE, _Kind(lambda v: isinstance(v, str),
                                                            "a string")],
                     "weight": _EDGE_WEIGHT},
    "stochastic_block_model": {"n": [Integer(1)], "n_clusters": [Integer(2)],
                               "d": [Real(0, None, "neither")], "lam": [Real(0, None)],
                               "balanced": [BOOLEAN], "random_state": [RANDOM_STATE]},
    "girvan_newman_benchmark": {"lam": [Real(0, None)], "balanced": [BOOLEAN],
                                "random_state": [RANDOM_STATE]},
    "modularity": {"graph": _GRAPH, "labels": [ARRAY], "resolution": [Real(0, None)],
                   "weight": _EDGE_WEIGHT},
    "coverage": {"graph": _GRAPH, "labels": [ARRAY]},
    "performance": {"graph": _GRAPH, "labels": [ARRAY]},
    "partition_quality": {"graph": _GRAPH, "labels": [ARRAY]},
    # settings (kgroups._config)
    "set_config": {"kernels": [NONE, Options(KERNEL_MODES)]},
    "config_context": {"kernels": [NONE, Options(KERNEL_MODES)]},
    "get_config": {},
    # metrics
    "accuracy": {"labels_true": [ARRAY], "labels_pred": [ARRAY]},
    "overlap": {"labels_true": [ARRAY], "labels_pred": [ARRAY]},
    "nmi": {"labels_true": [ARRAY], "labels_pred": [ARRAY]},
    "ari": {"labels_true": [ARRAY], "labels_pred": [ARRAY], "sample_weight": _WEIGHT},
}


def validate_params(owner, params, table=None):
    """Check ``params`` (name -> value) against ``table`` (default
    ``PARAMETER_CONSTRAINTS[owner]``; an estimator passes its class's
    ``_parameter_constraints``).

    Every name must be in the table: an unknown name is a programming error of
    kgroups (a KeyError), never silently passed.

    Examples
    --------
    >>> validate_params("KernelKGroups", {"n_init": 3})
    >>> validate_params("KernelKGroups", {"max_iter": 0})
    Traceback (most recent call last):
    ...
    kgroups.exceptions.InvalidParameterError: KernelKGroups: max_iter=0 should be an integer >= 1
    """
    table = PARAMETER_CONSTRAINTS[owner] if table is None else table
    for name, value in params.items():
        rules = table[name]
        if not any(rule(value) for rule in rules):
            raise InvalidParameterError(
                f"{owner}: {name}={describe(value)} should be {expected(rules)}")


class ConstrainedParams:
    """Mixin of the estimators: their parameter constraints live on the class
    (``_parameter_constraints``, ``{parameter: [rules]}``, as scikit-learn's), so a
    subclass inherits them (and may extend them: ``{**Base._parameter_constraints,
    "new": [...]}``); errors name the subclass (:meth:`_owner`)."""

    _parameter_constraints: dict = {}

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls.__init__ = named_init(cls, getattr(cls.__init__, "__wrapped__", cls.__init__))

    def _owner(self):
        """The name errors give the estimator: its class's."""
        return type(self).__name__

    def _validate_params(self):
        validate_params(self._owner(), self.get_params(deep=False),
                        type(self)._parameter_constraints)


def validated(func):
    """Decorator: check a public function's arguments against its row of the table.

    ``**params`` are checked under their own names; ``*samples`` each under the
    name of the star argument.
    """
    sig = inspect.signature(func)
    owner = func.__name__
    star = {p.name: p.kind for p in sig.parameters.values()
            if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)}

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            bound = sig.bind(*args, **kwargs)
        except TypeError as exc:
            raise InvalidParameterError(f"{owner}: {signature_error(exc, sig, kwargs)}") from None
        flat = {}
        for name, value in bound.arguments.items():
            if star.get(name) == inspect.Parameter.VAR_KEYWORD:
                unknown = set(value) - set(PARAMETER_CONSTRAINTS[owner])
                if unknown:
                    raise InvalidParameterError(
                        f"{owner}: unexpected parameter(s) {sorted(unknown)}"
                        f"{did_you_mean(sorted(unknown)[0], PARAMETER_CONSTRAINTS[owner])}; "
                        f"expected some of {sorted(PARAMETER_CONSTRAINTS[owner])}")
                flat.update(value)
            elif star.get(name) == inspect.Parameter.VAR_POSITIONAL:
                for v in value:
                    validate_params(owner, {name: v})
            else:
                flat[name] = value
        validate_params(owner, flat)
        try:
            return func(*args, **kwargs)
        except InvalidParameterError as exc:  # raised by a callee: say who was called
            if str(exc).startswith(f"{owner}:"):
                raise
            raise InvalidParameterError(f"{owner}: {exc}") from None

    return wrapper


# ----------------------------------------- the two rules on arrays: integer, symmetric
def check_n_clusters(n_clusters, n_samples, owner="KernelKGroups", name="n_clusters"):
    """``1 <= n_clusters <= n_samples`` as an integer."""
    if not Integer(1)(n_clusters):
        raise InvalidParameterError(
            f"{owner}: {name}={describe(n_clusters)} should be an integer >= 1")
    if n_samples < n_clusters:
        raise InvalidParameterError(
            f"{owner}: n_samples={n_samples} should be >= {name}={n_clusters}")
    return int(n_clusters)


def check_semimetric_matrix(arr, what):
    """Refuse semimetric values ``arr`` (n x n, of points against themselves) that are
    not symmetric or not 0 on the diagonal, to :data:`SYMMETRY_RTOL` of the largest
    value; ``what`` names who produced them."""
    if not arr.size:
        return
    tol = SYMMETRY_RTOL * max(float(np.abs(arr).max()), 1e-300)
    gap = abs(arr - arr.T)
    if gap.max() > tol:
        i, j = (int(t) for t in np.unravel_index(int(np.argmax(gap)), gap.shape))
        raise InvalidParameterError(
            f"{what} is not symmetric: rho(x_{i}, x_{j}) = {float(arr[i, j])!r} but "
            f"rho(x_{j}, x_{i}) = {float(arr[j, i])!r}; a semimetric satisfies "
            "rho(x, y) = rho(y, x)")
    diag = np.abs(np.diagonal(arr))
    if diag.max() > tol:
        i = int(np.argmax(diag))
        raise InvalidParameterError(
            f"{what} gives rho(x_{i}, x_{i}) = {float(arr[i, i])!r}; a semimetric is 0 "
            "between a point and itself")


# rows of a block of the symmetry check of a dense matrix (the block and the matching
# columns stay in cache)
SYMMETRY_BLOCK = 128


def _max_asymmetry(A):
    """``(max |A[i, j] - A[j, i]|, i, j)`` of a square matrix, dense or sparse; the
    upper triangle of a dense one is compared with the lower, a block of rows at a
    time, without an n x n temporary."""
    if issparse(A):
        diff = abs(A - A.T).tocoo()
        if not diff.nnz:
            return 0.0, 0, 0
        t = int(np.argmax(diff.data))
        return float(diff.data[t]), int(diff.row[t]), int(diff.col[t])
    worst, at = 0.0, (0, 0)
    for a in range(0, A.shape[0], SYMMETRY_BLOCK):
        d = A[a:a + SYMMETRY_BLOCK, a:] - A[a:, a:a + SYMMETRY_BLOCK].T
        np.abs(d, out=d)
        t = int(np.argmax(d))
        if d.flat[t] > worst:
            worst, at = float(d.flat[t]), (a + t // d.shape[1], a + t % d.shape[1])
    return worst, int(at[0]), int(at[1])


def check_precomputed(A, kind, owner="KernelKGroups", name="X"):
    """A precomputed ``kind="semimetric"`` or ``"gram"`` matrix, dense or sparse, as float64.

    Both: square, finite, symmetric to :data:`SYMMETRY_RTOL` of the largest
    entry. A semimetric also: non-negative and a zero diagonal (same tolerance).
    """
    what = "Gram matrix" if kind == "gram" else "semimetric matrix"
    try:
        if issparse(A):
            import scipy.sparse as sp  # already loaded: A is one of its matrices

            A = sp.csr_matrix(A, dtype=np.float64)
        else:
            A = np.asarray(A, np.float64)
    except (TypeError, ValueError):
        raise InvalidParameterError(
            f"{owner}: {name}={describe(A)} should be a numeric precomputed {what}") from None
    if A.ndim != 2 or A.shape[0] != A.shape[1] or A.shape[0] == 0:
        raise InvalidParameterError(
            f"{owner}: a precomputed {what} should be square (n_samples, n_samples), "
            f"got shape {A.shape}")
    data = A.data if issparse(A) else A
    # the extremes in two passes, no copy; a NaN or infinity makes them not finite
    lo, hi = (float(data.min()), float(data.max())) if data.size else (0.0, 0.0)
    if not (np.isfinite(lo) and np.isfinite(hi)):
        check_finite(A, name, owner)
    scale = max(abs(lo), abs(hi))
    if not np.isfinite(scale * float(A.shape[0]) ** 2):
        raise InvalidParameterError(
            f"{owner}: the precomputed {what} has entries of magnitude {scale:.3g}, whose "
            f"sums over the {A.shape[0]}^2 pairs overflow float64; divide {name} by a constant")
    tol = SYMMETRY_RTOL * max(scale, 1e-300)
    worst, i, j = _max_asymmetry(A)
    if worst > tol:
        raise InvalidParameterError(
            f"{owner}: the precomputed {what} should be symmetric, but "
            f"{name}[{i}, {j}]={float(A[i, j])!r} != {name}[{j}, {i}]={float(A[j, i])!r}")
    if kind == "semimetric":
        if data.size and lo < -tol:
            i, j = np.unravel_index(int(np.argmin(A.toarray() if issparse(A) else A)),
                                    A.shape)
            raise InvalidParameterError(
                f"{owner}: a precomputed semimetric matrix should be non-negative, got "
                f"{name}[{i}, {j}]={float(A[i, j])!r}")
        diag = A.diagonal()
        if np.any(abs(diag) > tol):
            i = int(np.argmax(abs(diag)))
            raise InvalidParameterError(
                f"{owner}: a precomputed semimetric matrix should have a zero diagonal "
                f"(rho(x, x) = 0), got {name}[{i}, {i}]={float(diag[i])!r}; for a kernel "
                "(Gram) matrix use kernel='precomputed'")
    return A
