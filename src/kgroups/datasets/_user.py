"""The datasets of the papers that kgroups cannot ship, read from the user's files.

:data:`USER_DATASETS` says, for each dataset of TPAMI Table III that is not bundled
and for the ICML synapse data, where to get the file and how the paper preprocessed
it; :func:`load_user_file` reads such a file in the layout its source distributes
and applies that preprocessing (the columns kept, the subsample, the z-scores).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ._parsing import _check_standardize, _encode_labels, _read_fields, _to_float, _zscore


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
