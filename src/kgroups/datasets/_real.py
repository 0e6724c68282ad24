"""Loaders for the real datasets bundled with kgroups (and for files users supply).

Every bundled file sits in ``kgroups/datasets/data/`` next to ``MANIFEST.md``, which
gives its source, its SHA-256, its class counts and how França, Rizzo & Vogelstein
(TPAMI 43(12), 2021, "Kernel k-Groups via Hartigan's Method") preprocessed it. The tabular
loaders return ``(X, y)`` with ``X`` float64 of shape (n_samples, n_features) and
``y`` int64 labels 0..k-1. Cite the original donors (UCI Machine Learning
Repository) when you publish results obtained on these data.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import scipy.sparse as sp

#: The folder of the bundled data files, a :class:`pathlib.Path`.
#:
#: It holds ``MANIFEST.md``: the source of each file, its SHA-256 sum, the class
#: counts and the papers' preprocessing.
DATA_DIR = Path(__file__).resolve().parent / "data"


# ----------------------------------------------------------------------------- parsing
def _read_fields(path, sep=",", skip_header=False):
    """Split a text table into fields; blank lines are skipped.

    Parameters
    ----------
    path : path-like
        File to read.
    sep : str or None, default=","
        Field separator; ``None`` splits on any run of whitespace. Double quotes
        around a field are removed.
    skip_header : bool, default=False
        Skip the first non-blank line.

    Returns
    -------
    fields : ndarray of str, shape (n_rows, n_fields)
    line_numbers : ndarray of int, shape (n_rows,)
        1-based line number of each row in the file.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}: not a UTF-8 text file ({exc})") from None
    rows, numbers, skip = [], [], skip_header
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        if skip:
            skip = False
            continue
        parts = line.split() if sep is None else line.split(sep)
        parts = [p.strip().strip('"') for p in parts]
        if rows and len(parts) != len(rows[0]):
            raise ValueError(
                f"{path}, line {lineno}: expected {len(rows[0])} fields "
                f"(as on line {numbers[0]}), got {len(parts)}"
            )
        rows.append(parts)
        numbers.append(lineno)
    if not rows:
        raise ValueError(f"{path}: the file holds no data rows")
    return np.array(rows, dtype=str), np.asarray(numbers)


def _to_float(fields, line_numbers, path, missing=(), columns=None):
    """Convert a block of string fields to float64; ``missing`` tokens become NaN.

    Raises ValueError naming the file, the line and the offending field (1-based;
    ``columns`` gives the 0-based file column of each block column).
    """
    cells = fields.astype(str)
    is_missing = np.isin(cells, list(missing)) if missing else np.zeros(cells.shape, bool)
    cells = np.where(is_missing, "nan", cells)
    try:
        return cells.astype(np.float64)
    except ValueError:
        pass
    for r, row in enumerate(cells):  # error path only: locate the bad cell
        for c, cell in enumerate(row):
            try:
                float(cell)
            except ValueError:
                field = (c if columns is None else int(columns[c])) + 1
                raise ValueError(
                    f"{path}, line {line_numbers[r]}: field {field} is {str(cell)!r}, "
                    "expected a number"
                ) from None
    raise AssertionError("unreachable")  # pragma: no cover


def _encode_labels(raw):
    """Map class values to 0..k-1 in sorted order; returns ``(y, classes)``."""
    classes, y = np.unique(raw, return_inverse=True)
    return y.astype(np.int64).ravel(), classes


def _zscore(X):
    """Centre each column and divide by its standard deviation (ddof=0).

    Constant columns are centred only (left at 0), never divided by zero.
    """
    mean = X.mean(axis=0)
    sd = X.std(axis=0)
    sd[sd == 0] = 1.0
    return (X - mean) / sd


def _check_standardize(standardize, default):
    if standardize is None:
        return default
    if isinstance(standardize, (bool, np.bool_)):
        return bool(standardize)
    raise ValueError(
        f"standardize={standardize!r}; expected None (the paper's choice), True or False"
    )


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


# ---------------------------------------------------------------------- networks
# name -> (default label column, allowed label columns); see MANIFEST.md.
_NETWORKS = {
    "karate": ("label_gml_value", ("label_gml_value", "label")),
    "dolphins": ("label", ("label", "label_alt")),
    "football": ("label", ("label",)),
    "polbooks": ("label", ("label",)),
}


def _read_csv_columns(path):
    """Read a CSV with a header into ``{column: list of str}``; checks field counts."""
    with open(path, newline="", encoding="utf-8") as fh:
        reader = csv.reader(fh)
        header = next(reader, None)
        if not header:
            raise ValueError(f"{path}: empty file, expected a header line")
        rows = []
        for row in reader:
            if not row:
                continue
            if len(row) != len(header):
                raise ValueError(
                    f"{path}, line {reader.line_num}: expected {len(header)} fields, "
                    f"got {len(row)}"
                )
            rows.append(row)
    return {name: [r[j] for r in rows] for j, name in enumerate(header)}


def _int_column(columns, name, path):
    try:
        return np.asarray(columns[name], dtype=np.int64)
    except KeyError:
        raise ValueError(f"{path}: no column {name!r}; columns are {list(columns)}") from None
    except ValueError:
        raise ValueError(f"{path}: column {name!r} holds non-integer values") from None


def load_network(name, label=None):
    """Load a network with ground-truth communities (TPAMI section 5.3, Table IV).

    ``karate`` (Zachary, 34 nodes, 78 edges, k=2), ``dolphins`` (Lusseau, 62/159,
    k=2), ``football`` (Girvan & Newman, 115/613, k=12) and ``polbooks`` (Krebs,
    105/441, k=3; l/n/c become 0/1/2). Edges are undirected and unweighted.

    Parameters
    ----------
    name : {"karate", "dolphins", "football", "polbooks"}
    label : str or None, default=None
        Label column. ``None`` picks the one the paper most likely used (MANIFEST):
        ``"label_gml_value"`` for karate (16/18; ``"label"`` gives the 17/17 club
        split of networkx, which differs at node 8) and ``"label"`` elsewhere
        (dolphins also offers ``"label_alt"``, 43/19).

    Returns
    -------
    graph : networkx.Graph
        Nodes ``0..n-1`` (every labelled node, even one without edges).
    labels : ndarray of shape (n_nodes,), int64
        ``labels[v]`` is the community of node ``v``, in 0..k-1.

    See Also
    --------
    load_drosophila : The connectome of TPAMI Table V.
    kgroups.graph.detect_communities : Community detection.

    References
    ----------
    .. [1] W. W. Zachary, "An information flow model for conflict and fission in
       small groups", J. Anthropol. Res. 33(4), 452-473, 1977.
    .. [2] D. Lusseau, K. Schneider, O. J. Boisseau, P. Haase, E. Slooten, S. M.
       Dawson, "The bottlenose dolphin community of Doubtful Sound features a
       large proportion of long-lasting associations", Behav. Ecol. Sociobiol.
       54(4), 396-405, 2003.
    .. [3] M. Girvan, M. E. J. Newman, "Community structure in social and
       biological networks", PNAS 99(12), 7821-7826, 2002.
    .. [4] M. E. J. Newman, "Modularity and community structure in networks", PNAS
       103(23), 8577-8582, 2006 (the polbooks network of V. Krebs).
    .. [5] G. França, M. L. Rizzo, J. T. Vogelstein, "Kernel k-Groups via
       Hartigan's Method", IEEE TPAMI 43(12), 2021, Table IV.

    Examples
    --------
    >>> G, y = load_network("karate")
    >>> G.number_of_nodes(), G.number_of_edges(), [int(c) for c in np.bincount(y)]
    (34, 78, [16, 18])
    """
    import networkx as nx

    if name not in _NETWORKS:
        raise ValueError(f"name={name!r}; expected one of {sorted(_NETWORKS)}")
    default, allowed = _NETWORKS[name]
    label = default if label is None else label
    if label not in allowed:
        raise ValueError(f"label={label!r} for {name!r}; expected one of {list(allowed)}")
    lab_path = DATA_DIR / f"{name}_labels.csv"
    edge_path = DATA_DIR / f"{name}_edges.csv"
    lab = _read_csv_columns(lab_path)
    nodes = _int_column(lab, "node", lab_path)
    if not np.array_equal(nodes, np.arange(nodes.size)):
        raise ValueError(f"{lab_path}: nodes must be listed as 0..n-1 in order")
    y = _int_column(lab, label, lab_path)
    edges = _read_csv_columns(edge_path)
    src = _int_column(edges, "source", edge_path)
    dst = _int_column(edges, "target", edge_path)
    if src.size and (min(src.min(), dst.min()) < 0 or max(src.max(), dst.max()) >= nodes.size):
        raise ValueError(f"{edge_path}: node ids outside 0..{nodes.size - 1}")
    graph = nx.Graph(name=name)
    graph.add_nodes_from(range(nodes.size))
    graph.add_edges_from(zip(src.tolist(), dst.tolist()))
    return graph, y


def load_drosophila(side="left"):
    """Load one hemisphere of the larval Drosophila mushroom-body connectome (Table V).

    Eichler et al. (Nature 2017), as shipped by graspologic. The directed,
    synapse-count adjacency ``A`` is symmetrised and binarised as in the paper:
    ``A_sym[i, j] = 1`` when ``A[i, j] + A[j, i] > 0``. Left: 209 nodes, 5,559
    undirected edges (the paper's ``|E| = 11,118`` counts both directions); right: 213
    nodes, 5,625 edges. No self-loops are present.

    Parameters
    ----------
    side : {"left", "right"}, default="left"

    Returns
    -------
    adjacency : scipy.sparse.csr_matrix of shape (n, n), float64
        Symmetric 0/1 matrix.
    labels : ndarray of shape (n,), int64
        Cell type of each node as an index into ``cell_types``.
    cell_types : ndarray of str, shape (4,)
        ``["I", "K", "O", "P"]``: ``cell_types[labels[v]]`` is the letter of node v
        (K Kenyon cells, P projection neurons, O output neurons, I input neurons).

    See Also
    --------
    load_network : The networks of TPAMI Table IV.
    kgroups.graph.detect_communities : Community detection.

    References
    ----------
    .. [1] K. Eichler et al., "The complete connectome of a learning and memory
       centre in an insect brain", Nature 548, 175-182, 2017.
    .. [2] G. França, M. L. Rizzo, J. T. Vogelstein, "Kernel k-Groups via
       Hartigan's Method", IEEE TPAMI 43(12), 2021, section 5.3, Table V.

    Examples
    --------
    >>> A, y, types = load_drosophila("left")
    >>> A.shape, A.nnz // 2, [str(t) for t in types]
    ((209, 209), 5559, ['I', 'K', 'O', 'P'])
    >>> [int(c) for c in np.bincount(y)]
    [21, 101, 29, 58]
    """
    if side not in ("left", "right"):
        raise ValueError(f"side={side!r}; expected 'left' or 'right'")
    adj_path = DATA_DIR / f"drosophila_{side}_adjacency.csv"
    lab_path = DATA_DIR / f"drosophila_{side}_cell_labels.csv"
    fields, lines = _read_fields(adj_path, sep=None)
    counts = _to_float(fields, lines, adj_path)
    if counts.shape[0] != counts.shape[1]:
        raise ValueError(f"{adj_path}: expected a square matrix, got shape {counts.shape}")
    A = sp.csr_matrix(counts)
    A = (A + A.T).tocsr()
    A.data = (A.data != 0).astype(np.float64)
    A.eliminate_zeros()
    letters, _ = _read_fields(lab_path, sep=None)
    if letters.shape != (counts.shape[0], 1):
        raise ValueError(
            f"{lab_path}: expected {counts.shape[0]} lines of one label, got {letters.shape}"
        )
    y, cell_types = _encode_labels(letters.astype(str).ravel())
    return A, y, cell_types.astype(str)


# ------------------------------------------------------------ user-supplied files
class _UserDataset:
    """How to read one dataset we cannot ship, and how the paper preprocessed it."""

    def __init__(self, source, files, label=-1, drop=(), features=None, standardize=True,
                 subsample=None, per_class=None, label_map=None, max_features=None):
        self.source, self.files, self.label, self.drop = source, files, label, drop
        self.features, self.standardize = features, standardize
        self.subsample, self.per_class = subsample, per_class
        self.label_map, self.max_features = label_map, max_features


_UCI = "UCI Machine Learning Repository (https://archive.ics.uci.edu), dataset "
# Preprocessing: TPAMI Table III and its footnote; z-scoring and column layout as in
# the authors' experiment code (GitHub guisf/kgroups, get_data.py).
#: The datasets of the papers that kgroups cannot ship, by name.
#:
#: A dict: for each dataset of TPAMI Table III (``"covertype"``, ``"epileptic"``,
#: ...) and the ICML synapse data, where to get the file and how the paper
#: preprocessed it. Read such a file with :func:`load_user_file`;
#: ``kgroups reproduce tpami-table3`` reads it from ``KGROUPS_DATA_<NAME>``.
USER_DATASETS = {
    "covertype": _UserDataset(_UCI + '"Covertype"', "covtype.data (gunzip covtype.data.gz)",
                              per_class=200),
    "epileptic": _UserDataset(_UCI + '"Epileptic Seizure Recognition"', "data.csv",
                              drop=(0,), subsample=2000),
    "anuran": _UserDataset(_UCI + '"Anuran Calls (MFCCs)"', "Frogs_MFCCs.csv", label=-2,
                           features=slice(0, 22), subsample=2000),
    "gene_expression": _UserDataset(_UCI + '"gene expression cancer RNA-Seq"',
                                    "data.csv, with labels_path='labels.csv'",
                                    drop=(0,), max_features=200),
    "pendigits": _UserDataset(_UCI + '"Pen-Based Recognition of Handwritten Digits"',
                              "pendigits.tra", subsample=2000),
    "libras_movement": _UserDataset(_UCI + '"Libras Movement"', "movement_libras.data"),
    "vehicle": _UserDataset(_UCI + '"Statlog (Vehicle Silhouettes)"',
                            "xaa.dat ... xai.dat (pass the list)", standardize=False),
    "forest": _UserDataset(_UCI + '"Forest type mapping"',
                           "[training.csv, testing.csv]", label=0),
    "segmentation": _UserDataset(_UCI + '"Image Segmentation"', "segmentation.data", label=0),
    "synthetic_control": _UserDataset(_UCI + '"Synthetic Control Chart Time Series"',
                                      "synthetic_control.data", label="blocks100"),
    "fertility": _UserDataset(_UCI + '"Fertility"', "fertility_Diagnosis.txt",
                              standardize=False, label_map={"O": 0, "N": 1}),
    "spect_heart": _UserDataset(_UCI + '"SPECT Heart"', "[SPECT.train, SPECT.test]",
                                label=0, standardize=False),
    "contraceptive": _UserDataset(_UCI + '"Contraceptive Method Choice"', "cmc.data"),
    "synapse": _UserDataset("Collman et al., J. Neurosci. 34(14), 2015 (ICML draft section "
                            "5.2; not in UCI: ask the authors or NeuroData)",
                            "a CSV of 1025 rows x 11 features, no class", label=None),
}


def _encode_any(raw, label_map, path):
    """Encode class values: ``label_map`` if given, numeric order if numbers, else text."""
    raw = np.asarray(raw, dtype=str)
    if label_map is not None:
        unknown = sorted(set(raw.tolist()) - set(label_map))
        if unknown:
            raise ValueError(f"{path}: unknown class values {unknown}; expected {label_map}")
        return np.array([label_map[v] for v in raw], dtype=np.int64)
    try:
        values = raw.astype(np.float64)
    except ValueError:
        values = raw
    return _encode_labels(values)[0]


def _read_user_table(paths, spec):
    """Read the user's file(s); a first line that is not numeric is taken as a header."""
    blocks = []
    for path in paths:
        path = Path(path)
        if not path.is_file():
            raise FileNotFoundError(
                f"{path}: file not found. kgroups cannot ship this dataset; download "
                f"{spec.source} and pass {spec.files}."
            )
        sep = _detect_sep(path)
        fields, lines = _read_fields(path, sep=sep)
        first = fields[0, _feature_columns(fields.shape[1], spec)]
        if not all(_is_number(v) for v in first):
            fields, lines = _read_fields(path, sep=sep, skip_header=True)
        blocks.append((fields, lines, path))
    if len({f.shape[1] for f, _, _ in blocks}) != 1:
        raise ValueError(f"files {[str(p) for p in paths]} have different numbers of fields")
    return blocks


def _detect_sep(path):
    """Comma when the start of the file holds one, else runs of whitespace."""
    with open(path, encoding="utf-8", errors="replace") as fh:
        return "," if "," in fh.read(4096) else None


def _is_number(value):
    try:
        float(value)
    except ValueError:
        return False
    return True


def _feature_columns(n_fields, spec):
    if spec.features is not None:
        return np.arange(n_fields)[spec.features]
    label = [] if not isinstance(spec.label, int) else [spec.label % n_fields]
    drop = {d % n_fields for d in spec.drop} | set(label)
    return np.array([j for j in range(n_fields) if j not in drop])


def _subsample(y, spec, rng):
    """Indices kept: ``subsample`` points uniformly, or ``per_class`` points per class.

    Drawn without replacement (the authors' code drew with replacement, which can
    repeat points); returned in file order.
    """
    n = y.shape[0]
    if spec.per_class is not None:
        keep = [rng.choice(np.flatnonzero(y == c), min(spec.per_class, int(np.sum(y == c))),
                           replace=False) for c in np.unique(y)]
        return np.sort(np.concatenate(keep))
    if spec.subsample is not None and n > spec.subsample:
        return np.sort(rng.choice(n, spec.subsample, replace=False))
    return np.arange(n)


def _user_labels(fields, path, spec, labels_path):
    """Class labels from the label column, a separate labels file, or row blocks."""
    n = fields.shape[0]
    if labels_path is not None:
        if not Path(labels_path).is_file():
            raise FileNotFoundError(f"{labels_path}: labels file not found ({spec.source})")
        lab, _ = _read_fields(labels_path, sep=_detect_sep(labels_path))
        if lab.shape[0] == n + 1:  # header line
            lab = lab[1:]
        if lab.shape[0] != n:
            raise ValueError(f"{labels_path}: {lab.shape[0]} labels for {n} data rows in {path}")
        return _encode_any(lab[:, -1], spec.label_map, labels_path)
    if spec.label == "blocks100":  # synthetic control: 6 classes of 100 consecutive rows
        return np.arange(n, dtype=np.int64) // 100
    if spec.label is None:
        return None
    return _encode_any(fields[:, spec.label], spec.label_map, path)


def load_user_file(name, path, *, labels_path=None, standardize=None, random_state=None):
    """Load a dataset of the papers that kgroups cannot ship, from the user's file.

    The file is read in the layout its source distributes (separator detected: comma,
    else whitespace; one header line detected and skipped), then preprocessed as in
    the TPAMI paper (Table III and its footnote) and the authors' code:

    ================= ============ ==================================================
    name              class        preprocessing
    ================= ============ ==================================================
    covertype         last column  200 points per class (n = 1400), z-scored
    epileptic         last column  id column dropped, 2000 points uniformly, z-scored
    anuran            ``Species``  22 MFCC columns, 2000 points uniformly, z-scored
    gene_expression   labels_path  sample id dropped, first 200 features, z-scored
    pendigits         last column  2000 points uniformly, z-scored
    libras_movement   last column  z-scored
    vehicle           last column  not normalised
    forest            first column z-scored
    segmentation      first column z-scored
    synthetic_control row // 100   z-scored
    fertility         last column  O -> 0, N -> 1, not normalised
    spect_heart       first column not normalised
    contraceptive     last column  z-scored
    synapse           none         z-scored (ICML draft section 5.2); ``y`` is None
    ================= ============ ==================================================

    Subsamples are drawn without replacement (the authors drew with replacement).
    Subsampling happens before z-scoring. Class values become 0..k-1 (numeric order
    when they are numbers, text order otherwise).

    Parameters
    ----------
    name : str
        One of the keys of ``USER_DATASETS``.
    path : path-like or list of path-like
        The file; a list is concatenated (forest, spect_heart, vehicle come in parts).
    labels_path : path-like, optional
        Separate labels file (one class per line, last field; e.g. gene expression's
        ``labels.csv``); a header line is dropped. When absent for gene_expression,
        the last column of ``path`` must hold the class.
    standardize : bool or None, default=None
        ``None`` follows the paper; ``True``/``False`` overrides.
    random_state : int, numpy.random.Generator or None
        Seeds the subsampling.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features), float64
        The features, subsampled and preprocessed as in the table above.
    y : ndarray of shape (n_samples,), int64, or None
        The classes, 0..k-1; None for synapse (no classes).

    Raises
    ------
    FileNotFoundError
        When a file is missing; the message names the source to download.
    ValueError
        For an unknown ``name`` or a file that does not parse (file and line named).

    See Also
    --------
    USER_DATASETS : Where to get each file.
    load_iris : One of the datasets that are shipped.

    References
    ----------
    .. [1] D. Dua, C. Graff, UCI Machine Learning Repository, University of
       California, Irvine, 2017 (https://archive.ics.uci.edu).
    .. [2] G. França, M. L. Rizzo, J. T. Vogelstein, "Kernel k-Groups via
       Hartigan's Method", IEEE TPAMI 43(12), 2021, Table III and its footnote.
    .. [3] G. França, J. T. Vogelstein, "Energy clustering" (ICML draft of
       "Nonparametric energy clustering"), section 5.2 (synapse data).

    Examples
    --------
    >>> import os, tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = os.path.join(tmp, "fertility_Diagnosis.txt")
    ...     with open(path, "w") as f:
    ...         _ = f.write("-0.33,0.69,0,1,1,0,0.8,0,0.88,N\\n"
    ...                     "-0.33,0.94,1,0,1,0,0.8,1,0.31,O\\n")
    ...     X, y = load_user_file("fertility", path)
    >>> X.shape, y.tolist()
    ((2, 9), [1, 0])
    """
    if name not in USER_DATASETS:
        raise ValueError(f"name={name!r}; expected one of {sorted(USER_DATASETS)}")
    spec = USER_DATASETS[name]
    if name == "gene_expression" and labels_path is not None:
        spec = _UserDataset(spec.source, spec.files, label=None, drop=(0,), max_features=200)
    std = _check_standardize(standardize, spec.standardize)
    if path is None:
        raise FileNotFoundError(f"path=None: download {spec.source} and pass {spec.files}.")
    paths = [path] if isinstance(path, (str, Path)) or not hasattr(path, "__iter__") else path
    blocks = _read_user_table(list(paths), spec)
    cols = _feature_columns(blocks[0][0].shape[1], spec)[: spec.max_features]
    X = np.concatenate([_to_float(f[:, cols], ln, p, columns=cols) for f, ln, p in blocks])
    fields = np.concatenate([f for f, _, _ in blocks])
    where = ", ".join(str(p) for _, _, p in blocks)
    y = _user_labels(fields, where, spec, labels_path)
    if y is not None:
        keep = _subsample(y, spec, np.random.default_rng(random_state))
        X, y = X[keep], y[keep]
    return (_zscore(X) if std else X), y
