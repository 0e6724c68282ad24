r"""Choosing the number of clusters k of point data: :func:`choose_k`.

Every criterion below judges the partitions that kernel k-groups finds
(:class:`~kgroups.KernelKGroups`, the only way this module clusters) for each k of
a range, with the semimetric :math:`\rho` of the fits.

**The gap statistic** (Tibshirani, Walther & Hastie, J. R. Statist. Soc. B 63(2),
2001, eqs. 3-5 and section 3). With :math:`W_k` the within energy of the fit with
k clusters (TPAMI eq. 13, :attr:`KernelKGroups.within_energy_`),

.. math:: \mathrm{Gap}(k) = \frac{1}{B} \sum_{b=1}^B \log W^*_{kb} - \log W_k,
          \qquad s_k = \mathrm{sd}_k \sqrt{1 + 1/B},

where :math:`W^*_{kb}` is the within energy of the same clustering of the
:math:`b`-th of :math:`B` reference samples, drawn uniformly over the box of the
data (``reference="box"``, the paper's (a)) or over the box of the data in its
principal axes (``reference="pca"``, the paper's (b)), and :math:`\mathrm{sd}_k`
is the standard deviation (divisor B) of :math:`\log W^*_{kb}`. For the energy
semimetric with ``alpha=2``, :math:`W_k` is k-means' within sum of squares and
this is the original statistic; for other semimetrics the log keeps the gap free
of the units of :math:`\rho`. The decision rules are those of R's
``cluster::maxSE`` (Maechler et al.), applied to :math:`f = \mathrm{Gap}` and
:math:`s` (``se_factor`` times :math:`s_k`), over the k of the range in order:

* ``"globalmax"``: the k of the largest :math:`f(k)`;
* ``"firstmax"``: the first local maximum, the first k with
  :math:`f(k) \ge f(k^+)` (:math:`k^+` the next k of the range; the last k when
  none);
* ``"Tibs2001SEmax"``: Tibshirani et al.'s rule, the smallest k with
  :math:`f(k) \ge f(k^+) - s_{k^+}` (the last k when none);
* ``"firstSEmax"``: the smallest k with :math:`f(k) \ge f(\hat k) - s_{\hat k}`,
  :math:`\hat k` the first local maximum;
* ``"globalSEmax"``: the same with :math:`\hat k` the global maximum (Dudoit &
  Fridlyand 2002).

**Prediction strength** (Tibshirani & Walther, J. Comput. Graph. Statist. 14(3),
2005, eqs. 2.1-2.2). Split the points at random into halves, fit k clusters to
each half, and for the test half's clusters :math:`A_1, \dots, A_k` count the
pairs of points that the training half's fit (:meth:`KernelKGroups.predict`) also
puts together:

.. math:: \mathrm{ps}(k) = \min_{1 \le j \le k} \frac{1}{n_j (n_j - 1)}
          \sum_{i \ne i' \in A_j} \mathbb 1[\hat c(x_i) = \hat c(x_{i'})],

with pairs weighted by :math:`w_i w_{i'}` for weighted points and clusters of one
point left out of the minimum (they have no pair). Each half is test half once,
over ``n_splits`` random splits; ``ps(1) = 1``. The chosen k is the largest k with
mean :math:`\mathrm{ps}(k) \ge` ``cutoff`` (the paper's 0.8).

**The silhouette** (Rousseeuw, J. Comput. Appl. Math. 20, 1987) of the fits, on
:math:`\rho`: :math:`s(i) = (b_i - a_i) / \max(a_i, b_i)`, with :math:`a_i` the
weighted mean of :math:`\rho(x_i, \cdot)` over the other points of its cluster
and :math:`b_i` the smallest such mean over another cluster (:math:`s(i) = 0`
alone in its cluster); the chosen k has the largest weighted mean of
:math:`s(i)`. It is not defined for k = 1, so it never answers 1.

**The eigengap** of the random-walk Laplacian of the energy kernel (ICML draft,
section 5.2 and Fig. 5; von Luxburg 2007, section 8.1): with
:math:`G_{ij} = K(x_i, x_j)`, :math:`K(x, y) = \frac12 [\rho(x, x_0) + \rho(y, x_0)
- \rho(x, y)]` (ICML eqs. 8 and 12, :math:`x_0` the weighted mean of X),
:math:`L_{rw} = I - D^{-1} G W`, :math:`D = \mathrm{diag}(G w)`, and
:math:`\delta_k = \lambda_{k+1} - \lambda_k` over its ascending eigenvalues; the
chosen k has the largest :math:`\delta_k`. It needs positive degrees (the energy
semimetric with ``alpha <= 1``, the Gaussian or Laplacian ones).

**Gap and prediction strength** (``method="gap+ps"``). The candidates are the
k > 1 whose partitions are stable, :math:`\mathrm{ps}(k) \ge` ``cutoff``, and beat
the reference samples by ``STRUCTURE_Z`` = 3 standard errors,
:math:`\mathrm{Gap}(k) - \mathrm{Gap}(1) > 3\,\sigma_k`, with
:math:`\sigma_k = \mathrm{sd}_b(\log W^*_{kb} - \log W^*_{1b}) \sqrt{1 + 1/B}`
the spread of that gain over samples without structure (:func:`gap_gain_se`).
No candidate: k = 1. Otherwise the gap's ``rule`` (``"globalSEmax"``) picks among
the candidates. Prediction strength rejects the gap's plateau past the true k
(unstable partitions); the gain over k = 1 rejects prediction strength's stable
cuts of an elongated cloud.

**Gap, prediction strength, sphered** (``method="gap+ps+sphered"``):
``"gap+ps"`` on X; when it finds no structure (k = 1 with 1 in the range),
``"gap+ps"`` again on X *sphered* (:func:`sphere`: X in its principal axes, each
scaled to unit variance, the geometry of the Mahalanobis distance of its
covariance), with reference samples uniform over the cube of unit variance
:math:`[-\sqrt 3, \sqrt 3]^r` (``reference="moments"``: uniform with the mean and
covariance of the data, in its principal axes). The energy semimetric is invariant
under rotations but not under a change of scale of one axis: clusters separated
along a short principal axis (parallel elongated clusters) are invisible at the
scale of the long one, where the best two-cluster cut goes across the long axis,
as in one elongated Gaussian; after sphering, every axis has the same scale and
they separate. Only with the energy semimetric (whose partitions do not depend on
the units) and data of rank r with 2 <= r < n - 1.

**The default** (``method="auto"``, for point data ``"silhouette+split"``,
:mod:`kgroups._choose_k.silsplit`): k = 1 only when X shows no structure by any
yardstick (:mod:`kgroups._choose_k.structure`): no modes by Hartigan's dip test
(:mod:`kgroups._choose_k.dip`) of a held-out half projected on the line of a
2-cluster fit of the other half, or of the distances from the mean, and no gain
of the fits of k = 2..5 over the references above 3.5 standard errors (the test
above, never past k = 5, where the references' within energy falls more slowly
than that of real data of low intrinsic dimension); then the smallest k whose mean
silhouette is within half a standard error (paired over the points) of the
largest, the curve followed from k = 2 to twice its best k and at least to 10; then one
more cluster while a cluster of that partition splits (the dip test of a held-out
half of it, projected on the line of a 2-cluster fit of the other half) and the
finer partition keeps 0.7 of the best silhouette. No structure in X's geometry:
the same on the sphered axes whose projection is multimodal, then on X
standardized, with references uniform with its mean and covariance; none: k = 1.
With the energy semimetric, ``"auto"`` adds a fourth step
(:mod:`kgroups._choose_k.shapes`): when the neighbourhood graph's groups (its
eigengap) are of comparable size and the energy fit of their number cuts across
them (rings, moons, spirals), the answer is the energy partition that agrees best
with them (the largest adjusted Rand index, followed to twice its k and at least
10). ``"silhouette+gap"`` (:mod:`kgroups._choose_k.silgap`), the default before it: the
structure test (at 3 standard errors) over
the whole range; the largest mean silhouette among the k that pass it, or the
gap's ``globalSEmax`` k when finer and keeping 0.8 of that silhouette; its
``firstSEmax`` k in the rescaled geometries. The performance page of the
documentation has the studies (``benchmarks/bench_choose_k.py``,
``benchmarks/bench_choose_k_real.py``, ``benchmarks/bench_choose_k_batteries.py``).

The package, by role: :mod:`~kgroups._choose_k.api` (the public function),
:mod:`~kgroups._choose_k.core` (its checks and the dispatch to each method, for any
estimator class), :mod:`~kgroups._choose_k.estimator` (``KernelKGroups(n_clusters=
"auto")``), :mod:`~kgroups._choose_k.joint` (``semimetric="auto"``: k and the
semimetric together), :mod:`~kgroups._choose_k.methods` (the criteria, computed from fits),
:mod:`~kgroups._choose_k.rules` (the decisions from the curves, and the method of
each semimetric under ``method="auto"``), :mod:`~kgroups._choose_k.silsplit` and
:mod:`~kgroups._choose_k.silgap` (the two default methods, which interleave fits
and decisions), :mod:`~kgroups._choose_k.shapes` (the default's fourth step),
:mod:`~kgroups._choose_k.graph` (the neighbourhood graph's eigengap),
:mod:`~kgroups._choose_k.structure` and
:mod:`~kgroups._choose_k.geometry` (the default's structure test and its fits),
:mod:`~kgroups._choose_k.dip` (the dip test) and
:mod:`~kgroups._choose_k.result` (:class:`ChooseKResult`).

**Cost.** The gap statistic: ``(B + 1) * len(k_range)`` fits of n points, each
with ``n_init`` restarts sharing the engine. Prediction strength:
``2 * n_splits * len(k_range)`` fits of n/2 points and as many ``predict``. The
silhouette reuses the data's fits and computes :math:`\rho` by row blocks (no n x n
matrix); the eigengap needs the n x n kernel. ``"gap+ps+sphered"`` costs what
``"gap+ps"`` costs, twice when the data's geometry shows no structure.
``"silhouette+gap"`` computes one n x n matrix of :math:`\rho` per sample (X and
each reference) and runs every fit of that sample on it: ``n_refs + 1`` matrices
and ``(n_refs + 1) * len(k_range)`` fits, up to three times when X's geometry
shows no structure. The default fits each k once, in one call with all its
starts (on X's matrix up to 1,500 points, from the coordinates past that), only as
far as its rule needs (to ``max(10, 2 k_s)`` and the splits after), and the
references only when no dip test finds modes, at k <= 5, one start each, on at
most 500 points of X; its fourth step builds the neighbourhood graph once and fits
the energy partitions its agreement needs past those.
"""

from __future__ import annotations

from .api import choose_k
from .methods import reference_sample, sphere, standardize
from .result import ChooseKResult, KRangeWarning
from .rules import AUTO_METHODS, GAP_RULES, gap_rule, prediction_strength_score, ps_rule

__all__ = ["AUTO_METHODS", "GAP_RULES", "ChooseKResult", "KRangeWarning", "choose_k",
           "gap_rule", "prediction_strength_score", "ps_rule", "reference_sample", "sphere",
           "standardize"]
