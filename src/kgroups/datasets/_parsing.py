"""What every loader of real data shares: where the bundled files are, how a text
table is read, and the preprocessing of the papers.

:data:`DATA_DIR` is the folder of the bundled files. A text table is split into
fields (:func:`_read_fields`) and its fields turned into float64 numbers, an error
naming the file, the line and the field that is not one (:func:`_to_float`); class
values become labels 0..k-1 (:func:`_encode_labels`) and columns are z-scored
(:func:`_zscore`) when the ``standardize`` argument, checked by
:func:`_check_standardize`, or the paper's choice says so.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

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
