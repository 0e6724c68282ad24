"""The result of :func:`~kgroups.choose_k`: :class:`ChooseKResult`."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field

import numpy as np

from .._errors import pyplot
from .._validation import InvalidParameterError, describe
from .constants import SPLIT_ALPHA, STRUCTURE_Z
from .trace import GRAPH_SHOWS, Trace, few, render

_CURVES = {  # criterion -> (curve attribute, error-bar attribute, y label)
    "gap": ("gap", "gap_se", "Gap(k) +- s_k"),
    "structure": ("structure_z", None, "(Gap(k) - Gap(1)) / sigma_k"),
    "prediction_strength": ("prediction_strength", "prediction_strength_se",
                            "prediction strength ps(k) +- se"),
    "silhouette": ("silhouette", None, "mean silhouette"),
    "eigengap": ("eigengap", None, "eigengap"),
    "split": ("split_p", None, "split test: k x smallest dip p-value"),
}
_GEOMETRIES = (("multimodal_axes", "multimodal axes "), ("standardized", "standardized "))


def curve(ks, values):
    """An array over ``ks`` with ``values`` (a dict k -> value) and NaN elsewhere."""
    return np.array([values.get(int(k), np.nan) for k in ks], dtype=np.float64)


@dataclass(repr=False)
class ChooseKResult:
    r"""What :func:`choose_k` returns: the chosen k, every curve computed, and why.

    Curves are NaN at the k a method did not need (the default stops where its rule decided).

    Attributes
    ----------
    k, method : int, str
        The chosen number of clusters and the method that chose it (``"auto"``: the default).
    k_values : ndarray of shape (n_k,)
        The k of the range, ascending; every curve below is an array over them.
    trace : Trace
        The decisions in order (``trace.steps``), each a ``Step``: its name, statistic, value
        (or values by k), threshold, outcome, a note where close, and the clause that decided.
    labels : ndarray of shape (n_samples,)
        Labels of the fit of the chosen k (of the rescaled data if ``geometry`` says so).
    semimetric : str or callable
        The semimetric of those labels (with ``semimetric="auto"``, the one chosen).
    geometry, rescaling : {"data", "multimodal axes", "standardized", "standardized within clusters"}, callable or None
        Where the default found k, and the map of X's rows there (None: X's own).
    rule, gap, gap_se, ref_log_w, within_energy : str, ndarray or None
        The gap statistic's rule, ``Gap(k)``, ``s_k``, ``log W*_kb`` of each reference; ``W_k``.
    cutoff, prediction_strength, prediction_strength_se, prediction_strength_runs
        Prediction strength's cutoff, mean, standard error and each test half's.
    silhouette, eigengap, eigenvalues : ndarray or None
        Weighted mean silhouette; ``lambda_(k+1) - lambda_k`` of the energy kernel's walk
        Laplacian (``"eigengap"``) or ``log(mu_(k+1) / mu_k)`` of the neighbourhood graph's.
    structure_z, split_p : ndarray or None
        The default's reference test (gain over one cluster in standard errors) and split test.
    multimodal_axes, standardized : ChooseKResult or None
        The default on the rescaled geometries, when X's own shows no structure.
    candidates, cuts : dict or None
        ``semimetric="auto"``: each candidate's result and the cuts the arbiter compared.
    at_top : bool
        The answer is the top of the range before the rule decided (a ``KRangeWarning``).
    sample : ndarray of int or None
        The rows the choice ran on: a sample of large data (the trace's ``samples`` and
        ``sample`` steps) or all but lone outliers (``outliers``).

    See Also
    --------
    choose_k : Makes it.

    References
    ----------
    .. [1] R. Tibshirani, G. Walther and T. Hastie, "Estimating the number of clusters in a
       data set via the gap statistic", J. R. Statist. Soc. B 63(2), 2001.

    Examples
    --------
    >>> import numpy as np
    >>> from kgroups import choose_k
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(c, 0.3, (30, 2)) for c in ([0, 0], [4, 0])])
    >>> r = choose_k(X, range(1, 7))
    >>> r  # doctest: +NORMALIZE_WHITESPACE
    ChooseKResult(k=2, method='auto', k_values=1..6, geometry='data',
                  curves=[silhouette(6,), split(6,)])
    >>> [s.step for s in r.trace.steps], np.bincount(r.labels).tolist()
    (['structure', 'silhouette', 'split'], [30, 30])
    """

    k: int
    method: str
    k_values: np.ndarray
    trace: Trace = field(default_factory=Trace)
    labels: np.ndarray | None = None
    semimetric: object = None
    geometry: str = "data"
    rescaling: object = None
    rule: str | None = None
    cutoff: float | None = None
    gap: np.ndarray | None = None
    gap_se: np.ndarray | None = None
    within_energy: np.ndarray | None = None
    ref_log_w: np.ndarray | None = None
    prediction_strength: np.ndarray | None = None
    prediction_strength_se: np.ndarray | None = None
    prediction_strength_runs: np.ndarray | None = None
    silhouette: np.ndarray | None = None
    eigengap: np.ndarray | None = None
    eigenvalues: np.ndarray | None = None
    structure_z: np.ndarray | None = None
    split_p: np.ndarray | None = None
    multimodal_axes: ChooseKResult | None = None
    standardized: ChooseKResult | None = None
    candidates: dict | None = None
    cuts: dict | None = None
    at_top: bool = False
    sample: np.ndarray | None = None

    def explain(self, sep="\n"):
        """The reasoning, one sentence per step joined by ``sep`` (a line each)."""
        return render(self.trace.steps, sep) + (f"{sep}{self.top_note}." if self.at_top else "")

    reasoning = property(lambda self: self.explain(" "), doc="The trace in words: which "
                         "steps decided, on what numbers (:meth:`explain`: a line each).")

    @property
    def top_note(self):
        """What an answer at the top of the range before the rule decided means."""
        shapes = self.semimetric == "energy" and self.candidates is None
        head = f"k={self.k} is the largest k of k_range and the rule had not decided there: "
        if shapes and any(s.short == GRAPH_SHOWS for s in self.trace.steps):
            return head + ("the structure is the neighbourhood graph's groups, which energy "
                           "cuts into ever more pieces: semimetric='auto' answers the groups; a "
                           "wider k_range gives more pieces")
        return head + "k may be larger than the range allows" + (
            ", or the clusters are shapes that energy cuts into ever more pieces "
            "(semimetric='auto' finds shapes)" if shapes else "") + "; widen k_range"

    def summary(self):
        """The choice in one line: k, the semimetric and the outcome of the last step of each
        kind (in words where it has a short form), with its numbers where few (not a curve).

        >>> r = ChooseKResult(2, "auto", np.arange(1, 4), semimetric="energy")
        >>> for k in (3, 2):
        ...     r.trace.add("split", "p by k", {k: 0.3}, 0.01, f"k={k}")
        >>> r.trace.add("arbiter", "cut", {"graph": 0.2}, 1.0, "a rule", short="energy")
        >>> r.summary()
        "k=2 with semimetric='energy' (split: k=2; arbiter: {graph: 0.2}: energy)"
        """
        last = {s.step: s for s in self.trace.steps if s.outcome}   # first place, last step
        steps = "; ".join(f"{s.step}: " + ("" if few(s.value) is None else few(s.value) + ": ")
                          + (s.short or s.outcome) for s in last.values())
        return f"k={self.k} with semimetric={self.semimetric!r}" + (steps and f" ({steps})")

    @property
    def criteria(self):
        """Names of the curves computed, in :meth:`plot`'s order (the rescaled geometries'
        after, prefixed with their name)."""
        own = [name for name, (attr, _, _) in _CURVES.items() if getattr(self, attr) is not None]
        for attr, prefix in _GEOMETRIES:
            own += [prefix + c for c in getattr(getattr(self, attr), "criteria", ())]
        return own

    def __repr__(self):
        ks = self.k_values
        span = f"{ks[0]}..{ks[-1]}" if ks.size == ks[-1] - ks[0] + 1 else ks.tolist()
        curves = ", ".join(f"{c}{getattr(self, _CURVES[c][0]).shape}" for c in self.criteria
                           if c in _CURVES)
        extra = "".join(f", {a}={getattr(self, a)!r}" for a in ("rule", "cutoff")
                        if getattr(self, a) is not None) + f", k_values={span}"
        extra += f", geometry={self.geometry!r}" if self.method == "auto" else ""
        return f"ChooseKResult(k={self.k}, method={self.method!r}{extra}, curves=[{curves}])"

    def plot(self, ax=None, criteria=None):
        """Draw each criterion (default: all of ``criteria``) against k, the chosen k marked,
        one panel each (``ax``: one Axes each; None: a new figure, the ``reasoning`` under the
        panels). Needs matplotlib.

        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> r = ChooseKResult(2, "gap", np.array([1, 2, 3]), gap=np.array([0.1, 0.9, 0.8]),
        ...                   gap_se=np.array([0.05, 0.05, 0.05]))
        >>> ax = r.plot()
        >>> ax.get_xlabel(), [float(t) for t in ax.get_xticks() if 1 <= t <= 3]
        ('k', [1.0, 2.0, 3.0])
        """
        plt = pyplot("ChooseKResult.plot")
        from matplotlib.ticker import MaxNLocator
        names = self.criteria if criteria is None else list(criteria)
        if not names or any(c not in self.criteria for c in names):
            raise InvalidParameterError(
                f"ChooseKResult.plot: criteria={describe(criteria)} should be a non-empty "
                f"list of the computed criteria {self.criteria}")
        fig, cols = None, min(len(names), 4)
        if ax is None:
            text = "\n".join(textwrap.fill(s, 50 * cols) for s in self.explain().split("\n"))
            rows, foot = -(-len(names) // cols), 0.17 * (text.count("\n") + 1)
            fig = plt.figure(figsize=(4.2 * cols, 3.4 * rows + foot))
            axes = [fig.add_subplot(rows, cols, i + 1) for i in range(len(names))]
            fig.text(0.01, 0.005, text, fontsize="small", va="bottom", ha="left")
        elif len(axes := list(np.ravel(np.asarray(ax, dtype=object)))) != len(names):
            raise InvalidParameterError(
                f"ChooseKResult.plot: got {len(axes)} Axes for {len(names)} criteria "
                f"{names}; pass one Axes per criterion, or criteria=[...]")
        for a, name in zip(axes, names):
            geo, prefix = next((g for g in _GEOMETRIES if name.startswith(g[1])), (None, ""))
            owner, short = getattr(self, geo) if geo else self, name[len(prefix):]
            attr, err, label = _CURVES[short]
            a.errorbar(owner.k_values, getattr(owner, attr), fmt="o-",
                       yerr=getattr(owner, err) if err else None)
            line = {"prediction_strength": self.cutoff, "structure": STRUCTURE_Z,
                    "split": SPLIT_ALPHA}.get(short)
            if line is not None:
                a.axhline(line, color="0.5", linestyle=":", label=f"threshold {line:g}")
            a.set_yscale("log" if short == "split" else "linear")
            a.axvline(self.k, color="C3", linestyle="--", label=f"chosen k = {self.k}")
            a.set(xlabel="k", ylabel=label, title=name.replace("_", " ") + (
                f" ({owner.rule})" if short == "gap" and owner.rule else ""))
            a.xaxis.set_major_locator(MaxNLocator(integer=True))  # k is a whole number
            a.legend(fontsize="small")
        if fig is not None:
            fig.tight_layout(rect=(0, foot / (3.4 * rows + foot), 1, 1))
        return axes[0] if len(axes) == 1 else np.array(axes, dtype=object)
