r"""The Bethe Hessian of a graph, its estimate of k and its spectral clustering.

Saade, Krzakala & Zdeborová, "Spectral clustering of graphs with the Bethe
Hessian" (NIPS 2014), used in TPAMI section 5.2 (França, Rizzo & Vogelstein):

.. math:: H_r = (r^2 - 1) I - r A + D ,

with ``A`` the adjacency and ``D`` the degree matrix. ``r`` is
``"sqrt-mean-degree"`` (:math:`r = \sqrt{\bar d}`, the paper), ``"zeta"``
(:math:`r = \sqrt{\zeta}`, :math:`\zeta = \sum_i d_i^2 / \sum_i d_i - 1`, the
mean excess degree, Saade et al.'s choice for general degree laws; for Poisson
degrees :math:`\zeta \approx \bar d`) or a positive number. The number of
negative eigenvalues of :math:`H_r` estimates the number of communities, and
k-means on the rows of the eigenvectors of its ``k`` smallest eigenvalues is the
Bethe Hessian clustering. Everything is sparse: ``H_r`` has ``nnz(A) + n``
entries and the eigenvectors come from Lanczos (``scipy.sparse.linalg.eigsh``,
``which="SA"``); only graphs of at most ``DENSE_MAX_NODES`` nodes use a dense
``eigh`` (exact, and faster there), and a dense matrix is allocated only after
its memory is checked.

**Edge weights** (``weight="weight"``, the default, read as networkx reads them: an
edge without the attribute weighs 1, so an unweighted graph gives :math:`H_r`).
:math:`H_r` is, up to the positive factor :math:`r^2 - 1`, the Hessian of the Bethe
free energy of the Ising model on the graph at the paramagnetic point, with coupling
:math:`t = \tanh\beta = 1/r` on every edge: that is how Saade et al. derive it. The
Bethe Hessian of the Ising model with an edge-dependent coupling
:math:`t_{ij} = \tanh(\beta w_{ij})` is

.. math:: H^w_r = (r^2 - 1) \Big[\Big(1 + \sum_{k \sim i}
          \frac{t_{ik}^2}{1 - t_{ik}^2}\Big) \delta_{ij}
          - \frac{t_{ij}}{1 - t_{ij}^2} A_{ij}\Big]
          = (r^2 - 1) \Big[\Big(1 + \sum_{k \sim i} \sinh^2(\beta w_{ik})\Big)
          \delta_{ij} - \tfrac12 \sinh(2 \beta w_{ij}) A_{ij}\Big],

the matrix Dall'Amico, Couillet & Tremblay use on weighted graphs ("Nishimori
meets Bethe", 2021, arXiv:2103.03561). kgroups sets its temperature as Saade et al.
set :math:`r`: their :math:`r = \sqrt c` is the spin-glass temperature of a graph
of branching ratio :math:`c`, :math:`c \tanh^2\beta = 1`, whose weighted form is
:math:`c \langle \tanh^2(\beta w) \rangle = 1` (Viana & Bray, J. Phys. C 1985),
the mean over the edges. So :math:`\beta` solves
:math:`\langle \tanh^2(\beta w) \rangle = 1 / r^2` with :math:`r` chosen as
above from the edge counts (which needs :math:`r > 1`). Then

* equal weights give :math:`t = 1/r` and :math:`H^w_r = H_r` exactly (kgroups
  then computes :math:`H_r` itself, so the results are those of the unweighted
  graph, bit for bit);
* multiplying every weight by a constant changes nothing (:math:`\beta` absorbs it);
* a heavier edge couples its ends more strongly, up to :math:`t \to 1`. An
  edge with :math:`\beta w > ` ``MAX_COUPLING`` is refused: its entries (up to
  :math:`\sinh^2 10 \approx 10^8` times the others) would leave the eigenvalues
  that count communities below the rounding error of the largest ones; compress
  such weights (e.g. ``np.log1p``).
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import ArpackNoConvergence, eigsh
from sklearn.cluster import KMeans

from .._validation import InvalidParameterError, check_n_clusters, validated
from ._io import fits_or_refuse, graph_data, require_edges

# Public: bethe_hessian, estimate_k, bethe_spectral (they take any graph input, like
# detect_communities); the rest is used by CommunityKGroups on an already clean matrix.

# Graphs up to this many nodes use dense eigh (below this ARPACK is slower and
# needs k < n - 1).
DENSE_MAX_NODES = 1000
# Relative accuracy asked of Lanczos: plenty for k-means on the eigenvectors.
EIGSH_TOL = 1e-6
# Lanczos restarts allowed when counting negative eigenvalues (see negative_eigenpairs).
ESTIMATE_MAXITER = 20
# Restarts of the first, short count; the full ESTIMATE_MAXITER run follows only when
# the check below finds a negative eigenvalue it missed.
ESTIMATE_QUICK_MAXITER = 6
# Lanczos steps of that check (smallest Ritz value of H off the eigenvectors found):
# enough for the short count to agree with the full run's on sparse SBMs around the
# detectability threshold, where a shorter check can miss a negative eigenvalue.
CHECK_STEPS = 40
# Rows past which kmeans_rows runs its restarts on a random sample of this many.
KMEANS_SAMPLE = 100_000
# Largest coupling beta * w of the weighted Bethe Hessian: sinh^2(10) ~ 1.2e8, past
# which the entries of the strongest edges drown the eigenvalues that count communities.
MAX_COUPLING = 10.0
# Float64 copies of an n x n matrix the dense eigh holds at once (the matrix, LAPACK's
# copy, its workspace and the eigenvectors).
DENSE_EIGH_COPIES = 4


def _degrees(A):
    return np.asarray(A.sum(axis=1)).ravel()


def as_rng(random_state):
    """A numpy Generator from None, an integer, a Generator (used as is) or a RandomState."""
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(np.iinfo(np.int32).max))
    return np.random.default_rng(random_state)


def bethe_r(A, r="sqrt-mean-degree", owner="bethe_hessian"):
    """The value of ``r`` for the clean adjacency ``A`` (see the module docstring).

    Examples
    --------
    >>> import networkx as nx, scipy.sparse as sp
    >>> A = sp.csr_matrix(nx.to_scipy_sparse_array(nx.cycle_graph(10)))
    >>> print(bethe_r(A), bethe_r(A, "zeta"))
    1.4142135623730951 1.0
    """
    d = _degrees(A)
    if isinstance(r, str):
        if r == "sqrt-mean-degree":
            value = np.sqrt(d.mean()) if d.size else 0.0
        else:  # "zeta" (the constraint table allows nothing else)
            value = np.sqrt(max((d @ d) / d.sum() - 1.0, 0.0)) if d.sum() > 0 else 0.0
    else:
        value = r
    if not (np.isfinite(value) and value > 0):
        raise InvalidParameterError(
            f"{owner}: r={r!r} gives r={float(value)!r} on this graph; r should be a positive "
            "number (a graph without edges has no Bethe Hessian; with r='zeta', a graph whose "
            "edges are disjoint pairs has zeta = 0: pass r='sqrt-mean-degree' or a number)")
    return float(value)


@validated
def bethe_hessian(graph, r="sqrt-mean-degree", *, weight="weight"):
    r"""Sparse Bethe Hessian ``H_r = (r^2 - 1) I - r A + D`` (CSR, float64), or its weighted form.

    Parameters
    ----------
    graph : networkx graph, scipy.sparse / ndarray adjacency, GraphData or path
        Made simple and undirected by :func:`kgroups.graph.as_adjacency` (as
        :func:`detect_communities` does).
    r : "sqrt-mean-degree", "zeta" or float in (0, 1e150)
        ``"sqrt-mean-degree"``: the square root of the mean degree (the default of
        TPAMI section 5.2); ``"zeta"``: :math:`\sqrt{\langle d^2\rangle / \langle d
        \rangle - 1}`; or a positive number (below 1e150, so that r² is finite).
        Degrees count edges, weighted or not.
    weight : str or None, default="weight"
        The networkx edge attribute holding the edge weights (an edge without it
        weighs 1; see :func:`~kgroups.graph.as_adjacency` for matrices and
        files): the weighted Bethe Hessian :math:`H^w_r`, with couplings
        :math:`\tanh(\beta w_{ij})` and :math:`\beta` solving
        :math:`\langle\tanh^2(\beta w)\rangle = 1/r^2` over the edges; equal
        weights (a graph without weights) give :math:`H_r` exactly. Needs
        ``r > 1`` unless the weights are all equal. None: every edge counts 1.

    Returns
    -------
    H : scipy.sparse.csr_matrix of shape (n, n)
        The Bethe Hessian in float64, with ``nnz(A) + n`` entries (n nodes,
        isolated ones included).

    Raises
    ------
    ValueError
        For an invalid graph or edge weight (see :func:`~kgroups.graph.as_adjacency`),
        ``r <= 1`` with unequal weights, or an edge whose coupling
        :math:`\beta w` exceeds ``MAX_COUPLING`` = 10 (weights spanning too
        many orders of magnitude; the message names the edge).

    See Also
    --------
    estimate_k : The number of its negative eigenvalues.
    bethe_spectral : Clustering on its eigenvectors.

    References
    ----------
    .. [1] A. Saade, F. Krzakala, L. Zdeborová, "Spectral clustering of graphs with
       the Bethe Hessian", NeurIPS 27, 406-414, 2014.
    .. [2] G. França, M. L. Rizzo, J. T. Vogelstein, "Kernel k-Groups via
       Hartigan's Method", IEEE TPAMI 43(12), 2021, section 5.2.

    Examples
    --------
    >>> import networkx as nx
    >>> import scipy.sparse as sp
    >>> A = sp.csr_matrix([[0., 1.], [1., 0.]])
    >>> bethe_hessian(A, r=2.0).toarray().tolist()
    [[4.0, -2.0], [-2.0, 4.0]]
    >>> G = nx.Graph([(0, 1, {"weight": 1.0}), (1, 2, {"weight": 2.0})])
    >>> H = bethe_hessian(G, r=float(1 / np.sqrt(0.445)), weight="weight")
    >>> print(np.round(H.toarray() * 89 / 111, 6).tolist()[1])
    [-0.666667, 3.111111, -2.222222]
    """
    data = graph_data(graph, "bethe_hessian", "graph", weight=weight)
    A = data.adjacency
    return graph_hessian(A, data.weights, bethe_r(A, r, "bethe_hessian"), "bethe_hessian",
                         data.nodes)


def hessian(A, r):
    """``H_r`` of the clean adjacency ``A`` for the number ``r`` (no checks)."""
    H = sp.diags((r * r - 1.0) + _degrees(A)) - r * A
    return sp.csr_matrix(H)


def unweighted(W):
    """Whether the weights ``W`` (None: unweighted) give :math:`H_r` itself (all equal)."""
    return W is None or W.nnz == 0 or W.data.min() == W.data.max()


def graph_hessian(A, W, r, owner="bethe_hessian", nodes=None):
    """:math:`H_r` of ``A``, or :math:`H^w_r` of the weights ``W`` when they differ.

    ``A`` and ``W`` are clean (same entries); ``nodes`` name the rows in messages.
    """
    if unweighted(W):
        return hessian(A, r)
    return coupling_hessian(bethe_couplings(W, r, owner, nodes), r)


def spin_glass_beta(w, r):
    r"""The :math:`\beta` with :math:`\langle \tanh^2(\beta w) \rangle = 1/r^2`.

    The mean is over ``w`` (the weights, each edge once or each twice), positive
    and not all equal, and ``r > 1``. It increases with :math:`\beta` from 0 to 1,
    so the root is unique; at :math:`\beta_0 = \operatorname{artanh}(1/r)` divided
    by the largest (smallest) weight it is at most (at least) :math:`1/r^2`, which
    brackets it. Solved in :math:`\log\beta` (the bracket may span many orders of
    magnitude) by Brent's method to rounding accuracy.

    Examples
    --------
    >>> import numpy as np
    >>> w = np.array([1.0, 2.0])
    >>> beta = spin_glass_beta(w, 1 / np.sqrt(0.445))   # tanh(beta) = 1/2 by hand
    >>> print(round(float(np.tanh(beta)), 12))
    0.5
    """
    from scipy.optimize import brentq

    target = 1.0 / (r * r)
    base = np.arctanh(1.0 / r)

    def excess(log_beta):
        return float(np.mean(np.tanh(np.exp(log_beta) * w) ** 2)) - target

    lo, hi = np.log(base / w.max()), np.log(base / w.min())
    if excess(lo) >= 0:
        return float(np.exp(lo))
    if excess(hi) <= 0:
        return float(np.exp(hi))
    return float(np.exp(brentq(excess, lo, hi, xtol=1e-15, rtol=4 * np.finfo(float).eps,
                               maxiter=500)))


def bethe_couplings(W, r, owner="bethe_hessian", nodes=None):
    r"""The matrix of :math:`\beta w_{ij}` (entries of ``W``) at the spin-glass temperature.

    Refuses ``r <= 1`` (no temperature solves the condition) and an edge with
    :math:`\beta w > ` ``MAX_COUPLING``.
    """
    if not r > 1.0:
        raise InvalidParameterError(
            f"{owner}: the weighted Bethe Hessian needs r > 1 (its temperature solves "
            f"mean(tanh(beta*w)^2) = 1/r^2), got r={r:.6g} on this graph; pass a number "
            "r > 1, or weight=None")
    scale = W.data.max()
    beta = spin_glass_beta(W.data / scale, r)
    X = W.copy()
    X.data = (beta / scale) * W.data
    top = int(np.argmax(X.data))
    if X.data[top] > MAX_COUPLING:
        i = int(np.searchsorted(X.indptr, top, side="right")) - 1
        j = int(X.indices[top])
        u, v = (i, j) if nodes is None else (nodes[i], nodes[j])
        x = float(X.data[top])
        ratio = W.data[top] / np.median(W.data)
        digits = int((2.0 * x - np.log(4.0)) / np.log(10.0))  # sinh(x)^2 ~ e^(2x) / 4
        raise InvalidParameterError(
            f"{owner}: edge ({u!r}, {v!r}) has weight {W.data[top]:g}, {ratio:.3g} times the "
            f"median edge weight: at the temperature of the weighted Bethe Hessian "
            f"(r={r:.4g}) its coupling beta*w = {x:.3g} is above {MAX_COUPLING:g} (its ends "
            f"are locked together, and its entries, about 1e{digits}, would drown the "
            "eigenvalues that count communities in rounding error); compress the weights "
            "(e.g. np.log1p) or pass weight=None")
    return X


def coupling_hessian(X, r):
    r""":math:`H^w_r` from the couplings :math:`\beta w_{ij}` (entries of ``X``; no checks).

    ``(r^2 - 1) [diag(1 + sum_k sinh^2(x_ik)) - sinh(2 x_ij) / 2]``, the module's
    formula with :math:`t = \tanh x`: :math:`t^2 / (1 - t^2) = \sinh^2 x` and
    :math:`t / (1 - t^2) = \sinh(2x)/2`, which keep their digits as :math:`t \to 1`.
    """
    S = X.copy()
    S.data = np.sinh(X.data) ** 2
    C = X.copy()
    C.data = 0.5 * np.sinh(2.0 * X.data)
    H = sp.diags(1.0 + _degrees(S)) - C
    return sp.csr_matrix((r * r - 1.0) * H)


def smallest_eigenpairs(H, m, random_state=None, vectors=True):
    """The ``m`` smallest eigenvalues (ascending) of the symmetric sparse ``H``.

    Dense ``eigh`` when ``n <= DENSE_MAX_NODES`` or ``m >= n - 1`` (where
    Lanczos cannot run), after checking its memory; else Lanczos
    (``eigsh(which="SA")``) with a seeded start vector.

    Returns
    -------
    values : ndarray of shape (m,)
    vectors : ndarray of shape (n, m) or None
    """
    n = H.shape[0]
    m = int(min(m, n))
    if n <= DENSE_MAX_NODES or m >= n - 1:
        from scipy.linalg import eigh

        if n <= DENSE_MAX_NODES:
            why = f"graphs of at most {DENSE_MAX_NODES} nodes use it"
            instead = "a machine or a moment with more free memory (the matrix is small)"
        else:
            why = f"for {m} eigenvectors: sparse Lanczos needs fewer than n - 1 = {n - 1}"
            instead = f"fewer communities (n_clusters, k or max_k below {n - 1})"
        fits_or_refuse(DENSE_EIGH_COPIES * 8 * n * n, f"the dense eigendecomposition of the "
                       f"{n} x {n} Bethe Hessian ({why})", instead)
        vals, vecs = eigh(H.toarray(), subset_by_index=[0, m - 1], eigvals_only=False)
        return vals, (vecs if vectors else None)
    rng = as_rng(random_state)
    v0 = rng.standard_normal(n)
    ncv = min(n, max(2 * m + 1, m + 32))
    res = eigsh(H, k=m, which="SA", v0=v0, ncv=ncv, tol=EIGSH_TOL,
                return_eigenvectors=vectors)
    if not vectors:
        return np.sort(res), None
    vals, vecs = res
    order = np.argsort(vals)
    return vals[order], vecs[:, order]


def negative_eigenpairs(H, max_k=100, random_state=None, maxiter=ESTIMATE_MAXITER):
    """The eigenpairs of the negative eigenvalues of ``H`` (at most ``max_k``).

    Small graphs: dense ``eigh``, exact. Otherwise Lanczos on the 8, 16, 32, ...
    smallest eigenvalues until one is nonnegative or ``max_k`` is reached. Each
    Lanczos call is limited to ``maxiter`` restarts: eigenvalues still
    unconverged then sit in the bulk of the spectrum (whose edge is near 0 for
    ``r = sqrt(mean degree)``) and are counted as nonnegative; converging them
    fully would cost many more restarts on a large graph and tell nothing about
    the communities. Warns when ``max_k`` is reached.

    The informative eigenvalues are well below the bulk and converge in a few
    restarts, so each count first runs ``ESTIMATE_QUICK_MAXITER`` restarts (the
    same start vector, hence the first restarts of the full run) and keeps them
    when :func:`_negative_left` finds no negative eigenvalue left off the vectors
    found; otherwise it runs the ``maxiter`` restarts. The short run and the
    check need fewer products with ``H`` than the full run
    (``benchmarks/bench_graph_scale.py`` times the count on a million-node SBM).

    Returns
    -------
    values : ndarray of shape (k,), ascending and negative
    vectors : ndarray of shape (n, k)
    """
    rng = as_rng(random_state)
    n = H.shape[0]
    cap = int(min(max_k, n))
    m = min(8, cap)
    while True:
        vals, vecs = _negative_converged(H, m, rng, maxiter)
        if vals.size < m:
            return vals, vecs
        if m >= cap:
            break
        m = min(2 * m, cap)
    warnings.warn(
        f"the {cap} smallest eigenvalues of the Bethe Hessian are all negative, so the "
        f"estimate is k >= {cap}; using k = {cap}. Raise max_k (now {max_k}) to count further.",
        UserWarning, stacklevel=3)
    return vals, vecs


def _negative_converged(H, m, rng, maxiter):
    """The negative ones among the ``m`` smallest eigenpairs Lanczos converges (ascending).

    A short run first (``ESTIMATE_QUICK_MAXITER`` restarts); the ``maxiter`` run
    only when the short one found fewer than ``m`` and :func:`_negative_left` sees
    another negative eigenvalue. Both start from the same vector, so the short run
    is the start of the long one.
    """
    n = H.shape[0]
    if n <= DENSE_MAX_NODES or m >= n - 1:
        vals, vecs = smallest_eigenpairs(H, m, rng)
        return vals[vals < 0], vecs[:, vals < 0]
    v0 = rng.standard_normal(n)
    for budget in sorted({min(ESTIMATE_QUICK_MAXITER, maxiter), maxiter}):
        try:
            vals, vecs = eigsh(H, k=m, which="SA", v0=v0, ncv=min(n, max(2 * m + 1, 20)),
                               tol=EIGSH_TOL, maxiter=budget)
        except ArpackNoConvergence as exc:
            vals, vecs = exc.eigenvalues, exc.eigenvectors
        order = np.argsort(vals)
        neg = order[vals[order] < 0]
        vals, vecs = vals[neg], vecs[:, neg]
        if vals.size == m or budget >= maxiter or not _negative_left(H, vecs, v0):
            return vals, vecs
    return vals, vecs  # pragma: no cover  (the loop returns at budget == maxiter)


def _negative_left(H, V, v0, steps=CHECK_STEPS):
    """Whether ``H`` has a Ritz value below 0 off the span of ``V``'s orthonormal columns.

    ``steps`` Lanczos steps from ``v0`` on ``H`` compressed to the orthogonal
    complement of ``V`` (projected at every step). Ritz values never fall below
    the smallest eigenvalue of that compression (Cauchy interlacing; finite
    precision only repeats Ritz values, Paige), which is at least the next
    eigenvalue of ``H`` past those of ``V`` up to the square of their error, so a
    negative one means a negative eigenvalue of ``H`` the vectors miss. A check
    that finds none proves nothing about eigenvalues just below 0: like the full
    run, it cannot tell them from the bulk.
    """
    from scipy.linalg import eigh_tridiagonal

    def off(x):
        return x - V @ (V.T @ x) if V.shape[1] else x

    q = off(np.asarray(v0, dtype=np.float64))
    norm = np.linalg.norm(q)
    if norm == 0:
        return False
    q, q_prev, beta = q / norm, np.zeros_like(q), 0.0
    alphas, betas = [], []
    for _ in range(min(steps, H.shape[0] - V.shape[1])):
        w = off(H @ q)
        alpha = float(q @ w)
        w -= alpha * q + beta * q_prev
        alphas.append(alpha)
        beta = float(np.linalg.norm(w))
        if beta <= 1e-12 * (abs(alpha) + 1.0):  # an invariant subspace: T is exact
            break
        betas.append(beta)
        q_prev, q = q, w / beta
    if not alphas:
        return False
    d, e = np.array(alphas), np.array(betas[:len(alphas) - 1])
    low = eigh_tridiagonal(d, e, eigvals_only=True, select="i", select_range=(0, 0))[0]
    return bool(low < 0)


@validated
def estimate_k(graph, r="sqrt-mean-degree", *, weight="weight", max_k=100, random_state=None):
    """Number of negative eigenvalues of ``H_r`` (at least 1): the Bethe Hessian estimate of k.

    ``H_r`` is that of the graph without its isolated nodes (``r`` from the whole
    graph), exactly what :class:`CommunityKGroups` counts. They are counted by
    sparse Lanczos, doubling the number asked for up to ``max_k`` (a
    ``UserWarning`` when the cap is reached, and then ``max_k`` is returned). The graph is read as
    :func:`detect_communities` reads it (:func:`kgroups.graph.as_adjacency`:
    directed input symmetrised, self-loops removed, multi-edges collapsed or
    weights summed, each with a ``GraphInputWarning``), so both give the same k.

    A graph with no negative eigenvalue has no community structure the Bethe
    Hessian can see (a path, a tree, a single edge, a graph whose mean degree
    is too low): the estimate is then k = 1, one community, with a
    ``UserWarning`` saying so ("no community structure detected at r=...:
    k = 1"); never 0.

    Parameters
    ----------
    graph : networkx graph, scipy.sparse / ndarray adjacency, GraphData or path
        The graph, read by :func:`kgroups.graph.as_adjacency`.
    r : "sqrt-mean-degree", "zeta" or float in (0, 1e150)
        ``"sqrt-mean-degree"``: the square root of the mean degree (the default of
        TPAMI section 5.2); ``"zeta"``: :math:`\\sqrt{\\langle d^2\\rangle / \\langle d
        \\rangle - 1}`; or a positive number (below 1e150, so that r² is finite).
    weight : str or None, default="weight"
        The networkx edge attribute holding the edge weights (an edge without it
        weighs 1; see :func:`bethe_hessian` for the weighted Bethe Hessian and
        :func:`~kgroups.graph.as_adjacency` for matrices and files); None: every
        edge counts 1.
    max_k : int, default=100
        Cap of the estimate (the number of eigenvalues sought at most).
    random_state : int, Generator or None
        Seeds the Lanczos starting vectors.

    Returns
    -------
    k : int
        The number of negative eigenvalues, between 1 and ``max_k``: 1 (with a
        warning) when there is none.

    See Also
    --------
    bethe_hessian : The matrix whose negative eigenvalues are counted.
    kgroups.choose_k : Choosing k of point data.

    References
    ----------
    .. [1] A. Saade, F. Krzakala, L. Zdeborová, "Spectral clustering of graphs with
       the Bethe Hessian", NeurIPS 27, 406-414, 2014.
    .. [2] F. Krzakala, C. Moore, E. Mossel, J. Neeman, A. Sly, L. Zdeborová, P.
       Zhang, "Spectral redemption in clustering sparse networks", PNAS
       110(52), 20935-20940, 2013.

    Examples
    --------
    >>> import warnings
    >>> import networkx as nx
    >>> from kgroups.graph import stochastic_block_model
    >>> A, _ = stochastic_block_model(400, 3, 8.0, 2.0, random_state=1)
    >>> estimate_k(A, random_state=0)
    3
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     k = estimate_k(nx.path_graph(30))
    >>> k, str(caught[0].message)[:54]
    (1, 'estimate_k: no community structure detected at r=1.39:')
    """
    data = graph_data(graph, "estimate_k", "graph", weight=weight)
    require_edges(data, "estimate_k", "graph")
    H, rv, _ = core_hessian(data.adjacency, r, "estimate_k", data.weights, data.nodes)
    vals, _ = negative_eigenpairs(H, max_k, random_state)
    if vals.size == 0:
        warnings.warn(no_structure("estimate_k", rv, 0), UserWarning, stacklevel=3)
        return 1
    return int(vals.size)


def no_structure(owner, r, count):
    """The message for a Bethe Hessian with fewer than 2 negative eigenvalues."""
    return (f"{owner}: no community structure detected at r={r:.3g}: the Bethe Hessian has "
            f"{count} negative eigenvalue(s), so k = 1 (one community)")


def core_hessian(A, r, owner, W=None, nodes=None):
    """``H_r`` of the graph without its isolated nodes, ``r`` (of the whole graph), core.

    Isolated nodes carry no community information; left in, each adds an
    eigenvalue ``r^2 - 1``, negative when the mean degree is below 1, which
    would count as a community. With unequal weights ``W`` (the same entries as
    ``A``), the weighted :math:`H^w_r`, its couplings computed on the whole graph.
    """
    rv = bethe_r(A, r, owner)
    core = np.flatnonzero(np.diff(A.indptr) > 0)
    if unweighted(W):
        return hessian(_without_isolated(A, core), rv), rv, core
    X = bethe_couplings(W, rv, owner, nodes)
    return coupling_hessian(_without_isolated(X, core), rv), rv, core


def _without_isolated(A, core):
    """``A[core][:, core]`` of the symmetric CSR ``A`` whose other rows are empty.

    No entry leaves: only the empty rows go and the columns are renumbered (an
    increasing map, so sorted rows stay sorted), in one pass over the indices.
    """
    n = A.shape[0]
    if core.size == n:
        return A
    new_id = np.full(n, -1, dtype=A.indices.dtype)
    new_id[core] = np.arange(core.size, dtype=A.indices.dtype)
    indptr = np.concatenate([A.indptr[:1], A.indptr[core + 1]])
    return sp.csr_matrix((A.data, new_id[A.indices], indptr), shape=(core.size, core.size))


@validated
def bethe_spectral(graph, n_clusters, r="sqrt-mean-degree", *, weight="weight", n_init=10,
                   random_state=None):
    """Bethe Hessian clustering: k-means on the eigenvectors of the k smallest eigenvalues.

    Parameters
    ----------
    graph : networkx graph, scipy.sparse / ndarray adjacency, GraphData or path
        Read by :func:`kgroups.graph.as_adjacency`.
    n_clusters : int
        At most the number of nodes.
    r : "sqrt-mean-degree", "zeta" or float in (0, 1e150)
        ``"sqrt-mean-degree"``: the square root of the mean degree (the default of
        TPAMI section 5.2); ``"zeta"``: :math:`\\sqrt{\\langle d^2\\rangle / \\langle d
        \\rangle - 1}`; or a positive number (below 1e150, so that r² is finite).
    weight : str or None, default="weight"
        The networkx edge attribute holding the edge weights (an edge without it
        weighs 1), used in the weighted Bethe Hessian of :func:`bethe_hessian`;
        None: every edge counts 1.
    n_init : int, default=10
        Restarts of the k-means (scikit-learn ``KMeans``); past 100,000 nodes they
        run on 100,000 rows drawn at random, and one k-means on all rows starts
        from the best.
    random_state : int, Generator or None
        Seeds the Lanczos starting vector and the k-means.

    Returns
    -------
    labels : ndarray of shape (n,), int64
        Community of each node, in ``0..n_clusters-1``.

    See Also
    --------
    bethe_hessian : The matrix.
    CommunityKGroups : Kernel k-groups started from this clustering.
    kgroups.spectral_kgroups : Spectral clustering of a Gram matrix.

    References
    ----------
    .. [1] A. Saade, F. Krzakala, L. Zdeborová, "Spectral clustering of graphs with
       the Bethe Hessian", NeurIPS 27, 406-414, 2014.

    Examples
    --------
    >>> from kgroups.graph import stochastic_block_model
    >>> from kgroups.metrics import overlap
    >>> A, y = stochastic_block_model(400, 2, 10.0, 2.5, random_state=2)
    >>> print(overlap(y, bethe_spectral(A, 2, random_state=0)) > 0.8)
    True
    """
    data = graph_data(graph, "bethe_spectral", "graph", weight=weight)
    require_edges(data, "bethe_spectral", "graph")
    A = data.adjacency
    check_n_clusters(n_clusters, A.shape[0], "bethe_spectral")
    rng = as_rng(random_state)
    H = graph_hessian(A, data.weights, bethe_r(A, r, "bethe_spectral"), "bethe_spectral",
                      data.nodes)
    _, V = smallest_eigenpairs(H, n_clusters, rng)
    return kmeans_rows(V, n_clusters, n_init, rng)


def kmeans_rows(V, n_clusters, n_init=10, random_state=None):
    """k-means (scikit-learn, ``n_init`` restarts) on the rows of ``V``; int64 labels.

    Past ``KMEANS_SAMPLE`` rows the restarts run on that many rows drawn at random
    and one k-means on all rows starts from the best of them, which refines the
    sample's centres on every row at the cost of a single run
    (``benchmarks/bench_graph_scale.py`` times this step on a million-node SBM).
    The restarts on the sample run on one thread: the threads of scikit-learn's
    k-means can stall for many times the run's length when other processes hold
    the cores.
    """
    rng = as_rng(random_state)
    seed = int(rng.integers(np.iinfo(np.int32).max))
    if V.shape[0] <= KMEANS_SAMPLE:
        km = KMeans(n_clusters, n_init=n_init, random_state=seed).fit(V)
        return km.labels_.astype(np.int64)
    from threadpoolctl import threadpool_limits  # scikit-learn's own dependency

    rows = np.sort(np.random.default_rng(seed).choice(V.shape[0], KMEANS_SAMPLE, replace=False))
    with threadpool_limits(1):
        best = KMeans(n_clusters, n_init=n_init, random_state=seed).fit(V[rows])
    km = KMeans(n_clusters, init=best.cluster_centers_, n_init=1, random_state=seed).fit(V)
    return km.labels_.astype(np.int64)
