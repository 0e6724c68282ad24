"""The ``kgroups`` command.

``kgroups cluster FILE -k K``
    Cluster the rows of a CSV file with kernel k-groups and print sizes, W, Q,
    sweeps and time (and accuracy, NMI, ARI when ``--label-column`` is given).
``kgroups demo``
    The dermatology dataset as in the TPAMI paper (Table II, Fig. 6): kernel
    k-groups beside k-means, GMM, spectral clustering and kernel k-means.
``kgroups reproduce NAME|all|list``
    Regenerate a table or figure of the papers (see :mod:`kgroups.experiments`).

Like a Unix tool: options are checked (values through the estimator's
constraint table, output paths for writability) before any work starts; a bad
option, file or value prints one line ``kgroups CMD: error: ...`` on stderr and
exits with status 2 (as argparse does); columns and lines are counted from 1 in
options and in messages. ``-`` as the input reads standard input and ``-o -``
writes the labels to standard output (the summary then goes to standard error);
gzip-compressed input is recognised by its first bytes; the field separator is
found from the first lines. Unexpected internal errors keep their traceback.

The parser is built from the tables of ``kgroups._cli_options``, whose
defaults and choices are the library's, and NumPy, SciPy, scikit-learn and numba
are imported only once a command runs, so ``--help`` and ``--version`` start at once.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import NamedTuple

from . import __version__
from ._cli_options import (
    CLUSTER_OPTIONS,
    DELIMITERS,
    DEMO_DEFAULTS,
    ESTIMATOR_CHOICES,
    ESTIMATOR_DEFAULTS,
    HEADER_CHOICES,
    REPRODUCE_DEFAULTS,
)

__all__ = ["CSVError", "UsageError", "build_parser", "load_table", "main", "read_csv"]

EXIT_USAGE = 2  # bad option, file or value (argparse's status)
GZIP_MAGIC = b"\x1f\x8b"
SNIFF_CHARS = 1 << 16  # the separator is sniffed from the lines in the first 64 KiB
SEPARATOR_NAMES = {",": "comma", ";": "semicolon", "\t": "tab", "whitespace": "whitespace"}
# Cells that stand for a missing value in common exports (compared in lower case).
MISSING_CELLS = {"", "?", "na", "n/a", "null", "none", "-", "."}


class UsageError(ValueError):
    """A bad option, file or value: one line on stderr and exit status 2."""


class CSVError(UsageError):
    """A CSV file that does not parse (names the file, line and column)."""


# --------------------------------------------------------------------------- options
def check_option(option, value, owner, param):
    """Check one option's value with the constraint of ``owner.param`` in the table.

    The error names the option (``--n-init``), the value and what the table expects.
    """
    from ._validation import (
        PARAMETER_CONSTRAINTS,
        InvalidParameterError,
        describe,
        validate_params,
    )

    try:
        validate_params(owner, {param: value})
    except InvalidParameterError:
        expected = " or ".join(str(rule) for rule in PARAMETER_CONSTRAINTS[owner][param])
        raise UsageError(f"argument {option}: {describe(value)} should be {expected}") from None


def _check_trials(value):
    if value is not None and value < 1:
        raise UsageError(f"argument --trials: {value!r} should be an integer >= 1")


def _option_name(flags):
    return flags[-1]  # the long spelling when there is one


# The cluster options that are parameters of KernelKGroups: option, attribute, parameter.
ESTIMATOR_OPTIONS = tuple((_option_name(flags), attr, param)
                          for flags, attr, param, *_ in CLUSTER_OPTIONS)


# --------------------------------------------------------------------------- paths
def check_output_file(path, option="--out", input_path=None):
    """Fail now, before any work, when ``path`` cannot be written (nothing is left behind).

    ``-`` (standard output) is always writable.
    """
    if path == "-":
        return
    if os.path.isdir(path):
        raise UsageError(f"argument {option}: {path}: is a directory")
    if input_path and input_path != "-" and os.path.exists(path) and os.path.exists(input_path) \
            and os.path.samefile(path, input_path):
        raise UsageError(f"argument {option}: {path} is the input file; refusing to overwrite it")
    existed = os.path.exists(path)
    try:
        with open(path, "a"):
            pass
    except OSError as err:
        raise UsageError(f"argument {option}: cannot write {path}: {err.strerror}") from None
    if not existed:
        os.remove(path)


def prepare_output_dir(path, option="--out"):
    """Create the folder ``path`` (with parents) and check that a file can be written in it.

    Used by the commands that run the paper harness, so it also checks first that the
    plotting extra is installed (the figures need matplotlib).
    """
    import tempfile

    from .experiments import require_plot

    try:
        require_plot()
    except ModuleNotFoundError as err:
        raise UsageError(str(err)) from None
    try:
        os.makedirs(path, exist_ok=True)
    except FileExistsError:
        raise UsageError(f"argument {option}: {path} exists and is not a directory") from None
    except OSError as err:
        raise UsageError(f"argument {option}: cannot create {path}: {err.strerror}") from None
    try:
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError as err:
        raise UsageError(f"argument {option}: cannot write in {path}: {err.strerror}") from None


# --------------------------------------------------------------------------- CSV
def _read_bytes(path):
    """The bytes of the file (``-``: standard input), gzip-decompressed when they are gzip."""
    if path == "-":
        stream = getattr(sys.stdin, "buffer", None)
        data = stream.read() if stream is not None else sys.stdin.read().encode("utf-8")
        path = "<stdin>"
    else:
        if os.path.isdir(path):
            raise CSVError(f"{path}: is a directory")
        try:
            with open(path, "rb") as fh:
                data = fh.read()
        except FileNotFoundError:
            raise CSVError(f"{path}: no such file") from None
        except OSError as err:
            raise CSVError(f"{path}: cannot read: {err.strerror}") from None
    if data.startswith(GZIP_MAGIC):  # by content, whatever the name: also on stdin
        import gzip
        import zlib

        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as err:
            raise CSVError(f"{path}: starts as gzip but does not decompress ({err}); "
                           "a truncated or damaged .gz file?") from None
    return data, path


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


def _split_rows(text, delimiter, path):
    """``(line number, fields)`` of the non-blank rows."""
    import csv
    import io

    rows = []
    if delimiter == "whitespace":  # tabs and spaces; runs count as one (like awk)
        for ln, line in enumerate(io.StringIO(text, newline=""), start=1):
            if line.strip():
                rows.append((ln, line.split()))
        return rows
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter,
                        skipinitialspace=True)
    try:
        for fields in reader:
            if any(f.strip() for f in fields):
                rows.append((reader.line_num, fields))
    except csv.Error as err:
        raise CSVError(f"{path}, line {reader.line_num}: {err}") from None
    return rows


def _sniff_score(rows):
    """How well a separator splits the sample rows: (every row as wide as the first,
    no empty field, share of rows as wide as the first); zeros for one column."""
    widths = [len(fields) for _, fields in rows]
    if not widths or widths[0] < 2:
        return (False, False, 0.0)
    same = sum(w == widths[0] for w in widths) / len(widths)
    full = all(cell.strip() for _, fields in rows for cell in fields)
    return (same == 1.0, full, same)


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
            scores[sep] = _sniff_score(_split_rows(head, sep, path))
        except CSVError:
            continue
    best = max(scores, key=scores.get, default=None)  # the first of equal scores
    if best is not None and scores[best][2] > 0:
        return best
    first = next((line for line in text.splitlines() if line.strip()), "")
    return next((d for d in (",", ";") if d in first), "whitespace")


def _has_header(rows):
    """Auto-detection: the first row names columns whose next-row cell is a number."""
    if len(rows) == 1:
        return not all(_is_number(f) for f in rows[0][1])
    return any(not _is_number(a) and _is_number(b) for a, b in zip(rows[0][1], rows[1][1]))


def _is_number(text):
    try:
        float(text)
    except ValueError:
        return False
    return True


class Table(NamedTuple):
    """A parsed file: the header (None when absent), the data rows (lists of fields),
    the line of each row (counted from 1) and the separator."""

    header: list | None
    rows: list
    lines: list
    delimiter: str


def read_csv(path, delimiter="auto", header="auto"):
    """The :class:`Table` of a CSV file (``-``: standard input; gzip or plain UTF-8 text).

    ``delimiter``: ``"auto"`` (sniffed from the first lines: comma, tab,
    semicolon or runs of whitespace, see :func:`_detect_delimiter`), ``"comma"``,
    ``"semicolon"``, ``"tab"`` or ``"whitespace"`` (runs of tabs and spaces).
    ``header``: ``"auto"`` (the first row is a header when it has a non-number
    above a number), ``"yes"`` or ``"no"``. Blank lines are skipped; every row
    must have as many fields as the first.
    """
    text = _read_text(path)
    name = "<stdin>" if path == "-" else path
    sep = DELIMITERS[delimiter] or _detect_delimiter(text, name)
    rows = _split_rows(text, sep, name)
    if not rows:
        raise CSVError(f"{name}: the file is empty")
    names = None
    if header == "yes" or (header == "auto" and _has_header(rows)):
        names, rows = [f.strip() for f in rows[0][1]], rows[1:]
        if not rows:
            raise CSVError(f"{name}: the file has a header (line 1) but no data rows")
    width = len(names) if names is not None else len(rows[0][1])
    first = rows[0][0] - (names is not None)
    for ln, fields in rows:
        if len(fields) != width:
            how = (f"; fields split at {SEPARATOR_NAMES[sep]}, found from the first lines "
                   "(--delimiter sets another)") if DELIMITERS[delimiter] is None else ""
            raise CSVError(f"{name}, line {ln}: {len(fields)} fields, expected {width} "
                           f"(as on line {max(first, 1)}){how}")
    return Table(names, [f for _, f in rows], [ln for ln, _ in rows], sep)


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


def _column_name(c, header):
    return f"column {c + 1}" + (f" ({header[c]!r})" if header is not None else "")


def _splits_into_numbers(cell, sep):
    parts = cell.split() if sep == "whitespace" else cell.split(sep)
    return len(parts) > 1 and all(_is_number(p) for p in parts)


def _cell_hint(table, i, c, label_given, weights=False):
    """What to do about the non-number in row ``i``, column ``c`` (the ``--weights``
    column when ``weights``): the fix its look and its column point at (a missing
    value, decimal commas, another separator, a header not detected, a column of
    class labels)."""
    import re

    cell, sep, rows = table.rows[i][c].strip(), table.delimiter, table.rows
    if cell.lower() in MISSING_CELLS:
        return "; a missing value? every feature cell needs a number: fill it in or drop the row"
    if sep != "," and any(re.fullmatch(r"[+-]?\d*,\d+", row[c].strip()) for row in rows):
        return "; decimal commas are not read: write 1.5, not 1,5"
    for other, name in SEPARATOR_NAMES.items():
        if other != sep and _splits_into_numbers(cell, other):
            return f"; the fields look separated by {name}: pass --delimiter {name}"
    if weights:
        return "; --weights names a column of numbers > 0"
    if i == 0 and table.header is None and not any(_is_number(f) for f in rows[0]) \
            and len(rows) > 1 and any(_is_number(f) for f in rows[1]):
        return f"; if line {table.lines[0]} names the columns, pass --header yes"
    if 2 * sum(not _is_number(row[c]) for row in rows) < len(rows):
        return "; every feature cell needs a number: fix or drop the row"
    if label_given:
        return (f"; column {c + 1} is text: every column besides --label-column and --weights "
                "is a feature, so remove it from the file")
    return f"; if column {c + 1} holds class labels, pass --label-column {c + 1}"


def _to_float(table, cols, path, label_given=True, weights=False):
    """The cells of columns ``cols`` as floats; a non-number or a non-finite number is
    a CSVError naming the line and column, with a hint at the fix."""
    import numpy as np

    rows, lines, header = table.rows, table.lines, table.header
    cells = [[r[c] for c in cols] for r in rows]
    try:
        X = np.array(cells, dtype=np.float64).reshape(len(rows), len(cols))
    except ValueError:
        X = np.empty((len(rows), len(cols)))
        for i, row in enumerate(cells):
            for j, cell in enumerate(row):
                try:
                    X[i, j] = float(cell)
                except ValueError:
                    tip = _cell_hint(table, i, cols[j], label_given, weights)
                    raise CSVError(f"{path}, line {lines[i]}, {_column_name(cols[j], header)}: "
                                   f"{cell.strip()!r} is not a number{tip}") from None
    bad = np.argwhere(~np.isfinite(X))
    if bad.size:
        i, j = bad[0]
        raise CSVError(f"{path}, line {lines[i]}, {_column_name(cols[j], header)}: "
                       f"{cells[i][j].strip()!r} is not a finite number")
    return X


def _weights(table, c, path):
    from ._validation import InvalidParameterError, check_sample_weight

    w = _to_float(table, [c], path, weights=True)[:, 0]
    try:
        return check_sample_weight(w, w.shape[0], "kgroups cluster", "--weights")
    except InvalidParameterError:
        for i, value in enumerate(w):  # locate the row: the same rule, one row at a time
            try:
                check_sample_weight(value, 1)
            except InvalidParameterError:
                raise CSVError(f"{path}, line {table.lines[i]}, "
                               f"{_column_name(c, table.header)}: {table.rows[i][c].strip()!r} "
                               "is not a valid --weights value "
                               "(weights should be finite and > 0)") from None
        raise


def load_table(path, weights=None, label_column=None, delimiter="auto", header="auto"):
    """Features ``X``, weights (or None) and label codes (or None) from a CSV file.

    ``weights`` and ``label_column`` name a column by its header name or by its
    number counted from 1 (negative numbers count from the end: -1 is the last).
    Every other column is a feature and must hold finite numbers.
    """
    from ._validation import encode_labels

    table = read_csv(path, delimiter, header)
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
    cols = [c for c in range(width) if c not in special.values()]
    if not cols:
        raise CSVError(f"{path}: no feature columns left besides --weights / --label-column")
    X = _to_float(table, cols, path, label_given="--label-column" in special)
    w = y = None
    if "--weights" in special:
        w = _weights(table, special["--weights"], path)
    if "--label-column" in special:
        raw = [r[special["--label-column"]].strip() for r in rows]
        y = encode_labels(raw, len(rows), "kgroups cluster", "--label-column")[0]
    return X, w, y


# --------------------------------------------------------------------------- commands
def _options_named_in(message):
    """The cluster options whose estimator parameter an estimator message names."""
    found = [option for option, _, param in ESTIMATOR_OPTIONS if f"{param}=" in message]
    return f" (set by {', '.join(found)})" if found else ""


def _fit_quietly(est, X, w, prog):
    """Fit; kgroups' input errors become one line, each distinct warning one line on stderr."""
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            est.fit(X, sample_weight=w)
        except ValueError as err:  # InvalidParameterError and the memory guard
            raise UsageError(f"{err}{_options_named_in(str(err))}") from None
    counts = {}
    for warning in caught:
        text = str(warning.message)
        counts[text] = counts.get(text, 0) + 1
    for text, count in counts.items():
        times = f" ({count} times)" if count > 1 else ""
        print(f"{prog}: warning: {text}{times}", file=sys.stderr)


def _cluster(args):
    import numpy as np

    from . import KernelKGroups

    for option, attr, param in ESTIMATOR_OPTIONS:
        check_option(option, getattr(args, attr), "KernelKGroups", param)
    if args.out:
        check_output_file(args.out, "--out", args.file)
    X, w, y = load_table(args.file, args.weights, args.label_column, args.delimiter, args.header)
    if X.shape[0] < args.k:
        raise UsageError(f"argument -k: {args.k} clusters but {args.file} has only "
                         f"{X.shape[0]} data rows")
    est = KernelKGroups(**{param: getattr(args, attr) for _, attr, param in ESTIMATOR_OPTIONS})
    start = time.perf_counter()
    _fit_quietly(est, X, w, "kgroups cluster")
    if hasattr(est.labels_, "compute"):  # --engine dask: labels held by Dask
        est.labels_ = np.asarray(est.labels_.compute())
    seconds = time.perf_counter() - start
    to_stdout = args.out == "-"
    _print_summary(args, est, X, y, seconds, sys.stderr if to_stdout else sys.stdout)
    if to_stdout:
        sys.stdout.write("label\n" + "".join(f"{label}\n" for label in est.labels_.tolist()))
        sys.stdout.flush()
    elif args.out:
        try:
            np.savetxt(args.out, est.labels_, fmt="%d", header="label", comments="")
        except OSError as err:
            raise UsageError(f"argument --out: cannot write {args.out}: {err.strerror}") from None
        print(f"labels written to {args.out}")


def _print_summary(args, est, X, y, seconds, file):
    import numpy as np

    sizes = np.bincount(est.labels_, minlength=args.k)
    lines = [(f"kernel k-groups: n={X.shape[0]} D={X.shape[1]} k={args.k} "
              f"semimetric={args.semimetric} engine={est.engine_}"),
             f"cluster sizes: {' '.join(map(str, sizes))}",
             f"W (within energy): {est.within_energy_:.6g}",
             f"Q (objective):     {est.objective_:.6g}",
             f"sweeps: {est.n_iter_}   moves per sweep: {est.n_moves_}",
             f"time: {seconds:.3f} s"]
    if y is not None:
        from .metrics import accuracy, ari, nmi

        lines.append(f"accuracy: {accuracy(y, est.labels_):.4f}   "
                     f"NMI: {nmi(y, est.labels_):.4f}   ARI: {ari(y, est.labels_):.4f}")
    print("\n".join(lines), file=file, flush=True)


def _demo(args):
    from .experiments import registry

    check_option("--n-init", args.n_init, "KernelKGroups", "n_init")
    check_option("--seed", args.seed, "KernelKGroups", "random_state")
    prepare_output_dir(args.out)
    print("Dermatology (UCI; TPAMI 2021 Table II): n=366, D=34, k=6, energy alpha=1/2, "
          f"n_init={args.n_init}, seed={args.seed}\n", flush=True)
    table = registry()["tpami-table2"].run(args.out, seed=args.seed, n_init=args.n_init)
    print(table)
    print(f"\nmembership heatmap (Fig. 6): {os.path.join(args.out, 'fig6_dermatology_heatmap.png')}")


def _reproduce(args):
    from .experiments import registry

    experiments = registry()
    if args.name == "list":
        for name, module in experiments.items():
            print(f"{name:24s} {module.TITLE}")
        return
    if args.name != "all" and args.name not in experiments:
        raise UsageError(f"argument name: no experiment {args.name!r}; choose 'all', 'list' "
                         f"or one of: {', '.join(experiments)}")
    _check_trials(args.trials)
    check_option("--seed", args.seed, "KernelKGroups", "random_state")
    prepare_output_dir(args.out)
    names = list(experiments) if args.name == "all" else [args.name]
    begin = time.perf_counter()
    for i, name in enumerate(names, start=1):
        print(f"== {name}: {experiments[name].TITLE}  [{i}/{len(names)} started]", flush=True)
        start = time.perf_counter()
        table = experiments[name].run(args.out, trials=args.trials, quick=args.quick,
                                      seed=args.seed)
        print(table)
        now = time.perf_counter()
        print(f"== {name}: done in {now - start:.1f} s  [{i}/{len(names)}, "
              f"{now - begin:.1f} s in all; written under {args.out}]\n", flush=True)


# --------------------------------------------------------------------------- parser
class _Formatter(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """Defaults appended to every option's help unless the help already states one."""

    def _get_help_string(self, action):
        if "(default" in (action.help or "") or action.required:
            return action.help
        return super()._get_help_string(action)

    def _split_lines(self, text, width):
        """Wrap at spaces only: option values such as matrix-free stay whole."""
        import textwrap

        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False)


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (raised, so ``main`` can return 2)."""

    def error(self, message):
        err = UsageError(f"{message} (see '{self.prog} --help')")
        err.prog = self.prog
        raise err


def _int_or_auto(text):
    """``--n-init``: ``auto`` or an integer (its range is checked with the others)."""
    if text == "auto":
        return text
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} should be 'auto' or an integer >= 1") \
            from None


_TYPES = {"int": int, "float": float, "int_or_auto": _int_or_auto, "choice": None}

COLUMN_HELP = "(a header name, or a number counted from 1; -1 is the last column)"

CLUSTER_EPILOG = """\
The file: numbers separated by commas, semicolons, tabs or runs of spaces
(found from the first lines; --delimiter sets it), one row per point, UTF-8,
plain or gzip-compressed, with an optional header row. '-' reads standard input;
-o - writes the labels to standard output and the summary to standard error.
Columns are counted from 1, in options and in error messages; lines too.

examples:
  kgroups cluster data.csv -k 3
  kgroups cluster data.csv.gz -k 3 --alpha 0.5 --label-column class --weights w -o labels.csv
  kgroups cluster iris.data -k 3 --label-column 5 --verbose
  kgroups cluster data.tsv.gz -k 3 -o - 2>/dev/null | tail -n +2 | sort -n | uniq -c
"""


def _add_estimator_option(group, flags, attr, param, kind, metavar, text):
    """One option of CLUSTER_OPTIONS: default and choices from the library's tables."""
    text = text.replace("%", "%%")  # argparse %-formats help strings
    if kind == "count":
        group.add_argument(*flags, dest=attr, action="count",
                           default=ESTIMATOR_DEFAULTS[param], help=text)
    elif param == "n_clusters":
        group.add_argument(*flags, dest=attr, type=int, required=True, metavar=metavar,
                           help=text)
    else:
        group.add_argument(*flags, dest=attr, type=_TYPES[kind], metavar=metavar,
                           default=ESTIMATOR_DEFAULTS[param],
                           choices=ESTIMATOR_CHOICES.get(param), help=text)


def _cluster_parser(sub):
    c = sub.add_parser("cluster", help="cluster the rows of a CSV file", epilog=CLUSTER_EPILOG,
                       description="Cluster the rows of a CSV file with kernel k-groups.\n"
                                   "The options are those of kgroups.KernelKGroups, with "
                                   "the same defaults.",
                       formatter_class=_Formatter)
    c.add_argument("file", help="CSV file of numbers, one row per point, plain or gzip "
                                "('-': standard input)")
    io = c.add_argument_group("input and output")
    io.add_argument("--weights", metavar="COLUMN",
                    help=f"column of sample weights (finite, > 0) {COLUMN_HELP} "
                         "(default: every row weighs 1)")
    io.add_argument("--label-column", metavar="COLUMN",
                    help=f"column of true class labels, left out of the features and used for "
                         f"accuracy, NMI and ARI {COLUMN_HELP} (default: none)")
    io.add_argument("--delimiter", default="auto", choices=tuple(DELIMITERS),
                    help="field separator; auto: the first of comma, tab, semicolon and "
                         "runs of whitespace that splits the first lines into equal numbers "
                         "of fields")
    io.add_argument("--header", default="auto", choices=HEADER_CHOICES,
                    help="whether the first row names the columns; auto: yes when it has a "
                         "non-number above a number")
    io.add_argument("-o", "--out", "--output", dest="out", metavar="FILE",
                    help="write the labels (header 'label', one per data row, in file order) "
                         "to FILE ('-': standard output); checked for writability before "
                         "clustering (default: not written)")
    est = c.add_argument_group("kernel k-groups (kgroups.KernelKGroups)")
    for option in CLUSTER_OPTIONS:
        _add_estimator_option(est, *option)
    c.set_defaults(func=_cluster)


def _demo_parser(sub):
    d = sub.add_parser("demo", help="dermatology: kernel k-groups beside the baselines",
                       description="TPAMI Table II and Fig. 6 on the bundled dermatology data.",
                       formatter_class=_Formatter)
    d.add_argument("--out", default=DEMO_DEFAULTS["out"], metavar="DIR",
                   help="folder for the table and PNG (created; checked before running)")
    d.add_argument("--n-init", type=int, default=DEMO_DEFAULTS["n_init"], metavar="N",
                   help="starts per method, >= 1")
    d.add_argument("--seed", type=int, default=DEMO_DEFAULTS["seed"],
                   help="random seed, in [0, 2**32 - 1]")
    d.set_defaults(func=_demo)


def _reproduce_parser(sub):
    r = sub.add_parser("reproduce", help="regenerate a table or figure of the papers",
                       description="Regenerate a table or figure of the papers; "
                                   "'kgroups reproduce list' names them.",
                       formatter_class=_Formatter)
    r.add_argument("name", help="an experiment name (see 'list'), 'all', or 'list'")
    r.add_argument("--trials", type=int, default=REPRODUCE_DEFAULTS["trials"], metavar="N",
                   help="Monte Carlo trials, >= 1 (default: the paper's count)")
    r.add_argument("--quick", action="store_true", default=REPRODUCE_DEFAULTS["quick"],
                   help="reduced sizes, about a minute per item")
    r.add_argument("--out", default=REPRODUCE_DEFAULTS["out"], metavar="DIR",
                   help="folder for tables and PNGs (created; checked before running)")
    r.add_argument("--seed", type=int, default=REPRODUCE_DEFAULTS["seed"],
                   help="random seed, in [0, 2**32 - 1]")
    r.set_defaults(func=_reproduce)


def build_parser():
    """The argument parser of the ``kgroups`` command (subcommands cluster, demo, reproduce)."""
    parser = _Parser(prog="kgroups", description="Kernel k-groups clustering from energy "
                     "statistics\n(Franca, Rizzo & Vogelstein, IEEE TPAMI 2021).",
                     epilog="'kgroups COMMAND --help' describes each command.",
                     formatter_class=_Formatter)
    parser.add_argument("--version", action="version", version=f"kgroups {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND",
                                parser_class=_Parser)
    _cluster_parser(sub)
    _demo_parser(sub)
    _reproduce_parser(sub)
    return parser


def main(argv=None):
    """Entry point of the ``kgroups`` command; returns the exit status."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except UsageError as err:
        print(f"{err.prog}: error: {err}", file=sys.stderr)
        return EXIT_USAGE
    except SystemExit as done:  # --help, --version
        return done.code if isinstance(done.code, int) else 0
    prog = f"kgroups {args.command}"
    try:
        args.func(args)
    except UsageError as err:
        print(f"{prog}: error: {err}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. piped into head: stop quietly, as Unix tools do
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return 141
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
