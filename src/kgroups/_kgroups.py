"""Kernel k-groups: Hartigan's method in the kernel space of a semimetric
(França, Rizzo & Vogelstein, TPAMI 43(12), 2021, Algorithm 2)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._base import BaseKernelClustering
from ._placement import insertion_costs, insertion_scores
from ._reprs import n_clusters_of, short_repr
from ._validation import (InvalidParameterError, check_in_memory, check_init_labels, describe,
                          integral_labels, label_array, validated)


class KernelKGroups(BaseKernelClustering):
    r"""Kernel k-groups: energy clustering by Hartigan's method (weighted).

    Maximises, over partitions :math:`C_1, \dots, C_k` of weighted points,

    .. math:: Q = \sum_{j=1}^k \frac{1}{s_j} \sum_{x, y \in C_j} w_x w_y K(x, y),
              \qquad s_j = \sum_{x \in C_j} w_x,

    with :math:`K = -\rho / 2` for the chosen semimetric :math:`\rho`; this is the
    same as minimising the within energy :math:`W = \sum_j (s_j/2) g(C_j, C_j)`
    (paper eqs. 13, 22), and :math:`Q = -W`. Any kernel of the family of paper
    eq. 7 (any base point :math:`x_0`) gives the same partitions.

    Each point is moved to the cluster of largest gain (paper eq. 50),

    .. math:: \Delta Q(j \to l) = \frac{w_i q_j / s_j - 2 M_{ji} + B_{ii}}{s_j - w_i}
              - \frac{w_i q_l / s_l - 2 M_{li} - B_{ii}}{s_l + w_i},

    when the gain is positive, with :math:`B = \mathrm{diag}(w) K \mathrm{diag}(w)`
    and :math:`M_{li} = \sum_{y \in C_l} B_{iy}` kept up to date incrementally, so
    a sweep costs O(nk + n · moves) instead of the paper's O(kn²). Q rises at
    every move, for any symmetric kernel (also indefinite ones), and a point
    alone in its cluster never moves.

    Parameters
    ----------
    n_clusters : int or "auto", default=8
        Number of clusters k. ``"auto"``: chosen from the data by
        :func:`~kgroups.choose_k` over its default range (k = 1..15) with this
        semimetric's own rule (the point rule for the semimetrics of point data, the
        graph's eigengap for ``"nearest_neighbors"``), and with ``semimetric="auto"``
        together with the semimetric (:doc:`/user_guide/nothing_given`); the fit then
        runs with the chosen k and semimetric from the labels of the choice, in the
        geometry where the choice found structure (``n_clusters_choice_.geometry``:
        X itself, or X ``"standardized"``, whose W and Q are then in its units).
        ``n_clusters_`` and ``n_clusters_choice_`` say what was chosen and why; with
        ``noise``, the rows far out of one cluster are left out of the choice. Point data only (not
        ``"precomputed"``, not given ``init`` labels); on Dask or device arrays k is chosen on
        uniform samples of 5,000 rows, the same rows in-memory data would be chosen on.
    semimetric : {"energy", "laplacian", "gaussian", "localized", "sinusoidal", "nearest_neighbors", "auto", "precomputed"} or callable, default="energy"
        ``"energy"`` is :math:`\|x - y\|^\alpha`; see :data:`~kgroups.SEMIMETRICS`
        for the others (TPAMI equations 52-54). ``"nearest_neighbors"`` is built
        from the graph of each point's ``n_neighbors`` nearest neighbours: the
        squared distance between the points' rows of the graph's normalised
        spectral embedding (``n_clusters`` columns), for clusters of any shape
        (rings, spirals, touching shapes); its kernel is the Gram matrix of those
        columns, which ``engine="low-rank"`` holds exactly; new points are placed
        through their neighbours among the fitted ones. ``"auto"`` fits both
        ``"energy"`` and ``"nearest_neighbors"`` and keeps one by the normalised cut
        of their partitions on the neighbourhood graph and whether their clusters
        are bimodal (:doc:`/user_guide/nothing_given`; ``semimetric_choice_`` says
        why). See :doc:`/user_guide/shapes`.
        ``"precomputed"``: X is an n x n semimetric matrix. A callable takes two
        2-D blocks and returns the matrix of rho values.
    alpha : float, default=1.0
        Exponent of the energy semimetric, in (0, 2].
    sigma : float, default=1.0
        Scale of the Gaussian and Laplacian semimetrics.
    theta : float, default=1.0
        Scale of the sinusoidal semimetric.
    kernel : None or "precomputed", default=None
        ``"precomputed"``: X is a symmetric Gram matrix (need not be PSD), dense
        or ``scipy.sparse``.
    init : {"k-means++", "kernel-k-means++", "random", "spectral"} or array of shape (n_samples,) or (n_starts, n_samples), default="kernel-k-means++"
        Starting partition. ``"kernel-k-means++"``:
        greedy D^2 seeding in the kernel's feature space (the geometry being
        optimised; any semimetric, also precomputed ones); ``"k-means++"``:
        scikit-learn's seeding in the input space, what the papers and the
        authors' code use (the reproductions in ``kgroups.experiments`` pin
        it). Given labels run once; an array with one labelling per row runs
        each as a restart (``n_init`` is then ignored; on the matrix-free
        engine the restarts sweep together, sharing the cost of points that
        move in several of them).
    n_init : "auto" or int, default="auto"
        Starts; the run with the highest objective is kept. ``"auto"``:
        ``min(30, 40_000 // n_samples)`` starts, at least one (30 up to 1333
        samples, 20 at 2000, 8 at 5000, one from 40,000 on), so that restarts
        are many where they are cheap and the extra work stays linear in
        ``n_samples`` (one with ``engine="dask"``,
        whose start already keeps the best fit of a sample); ``n_init_`` is the
        number used. The engine (for ``"dense"`` the whole kernel) is built once
        per ``fit`` and shared by the restarts.
    max_iter : int, default=300
        Maximum number of sweeps per run. A sweep that moves few points is cheap:
        O(n k) on the dense engine, and the matrix-free, GPU and low-rank engines
        skip the points their bounds prove still, so a long tail of small sweeps
        costs little.
    tol : float, default=0.0
        Stop when a sweep moves fewer than ``tol * n_samples`` points.
    engine : {"auto", "dense", "sparse", "matrix-free", "low-rank", "dask", "gpu"}, default="auto"
        How the kernel is held: in memory, in sparse form, computed when needed,
        approximated by features, spread over a Dask cluster, or on a GPU. The
        exact engines give the same labels from the same start (up to
        floating-point ties).

        - ``"dense"``: exact; ``B = diag(w) K diag(w)`` as an n x n array
          (``n^2 * 8`` bytes, half with ``dtype="float32"``), O(n) per move.
          Any input: raw data with any semimetric (also callables), a
          precomputed semimetric or Gram matrix. The memory is checked first:
          a kernel that does not fit raises a ValueError naming the sizes and
          the alternatives.
        - ``"sparse"``: exact; ``B`` in CSR form, O(nnz) memory and O(nnz of
          the row) per move. Only for a ``scipy.sparse`` Gram matrix with
          ``kernel="precomputed"`` (graphs, kNN kernels): the kernel of raw
          data or of a semimetric has every entry.
        - ``"matrix-free"``: exact; raw data with a named semimetric (not a
          callable, not a precomputed matrix). Stores only the data and ``M``,
          O(n (k + D)) memory, and computes kernel entries when needed: O(n^2 D)
          per start to build ``M``, O(n D) per move.
        - ``"low-rank"``: approximate; raw data only. ``n_components`` features
          per point (Nystrom, or random Fourier features, see ``landmarks``),
          O(n m) memory, O(k m) per point and sweep, O(m) per move. Its
          ``objective_`` is that of the approximate kernel.
        - ``"gpu"``: exact; the matrix-free engine with its pair passes (the
          build of ``M`` and each batch of moves) on a CUDA device, float64
          throughout, O(n (k + D)) device memory; the decisions of the
          matrix-free engine from the same start. Raw data with a named
          semimetric; needs the ``kgroups[gpu]`` extra and a device.
        - ``"dask"``: approximate, past one machine; raw data as a
          ``dask.array.Array`` or dask DataFrame (in-memory data is cut in row
          blocks). The low-rank features of each row block are computed on the
          Dask workers (the active ``dask.distributed.Client``, else Dask's
          local scheduler); the blocks propose moves and the driver accepts
          them one at a time with the exact gain under the current cluster sums,
          so Q rises at every move and the result is a Hartigan optimum in
          feature space. ``labels_`` is a dask array chunked like X. Needs the
          ``kgroups[dask]`` extra; see the user guide, "Past one machine".
        - ``"auto"``: dask input -> ``"dask"``; a ``scipy.sparse`` precomputed
          Gram matrix -> ``"sparse"``; raw data with a named semimetric, at least
          50,000 points and a usable CUDA device -> ``"gpu"``;
          a dense precomputed matrix -> ``"dense"``. Raw data: the exact engine
          a cost model predicts faster for this n, number of columns D and
          ``n_init`` (calibrated with ``benchmarks/bench_auto.py`` at k = 10 with
          the energy semimetric;
          a callable semimetric has no matrix-free engine): ``"matrix-free"`` in
          most cases, ``"dense"`` for wide data with many starts (restarts share
          the dense kernel) and below 5000 points (where either is quick, and the
          dense engine's kernels compile in seconds on a first fit). The choice
          never depends on the memory free at call time (two identical calls choose the
          same engine); ``"dense"`` is left out when 1.5 times the n x n kernel
          (in ``dtype``) exceeds 80% of the machine's total memory, leaving
          ``"matrix-free"`` for a named semimetric and ``"low-rank"`` for a
          callable one.
    dtype : {"auto", "float64", "float32"}, default="auto"
        The precision of the kernel entries (asked for here, not taken from the
        input's dtype: float32 data are read exactly in float64).

        - ``engine="matrix-free"``: ``"float32"`` runs the certified float32 pass
          over the pairs: the pairs of points in different clusters evaluated in
          float32, or left out where the clusters' means bound their sums (the
          energy distance with 1 <= ``alpha`` <= 2), every sum and the pairs
          within a cluster in float64, each move checked against a proven bound
          of those errors and decided again from exact float64 values where the
          bound cannot certify it. The labels, sweeps and moves of ``"float64"``,
          and W to 1e-12; ``engine_stats_`` counts the decisions made again and
          the share of pairs left out (:ref:`certified-float32`). Data or weights
          beyond what float32 certifies run in float64.
        - ``engine="dense"`` (and ``"sparse"``): ``"float32"`` stores the kernel
          ``B`` in single precision, half the memory; gains and ``M`` are still
          accumulated in float64.
        - ``engine="gpu"``: ``"float32"`` evaluates each kernel entry of the passes
          over pairs in float32 (sums in float64) and certifies every move,
          deciding again in float64 where it cannot.
        - ``"auto"``: the certified float32 pass where it pays (the matrix-free
          engine, Hartigan's rule, one start, the energy distance with
          1 <= ``alpha`` <= 2, from 40,000 points and 8 features on, and a start
          whose clusters are apart enough that the pass leaves out at least half
          the pairs of two clusters); float64 everywhere else (overlapping
          clusters, the other semimetrics and engines, smaller data, restarts,
          kernel k-means).
        - ``"float64"``: every pass in double precision. Ignored by the low-rank
          engine.
    n_components : int, default=256
        ``engine="low-rank"`` and ``"dask"``: the number of features m (Nystrom
        landmarks or random Fourier features), at least 1 and capped at
        n_samples (n landmarks reproduce the kernel on the data, and more
        features than points would cost more than the exact engines). Larger is
        more accurate and costs O(n m) memory
        (``"low-rank"``) or O(m D) time per evaluated point (``"dask"``, which
        keeps no features).
    landmarks : {"k-means++", "uniform", "fourier"}, default="k-means++"
        ``engine="low-rank"``: how the features are made. ``"k-means++"``:
        Nystrom with landmarks drawn by D^2 sampling in the kernel's feature
        space (any semimetric, also callables); ``"uniform"``: Nystrom with
        landmarks drawn uniformly; ``"fourier"``: random Fourier features
        (Rahimi & Recht 2007), only for ``semimetric="gaussian"`` or
        ``"laplacian"``. ``predict`` maps new points with the same landmarks or
        frequencies.
    n_neighbors : int, default=10
        ``semimetric="nearest_neighbors"`` and ``"auto"``: the neighbours of each
        point in the graph, at least 1 and below the number of distinct points
        (scikit-learn's ``SpectralClustering`` spells it so). Sample weights are the
        nodes' masses in the graph's random walk; repeated rows are one node whose
        weight is their sum. With ``n_clusters="auto"`` it also bounds the tight
        groups apart that the energy rule counts as structure.
    noise : None, float in [0, 0.5) or "auto", default=None
        Points that belong to no cluster. ``None``: every point gets a cluster.
        A share ``s``: whole points of total weight at most ``s`` times the total
        weight may be set aside (label -1; with whole-number weights, unit weights
        included, at most ``floor(s * sum(w))``, the count R's
        ``trimcluster::trimkmeans`` sets aside), and the fit minimises the within
        energy W of the points it keeps, over which points are kept and over the
        partitions of the kept points (trimmed kernel k-groups, see Notes). Whole
        points only: with weights the weight set aside is at most ``s`` of the
        total, and integer weights equal repeated rows where the optimum does not
        split the copies of a point. A share below the lightest point's sets
        nothing aside (the fit of ``None``). ``"auto"``: the share is decided from
        the data, as the weight of the points whose cost of belonging lies beyond
        Tukey's far-out fence of their cluster's costs in the fit without noise
        (:doc:`/user_guide/noise`). Not with ``engine="dask"``.
    random_state : int, RandomState instance or None, default=None
        Seeds the initialisation and the low-rank landmarks or frequencies.
    verbose : int, default=0
        Print the number of moves and Q after each sweep.

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
        Cluster of each training point, in [0, n_clusters), or -1 for a point
        set aside (``noise``) (with ``engine="dask"`` a dask array chunked like
        X's rows, held by the cluster).
    objective_ : float
        Q of the best run (``-within_energy_`` for a semimetric, and with
        ``noise``).
    within_energy_ : float
        W of the best run (for ``kernel="precomputed"``,
        ``sum_i w_i K_ii - Q``); with ``noise``, of the points kept.
    n_iter_ : int
        Sweeps of the best run.
    n_init_ : int
        Number of starts run (``n_init`` resolved; for given labels, their rows).
    n_moves_ : list of int
        Moves in each sweep of the best run.
    cluster_weights_ : ndarray of shape (n_clusters,)
        :math:`s_j`, the total weight of each cluster (of the points kept).
    n_noise_ : int
        With ``noise``: the number of training points labelled -1 (the points
        set aside, and the zero-weight rows that ``predict``'s rule sets aside).
    noise_weight_ : float
        With ``noise``: the weight set aside, in the units of ``sample_weight``.
    noise_threshold_ : float
        With ``noise``: the smallest cost of bringing back a set-aside point, per
        unit of its weight, :math:`\min_{t, l} s_l d_l(t) / (s_l + w_t)` in the
        semimetric's units (``inf`` when nothing was set aside); ``predict`` sets
        a new point aside when its cost of insertion is at least this.
    noise_share_ : float
        With ``noise``: the share of the total weight that could be set aside
        (``noise``, or the share ``"auto"`` chose).
    engine_ : str
        The engine that ran: ``"dense"``, ``"sparse"``, ``"matrix-free"``,
        ``"low-rank"``, ``"dask"`` or ``"gpu"`` (what ``engine="auto"`` chose).
    engine_stats_ : dict
        Wall seconds of each phase of the fit (``"seconds"``: ``"prepare"``, the
        checks and the engine; ``"init"``, the starts; ``"start"``, each run's
        ``M``; ``"sweeps"``; ``"finish"``; with ``semimetric="auto"``, ``"other
        candidates"``, the fit it did not keep), with ``semimetric=
        "nearest_neighbors"`` the phases of building it (``"semimetric seconds"``:
        ``"graph"``, ``"eigenvectors"``, ``"placement"``) and, with
        ``engine="dask"``, the number of row blocks, round trips to them and bytes
        sent to and received from them.
    n_clusters_ : int
        The number of clusters of the fit: ``n_clusters``, or the one ``"auto"``
        chose.
    n_clusters_choice_ : ChooseKResult
        With ``n_clusters="auto"`` only: the choice of k (and of the semimetric),
        its ``reasoning``, curves and candidates (see :func:`~kgroups.choose_k`).
    semimetric_ : str or callable
        The semimetric of the fit: ``semimetric``, or the one ``"auto"`` chose.
    semimetric_choice_ : SemimetricChoice or None
        With ``semimetric="auto"``: the choice, its ``reasoning`` and the numbers
        that decided (each candidate's normalised cut of the neighbourhood graph,
        the agreement of their partitions); None otherwise.
    n_features_in_ : int
        Number of columns of X seen in ``fit``.
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Column names of X seen in ``fit``, when it had string column names.

    See Also
    --------
    KernelKMeans : Lloyd's rule (batch reassignment) on the same objective.
    kernel_kgroups : The function form, returning a :class:`KGroupsResult`.
    improving_moves : Check that a partition is a Hartigan optimum.
    choose_k : Choose the number of clusters.
    kgroups.graph.CommunityKGroups : Kernel k-groups on a graph.

    Notes
    -----
    ``predict`` puts each new point (weight 1) in the cluster where inserting
    it raises Q most, :math:`(q_l + 2 m_l + K(x, x)) / (s_l + 1) - q_l / s_l`
    with :math:`m_l = \sum_{y \in C_l} w_y K(x, y)`. At a Hartigan optimum
    (a converged fit) this is each training point's own cluster, for any engine:
    with ``engine="low-rank"`` the new points are mapped by the fit's features.
    A precomputed Gram matrix cannot be predicted (K(x, x) of new points is
    unknown); a precomputed semimetric can (rows ``rho(new, train)``).

    ``transform`` gives each point's squared kernel-space distance
    :math:`d_l(x)` to each cluster's weighted mean (one column per cluster,
    named ``kernelkgroups0`` ... by ``get_feature_names_out``; ``set_output``
    applies), from the same sums as ``predict``. The insertion gain above is
    :math:`K(x, x) - s_l d_l(x) / (s_l + 1)`, so ``predict`` is the cluster of
    smallest :math:`s_l d_l / (s_l + 1)`, not always the nearest mean (a small
    cluster draws points from a little farther). At a Hartigan optimum (with a
    positive semidefinite kernel) the own cluster of each training point is
    also its nearest mean.

    **Points set aside** (``noise=s``, trimmed kernel k-groups [4]_ [5]_). The
    fit maximises :math:`-W = \sum_l q_l / s_l - \sum_{i \text{ kept}} w_i K_{ii}`
    of the kept points. Setting aside kept point :math:`i` of cluster
    :math:`j` gains :math:`G_i = A_j(i) + B_{ii} / w_i = w_i s_j d_j(i) / (s_j -
    w_i)` and bringing back point :math:`t` into cluster :math:`l` costs
    :math:`C_l(t) = A_l(t) + B_{tt} / w_t = w_t s_l d_l(t) / (s_l + w_t)`, with
    :math:`A_j, A_l` the terms of the move gain above (eq. 50) and :math:`d_l`
    the squared kernel-space distance to the weighted mean of cluster
    :math:`l`. Each start runs (1) concentration steps, the kernel form of
    trimmed k-means' C-step [4]_: every point to its nearest kept mean, the
    points farthest from their mean set aside within the budget, while a step
    lowers W (with ``alpha=2``, R's ``trimcluster::trimkmeans`` from the same
    first step); then (2) trimmed Hartigan sweeps until no move of these kinds
    lowers W: Hartigan's moves between kept clusters, swaps of a kept point
    :math:`i` and a set-aside point :math:`t` (gain :math:`G_i - C_l(t)`, the
    cost taken without :math:`i` when :math:`l` is its own cluster), and
    setting aside one more point while the budget has room. W falls at every
    move, so the search ends; a point alone in its cluster stays, as in
    Hartigan's method, but at the end such a point (a far stray a start took
    for a seed) is tried set aside, its cluster re-seeded with the farthest
    kept point, and the end the sweeps reach from there is kept only when its W
    is lower. ``predict`` sets a new point (weight 1) aside when its
    smallest cost of insertion :math:`s_l d_l(x) / (s_l + 1)` is at least
    ``noise_threshold_``; at the end no swap lowers W, so that threshold bounds
    the kept points' removal gains. ``transform`` is unchanged (the kept
    clusters' means). The engines that give kernel columns run it (dense,
    sparse, matrix-free, low-rank and gpu); ``engine="dask"`` refuses it.

    References
    ----------
    .. [1] G. França, M. L. Rizzo, J. T. Vogelstein, "Kernel k-Groups via
       Hartigan's Method", IEEE TPAMI 43(12), 2021, Algorithm 2 and equations
       41 and 47-51.
    .. [2] S. Li, M. L. Rizzo, "K-groups: A generalization of K-means clustering",
       arXiv:1711.04359, 2017.
    .. [3] J. A. Hartigan, M. A. Wong, "Algorithm AS 136: A k-means clustering
       algorithm", J. R. Stat. Soc. C 28(1), 100-108, 1979.
    .. [4] J. A. Cuesta-Albertos, A. Gordaliza, C. Matrán, "Trimmed k-means: an
       attempt to robustify quantizers", Ann. Statist. 25(2), 553-576, 1997.
    .. [5] L. A. García-Escudero, A. Gordaliza, C. Matrán, A. Mayo-Iscar, "A
       general trimming approach to robust cluster analysis", Ann. Statist.
       36(3), 1324-1345, 2008.

    Examples
    --------
    >>> import numpy as np
    >>> from kgroups import KernelKGroups
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(0, 1, (50, 2)), rng.normal(6, 1, (50, 2))])
    >>> km = KernelKGroups(n_clusters=2, random_state=0).fit(X)
    >>> sorted(np.bincount(km.labels_).tolist())
    [50, 50]
    >>> bool(km.objective_ == -km.within_energy_), km.engine_
    (True, 'dense')
    >>> mf = KernelKGroups(n_clusters=2, init=km.labels_,
    ...                    engine="matrix-free").fit(X)
    >>> bool((mf.labels_ == km.labels_).all())
    True
    >>> lr = KernelKGroups(n_clusters=2, engine="low-rank", n_components=20,
    ...                    random_state=0).fit(X)
    >>> bool((lr.predict(X) == lr.labels_).all())
    True
    >>> f32 = KernelKGroups(n_clusters=2, random_state=0, dtype="float32").fit(X)
    >>> round(abs(f32.objective_ / km.objective_ - 1), 6)
    0.0
    >>> Xn = np.vstack([X, [[30.0, -30.0], [-30.0, 30.0]]])  # two far strays
    >>> tr = KernelKGroups(n_clusters=2, noise=0.02, random_state=0).fit(Xn)
    >>> tr.n_noise_, np.flatnonzero(tr.labels_ == -1).tolist()
    (2, [100, 101])
    >>> tr.predict([[0.0, 0.0], [60.0, 60.0]]).tolist()[1]
    -1
    """

    _rule = "hartigan"  # paper Algorithm 2 (kgroups._driver)
    _scores = staticmethod(insertion_scores)  # predict: the insertion gain
    # with noise: a new point is set aside when inserting it costs at least the
    # cheapest set-aside point's bringing back (noise_threshold_)
    _noise_cost = staticmethod(insertion_costs)
    _predict_needs_kxx = True


@dataclass
class KGroupsResult:
    """What :func:`kernel_kgroups` returns.

    Attributes
    ----------
    labels : ndarray of shape (n_samples,)
        Cluster of each point, in ``0..k-1``, or -1 for a point set aside
        (``noise``).
    objective : float
        Q of the best start (TPAMI equation 41; ``-within_energy`` for a
        semimetric).
    within_energy : float
        W of the best start (TPAMI equation 15).
    n_iter : int
        Sweeps of the best start.

    See Also
    --------
    kernel_kgroups : The function that returns it.
    KernelKGroups : The estimator; its fitted attributes hold the same.

    References
    ----------
    .. [1] G. França, M. L. Rizzo, J. T. Vogelstein, "Kernel k-Groups via
       Hartigan's Method", IEEE TPAMI 43(12), 2021, equations 15 (W) and 41
       (Q).

    Examples
    --------
    >>> import numpy as np
    >>> from kgroups import kernel_kgroups
    >>> X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0],
    ...               [8.0, 8.0], [8.0, 9.0], [9.0, 8.0]])
    >>> res = kernel_kgroups(X, 2, random_state=0)
    >>> res  # doctest: +ELLIPSIS
    KGroupsResult(n_samples=6, n_clusters=2, objective=-2.27614, ...)
    >>> res.labels.tolist()
    [0, 0, 0, 1, 1, 1]
    """

    labels: np.ndarray
    objective: float
    within_energy: float
    n_iter: int

    def __repr__(self):
        return short_repr(self, n_samples=len(self.labels),
                          n_clusters=n_clusters_of(self.labels), objective=self.objective,
                          within_energy=self.within_energy, n_iter=self.n_iter)


@validated
def kernel_kgroups(X, n_clusters, *, sample_weight=None, **params):
    """Function form of :class:`KernelKGroups` (same parameters).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features) or (n_samples, n_samples)
        Data, or a precomputed semimetric or Gram matrix (see :class:`KernelKGroups`).
    n_clusters : int
        Number of clusters k, ``1 <= k <= n_samples``.
    sample_weight : array-like of shape (n_samples,), default=None
        Weights ``w_i >= 0``, some > 0 (None: all ones); a zero weight leaves the
        sample out of the fit.
    **params : dict
        Any other parameter of :class:`KernelKGroups` (``semimetric``, ``alpha``,
        ``init``, ``n_init``, ``engine``, ``random_state``, ...).

    Returns
    -------
    result : KGroupsResult
        ``labels`` (shape (n_samples,), in ``0..k-1``, -1 set aside), ``objective``
        (Q of the best start), ``within_energy`` (W) and ``n_iter`` (sweeps of the
        best start): the fitted estimator's ``labels_``, ``objective_``,
        ``within_energy_`` and ``n_iter_``.

    See Also
    --------
    KernelKGroups : The estimator (same parameters).
    KGroupsResult : What this function returns.
    kernel_kmeans : Lloyd's rule on the same objective.

    References
    ----------
    .. [1] G. França, M. L. Rizzo, J. T. Vogelstein, "Kernel k-Groups via
       Hartigan's Method", IEEE TPAMI 43(12), 2021, Algorithm 2.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [0.1], [5.0], [5.2]])
    >>> labels = kernel_kgroups(X, 2, random_state=0).labels.tolist()
    >>> labels in ([0, 0, 1, 1], [1, 1, 0, 0])
    True
    """
    est = KernelKGroups(n_clusters, **params).fit(X, sample_weight=sample_weight)
    return KGroupsResult(est.labels_, est.objective_, est.within_energy_, est.n_iter_)


@validated
def improving_moves(X, labels, *, sample_weight=None, **params):
    """Number of points whose single move to another cluster lowers W (raises Q).

    Zero exactly at a local optimum of Hartigan's method, the property every
    converged :class:`KernelKGroups` fit has on the exact engines; use it to
    check partitions found by other software. ``labels`` are integers in
    ``[0, k)`` with ``k = labels.max() + 1``; the kernel is that of
    ``KernelKGroups(**params)`` (same semimetric, engine, weights). With
    ``noise=s`` (a share) the labels may be -1 (set aside) and the moves are
    those of trimmed kernel k-groups (a move between clusters, a swap of a kept
    and a set-aside point, a point set aside within the budget, or brought
    back): zero where a converged fit with that ``noise`` stops.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features) or (n_samples, n_samples)
        Data, or a precomputed semimetric or Gram matrix (see :class:`KernelKGroups`).
    labels : array-like of int of shape (n_samples,)
        The partition to check, integers in ``[0, k)``, every cluster non-empty
        (-1 too with ``noise``: a point set aside).
    sample_weight : array-like of shape (n_samples,), default=None
        Weights ``w_i >= 0``, some > 0 (None: all ones); a zero weight leaves the
        sample out of the fit.
    **params : dict
        Parameters of :class:`KernelKGroups` that define the kernel
        (``semimetric``, ``alpha``, ``sigma``, ``theta``, ``kernel``, ``engine``,
        ...); ``init`` is ignored.

    Returns
    -------
    n_moves : int
        Number of points with a move of positive gain (eq. 50); 0 at a Hartigan
        optimum. With ``noise``, a swap counts once, for the kept point.

    See Also
    --------
    KernelKGroups : Finds partitions where this count is 0.
    within_energy : W of a partition.

    References
    ----------
    .. [1] G. França, M. L. Rizzo, J. T. Vogelstein, "Kernel k-Groups via
       Hartigan's Method", IEEE TPAMI 43(12), 2021, equations 47-51.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [0.1], [5.0], [5.2]])
    >>> improving_moves(X, [0, 0, 1, 1]), improving_moves(X, [0, 1, 1, 1])
    (0, 1)
    >>> Xn = np.array([[0.0], [0.1], [5.0], [5.2], [50.0]])
    >>> improving_moves(Xn, [0, 0, 1, 1, -1], noise=0.2)
    0
    >>> improving_moves(Xn, [0, -1, 1, 1, 1], noise=0.2)  # 2, 3, 4 (e.g. swap 4 and 1)
    3
    """
    params.pop("init", None)
    if params.get("semimetric") == "auto":
        raise InvalidParameterError(
            "improving_moves: semimetric='auto' chooses the semimetric of a fit; pass the "
            "one the fit chose (its semimetric_), 'energy' or 'nearest_neighbors'")
    check_in_memory(X, "X", "improving_moves")
    lab = label_array(labels, "improving_moves", "labels")
    if not integral_labels(lab):
        raise InvalidParameterError(f"improving_moves: labels should be integers 0..k-1 "
                                    f"(-1 too with noise), got {describe(labels)}")
    k = int(lab.max()) + 1 if lab.size else 1
    noise = params.get("noise")
    if noise == "auto":
        raise InvalidParameterError("improving_moves: noise='auto' decides the share of a "
                                    "fit; pass the fit's noise_share_")
    est = KernelKGroups(k, init=lab, **params)
    X, w, engine, _, _ = est._prepare(X, sample_weight)
    keep = est._keep  # zero-weight samples: left out (their moves change nothing)
    n = X.shape[0] if keep is None else keep.shape[0]
    lab = check_init_labels(labels, n, k, "improving_moves", "labels", noise is not None)
    lab = lab if keep is None else lab[keep]
    if (empty := np.flatnonzero(np.bincount(lab[lab >= 0], minlength=k) == 0)).size:
        raise InvalidParameterError(
            f"improving_moves: labels leave cluster {int(empty[0])} of 0..{k - 1} without a "
            "point" + (" of positive weight" if keep is not None else "") + "; every "
            "cluster 0..k-1 (k = labels.max() + 1) should hold one")
    if noise is None:
        return engine.count_improving_moves(lab, k)
    from ._engines.trimmed import TrimmedRuns, budget_of  # only with noise

    return TrimmedRuns(engine, budget_of(noise, engine.w)).count_improving_moves(lab, k)
