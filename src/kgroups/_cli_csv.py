"""CSV input of the ``kgroups`` command: reading, sniffing the separator and the header,
and turning columns into features, weights and labels, with errors that point at the fix.

Like the rest of the command, it imports NumPy only when a file is read. Columns and
lines are counted from 1 in messages.
"""

from __future__ import annotations

import itertools
import os
import re
import sys
from operator import itemgetter
from typing import NamedTuple

from ._cli_options import DECIMALS, DELIMITERS


class UsageError(ValueError):
    """A bad option, file or value: one line on stderr and exit status 2."""


class CSVError(UsageError):
    """A CSV file that does not parse (names the file, line and column)."""


GZIP_MAGIC = b"\x1f\x8b"
SNIFF_CHARS = 1 << 16  # the separator is sniffed from the lines in the first 64 KiB
CHUNK_ROWS = 1 << 14   # rows whose cells are turned into numbers at once
SEPARATOR_NAMES = {",": "comma", ";": "semicolon", "\t": "tab", "whitespace": "whitespace"}
# Cells that stand for a missing value in common exports (compared in lower case).
MISSING_CELLS = {"", "?", "na", "n/a", "null", "none", "-", "."}
# Header names of columns that usually hold class labels (compared in lower case, spaces
# and hyphens read as underscores): an integer column so named, with at most
# LABEL_LIKE_MAX distinct values, is pointed out when it is clustered as a feature.
LABEL_NAMES = {"class", "classes", "class_label", "class_labels", "true_class", "target",
               "targets", "label", "labels", "true_label", "true_labels", "truth",
               "ground_truth", "groundtruth", "gt", "y", "y_true", "species", "cluster",
               "clusters", "category", "categories", "group", "groups"}
LABEL_LIKE_MAX = 20
# A feature column of 2..LABEL_LIKE_MAX distinct integers whose partition of the rows
# the fitted clusters reproduce with an adjusted Rand index at least this high is
# pointed out after the fit, whatever its name: class labels clustered as a feature
# decide the clusters.
REPRODUCED_ARI = 0.95
# Columns whose standard deviations differ by more than this factor weigh in the energy
# distance by their units: the command suggests --standardize.
SPREAD_RATIO = 100.0
# Bytes of standard input read at a time (each block checked to fit before the next).
STDIN_BLOCK = 1 << 26


def _read_bytes(path):
    """The bytes of the file (``-``: standard input), gzip-decompressed when they are gzip."""
    if path == "-":
        data, path = _read_stdin(), "<stdin>"
    else:
        if os.path.isdir(path):
            raise CSVError(f"{path}: is a directory")
        try:
            _check_text_fits(os.path.getsize(path), path)
            with open(path, "rb") as fh:
                data = fh.read()
        except FileNotFoundError:
            raise CSVError(f"{path}: no such file") from None
        except OSError as err:
            raise CSVError(f"{path}: cannot read: {err.strerror}") from None
    if data.startswith(GZIP_MAGIC):  # by content, whatever the name: also on stdin
        import gzip
        import zlib

        # its last four bytes: the uncompressed size modulo 2**32 (RFC 1952)
        _check_text_fits(int.from_bytes(data[-4:], "little"), path, len(data))
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as err:
            raise CSVError(f"{path}: starts as gzip but does not decompress ({err}); "
                           "a truncated or damaged .gz file?") from None
    return data, path


def _read_stdin():
    """Standard input's bytes. Its size is not known ahead, so it is read in blocks of
    ``STDIN_BLOCK`` bytes, each checked to fit with what was read before it."""
    stream = getattr(sys.stdin, "buffer", None)
    if stream is None:                          # a text stream without bytes below it
        return sys.stdin.read().encode("utf-8")
    parts, size = [], 0
    while block := stream.read(STDIN_BLOCK):
        parts.append(block)
        size += len(block)
        _check_text_fits(size, "<stdin>", held=2 * size)    # held: the blocks, their join
    return b"".join(parts)


def _check_text_fits(size, path, held=0):
    """A clear error where a file's ``size`` bytes of text, read and then decoded (twice
    that, for ASCII; ``held``: bytes already read), do not fit in memory."""
    _fits(held + 2 * size, f"reading {path} ({size} bytes of text)")


def _fits(nbytes, what):
    """:func:`~kgroups._memory.check_fits` as the command's error (one line, status 2)."""
    from ._memory import check_fits

    try:
        check_fits(nbytes, what, "a file of fewer rows (a sample, or split -l), or the "
                   "library on a dask array")
    except ValueError as err:
        raise CSVError(str(err)) from None


def _read_text(path):
    """The file (``-``: standard input; gzip or not) as UTF-8 text; a clear error otherwise."""
    data, path = _read_bytes(path)
    nul = data.find(b"\x00")
    if nul >= 0:
        raise CSVError(f"{path}: NUL byte at offset {nul}; a binary file? expected CSV text")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise CSVError(f"{path}: not UTF-8 text (byte 0x{data[err.start]:02x} at offset "
                       f"{err.start}); expected CSV text in UTF-8") from None


_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")


def _lines(text):
    """The lines of ``text`` with their ends, one at a time, split at ``\r\n``, ``\r``
    and ``\n`` as ``io.StringIO(text, newline="")`` splits them (whose buffer would hold
    four bytes a character)."""
    return (m.group() for m in _LINE.finditer(text))


def _iter_rows(text, delimiter, path):
    """``(line number, fields)`` of each non-blank row, one at a time."""
    import csv

    if delimiter == "whitespace":  # tabs and spaces; runs count as one (like awk)
        for ln, line in enumerate(_lines(text), start=1):
            if line.strip():
                yield ln, line.split()
        return
    reader = csv.reader(_lines(text), delimiter=delimiter, skipinitialspace=True)
    try:
        for fields in reader:   # a row of blank fields is a blank line (the first
            if (fields and fields[0].strip()) or any(f.strip() for f in fields):  # says)
                yield reader.line_num, fields
    except csv.Error as err:
        raise CSVError(f"{path}, line {reader.line_num}: {err}") from None


def _sniff_score(rows):
    """How well a separator splits the sample rows: (every row as wide as the first,
    no empty field, share of rows as wide as the first, share of fields that are
    numbers); zeros for one column. The share of numbers (decimal commas counted)
    decides between separators that split alike: ``1,5;2,5`` split at commas gives
    the field ``5;2``, no number."""
    widths = [len(fields) for _, fields in rows]
    if not widths or widths[0] < 2:
        return (False, False, 0.0, 0.0)
    same = sum(w == widths[0] for w in widths) / len(widths)
    cells = [cell for _, fields in rows for cell in fields]
    full = all(cell.strip() for cell in cells)
    numbers = sum(_is_number(cell) or _decimal_comma(cell) for cell in cells) / len(cells)
    return (same == 1.0, full, same, numbers)


def _detect_delimiter(text, path="<text>"):
    """The separator of the first lines (64 KiB): the first of comma, tab, semicolon and
    runs of whitespace that splits every line into as many (>= 2) non-empty fields,
    else the one that splits most lines alike. Tabs come before whitespace so that a
    header with spaces in its names (``sepal length<TAB>sepal width``) stays one name
    per column. A one-column file: ``,`` or ``;`` if its first line has one, else
    whitespace."""
    head = text[:SNIFF_CHARS]
    if len(text) > SNIFF_CHARS and "\n" in head:
        head = head[:head.rindex("\n") + 1]  # whole lines only
    scores = {}
    for sep in (",", "\t", ";", "whitespace"):
        try:
            scores[sep] = _sniff_score(list(_iter_rows(head, sep, path)))
        except CSVError:
            continue
    best = max(scores, key=scores.get, default=None)  # the first of equal scores
    if best is not None and scores[best][2] > 0:
        return best
    first = next((line for line in _lines(text) if line.strip()), "")
    return next((d for d in (",", ";") if d in first), "whitespace")


def _has_header(rows, sep):
    """Auto-detection: the first row names columns whose next-row cell is a number (a
    number with a decimal comma too: read with the decimal comma, or refused at that
    cell, not at the header)."""
    def numeric(text):
        return _is_number(text) or (sep != "," and _decimal_comma(text))

    if len(rows) == 1:
        return not all(numeric(f) for f in rows[0][1])
    return any(not numeric(a) and numeric(b) for a, b in zip(rows[0][1], rows[1][1]))


_DECIMAL_COMMA = re.compile(r"[+-]?\d*,\d+(?:[eE][+-]?\d+)?")


def _decimal_comma(text):
    """Whether ``text`` is a number written with a decimal comma (``1,5``, ``-,5e3``)."""
    return "," in text and _DECIMAL_COMMA.fullmatch(text.strip()) is not None


def _detect_decimal(rows, sep):
    """The decimal mark of the data rows: ``","`` when the fields are not separated by
    commas, some hold a number with a decimal comma (``1,5``) and none a number with a
    decimal point (``1.5``); else ``"."``. Either mark read both ways is refused: a
    file that mixes them is left to ``--decimal``."""
    if sep == ",":
        return "."
    comma = False
    for fields in rows:
        for cell in fields:
            if "." in cell and _is_number(cell):
                return "."
            comma = comma or _decimal_comma(cell)
    return "," if comma else "."


def _is_number(text):
    try:
        float(text)
    except ValueError:
        return False
    return True


class Rows:
    """The data rows of a file, each a list of its fields, split again from the file's
    text at each pass over them: a pass holds one row's fields at a time, not every
    cell of the file (a cell as a Python string takes about 60 bytes, eight times the
    float64 it becomes). The first rows are kept at hand."""

    HEAD = 8

    def __init__(self, text, sep, skip, n, path):
        self.text, self.sep, self.skip, self.n, self.path = text, sep, skip, n, path
        self.head = [fields for _, fields in itertools.islice(self._rows(), self.HEAD)]

    def _rows(self):
        return itertools.islice(_iter_rows(self.text, self.sep, self.path), self.skip, None)

    def __len__(self):
        return self.n

    def __iter__(self):
        return (fields for _, fields in self._rows())

    def __getitem__(self, i):
        i = i + self.n if i < 0 else i
        if not 0 <= i < self.n:
            raise IndexError(i)
        return self.head[i] if i < len(self.head) else next(itertools.islice(iter(self), i, None))


class Table(NamedTuple):
    """A parsed file: the header (None when absent), the data rows (:class:`Rows`: lists
    of fields), the line of each row (counted from 1), the separator and the decimal
    mark."""

    header: list | None
    rows: Rows
    lines: list
    delimiter: str
    decimal: str = "."


def read_csv(path, delimiter="auto", header="auto", decimal="auto"):
    """The :class:`Table` of a CSV file (``-``: standard input; gzip or plain UTF-8 text).

    ``delimiter``: ``"auto"`` (sniffed from the first lines: comma, tab,
    semicolon or runs of whitespace, see :func:`_detect_delimiter`), ``"comma"``,
    ``"semicolon"``, ``"tab"`` or ``"whitespace"`` (runs of tabs and spaces).
    ``header``: ``"auto"`` (the first row is a header when it has a non-number
    above a number), ``"yes"`` or ``"no"``. ``decimal``: ``"auto"`` (see
    :func:`_detect_decimal`), ``"point"`` (``1.5``) or ``"comma"`` (``1,5``).
    Blank lines are skipped; every row must have as many fields as the first.
    """
    from array import array

    text = _read_text(path)
    name = "<stdin>" if path == "-" else path
    sep = DELIMITERS[delimiter] or _detect_delimiter(text, name)
    top = list(itertools.islice(_iter_rows(text, sep, name), 2))
    if not top:
        raise CSVError(f"{name}: the file is empty")
    names = None
    if header == "yes" or (header == "auto" and _has_header(top, sep)):
        names = [f.strip() for f in top[0][1]]
        if len(top) == 1:
            raise CSVError(f"{name}: the file has a header (line 1) but no data rows")
    skip = int(names is not None)
    width = len(names) if names is not None else len(top[0][1])
    first = top[skip][0] - skip
    lines = array("q")  # one pass over the rows: their widths and lines, no fields kept
    for ln, fields in itertools.islice(_iter_rows(text, sep, name), skip, None):
        if len(fields) != width:
            how = (f"; fields split at {SEPARATOR_NAMES[sep]}, found from the first lines "
                   "(--delimiter sets another)") if DELIMITERS[delimiter] is None else ""
            raise CSVError(f"{name}, line {ln}: {len(fields)} fields, expected {width} "
                           f"(as on line {max(first, 1)}){how}")
        lines.append(ln)
    rows = Rows(text, sep, skip, len(lines), name)
    mark = DECIMALS[decimal] or (_detect_decimal(rows, sep) if "," in text else ".")
    return Table(names, rows, lines, sep, mark)


def _column_index(spec, header, width, path, option):
    """0-based index of a column given by name or by number counted from 1 (-1: last)."""
    if header is not None and spec in header:
        if header.count(spec) > 1:
            raise UsageError(f"argument {option}: {path} has {header.count(spec)} columns named "
                             f"{spec!r}; give its number (counted from 1)")
        return header.index(spec)
    try:
        number = int(spec)
    except ValueError:
        if header is None:
            raise UsageError(f"argument {option}: {spec!r} is not a column number and {path} "
                             f"has no header row; give a number from 1 to {width}") from None
        raise UsageError(f"argument {option}: no column named {spec!r} in {path} "
                         f"(columns: {', '.join(header)})") from None
    if 1 <= number <= width:
        return number - 1
    if -width <= number <= -1:
        return width + number
    raise UsageError(f"argument {option}: no column {number} in {path}, which has {width} "
                     f"columns (counted from 1; -1 is the last)")


def _column_list(spec, header, width, path, option):
    """0-based indices, in file order, of a comma-separated list of columns: header
    names, numbers counted from 1 (-1: the last) and ranges ``N-M`` and ``N-`` (to the
    last), as ``cut -f`` takes them; a token that is a header name is that column."""
    found = []
    for token in (t.strip() for t in spec.split(",")):
        bounds = re.fullmatch(r"(\d+)-(\d*)", token)
        if not token:
            raise UsageError(f"argument {option}: {spec!r} holds an empty item; expected "
                             "names or numbers separated by commas (such as 1,3-5,name)")
        if bounds is None or (header is not None and token in header):
            found.append(_column_index(token, header, width, path, option))
            continue
        first, last = int(bounds[1]), int(bounds[2] or width)
        if not 1 <= first <= last <= width:
            raise UsageError(f"argument {option}: the range {token} should lie within "
                             f"1-{width}, the columns of {path} (counted from 1)")
        found.extend(range(first - 1, last))
    return sorted(set(found))


def _column_name(c, header):
    return f"column {c + 1}" + (f" ({header[c]!r})" if header is not None else "")


def _splits_into_numbers(cell, sep):
    parts = cell.split() if sep == "whitespace" else cell.split(sep)
    return len(parts) > 1 and all(_is_number(p) for p in parts)


def _cell_hint(table, i, c, label_given, weights=False):
    """What to do about the non-number in row ``i``, column ``c`` (the ``--weights``
    column when ``weights``): the fix its look and its column point at (a missing
    value, the other decimal mark, another separator, a header not detected, a column
    of class labels or of names to leave out)."""
    cell, sep, rows = table.rows[i][c].strip(), table.delimiter, table.rows
    if cell.lower() in MISSING_CELLS:
        return "; a missing value? every feature cell needs a number: fill it in or drop the row"
    if table.decimal == "," and _is_number(cell):
        return ("; --decimal comma reads 1,5 as one and a half, and this number has a decimal "
                "point (a thousands separator? remove it; or pass --decimal point)")
    if table.decimal == "." and any(_decimal_comma(row[c]) for row in rows):
        point = next((f.strip() for row in rows for f in row if "." in f and _is_number(f)),
                     None)
        mixed = (f"; the file also writes decimal points ({point!r}): write one mark "
                 "throughout") if point else ""
        return f"; decimal commas (1,5) are read with --decimal comma{mixed}"
    for other, name in SEPARATOR_NAMES.items():
        if other != sep and _splits_into_numbers(cell, other):
            return f"; the fields look separated by {name}: pass --delimiter {name}"
    if weights:
        return "; --weights names a column of numbers >= 0"
    if i == 0 and table.header is None and not any(_is_number(f) for f in rows[0]) \
            and len(rows) > 1 and any(_is_number(f) for f in rows[1]):
        return f"; if line {table.lines[0]} names the columns, pass --header yes"
    if 2 * sum(not _is_number(row[c]) for row in rows) < len(rows):
        return "; every feature cell needs a number: fix or drop the row"
    drop = f"--drop-columns {c + 1} leaves it out of the features"
    distinct = len({row[c].strip() for row in rows})  # a value per row: names or ids
    if label_given or distinct > LABEL_LIKE_MAX or distinct == len(rows) > 2:
        return f"; column {c + 1} is text (names or ids?): {drop}"
    return (f"; column {c + 1} is text: {drop}, or if it holds class labels, pass "
            f"--label-column {c + 1} to score the clusters against them")


def _as_numbers(cells, decimal):
    """The cells as text that ``float`` reads: with the decimal comma, ``1,5`` becomes
    ``1.5`` and a cell with a point becomes unreadable (one mark only)."""
    if decimal == ".":
        return cells
    return [["" if "." in cell else cell.replace(",", ".") for cell in row] for row in cells]


def _to_float(table, cols, path, label_given=True, weights=False):
    """The cells of columns ``cols`` as floats (read with the table's decimal mark), the
    rows converted ``CHUNK_ROWS`` at a time into the array; a non-number or a
    non-finite number is a CSVError naming the line and column, with a hint at the
    fix."""
    import numpy as np

    rows, lines, header = table.rows, table.lines, table.header
    n, d = len(rows), len(cols)
    _fits(8 * n * d, f"{path}: its {n} x {d} numbers")
    X = np.empty((n, d))
    get = itemgetter(*cols) if d > 1 else (lambda r, c=cols[0]: (r[c],))
    it = iter(rows)
    for start in range(0, n, CHUNK_ROWS):
        cells = list(map(get, itertools.islice(it, CHUNK_ROWS)))  # a tuple of cells per row
        texts = _as_numbers(cells, table.decimal)
        block = X[start:start + len(cells)]
        try:
            block[:] = np.array(texts, dtype=np.float64).reshape(len(cells), d)
        except ValueError:
            for r, row in enumerate(texts):
                for j, cell in enumerate(row):
                    try:
                        block[r, j] = float(cell)
                    except ValueError:
                        i = start + r
                        tip = _cell_hint(table, i, cols[j], label_given, weights)
                        raise CSVError(f"{path}, line {lines[i]}, "
                                       f"{_column_name(cols[j], header)}: "
                                       f"{cells[r][j].strip()!r} is not a number{tip}") from None
    bad = np.argwhere(~np.isfinite(X))
    if bad.size:
        i, j = bad[0]
        fix = ("--weights names a column of numbers >= 0" if weights else
               "a missing value? every feature cell needs a number: fill it in (impute it) "
               "or drop the row" if np.isnan(X[i, j]) else "replace it or drop the row")
        raise CSVError(f"{path}, line {lines[i]}, {_column_name(cols[j], header)}: "
                       f"{rows[i][cols[j]].strip()!r} is not a finite number; {fix}")
    return X


def _weights(table, c, path):
    """The ``--weights`` column, by the library's rule (``check_sample_weight``: finite,
    >= 0, one at least > 0; a row of weight 0 is left out of the fit and labelled by its
    predict), the first row that breaks it named by its line."""
    from ._validation import InvalidParameterError, check_sample_weight

    w = _to_float(table, [c], path, weights=True)[:, 0]
    try:
        return check_sample_weight(w, w.shape[0], "kgroups cluster", "--weights",
                                   allow_zero=True)
    except InvalidParameterError:
        for i, value in enumerate(w):  # the same rule, one row at a time (beside a 1: a
            try:                       # lone 0 breaks only the "all zero" clause)
                check_sample_weight([value, 1.0], 2, allow_zero=True)
            except InvalidParameterError:
                raise CSVError(f"{path}, line {table.lines[i]}, "
                               f"{_column_name(c, table.header)}: {table.rows[i][c].strip()!r} "
                               "is not a valid --weights value (weights should be finite "
                               "and >= 0)") from None
        raise CSVError(f"{path}: every --weights value ({_column_name(c, table.header)}) is 0; "
                       "at least one row needs a positive weight") from None


def _feature_columns(table, path, special, columns, drop_columns):
    """The feature columns: ``columns`` (every column when None) less ``drop_columns``
    and the ``special`` ones (``--weights``, ``--label-column``), which ``columns``
    must not list."""
    names, width = table.header, len(table.rows[0])
    cols = range(width) if columns is None else \
        _column_list(columns, names, width, path, "--columns")
    for option, c in special.items():
        if columns is not None and c in cols:
            raise UsageError(f"argument --columns: {columns!r} lists {_column_name(c, names)}, "
                             f"the {option} column; a column is a feature or the {option}, "
                             "not both")
    gone = set(special.values())
    if drop_columns is not None:
        gone.update(_column_list(drop_columns, names, width, path, "--drop-columns"))
    cols = [c for c in cols if c not in gone]
    if not cols:
        raise UsageError(f"{path}: no feature columns left (of {width}) besides --weights, "
                         "--label-column and --drop-columns; --columns lists the features")
    return cols


def load_table(path, weights=None, label_column=None, delimiter="auto", header="auto",
               notes=None, columns=None, drop_columns=None, decimal="auto"):
    """Features ``X``, weights (or None) and label codes (or None) from a CSV file.

    ``weights`` and ``label_column`` name a column by its header name or by its
    number counted from 1 (negative numbers count from the end: -1 is the last).
    The features are the columns of ``columns`` (a comma-separated list of names,
    numbers and ranges such as ``2-5``, see :func:`_column_list`; None: every column)
    but those of ``drop_columns``, the weights and the labels; they must hold finite
    numbers, read with the decimal mark ``decimal`` (``"auto"``, ``"point"``,
    ``"comma"``). ``notes``, a dict, receives what a user may want to know about
    the features (:func:`feature_notes`) and, under ``"features"``, the feature
    columns and header for :func:`reproduced_note`.
    """
    from ._validation import encode_labels

    table = read_csv(path, delimiter, header, decimal)
    names, rows = table.header, table.rows
    path = "<stdin>" if path == "-" else path
    width = len(rows[0])
    special = {}
    for option, spec in (("--weights", weights), ("--label-column", label_column)):
        if spec is not None:
            special[option] = _column_index(spec, names, width, path, option)
    if len(special) == 2 and len(set(special.values())) == 1:
        raise UsageError(f"--weights and --label-column both name "
                         f"{_column_name(special['--weights'], names)} of {path}")
    cols = _feature_columns(table, path, special, columns, drop_columns)
    X = _to_float(table, cols, path, label_given="--label-column" in special)
    w = y = None
    if "--weights" in special:
        w = _weights(table, special["--weights"], path)
    if notes is not None:
        notes.update(feature_notes(X, w, cols, names, "--label-column" in special))
        notes["features"] = (cols, names)
    if "--label-column" in special:
        raw = [r[special["--label-column"]].strip() for r in rows]
        y = encode_labels(raw, len(rows), "kgroups cluster", "--label-column")[0]
    return X, w, y


def _column_spec(c, names):
    """How an option names column ``c`` on a shell's command line: its header name when
    that is unique and has no comma (quoted when the shell needs it), else its number
    counted from 1."""
    import shlex

    name = names[c].strip() if names is not None else ""
    usable = name and "," not in name and names.count(names[c]) == 1 and not name.startswith("-")
    return shlex.quote(name) if usable else str(c + 1)


def _integer_codes(values):
    """``(codes, count)`` of a column of 2..LABEL_LIKE_MAX distinct integers, else None."""
    import numpy as np

    distinct, codes = np.unique(values, return_inverse=True)
    if 2 <= distinct.size <= LABEL_LIKE_MAX and np.all(distinct == np.round(distinct)):
        return codes, distinct.size
    return None


def feature_notes(X, w, cols, names, label_given):
    """What the features may hide: ``{"label": text or None, "spread": text or None}``.

    ``"label"``: a feature column named like class labels (:data:`LABEL_NAMES`) whose
    values are integers, at most :data:`LABEL_LIKE_MAX` of them (only when no
    ``--label-column`` was given); ``"label_at"`` is its index. ``"spread"``: the
    columns' standard deviations differ by more than :data:`SPREAD_RATIO` (the energy
    distance weighs each column by its units, so the widest decides).
    """
    import numpy as np

    from ._rescale import column_moments

    label = at = None
    for j, c in enumerate(cols):
        name = names[c] if names is not None else None
        key = "" if name is None else "_".join(name.strip().lower().replace("-", " ").split())
        if label_given or key not in LABEL_NAMES:
            continue
        values = np.unique(X[:, j])
        if values.size <= LABEL_LIKE_MAX and np.all(values == np.round(values)):
            spec = _column_spec(c, names)
            label, at = (f"{_column_name(c, names)} holds {values.size} distinct integers and "
                         "is named like class labels, yet it is clustered as a feature; if it "
                         f"holds labels, pass --label-column {spec} (to score the clusters "
                         f"against it) or --drop-columns {spec}"), c
            break
    spread = None
    sd = column_moments(X, w)[1]   # at any magnitude
    if np.count_nonzero(sd > 0) >= 2:
        hi, lo = int(np.argmax(sd)), int(np.argmin(np.where(sd > 0, sd, np.inf)))
        with np.errstate(over="ignore"):
            ratio = sd[hi] / sd[lo]
        if ratio > SPREAD_RATIO:
            factor = ("more than 1e308" if not np.isfinite(ratio) else f"{ratio:,.0f}"
                      if ratio < 1e7 else f"{ratio:.3g}")
            spread = (f"the columns' spreads differ by a factor of {factor} "
                      f"(standard deviation {sd[hi]:.4g} in {_column_name(cols[hi], names)}, "
                      f"{sd[lo]:.4g} in {_column_name(cols[lo], names)}): each column weighs "
                      "by its units; if they are in different units, pass --standardize")
    return {"label": label, "label_at": at, "spread": spread}


def reproduced_note(X, labels, notes):
    """After a fit: the feature columns of 2..:data:`LABEL_LIKE_MAX` distinct integers
    whose partition of the rows the clusters ``labels`` reproduce (adjusted Rand index
    at least :data:`REPRODUCED_ARI`), in words (None when there is none). Class labels
    left among the features do that: they decide the clusters. The column the note on
    label-like names already named (``notes["label_at"]``) is not named again. Rows
    labelled -1 (set aside by ``--noise``) are left out, as the metrics leave them."""
    import numpy as np

    from .metrics import weighted_ari  # the index without scikit-learn

    cols, names = notes["features"]
    kept = np.asarray(labels) != -1  # -1: set aside (--noise), in no cluster
    X = X[kept]
    _, p = np.unique(np.asarray(labels)[kept], return_inverse=True)
    if p.max(initial=0) < 1:
        return None
    found = []
    for j, c in enumerate(cols):
        coded = None if c == notes.get("label_at") else _integer_codes(X[:, j])
        if coded is not None:
            index = weighted_ari(coded[0], p, np.ones(p.size))
            if index >= REPRODUCED_ARI:
                found.append((c, coded[1], index))
    if not found:
        return None
    which = "; ".join(f"{_column_name(c, names)}, {count} distinct integers: ARI {index:.3f}"
                      for c, count, index in found)
    specs = ",".join(_column_spec(c, names) for c, _, _ in found)
    label = (f"pass --label-column {specs} to score the clusters against it, or "
             if len(found) == 1 else "")
    return (f"the clusters reproduce a feature column almost exactly ({which}); if it holds "
            f"class labels, they decided the clusters: {label}--drop-columns {specs} to "
            "leave it out")
