r"""The result of :func:`~kgroups.choose_k`: :class:`ChooseKResult` (the chosen k, every
curve computed, the reasoning, the labels and a plot) and :class:`KRangeWarning`.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

import numpy as np

from .._errors import KRangeWarning  # noqa: F401  (the package imports it from here)
from .._validation import InvalidParameterError, describe

# the methods whose result names the geometry where k was found
GEOMETRY_METHODS = ("silhouette+split", "silhouette+gap", "gap+ps+sphered")
# the other geometries a result may hold: (attribute, prefix of its criteria, plot title)
_GEOMETRIES = (("standardized", "standardized ", "X standardized: "),
               ("sphered", "sphered ", "X sphered: "),
               ("multimodal_axes", "multimodal axes ", "multimodal axes of X sphered: "))
# the standard errors of the structure test (drawn on its curve): the methods before
# and the default's (silhouette+split; see kgroups._choose_k.structure)
STRUCTURE_Z = 3.0
DEFAULT_STRUCTURE_Z = 3.5
# the family-wise level of the split test (drawn on its curve)
SPLIT_ALPHA = 0.01
# the least agreement with the graph's groups of an answer of the default's fourth step
# (kgroups._choose_k.shapes; drawn on its curve)
AGREE_MIN = 0.1


# --------------------------------------------------------------------------- result
_CURVES = {  # criterion -> (attribute of the curve, attribute of its error bars, y label)
    "gap": ("gap", "gap_se", "Gap(k) +- s_k"),
    "structure": ("structure_z", None, "(Gap(k) - Gap(1)) / sigma_k"),
    "prediction_strength": ("prediction_strength", "prediction_strength_se",
                            "prediction strength ps(k) +- se"),
    "silhouette": ("silhouette", None, "mean silhouette"),
    "eigengap": ("eigengap", None, "eigengap lambda_(k+1) - lambda_k"),
    "split": ("split_p", None, "split test: k x smallest dip p-value"),
    "graph_agreement": ("graph_agreement", None, "ARI with the graph's groups"),
}


@dataclass(repr=False)
class ChooseKResult:
    r"""What :func:`choose_k` returns: the chosen k, every curve computed, and why.

    One instance per call; :func:`choose_k` fills it. With the default method, when
    the data's geometry shows no structure, ``multimodal_axes`` (and, when X
    sphered has no multimodal axis, ``standardized``) holds the criteria computed
    on those axes of X sphered whose projection is multimodal (on X with every
    column scaled to unit variance), and :meth:`plot` draws them too;
    ``"silhouette+gap"`` fills ``standardized``, then ``sphered``;
    ``"gap+ps+sphered"`` fills ``sphered`` only.
    Curves the method did not need at some k (the default stops where its rule
    has decided) are NaN there.

    The constructor takes the attributes below, by name (all but ``k``, ``method``
    and ``k_values`` optional).

    Attributes
    ----------
    k : int
        The chosen number of clusters.
    method : str
        The method of :func:`choose_k` that chose it.
    k_values : ndarray of shape (n_k,)
        The k of the range, ascending.
    reasoning : str
        Which rule chose k, from which candidates, and why.
    rule : str or None
        The gap statistic's decision rule, when the gap statistic was used.
    cutoff : float or None
        Prediction strength's cutoff, when prediction strength was used.
    gap, gap_se : ndarray of shape (n_k,) or None
        ``Gap(k)`` and ``s_k = sd_k sqrt(1 + 1/B)``.
    within_energy : ndarray of shape (n_k,) or None
        ``W_k`` of the data's fit for every k (gap statistic, silhouette).
    ref_log_w : ndarray of shape (n_refs, n_k) or None
        ``log W*_kb`` of each reference sample.
    prediction_strength, prediction_strength_se : ndarray of shape (n_k,) or None
        Mean prediction strength over the ``2 * n_splits`` test halves, and its
        standard error (sd / sqrt(number of halves)).
    prediction_strength_runs : ndarray of shape (2 * n_splits, n_k) or None
        Prediction strength of every test half.
    silhouette : ndarray of shape (n_k,) or None
        Weighted mean silhouette of the data's fit (NaN at k = 1).
    eigengap : ndarray of shape (n_k,) or None
        ``lambda_(k+1) - lambda_k``; for method ``"graph eigengap"``,
        ``log(mu_(k+1) / mu_k)`` of the neighbourhood graph's walk Laplacian.
    eigenvalues : ndarray of shape (max(k_values) + 1,) or None
        The smallest eigenvalues of ``L_rw``, ascending.
    labels : ndarray of shape (n_samples,)
        Labels of the fit with the chosen k (of the standardized or sphered data
        when ``geometry`` says so).
    sphered : ChooseKResult or None
        Methods ``"silhouette+gap"`` and ``"gap+ps+sphered"``, when the geometries
        tried before show no structure: the criteria of X sphered, with references
        uniform over the cube of unit variance (its own curves, reasoning, k and
        labels).
    geometry : {"data", "standardized", "sphered", "multimodal axes"}
        Where the chosen k was found.
    standardized : ChooseKResult or None
        Methods ``"silhouette+gap"`` and ``"silhouette+split"``, when the
        geometries tried before show no structure: the criteria of X with every
        column scaled to unit variance, with references uniform with its mean and
        covariance.
    structure_z : ndarray of shape (n_k,) or None
        Methods ``"silhouette+split"`` (k <= 5, when no dip test found modes; NaN
        past the first k above 3.5) and ``"silhouette+gap"``:
        :math:`(\mathrm{Gap}(k) - \mathrm{Gap}(1)) / \sigma_k`, the gain over one
        cluster in standard errors of the same gain on the reference samples; the k
        where it exceeds 3.5 (``"silhouette+gap"``: 3) show structure.
    split_p : ndarray of shape (n_k,) or None
        Method ``"silhouette+split"``: at each k whose partition was tested, k times
        the smallest dip p-value of its clusters' held-out halves (below 0.01: a
        cluster splits).
    multimodal_axes : ChooseKResult or None
        Method ``"silhouette+split"``, when X's geometry shows no structure and
        some axis of X sphered is multimodal: the criteria of X sphered restricted
        to its multimodal axes.
    at_top : bool
        The answer is the largest k of the range and the rule had not decided
        there (a :class:`~kgroups.exceptions.KRangeWarning` was issued).
    graph_k : int or None
        The default (``method="auto"`` with the energy semimetric), when it found
        structure in X's geometry: the number of groups of the neighbourhood graph
        (its eigengap), whose groups may be shapes that energy partitions cannot
        draw (the fourth step of the default in :doc:`/user_guide/choosing_k`).
    graph_agreement : ndarray of shape (n_k,) or None
        The default, when those groups are such shapes: the adjusted Rand index of
        each k's energy partition with the graph's groups (NaN where not computed);
        the chosen k has the largest.
    semimetric : str or callable
        The semimetric of the fits whose labels are ``labels``: the one asked
        for, or with ``semimetric="auto"`` the one chosen (``"energy"`` or
        ``"nearest_neighbors"``).
    candidates : dict or None
        ``semimetric="auto"``: each candidate semimetric's own result (its k,
        curves, labels and reasoning), by name.
    cuts : dict or None
        ``semimetric="auto"``: the normalised cut on the neighbourhood graph of
        the graph's groups and of the energy partition of as many clusters, by
        candidate name.
    sample : ndarray of int or None
        The rows of X the choice was made on, when the default point rule or the
        joint choice ran on a sample of large data
        (``kgroups._choose_k.sample.SAMPLE_N`` rows); None otherwise.

    See Also
    --------
    choose_k : Makes it.
    KernelKGroups : The fits that every criterion judges.

    References
    ----------
    .. [1] R. Tibshirani, G. Walther and T. Hastie, "Estimating the number of
       clusters in a data set via the gap statistic", J. R. Statist. Soc. B
       63(2), 411-423, 2001.
    .. [2] R. Tibshirani and G. Walther, "Cluster validation by prediction
       strength", J. Comput. Graph. Statist. 14(3), 511-528, 2005.
    .. [3] P. J. Rousseeuw, "Silhouettes: a graphical aid to the interpretation
       and validation of cluster analysis", J. Comput. Appl. Math. 20, 53-65, 1987.
    .. [4] G. França, M. L. Rizzo and J. T. Vogelstein, "Kernel k-groups via
       Hartigan's method", IEEE Trans. Pattern Anal. Mach. Intell. 43(12),
       4411-4425, 2021.
    .. [5] G. França, J. T. Vogelstein, "Nonparametric energy clustering" (ICML
       draft; arXiv version "Nonparametric Clustering from Energy Statistics"),
       section 5.2 and Fig. 5: the eigengap of the energy kernel.

    Examples
    --------
    >>> import numpy as np
    >>> from kgroups import choose_k
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(c, 0.3, (30, 2)) for c in ([0, 0], [4, 0])])
    >>> r = choose_k(X, range(1, 7), n_refs=4, random_state=0)
    >>> r  # doctest: +NORMALIZE_WHITESPACE
    ChooseKResult(k=2, method='silhouette+split', k_values=1..6, geometry='data',
                  curves=[silhouette(6,), split(6,)])
    >>> r.criteria, np.bincount(r.labels).tolist(), r.at_top
    (['silhouette', 'split'], [30, 30], False)
    """

    k: int
    method: str
    k_values: np.ndarray
    reasoning: str = ""
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
    labels: np.ndarray | None = None
    sphered: ChooseKResult | None = None
    geometry: str = "data"
    standardized: ChooseKResult | None = None
    structure_z: np.ndarray | None = None
    split_p: np.ndarray | None = None
    multimodal_axes: ChooseKResult | None = None
    at_top: bool = False
    graph_k: int | None = None
    graph_agreement: np.ndarray | None = None
    semimetric: object = None
    candidates: dict | None = None
    cuts: dict | None = None
    sample: np.ndarray | None = None

    @property
    def criteria(self):
        """Names of the curves computed, in the order :meth:`plot` draws them.

        Those of :attr:`standardized` and :attr:`sphered` follow, prefixed
        ``"standardized "`` and ``"sphered "``.
        """
        own = [name for name, (attr, _, _) in _CURVES.items() if getattr(self, attr) is not None]
        for attr, prefix, _ in _GEOMETRIES:
            other = getattr(self, attr)
            own += [prefix + c for c in other.criteria] if other is not None else []
        return own

    def __repr__(self):
        ks = self.k_values
        span = f"{ks[0]}..{ks[-1]}" if ks.size == ks[-1] - ks[0] + 1 else ks.tolist()
        curves = ", ".join(f"{c}{getattr(self, _CURVES[c][0]).shape}" for c in self.criteria
                           if c in _CURVES)
        extra = "".join(f", {a}={getattr(self, a)!r}" for a in ("rule", "cutoff")
                        if getattr(self, a) is not None)
        if self.method in GEOMETRY_METHODS:
            extra += f", k_values={span}, geometry={self.geometry!r}"
        else:
            extra += f", k_values={span}"
        tail = "".join(f", {attr}=k {getattr(self, attr).k}" for attr, _, _ in _GEOMETRIES
                       if getattr(self, attr) is not None)
        return f"ChooseKResult(k={self.k}, method={self.method!r}{extra}, curves=[{curves}]{tail})"

    def plot(self, ax=None, criteria=None):
        """Draw each criterion against k with the chosen k marked (needs matplotlib).

        As R's ``plot(clusGap)``: one panel per criterion, with error bars where
        the criterion has them (the gap's :math:`s_k`, prediction strength's
        standard error), the cutoff of prediction strength as a horizontal line,
        and the chosen k as a vertical line; the curves of ``sphered``, when
        computed, in panels of their own. On a new figure (``ax=None``), the
        ``reasoning`` is written under the panels.

        Parameters
        ----------
        ax : matplotlib Axes or sequence of Axes, default=None
            Where to draw, one Axes per criterion; None draws on a new figure.
        criteria : list of str, default=None
            Which of ``criteria`` to draw (None: all).

        Returns
        -------
        ax : matplotlib Axes, or ndarray of Axes when several criteria are drawn

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> r = ChooseKResult(2, "gap", np.array([1, 2, 3]), gap=np.array([0.1, 0.9, 0.8]),
        ...                   gap_se=np.array([0.05, 0.05, 0.05]))
        >>> r.plot().get_xlabel()
        'k'
        """
        try:
            import matplotlib.pyplot as plt
        except ModuleNotFoundError as exc:  # the `plot` extra
            raise ModuleNotFoundError(
                "ChooseKResult.plot needs matplotlib: install the plot extra (pip install "
                "'.[plot]' from a checkout of kgroups)",
                name="matplotlib") from exc
        names = self.criteria if criteria is None else list(criteria)
        unknown = [c for c in names if c not in self.criteria]
        if unknown or not names:
            raise InvalidParameterError(
                f"ChooseKResult.plot: criteria={describe(criteria)} should be a non-empty "
                f"list of the computed criteria {self.criteria}")
        if ax is None:
            text = textwrap.fill(self.reasoning, width=int(50 * min(len(names), 4)))
            lines = text.count("\n") + 1 if text else 0
            cols = min(len(names), 4)
            rows = -(-len(names) // cols)
            height = 3.4 * rows + 0.17 * lines
            fig = plt.figure(figsize=(4.2 * cols, height))
            axes = [fig.add_subplot(rows, cols, i + 1) for i in range(len(names))]
            if text:
                fig.text(0.01, 0.005, text, fontsize="small", va="bottom", ha="left")
        else:
            fig = None
            axes = list(np.ravel(np.asarray(ax, dtype=object)))
            if len(axes) != len(names):
                raise InvalidParameterError(
                    f"ChooseKResult.plot: got {len(axes)} Axes for {len(names)} criteria "
                    f"{names}; pass one Axes per criterion, or criteria=[...]")
        for a, name in zip(axes, names):
            for attr, prefix, title in _GEOMETRIES:
                if name.startswith(prefix):
                    getattr(self, attr)._plot_one(a, name[len(prefix):], self.k, title)
                    break
            else:
                self._plot_one(a, name, self.k)
        if fig is not None:  # after the titles and labels, room below for the reasoning
            fig.tight_layout(rect=(0, 0.17 * lines / height, 1, 1))
        return axes[0] if len(axes) == 1 else np.array(axes, dtype=object)

    def _plot_one(self, ax, name, chosen, prefix=""):
        attr, err, label = _CURVES[name]
        y, e = getattr(self, attr), getattr(self, err) if err else None
        ax.errorbar(self.k_values, y, yerr=e, fmt="o-", capsize=3 if e is not None else 0)
        if name == "prediction_strength" and self.cutoff is not None:
            ax.axhline(self.cutoff, color="0.5", linestyle=":", label=f"cutoff {self.cutoff}")
        if name == "structure":
            z = DEFAULT_STRUCTURE_Z if self.method == "silhouette+split" else STRUCTURE_Z
            ax.axhline(z, color="0.5", linestyle=":", label=f"{z:g} s.e.")
        if name == "graph_agreement":
            ax.axhline(AGREE_MIN, color="0.5", linestyle=":", label=f"least {AGREE_MIN:g}")
        if name == "split":
            ax.axhline(SPLIT_ALPHA, color="0.5", linestyle=":", label=f"level {SPLIT_ALPHA:g}")
            ax.set_yscale("log")
        ax.axvline(chosen, color="C3", linestyle="--", label=f"chosen k = {chosen}")
        if name == "eigengap" and self.method == "graph eigengap":
            label = "log(mu_(k+1) / mu_k)"        # the graph's rule reads the gap as a ratio
        ax.set_xlabel("k")
        ax.set_ylabel(label)
        rule = f" ({self.rule})" if name == "gap" and self.rule else ""
        ax.set_title(prefix + name.replace("_", " ") + rule)
        ax.legend(fontsize="small")


