"""Generators for every synthetic setting of the papers.

França, Rizzo & Vogelstein, "Kernel k-Groups via Hartigan's Method" (TPAMI 43(12), 2021),
section 5.1; the ICML draft "Energy Clustering" (section 5.1, Table 1); and the arXiv
paper "Nonparametric clustering with energy statistics" (figures 2, 4-6).

Every generator returns ``(X, y)``: ``X`` float64 of shape (n_samples, n_features)
and ``y`` int64 labels ``0..k-1`` numbering the mixture components in the order the
paper lists them. ``n`` is either the total number of points, split among the
components by a multinomial draw with the mixture weights (the mixture as written,
``x ~ 1/2 N(...) + 1/2 N(...)``, and what the authors' code does), or a sequence of
exact class sizes. Rows are shuffled unless ``shuffle=False`` (then class 0 comes
first). Every covariance in these papers is diagonal, so sampling is one vectorised
draw: ``x = mu_y + sqrt(diag Sigma_y) * z`` with ``z ~ N(0, I)``.
"""

from __future__ import annotations

import numpy as np

#: The diagonal of the 10 x 10 block of :math:`\Sigma_2` in TPAMI equation 57.
#:
#: A float64 array, ``(1.367, 3.175, 3.247, 4.403, 1.249, 1.969, 4.035, 4.237,
#: 2.813, 3.637)`` (ICML equation 27), used by
#: :func:`make_unequal_covariance_gaussians`.
SIGMA_TILDE_10 = np.array(
    [1.367, 3.175, 3.247, 4.403, 1.249, 1.969, 4.035, 4.237, 2.813, 3.637]
)


# ----------------------------------------------------------------------- helpers
def _class_sizes(n, weights, rng):
    """Class sizes: exact when ``n`` is a sequence, multinomial(n, weights) when an int."""
    weights = np.asarray(weights, dtype=np.float64)
    if np.ndim(n) == 0:
        if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n < 1:
            raise ValueError(f"n={n!r}; expected a positive integer or a sequence of sizes")
        return rng.multinomial(int(n), weights / weights.sum())
    sizes = np.asarray(n)
    if sizes.shape != weights.shape or not np.issubdtype(sizes.dtype, np.integer) \
            or np.any(sizes < 0) or sizes.sum() < 1:
        raise ValueError(
            f"n={n!r}; expected a positive integer or {weights.size} non-negative "
            "integer class sizes"
        )
    return sizes.astype(np.int64)


def _labels(sizes):
    return np.repeat(np.arange(len(sizes), dtype=np.int64), sizes)


def _finish(X, y, rng, shuffle):
    if shuffle:
        order = rng.permutation(y.shape[0])
        X, y = X[order], y[order]
    return np.ascontiguousarray(X, dtype=np.float64), y


def _check_dim(n_features, minimum):
    if not isinstance(n_features, (int, np.integer)) or n_features < minimum:
        raise ValueError(f"n_features={n_features!r}; expected an integer >= {minimum}")
    return int(n_features)


# ------------------------------------------------------------------ the base case
def make_diagonal_gaussian_mixture(n, means, variances, weights=None, lognormal=False,
                                   random_state=None, shuffle=True):
    """Sample a mixture of Gaussians with diagonal covariances (or its exponential).

    .. math:: x \\sim \\sum_j w_j \\mathcal{N}(\\mu_j, \\mathrm{diag}(v_j)),
              \\qquad \\text{lognormal: } x \\sim \\sum_j w_j e^{\\mathcal{N}(\\mu_j,
              \\mathrm{diag}(v_j))}

    Every other generator of this module is this one with the paper's parameters.
    For example the arXiv paper's Fig. 5b (lognormal in D dimensions) is
    ``means=[0, 0.5 * (1,...,1 (10), 0,...,0)]``, ``variances=[0.3, 1]``,
    ``lognormal=True``.

    Parameters
    ----------
    n : int or sequence of int
        Total size (class sizes multinomial with ``weights``) or exact class sizes.
    means : array-like of shape (k, n_features)
        Mean ``mu_j`` of each component; k is the number of rows.
    variances : array-like of shape (k, n_features) or (k,)
        Diagonal covariances (variances, not standard deviations); a scalar per
        component means ``v_j I``.
    weights : array-like of shape (k,), optional
        Mixture weights, equal by default; used only when ``n`` is an int.
    lognormal : bool, default=False
        Return ``exp`` of the Gaussian sample (elementwise).
    random_state : int, numpy.random.Generator or None, default=None
        Seeds the class sizes, the sample and the shuffle.
    shuffle : bool, default=True
        Shuffle the rows; ``False`` keeps the classes in order, class 0 first.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
        The sample, float64.
    y : ndarray of shape (n_samples,), int64
        Component of each row, ``0..k-1`` in the order of ``means``.

    See Also
    --------
    make_mean_shift_gaussians : The mixture of TPAMI equation 56.
    make_lognormals_20d : A lognormal mixture.

    References
    ----------
    .. [1] G. França, M. L. Rizzo, J. T. Vogelstein, "Kernel k-Groups via
       Hartigan's Method", IEEE TPAMI 43(12), 2021, section 5.1.2, equations
       56-59.

    Examples
    --------
    >>> X, y = make_diagonal_gaussian_mixture((3, 5), [[0, 0], [4, 4]], [1, 2],
    ...                                       random_state=0)
    >>> X.shape, [int(c) for c in np.bincount(y)]
    ((8, 2), [3, 5])
    """
    rng = np.random.default_rng(random_state)
    means = np.atleast_2d(np.asarray(means, dtype=np.float64))
    k, dim = means.shape
    variances = np.asarray(variances, dtype=np.float64)
    if variances.ndim == 1 and variances.shape == (k,):
        variances = np.repeat(variances[:, None], dim, axis=1)
    if variances.shape != (k, dim) or np.any(variances < 0):
        raise ValueError(
            f"variances of shape {variances.shape}; expected non-negative values of shape "
            f"({k},) or ({k}, {dim}) to match means"
        )
    weights = np.full(k, 1.0 / k) if weights is None else np.asarray(weights, float)
    if weights.shape != (k,) or np.any(weights < 0) or weights.sum() <= 0:
        raise ValueError(f"weights={weights!r}; expected {k} non-negative numbers")
    y = _labels(_class_sizes(n, weights, rng))
    X = means[y] + np.sqrt(variances[y]) * rng.standard_normal((y.shape[0], dim))
    return _finish(np.exp(X) if lognormal else X, y, rng, shuffle)


# ------------------------------------------------------------- one dimension
def make_normal_1d(n=400, means=(0.0, 1.5), sds=(1.5, 0.3), random_state=None,
                   shuffle=True):
    """Two-component normal mixture on the line (TPAMI Figure 1a, ICML equations 23, 25).

    .. math:: x \\sim \\tfrac12 \\mathcal{N}(\\mu_1, \\sigma_1^2)
              + \\tfrac12 \\mathcal{N}(\\mu_2, \\sigma_2^2)

    Defaults: TPAMI Fig. 1a, ``mu = (0, 1.5)``, ``sigma = (1.5, 0.3)``; these are
    standard deviations (ICML eq. (25) states ``sigma_1 = 0.3, sigma_2 = 1.5`` with
    the components in the other order). The arXiv paper's Fig. 2a uses
    ``means=(0, 5), sds=(1, 2)`` with equal class sizes (``n=(m, m)``).

    Parameters
    ----------
    n : int or (int, int), default=400
        Total number of points (class sizes multinomial with equal weights) or the
        exact class sizes.
    means, sds : pair of float, default=(0.0, 1.5) and (1.5, 0.3)
        Means and standard deviations of the two components.
    random_state : int, numpy.random.Generator or None, default=None
        Seeds the class sizes, the sample and the shuffle.
    shuffle : bool, default=True
        Shuffle the rows; ``False`` keeps the classes in order, class 0 first.

    Returns
    -------
    X : ndarray of shape (n_samples, 1)
        The sample, one column.
    y : ndarray of shape (n_samples,), int64
        Component of each row, ``0..k-1`` in the order the paper lists them.

    See Also
    --------
    make_lognormal_1d : The lognormal mixture of TPAMI Figure 1b.
    kgroups.onedim_kgroups : The exact one-dimensional clustering.

    References
    ----------
    .. [1] G. França, M. L. Rizzo, J. T. Vogelstein, "Kernel k-Groups via
       Hartigan's Method", IEEE TPAMI 43(12), 2021, Figure 1a.
    .. [2] G. França, J. T. Vogelstein, "Energy clustering" (ICML draft of
       "Nonparametric energy clustering"), equations 23 and 25.
    .. [3] G. França, J. T. Vogelstein, "Nonparametric energy clustering" (arXiv
       version, "Nonparametric Clustering from Energy Statistics"), Figure 2a.

    Examples
    --------
    >>> X, y = make_normal_1d((500, 500), random_state=0)
    >>> print(round(float(X[y == 1].mean()), 1), round(float(X[y == 1].std()), 1))
    1.5 0.3
    """
    if np.shape(means) != (2,) or np.shape(sds) != (2,) or np.any(np.asarray(sds) < 0):
        raise ValueError(f"means={means!r}, sds={sds!r}; expected two means and two sds >= 0")
    variances = np.square(np.asarray(sds, dtype=np.float64))
    return make_diagonal_gaussian_mixture(n, np.asarray(means, float)[:, None], variances,
                                          random_state=random_state, shuffle=shuffle)


def make_lognormal_1d(n=400, means=(0.0, 1.5), sds=(1.5, 0.3), random_state=None,
                      shuffle=True):
    """Two-component lognormal mixture on the line (TPAMI Figure 1b, ICML equations 24-25).

    .. math:: x \\sim \\tfrac12 e^{\\mathcal{N}(\\mu_1, \\sigma_1^2)}
              + \\tfrac12 e^{\\mathcal{N}(\\mu_2, \\sigma_2^2)}

    Defaults as :func:`make_normal_1d` (TPAMI Fig. 1b); the arXiv paper's Fig. 2b
    uses ``means=(0, -1.5), sds=(0.3, 1.5)``.

    Parameters
    ----------
    n : int or (int, int), default=400
        Total number of points (class sizes multinomial with equal weights) or the
        exact class sizes.
    means, sds : pair of float, default=(0.0, 1.5) and (1.5, 0.3)
        Means and standard deviations of the logarithms of the two components.
    random_state : int, numpy.random.Generator or None, default=None
        Seeds the class sizes, the sample and the shuffle.
    shuffle : bool, default=True
        Shuffle the rows; ``False`` keeps the classes in order, class 0 first.

    Returns
    -------
    X : ndarray of shape (n_samples, 1), positive
        The sample, one column.
    y : ndarray of shape (n_samples,), int64
        Component of each row, ``0..k-1`` in the order the paper lists them.

    See Also
    --------
    make_normal_1d : The normal mixture of TPAMI Figure 1a.
    kgroups.onedim_kgroups : The exact one-dimensional clustering.

    References
    ----------
    .. [1] G. França, M. L. Rizzo, J. T. Vogelstein, "Kernel k-Groups via
       Hartigan's Method", IEEE TPAMI 43(12), 2021, Figure 1b.
    .. [2] G. França, J. T. Vogelstein, "Energy clustering" (ICML draft of
       "Nonparametric energy clustering"), equations 24-25.
    .. [3] G. França, J. T. Vogelstein, "Nonparametric energy clustering" (arXiv
       version, "Nonparametric Clustering from Energy Statistics"), Figure 2b.

    Examples
    --------
    >>> X, y = make_lognormal_1d((500, 500), random_state=0)
    >>> print(round(float(np.log(X[y == 1]).mean()), 1), bool(X.min() > 0))
    1.5 True
    """
    X, y = make_normal_1d(n, means, sds, random_state=random_state, shuffle=shuffle)
    return np.exp(X), y


# ------------------------------------------------------------- D dimensions
def make_mean_shift_gaussians(n=200, n_features=10, random_state=None, shuffle=True):
    """Gaussian mixture of TPAMI equation 56 (ICML equation 26; TPAMI Figure 3a).

    .. math:: x \\sim \\tfrac12 \\mathcal{N}(\\mu_1, I_D) + \\tfrac12 \\mathcal{N}(\\mu_2, I_D),
              \\quad \\mu_1 = 0, \\quad \\mu_2 = 0.7\\,(1_{10}, 0_{D-10})

    Signal in the first 10 coordinates only; Bayes accuracy about 0.86 for every
    ``D >= 10``. The paper samples 200 points per trial and increases D.

    Parameters
    ----------
    n : int or (int, int), default=200
        Total number of points (class sizes multinomial with equal weights) or the
        exact class sizes.
    n_features : int >= 10, default=10
        The dimension D.
    random_state : int, numpy.random.Generator or None, default=None
        Seeds the class sizes, the sample and the shuffle.
    shuffle : bool, default=True
        Shuffle the rows; ``False`` keeps the classes in order, class 0 first.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
        The sample, float64.
    y : ndarray of shape (n_samples,), int64
        Component of each row, ``0..k-1`` in the order the paper lists them.

    See Also
    --------
    make_unequal_covariance_gaussians : The mixture of TPAMI equation 57.

    References
    ----------
    .. [1] G. França, M. L. Rizzo, J. T. Vogelstein, "Kernel k-Groups via
       Hartigan's Method", IEEE TPAMI 43(12), 2021, equation 56 and Figure 3a.
    .. [2] G. França, J. T. Vogelstein, "Energy clustering" (ICML draft of
       "Nonparametric energy clustering"), equation 26.

    Examples
    --------
    >>> X, y = make_mean_shift_gaussians(200, 30, random_state=0)
    >>> X.shape
    (200, 30)
    """
    dim = _check_dim(n_features, 10)
    means = np.zeros((2, dim))
    means[1, :10] = 0.7
    return make_diagonal_gaussian_mixture(n, means, [1.0, 1.0], random_state=random_state,
                                          shuffle=shuffle)


def make_unequal_covariance_gaussians(n=200, n_features=10, random_state=None,
                                      shuffle=True):
    """Gaussian mixture of TPAMI equation 57 (ICML equation 27; TPAMI Figure 3b).

    .. math:: x \\sim \\tfrac12 \\mathcal{N}(0, I_D) + \\tfrac12 \\mathcal{N}(\\mu_2, \\Sigma_2),
              \\quad \\mu_2 = (1_{10}, 0_{D-10}), \\quad
              \\Sigma_2 = \\mathrm{diag}(\\tilde\\Sigma_{10}, I_{D-10})

    with ``diag(Sigma~_10) = SIGMA_TILDE_10 = (1.367, 3.175, 3.247, 4.403, 1.249,
    1.969, 4.035, 4.237, 2.813, 3.637)``. Note ``mu_2`` has no factor 0.7 here. Bayes
    accuracy about 0.95. (The arXiv version of this experiment differs: ``mu_2 =
    0.7 (1_10, 0)`` and ``Sigma_2 = diag(I_10 / 2, I)``.)

    Parameters
    ----------
    n : int or (int, int), default=200
        Total number of points (class sizes multinomial with equal weights) or the
        exact class sizes.
    n_features : int >= 10, default=10
        The dimension D.
    random_state : int, numpy.random.Generator or None, default=None
        Seeds the class sizes, the sample and the shuffle.
    shuffle : bool, default=True
        Shuffle the rows; ``False`` keeps the classes in order, class 0 first.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
        The sample, float64.
    y : ndarray of shape (n_samples,), int64
        Component of each row, ``0..k-1`` in the order the paper lists them.

    See Also
    --------
    SIGMA_TILDE_10 : The diagonal of its covariance block.
    make_mean_shift_gaussians : The mixture of TPAMI equation 56.

    References
    ----------
    .. [1] G. França, M. L. Rizzo, J. T. Vogelstein, "Kernel k-Groups via
       Hartigan's Method", IEEE TPAMI 43(12), 2021, equation 57 and Figure 3b.
    .. [2] G. França, J. T. Vogelstein, "Energy clustering" (ICML draft of
       "Nonparametric energy clustering"), equation 27.

    Examples
    --------
    >>> X, y = make_unequal_covariance_gaussians((10, 4000), 12, random_state=0)
    >>> X1 = X[y == 1]
    >>> print(round(float(X1[:, 3].var()), 1), round(float(X1[:, 11].var()), 1))
    4.4 1.0
    """
    dim = _check_dim(n_features, 10)
    means = np.zeros((2, dim))
    means[1, :10] = 1.0
    variances = np.ones((2, dim))
    variances[1, :10] = SIGMA_TILDE_10
    return make_diagonal_gaussian_mixture(n, means, variances, random_state=random_state,
                                          shuffle=shuffle)


def make_gaussians_20d(n=200, n_features=20, lognormal=False, random_state=None,
                       shuffle=True):
    """Mixture of TPAMI equation 58 (ICML equation 28; TPAMI Figure 3c, ICML Figure 3 left).

    .. math:: x \\sim \\tfrac12 \\mathcal{N}(0, \\tfrac12 I_D)
              + \\tfrac12 \\mathcal{N}(\\mu_2, I_D),
              \\quad \\mu_2 = \\tfrac12 (1_5, 0_{D-5}), \\quad D = 20

    (TPAMI writes ``2 Sigma_1 = Sigma_2 = I_20``.) Bayes accuracy about 0.90; the
    paper varies n in [10, 400]. With ``lognormal=True`` this is TPAMI Fig. 3d and
    ICML Fig. 3 right (see :func:`make_lognormals_20d`).

    Parameters
    ----------
    n : int or (int, int), default=200
        Total number of points (class sizes multinomial with equal weights) or the
        exact class sizes.
    n_features : int >= 5, default=20
        D; the papers use 20 (the ICML draft speaks of "lognormal mixtures in R^D").
    lognormal : bool, default=False
        Return ``exp`` of the Gaussian sample (elementwise).
    random_state : int, numpy.random.Generator or None, default=None
        Seeds the class sizes, the sample and the shuffle.
    shuffle : bool, default=True
        Shuffle the rows; ``False`` keeps the classes in order, class 0 first.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
        The sample, float64.
    y : ndarray of shape (n_samples,), int64
        Component of each row, ``0..k-1`` in the order the paper lists them.

    See Also
    --------
    make_lognormals_20d : The exponential of this mixture.
    make_diagonal_gaussian_mixture : Any diagonal Gaussian mixture.

    References
    ----------
    .. [1] G. França, M. L. Rizzo, J. T. Vogelstein, "Kernel k-Groups via
       Hartigan's Method", IEEE TPAMI 43(12), 2021, equation 58 and Figure 3c.
    .. [2] G. França, J. T. Vogelstein, "Energy clustering" (ICML draft of
       "Nonparametric energy clustering"), equation 28 and Figure 3.

    Examples
    --------
    >>> X, y = make_gaussians_20d((4000, 4000), random_state=0)
    >>> X0, X1 = X[y == 0], X[y == 1]
    >>> print(round(float(X0.var()), 1), round(float(X1[:, :5].mean()), 1))
    0.5 0.5
    """
    dim = _check_dim(n_features, 5)
    means = np.zeros((2, dim))
    means[1, :5] = 0.5
    return make_diagonal_gaussian_mixture(n, means, [0.5, 1.0], lognormal=bool(lognormal),
                                          random_state=random_state, shuffle=shuffle)


def make_lognormals_20d(n=200, n_features=20, random_state=None, shuffle=True):
    """Lognormal mixture with the parameters of TPAMI equation 58 (Figure 3d; ICML Figure 3 right).

    .. math:: x \\sim \\tfrac12 e^{\\mathcal{N}(0, \\frac12 I_D)}
              + \\tfrac12 e^{\\mathcal{N}(\\mu_2, I_D)},
              \\quad \\mu_2 = \\tfrac12 (1_5, 0_{D-5})

    Same as ``make_gaussians_20d(..., lognormal=True)``: the same random draws,
    exponentiated. Bayes accuracy about 0.90.

    Parameters
    ----------
    n : int or (int, int), default=200
        Total number of points (class sizes multinomial with equal weights) or the
        exact class sizes.
    n_features : int >= 5, default=20
        The dimension D.
    random_state : int, numpy.random.Generator or None, default=None
        Seeds the class sizes, the sample and the shuffle.
    shuffle : bool, default=True
        Shuffle the rows; ``False`` keeps the classes in order, class 0 first.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features), positive
        The sample, float64.
    y : ndarray of shape (n_samples,), int64
        Component of each row, ``0..k-1`` in the order the paper lists them.

    See Also
    --------
    make_gaussians_20d : The Gaussian mixture with these parameters.

    References
    ----------
    .. [1] G. França, M. L. Rizzo, J. T. Vogelstein, "Kernel k-Groups via
       Hartigan's Method", IEEE TPAMI 43(12), 2021, equation 58 and Figure 3d.
    .. [2] G. França, J. T. Vogelstein, "Energy clustering" (ICML draft of
       "Nonparametric energy clustering"), Figure 3.

    Examples
    --------
    >>> X, y = make_lognormals_20d(100, random_state=0)
    >>> X.shape, bool(X.min() > 0)
    ((100, 20), True)
    """
    return make_gaussians_20d(n, n_features, lognormal=True, random_state=random_state,
                              shuffle=shuffle)


def make_unbalanced_gaussians(m, N=300, random_state=None, shuffle=True):
    """Unbalanced Gaussian clusters of TPAMI equation 59 (Figure 3f).

    .. math:: n_1 = N - m \\text{ points from } \\mathcal{N}(0, I_4), \\quad
              n_2 = N + m \\text{ from } \\mathcal{N}(1.5 (1,1,0,0),
              \\mathrm{diag}(\\tfrac12, \\tfrac12, 1, 1))

    The class sizes are exact (the printed eq. (59) repeats the first component by
    a typo; its weights are ``n_1/2N`` and ``n_2/2N``). The paper varies
    ``m in [0, 240]`` with ``N = 300``; the arXiv version uses ``N = 200``.

    Parameters
    ----------
    m : int, 0 <= m < N
        The imbalance: the classes have ``N - m`` and ``N + m`` points.
    N : int, default=300
        Half the total number of points.
    random_state : int, numpy.random.Generator or None, default=None
        Seeds the class sizes, the sample and the shuffle.
    shuffle : bool, default=True
        Shuffle the rows; ``False`` keeps the classes in order, class 0 first.

    Returns
    -------
    X : ndarray of shape (2 N, 4)
        The sample, float64.
    y : ndarray of shape (2 N,), int64
        0 for the ``N - m`` points of the first component, 1 for the others.

    See Also
    --------
    make_mean_shift_gaussians : The balanced mixture of TPAMI equation 56.

    References
    ----------
    .. [1] G. França, M. L. Rizzo, J. T. Vogelstein, "Kernel k-Groups via
       Hartigan's Method", IEEE TPAMI 43(12), 2021, equation 59 and Figure 3f.

    Examples
    --------
    >>> X, y = make_unbalanced_gaussians(100, random_state=0)
    >>> X.shape, [int(c) for c in np.bincount(y)]
    ((600, 4), [200, 400])
    """
    if not isinstance(N, (int, np.integer)) or N < 1:
        raise ValueError(f"N={N!r}; expected a positive integer")
    if not isinstance(m, (int, np.integer)) or not 0 <= m < N:
        raise ValueError(f"m={m!r}; expected an integer with 0 <= m < N={N}")
    means = np.array([[0.0, 0, 0, 0], [1.5, 1.5, 0, 0]])
    variances = np.array([[1.0, 1, 1, 1], [0.5, 0.5, 1, 1]])
    return make_diagonal_gaussian_mixture((N - m, N + m), means, variances,
                                          random_state=random_state, shuffle=shuffle)


# ------------------------------------------------------------- two dimensions
def make_grid_blobs(n_clusters, n_per_cluster=10, variance=0.1, random_state=None,
                    shuffle=True):
    """Many small Gaussian clusters centred on a unit grid (TPAMI Figure 3e).

    ``n_per_cluster`` points from ``N(mu_l, variance I_2)`` for each cluster l, with
    ``mu_l`` on the integer lattice. The paper varies ``n_clusters in 2..50`` with
    10 points each and ``0.1 I``. It does not say how the centres fill the grid; here
    they fill rows of ``ceil(sqrt(n_clusters))`` columns: ``mu_l = (l mod c, l // c)``.

    Parameters
    ----------
    n_clusters : int >= 1
        Number of clusters (grid points used).
    n_per_cluster : int, default=10
        Points per cluster.
    variance : float, default=0.1
        Variance of each coordinate around the centre.
    random_state : int, numpy.random.Generator or None, default=None
        Seeds the class sizes, the sample and the shuffle.
    shuffle : bool, default=True
        Shuffle the rows; ``False`` keeps the classes in order, class 0 first.

    Returns
    -------
    X : ndarray of shape (n_clusters * n_per_cluster, 2)
        The sample, float64.
    y : ndarray of shape (n_clusters * n_per_cluster,), int64
        Cluster of each row, ``0..n_clusters-1`` (centre ``(l mod c, l // c)``).

    See Also
    --------
    make_diagonal_gaussian_mixture : Any diagonal Gaussian mixture.

    References
    ----------
    .. [1] G. França, M. L. Rizzo, J. T. Vogelstein, "Kernel k-Groups via
       Hartigan's Method", IEEE TPAMI 43(12), 2021, Figure 3e.

    Examples
    --------
    >>> X, y = make_grid_blobs(5, random_state=0)
    >>> X.shape, int(y.max()) + 1
    ((50, 2), 5)
    """
    if not isinstance(n_clusters, (int, np.integer)) or n_clusters < 1:
        raise ValueError(f"n_clusters={n_clusters!r}; expected a positive integer")
    if not isinstance(n_per_cluster, (int, np.integer)) or n_per_cluster < 1:
        raise ValueError(f"n_per_cluster={n_per_cluster!r}; expected a positive integer")
    cols = int(np.ceil(np.sqrt(n_clusters)))
    ell = np.arange(n_clusters)
    means = np.column_stack([ell % cols, ell // cols]).astype(np.float64)
    return make_diagonal_gaussian_mixture(np.full(n_clusters, n_per_cluster), means,
                                          np.full(n_clusters, float(variance)),
                                          random_state=random_state, shuffle=shuffle)


def make_cigars(n=(200, 200), random_state=None, shuffle=True):
    """Two parallel cigars (ICML Table 1 and Figure 4 left; arXiv Figure 6a).

    .. math:: x \\sim \\tfrac12 \\mathcal{N}((0, 0), \\Sigma)
              + \\tfrac12 \\mathcal{N}((6.5, 0), \\Sigma), \\quad
              \\Sigma = \\mathrm{diag}(1, 20)

    The ICML draft uses 200 points per class, the arXiv paper 100.

    Parameters
    ----------
    n : int or (int, int), default=(200, 200)
        Total number of points (class sizes multinomial with equal weights) or the
        exact class sizes.
    random_state : int, numpy.random.Generator or None, default=None
        Seeds the class sizes, the sample and the shuffle.
    shuffle : bool, default=True
        Shuffle the rows; ``False`` keeps the classes in order, class 0 first.

    Returns
    -------
    X : ndarray of shape (n_samples, 2)
        The sample, float64.
    y : ndarray of shape (n_samples,), int64
        0 for the cigar centred at (0, 0), 1 for the one at (6.5, 0).

    See Also
    --------
    make_concentric_circles : The other data set of ICML Table 1.
    make_spirals : Spirals (arXiv Figure 6c).

    References
    ----------
    .. [1] G. França, J. T. Vogelstein, "Energy clustering" (ICML draft of
       "Nonparametric energy clustering"), Table 1 and Figure 4.
    .. [2] G. França, J. T. Vogelstein, "Nonparametric energy clustering" (arXiv
       version, "Nonparametric Clustering from Energy Statistics"), Figure 6a.

    Examples
    --------
    >>> X, y = make_cigars(random_state=0)
    >>> X.shape, [int(c) for c in np.bincount(y)]
    ((400, 2), [200, 200])
    """
    means = np.array([[0.0, 0.0], [6.5, 0.0]])
    variances = np.array([[1.0, 20.0], [1.0, 20.0]])
    return make_diagonal_gaussian_mixture(n, means, variances, random_state=random_state,
                                          shuffle=shuffle)


def make_concentric_circles(n=(400, 400), radii=(1.0, 3.0), noise=0.2, random_state=None,
                            shuffle=True):
    """Concentric circles with Gaussian noise (ICML Table 1, Figure 4; arXiv Figure 6b).

    Class j: ``r_j (cos t, sin t) + noise * z`` with ``t ~ U[0, 2 pi)`` and
    ``z ~ N(0, I_2)``. ICML "two circles": ``radii=(1, 3)``, 400 points each;
    "three circles": ``n=(400, 400, 400), radii=(1, 3, 5)``; noise 0.2 (the draft
    says only "Gaussian noise"; radii and noise follow the authors' experiment
    code). The arXiv figure uses 150 points per class.

    Parameters
    ----------
    n : int or sequence of int, default=(400, 400)
        Total number of points (class sizes multinomial with equal weights) or the
        exact class sizes, one per circle.
    radii : sequence of float, default=(1.0, 3.0)
        Radius ``r_j`` of each circle; its length is the number of classes.
    noise : float >= 0, default=0.2
        Standard deviation of the noise in each coordinate.
    random_state : int, numpy.random.Generator or None, default=None
        Seeds the class sizes, the sample and the shuffle.
    shuffle : bool, default=True
        Shuffle the rows; ``False`` keeps the classes in order, class 0 first.

    Returns
    -------
    X : ndarray of shape (n_samples, 2)
        The sample, float64.
    y : ndarray of shape (n_samples,), int64
        Circle of each row, in the order of ``radii``.

    See Also
    --------
    make_cigars : The other data set of ICML Table 1.
    make_spirals : Spirals (arXiv Figure 6c).

    References
    ----------
    .. [1] G. França, J. T. Vogelstein, "Energy clustering" (ICML draft of
       "Nonparametric energy clustering"), Table 1 and Figure 4.
    .. [2] G. França, J. T. Vogelstein, "Nonparametric energy clustering" (arXiv
       version, "Nonparametric Clustering from Energy Statistics"), Figure 6b.

    Examples
    --------
    >>> X, y = make_concentric_circles((400, 400, 400), (1, 3, 5), random_state=0)
    >>> r = np.hypot(X[:, 0], X[:, 1])
    >>> [round(float(r[y == j].mean()), 1) for j in range(3)]
    [1.0, 3.0, 5.0]
    """
    rng = np.random.default_rng(random_state)
    radii = np.asarray(radii, dtype=np.float64)
    if radii.ndim != 1 or radii.size < 1 or noise < 0:
        raise ValueError(f"radii={radii!r}, noise={noise!r}; expected radii and noise >= 0")
    y = _labels(_class_sizes(n, np.ones(radii.size), rng))
    t = rng.uniform(0.0, 2.0 * np.pi, y.shape[0])
    X = radii[y, None] * np.column_stack([np.cos(t), np.sin(t)])
    X += noise * rng.standard_normal(X.shape)
    return _finish(X, y, rng, shuffle)


def make_spirals(n=(150, 150), noise=0.2, turns=2.0, random_state=None, shuffle=True):
    """Two interleaved spirals with Gaussian noise (arXiv Figure 6c).

    Class 0: ``t (cos t, sin t)``, class 1: ``-t (cos t, sin t)``, with t evenly
    spaced on ``[0, 2 pi turns]``, plus ``noise * N(0, I_2)``. The arXiv paper gives
    150 points per class and "a small Gaussian noise"; the parametrisation, two
    turns and noise 0.2 follow the authors' experiment code.

    Parameters
    ----------
    n : int or (int, int), default=(150, 150)
        Total number of points (class sizes multinomial with equal weights) or the
        exact class sizes.
    noise : float >= 0, default=0.2
        Standard deviation of the noise in each coordinate.
    turns : float > 0, default=2.0
        Number of turns of each spiral.
    random_state : int, numpy.random.Generator or None, default=None
        Seeds the class sizes, the sample and the shuffle.
    shuffle : bool, default=True
        Shuffle the rows; ``False`` keeps the classes in order, class 0 first.

    Returns
    -------
    X : ndarray of shape (n_samples, 2)
        The sample, float64.
    y : ndarray of shape (n_samples,), int64
        0 for the spiral ``t (cos t, sin t)``, 1 for its mirror image.

    See Also
    --------
    make_cigars : Parallel cigars.
    make_concentric_circles : Concentric circles.

    References
    ----------
    .. [1] G. França, J. T. Vogelstein, "Nonparametric energy clustering" (arXiv
       version, "Nonparametric Clustering from Energy Statistics"), Figure 6c.

    Examples
    --------
    >>> X, y = make_spirals(noise=0.0, shuffle=False)
    >>> X.shape, bool(np.allclose(X[y == 0], -X[y == 1]))
    ((300, 2), True)
    """
    rng = np.random.default_rng(random_state)
    if noise < 0 or turns <= 0:
        raise ValueError(f"noise={noise!r}, turns={turns!r}; expected noise >= 0, turns > 0")
    sizes = _class_sizes(n, np.ones(2), rng)
    t = np.concatenate([np.linspace(0.0, 2.0 * np.pi * turns, s) for s in sizes])
    y = _labels(sizes)
    sign = np.where(y == 0, 1.0, -1.0)
    X = (sign * t)[:, None] * np.column_stack([np.cos(t), np.sin(t)])
    X += noise * rng.standard_normal(X.shape)
    return _finish(X, y, rng, shuffle)
