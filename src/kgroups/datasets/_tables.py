"""Loaders of the bundled UCI tables, preprocessed as França, Rizzo & Vogelstein did.

The dermatology data of TPAMI Table II and Figure 6 (:func:`load_dermatology`) and
the shipped datasets of Table III (:func:`load_iris`, :func:`load_wine`,
:func:`load_seeds`, :func:`load_glass`, :func:`load_ionosphere`), from
``kgroups/datasets/data/`` (``MANIFEST.md`` gives each file's source, SHA-256 and
class counts). Each returns ``(X, y)``: ``X`` float64 of shape (n_samples,
n_features), ``y`` int64 labels 0..k-1. Cite the original donors (UCI Machine
Learning Repository) when you publish results obtained on these data.
"""

from __future__ import annotations

import numpy as np

from ._parsing import (DATA_DIR, _check_standardize, _encode_labels, _read_fields, _to_float,
                       _zscore)


# ----------------------------------------------------------------------- dermatology
def load_dermatology(standardize=None):
    """Load the UCI dermatology data as the TPAMI paper uses it (Table II, Figure 6).

    366 patients, 34 attributes (column 33 is the age), 6 classes with counts
    112/61/72/49/52/20. Eight ages are missing (``?``, 0-based rows 33-36 and
    262-265); they are replaced by the mean of the 358 observed ages, as in
    section 5.3 of the paper. Then every column is z-scored (mean 0, population
    standard deviation 1). Class values 1..6 become labels 0..5.

    Parameters
    ----------
    standardize : bool or None, default=None
        ``None`` follows the paper (z-score all columns); ``True``/``False`` overrides.

    Returns
    -------
    X : ndarray of shape (366, 34), float64
        The attributes, missing ages imputed, z-scored unless ``standardize=False``.
    y : ndarray of shape (366,), int64, values in 0..5
        The diagnosis of each patient (class 1..6 of the file minus 1).

    See Also
    --------
    load_user_file : The datasets that cannot be shipped.
    kgroups.KernelKGroups : The clustering of TPAMI Table II.

    References
    ----------
    Güvenir, Demiröz & İlter, "Learning differential diagnosis of erythemato-squamous
    diseases using voting feature intervals", Artif. Intell. Med. 13 (1998);
    UCI Machine Learning Repository, "Dermatology".

    Examples
    --------
    >>> X, y = load_dermatology()
    >>> X.shape, int(y.max()) + 1
    ((366, 34), 6)
    >>> print(round(float(X[:, 33].mean()), 6), round(float(X[:, 33].std()), 6))
    0.0 1.0
    """
    std = _check_standardize(standardize, True)
    path = DATA_DIR / "dermatology.data"
    fields, lines = _read_fields(path)
    if fields.shape[1] != 35:
        raise ValueError(f"{path}: expected 35 fields per row, got {fields.shape[1]}")
    X = _to_float(fields[:, :34], lines, path, missing=("?",))
    col_mean = np.nanmean(X, axis=0)
    rows, cols = np.nonzero(np.isnan(X))
    X[rows, cols] = col_mean[cols]
    y, _ = _encode_labels(_to_float(fields[:, 34:], lines, path).astype(np.int64))
    return (_zscore(X) if std else X), y


# --------------------------------------------------------------- other UCI tables
def _bundled_table(filename, n_fields, feature_cols, label_col, sep, std, label_numeric):
    """Read a bundled table; returns raw float features and 0..k-1 labels."""
    path = DATA_DIR / filename
    fields, lines = _read_fields(path, sep=sep)
    if fields.shape[1] != n_fields:
        raise ValueError(f"{path}: expected {n_fields} fields per row, got {fields.shape[1]}")
    X = _to_float(fields[:, feature_cols], lines, path)
    raw = fields[:, label_col].astype(str)
    if label_numeric:
        raw = _to_float(raw[:, None], lines, path).ravel()
    y, _ = _encode_labels(raw)
    return (_zscore(X) if std else X), y


def load_iris(standardize=None):
    """Load Fisher's iris data in the UCI version the paper used (TPAMI Table III).

    150 flowers, 4 features, 3 classes of 50 (Iris-setosa, -versicolor, -virginica
    become 0, 1, 2). The paper did **not** normalise it. This file keeps the two UCI
    errata values (samples 35 and 38) that scikit-learn's copy corrects.

    Parameters
    ----------
    standardize : bool or None, default=None
        ``None`` follows the paper (raw features); ``True`` z-scores the columns.

    Returns
    -------
    X : ndarray of shape (150, 4), float64
        Sepal and petal length and width (cm), raw unless ``standardize=True``.
    y : ndarray of shape (150,), int64
        The species, 0..2.

    See Also
    --------
    sklearn.datasets.load_iris : The corrected copy of scikit-learn.
    load_user_file : The other datasets of TPAMI Table III.

    References
    ----------
    .. [1] R. A. Fisher, "The use of multiple measurements in taxonomic problems",
       Annals of Eugenics 7(2), 179-188, 1936.
    .. [2] D. Dua, C. Graff, UCI Machine Learning Repository, University of
       California, Irvine, 2017 (https://archive.ics.uci.edu).
    .. [3] G. França, M. L. Rizzo, J. T. Vogelstein, "Kernel k-Groups via
       Hartigan's Method", IEEE TPAMI 43(12), 2021, Table III.

    Examples
    --------
    >>> X, y = load_iris()
    >>> X.shape, [int(c) for c in np.bincount(y)]
    ((150, 4), [50, 50, 50])
    """
    std = _check_standardize(standardize, False)
    return _bundled_table("iris.data", 5, slice(0, 4), 4, ",", std, False)


def load_wine(standardize=None):
    """Load the UCI wine data, z-scored as in the paper (TPAMI Table III).

    178 wines, 13 features, 3 cultivars with counts 59/71/48; the class comes first
    in the file (1..3) and becomes 0..2.

    Parameters
    ----------
    standardize : bool or None, default=None
        ``None`` follows the paper (z-scored columns); ``False`` keeps raw values.

    Returns
    -------
    X : ndarray of shape (178, 13), float64
        The chemical analyses, z-scored unless ``standardize=False``.
    y : ndarray of shape (178,), int64
        The cultivar, 0..2.

    See Also
    --------
    load_user_file : The other datasets of TPAMI Table III.

    References
    ----------
    .. [1] M. Forina et al., PARVUS: an extendible package for data exploration,
       classification and correlation, Institute of Pharmaceutical and Food
       Analysis and Technologies, Genoa (UCI "Wine").
    .. [2] D. Dua, C. Graff, UCI Machine Learning Repository, University of
       California, Irvine, 2017 (https://archive.ics.uci.edu).
    .. [3] G. França, M. L. Rizzo, J. T. Vogelstein, "Kernel k-Groups via
       Hartigan's Method", IEEE TPAMI 43(12), 2021, Table III.

    Examples
    --------
    >>> X, y = load_wine()
    >>> X.shape, [int(c) for c in np.bincount(y)]
    ((178, 13), [59, 71, 48])
    """
    std = _check_standardize(standardize, True)
    return _bundled_table("wine.data", 14, slice(1, 14), 0, ",", std, True)


def load_seeds(standardize=None):
    """Load the UCI seeds (wheat kernels) data, z-scored as in the paper (Table III).

    210 kernels, 7 features, 3 varieties of 70 (classes 1..3 become 0..2). The file is
    separated by runs of whitespace (some rows have doubled tabs).

    Parameters
    ----------
    standardize : bool or None, default=None
        ``None`` follows the paper (z-scored columns); ``False`` keeps raw values.

    Returns
    -------
    X : ndarray of shape (210, 7), float64
        The geometric measurements of each kernel, z-scored unless
        ``standardize=False``.
    y : ndarray of shape (210,), int64
        The variety, 0..2.

    See Also
    --------
    load_user_file : The other datasets of TPAMI Table III.

    References
    ----------
    .. [1] M. Charytanowicz, J. Niewczas, P. Kulczycki, P. A. Kowalski, S. Łukasik,
       S. Żak, "Complete gradient clustering algorithm for features analysis of
       X-ray images", Information Technologies in Biomedicine, Springer, 15-24,
       2010.
    .. [2] D. Dua, C. Graff, UCI Machine Learning Repository, University of
       California, Irvine, 2017 (https://archive.ics.uci.edu).
    .. [3] G. França, M. L. Rizzo, J. T. Vogelstein, "Kernel k-Groups via
       Hartigan's Method", IEEE TPAMI 43(12), 2021, Table III.

    Examples
    --------
    >>> X, y = load_seeds()
    >>> X.shape, [int(c) for c in np.bincount(y)]
    ((210, 7), [70, 70, 70])
    """
    std = _check_standardize(standardize, True)
    return _bundled_table("seeds_dataset.txt", 8, slice(0, 7), 7, None, std, True)


def load_glass(standardize=None):
    """Load the UCI glass identification data as the paper used it (Table III).

    214 samples; the id (column 0) is dropped and the 9 oxide features are kept
    **without** normalisation. Class values 1, 2, 3, 5, 6, 7 become 0..5
    (counts 70/76/17/13/9/29).

    Parameters
    ----------
    standardize : bool or None, default=None
        ``None`` follows the paper (raw features); ``True`` z-scores the columns.

    Returns
    -------
    X : ndarray of shape (214, 9), float64
        Refractive index and oxide contents, raw unless ``standardize=True``.
    y : ndarray of shape (214,), int64
        The glass type, 0..5 (file classes 1, 2, 3, 5, 6, 7).

    See Also
    --------
    load_user_file : The other datasets of TPAMI Table III.

    References
    ----------
    .. [1] I. W. Evett, E. J. Spiehler, "Rule induction in forensic science",
       Central Research Establishment, Home Office Forensic Science Service,
       1987 (UCI "Glass Identification").
    .. [2] D. Dua, C. Graff, UCI Machine Learning Repository, University of
       California, Irvine, 2017 (https://archive.ics.uci.edu).
    .. [3] G. França, M. L. Rizzo, J. T. Vogelstein, "Kernel k-Groups via
       Hartigan's Method", IEEE TPAMI 43(12), 2021, Table III.

    Examples
    --------
    >>> X, y = load_glass()
    >>> X.shape, [int(c) for c in np.bincount(y)]
    ((214, 9), [70, 76, 17, 13, 9, 29])
    """
    std = _check_standardize(standardize, False)
    return _bundled_table("glass.data", 11, slice(1, 10), 10, ",", std, True)


def load_ionosphere(standardize=None):
    """Load the UCI ionosphere radar data as the paper used it (Table III).

    351 returns, all 34 columns kept without normalisation (column 1 is identically
    0, hence the paper's D = 33); ``b`` ("bad") becomes 0 and ``g`` ("good") 1.
    With ``standardize=True`` the constant column stays 0 (it is not divided by 0).

    Parameters
    ----------
    standardize : bool or None, default=None
        ``None`` follows the paper (raw features); ``True`` z-scores the columns.

    Returns
    -------
    X : ndarray of shape (351, 34), float64
        The radar returns, raw unless ``standardize=True``.
    y : ndarray of shape (351,), int64
        0 for "bad", 1 for "good": 126 zeros and 225 ones.

    See Also
    --------
    load_user_file : The other datasets of TPAMI Table III.

    References
    ----------
    .. [1] V. G. Sigillito, S. P. Wing, L. V. Hutton, K. B. Baker, "Classification
       of radar returns from the ionosphere using neural networks", Johns
       Hopkins APL Tech. Dig. 10, 262-266, 1989.
    .. [2] D. Dua, C. Graff, UCI Machine Learning Repository, University of
       California, Irvine, 2017 (https://archive.ics.uci.edu).
    .. [3] G. França, M. L. Rizzo, J. T. Vogelstein, "Kernel k-Groups via
       Hartigan's Method", IEEE TPAMI 43(12), 2021, Table III.

    Examples
    --------
    >>> X, y = load_ionosphere()
    >>> X.shape, [int(c) for c in np.bincount(y)]
    ((351, 34), [126, 225])
    """
    std = _check_standardize(standardize, False)
    return _bundled_table("ionosphere.data", 35, slice(0, 34), 34, ",", std, False)
