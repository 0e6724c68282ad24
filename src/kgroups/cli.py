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
options and in messages. Unexpected internal errors keep their traceback.
"""

from __future__ import annotations

import argparse
import csv
import io
import os
import sys
import tempfile
import time
import warnings

import numpy as np

from . import KernelKGroups, __version__
from ._validation import (
    ENGINE_NAMES,
    INIT_NAMES,
    PARAMETER_CONSTRAINTS,
    SEMIMETRIC_NAMES,
    Integer,
    InvalidParameterError,
    check_sample_weight,
    describe,
    encode_labels,
    validate_params,
)

__all__ = ["CSVError", "UsageError", "build_parser", "load_table", "main", "read_csv"]

EXIT_USAGE = 2  # bad option, file or value (argparse's status)
DELIMITERS = {"auto": None, "comma": ",", "semicolon": ";", "tab": "\t", "whitespace": "whitespace"}


class UsageError(ValueError):
    """A bad option, file or value: one line on stderr and exit status 2."""


class CSVError(UsageError):
    """A CSV file that does not parse (names the file, line and column)."""


# --------------------------------------------------------------------------- options
def check_option(option, value, owner, param):
    """Check one option's value with the constraint of ``owner.param`` in the table.

    The error names the option (``--n-init``), the value and what the table expects.
    """
    try:
        validate_params(owner, {param: value})
    except InvalidParameterError:
        expected = " or ".join(str(rule) for rule in PARAMETER_CONSTRAINTS[owner][param])
        raise UsageError(f"argument {option}: {describe(value)} should be {expected}") from None


def _check_trials(value):
    if value is not None and not Integer(1)(value):
        raise UsageError(f"argument --trials: {value!r} should be an integer >= 1")


# The cluster options that are parameters of KernelKGroups: option, attribute, parameter.
ESTIMATOR_OPTIONS = (
    ("-k", "k", "n_clusters"), ("--semimetric", "semimetric", "semimetric"),
    ("--alpha", "alpha", "alpha"), ("--sigma", "sigma", "sigma"), ("--theta", "theta", "theta"),
    ("--init", "init", "init"), ("--n-init", "n_init", "n_init"),
    ("--max-iter", "max_iter", "max_iter"), ("--engine", "engine", "engine"),
    ("--n-components", "n_components", "n_components"),
    ("--seed", "seed", "random_state"), ("--verbose", "verbose", "verbose"),
)


# --------------------------------------------------------------------------- paths
def check_output_file(path, option="--out", input_path=None):
    """Fail now, before any work, when ``path`` cannot be written (nothing is left behind)."""
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
def _read_text(path):
    """The file (``-``: standard input) as UTF-8 text; a clear error for anything else."""
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
    nul = data.find(b"\x00")
    if nul >= 0:
        raise CSVError(f"{path}: NUL byte at offset {nul}; a binary file? expected CSV text")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise CSVError(f"{path}: not UTF-8 text (byte 0x{data[err.start]:02x} at offset "
                       f"{err.start}); expected CSV text in UTF-8") from None


def _detect_delimiter(text):
    """``,`` or ``;`` if the first non-blank line has one, else runs of whitespace."""
    first = next((line for line in text.splitlines() if line.strip()), "")
    for d in (",", ";"):
        if d in first:
            return d
    return "whitespace"


def _split_rows(text, delimiter, path):
    """``(line number, fields)`` of the non-blank rows."""
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


def _is_number(text):
    try:
        float(text)
    except ValueError:
        return False
    return True


def _has_header(rows):
    """Auto-detection: the first row names columns whose next-row cell is a number."""
    if len(rows) == 1:
        return not all(_is_number(f) for f in rows[0][1])
    return any(not _is_number(a) and _is_number(b) for a, b in zip(rows[0][1], rows[1][1]))


def read_csv(path, delimiter="auto", header="auto"):
    """Header (``None`` when absent), data rows and their line numbers.

    ``delimiter``: ``"auto"`` (``,`` or ``;`` if the first line has one, else
    whitespace), ``","``, ``";"``, ``"tab"`` or ``"whitespace"`` (runs of tabs
    and spaces). ``header``: ``"auto"`` (the first row is a header when it has a
    non-number above a number), ``"yes"`` or ``"no"``. Blank lines are skipped;
    every row must have as many fields as the first.
    """
    text = _read_text(path)
    name = "<stdin>" if path == "-" else path
    sep = DELIMITERS[delimiter] or _detect_delimiter(text)
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
            raise CSVError(f"{name}, line {ln}: {len(fields)} fields, expected {width} "
                           f"(as on line {max(first, 1)})")
    return names, [f for _, f in rows], [ln for ln, _ in rows]


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


def _to_float(rows, cols, lines, header, path, hint=False):
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
                    tip = (f"; if column {cols[j] + 1} holds class labels, pass --label-column "
                           f"{cols[j] + 1}") if hint else ""
                    raise CSVError(f"{path}, line {lines[i]}, {_column_name(cols[j], header)}: "
                                   f"{cell.strip()!r} is not a number{tip}") from None
    bad = np.argwhere(~np.isfinite(X))
    if bad.size:
        i, j = bad[0]
        raise CSVError(f"{path}, line {lines[i]}, {_column_name(cols[j], header)}: "
                       f"{cells[i][j].strip()!r} is not a finite number")
    return X


def _weights(rows, c, lines, header, path):
    w = _to_float(rows, [c], lines, header, path)[:, 0]
    try:
        return check_sample_weight(w, w.shape[0], "kgroups cluster", "--weights")
    except InvalidParameterError:
        for i, value in enumerate(w):  # locate the row: the same rule, one row at a time
            try:
                check_sample_weight(value, 1)
            except InvalidParameterError:
                raise CSVError(f"{path}, line {lines[i]}, {_column_name(c, header)}: "
                               f"{rows[i][c].strip()!r} is not a valid --weights value "
                               "(weights should be finite and > 0)") from None
        raise


def load_table(path, weights=None, label_column=None, delimiter="auto", header="auto"):
    """Features ``X``, weights (or None) and label codes (or None) from a CSV file.

    ``weights`` and ``label_column`` name a column by its header name or by its
    number counted from 1 (negative numbers count from the end: -1 is the last).
    Every other column is a feature and must hold finite numbers.
    """
    names, rows, lines = read_csv(path, delimiter, header)
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
    X = _to_float(rows, cols, lines, names, path, hint="--label-column" not in special)
    w = y = None
    if "--weights" in special:
        w = _weights(rows, special["--weights"], lines, names, path)
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
    for option, attr, param in ESTIMATOR_OPTIONS:
        check_option(option, getattr(args, attr), "KernelKGroups", param)
    if args.out:
        check_output_file(args.out, "--out", args.file)
    X, w, y = load_table(args.file, args.weights, args.label_column, args.delimiter, args.header)
    if X.shape[0] < args.k:
        raise UsageError(f"argument -k: {args.k} clusters but {args.file} has only "
                         f"{X.shape[0]} data rows")
    est = KernelKGroups(args.k, semimetric=args.semimetric, alpha=args.alpha, sigma=args.sigma,
                        theta=args.theta, init=args.init, n_init=args.n_init,
                        max_iter=args.max_iter, random_state=args.seed, engine=args.engine,
                        n_components=args.n_components, verbose=args.verbose)
    start = time.perf_counter()
    _fit_quietly(est, X, w, "kgroups cluster")
    if hasattr(est.labels_, "compute"):  # --engine dask: labels held by Dask
        est.labels_ = np.asarray(est.labels_.compute())
    seconds = time.perf_counter() - start
    _print_summary(args, est, X, y, seconds)
    if args.out:
        try:
            np.savetxt(args.out, est.labels_, fmt="%d", header="label", comments="")
        except OSError as err:
            raise UsageError(f"argument --out: cannot write {args.out}: {err.strerror}") from None
        print(f"labels written to {args.out}")


def _print_summary(args, est, X, y, seconds):
    sizes = np.bincount(est.labels_, minlength=args.k)
    print(f"kernel k-groups: n={X.shape[0]} D={X.shape[1]} k={args.k} "
          f"semimetric={args.semimetric} engine={est.engine_}")
    print(f"cluster sizes: {' '.join(map(str, sizes))}")
    print(f"W (within energy): {est.within_energy_:.6g}")
    print(f"Q (objective):     {est.objective_:.6g}")
    print(f"sweeps: {est.n_iter_}   moves per sweep: {est.n_moves_}")
    print(f"time: {seconds:.3f} s")
    if y is not None:
        from .metrics import accuracy, ari, nmi

        print(f"accuracy: {accuracy(y, est.labels_):.4f}   NMI: {nmi(y, est.labels_):.4f}   "
              f"ARI: {ari(y, est.labels_):.4f}")


def _demo(args):
    from .experiments import registry

    check_option("--n-init", args.n_init, "KernelKGroups", "n_init")
    check_option("--seed", args.seed, "KernelKGroups", "random_state")
    prepare_output_dir(args.out)
    print("Dermatology (UCI; TPAMI 2020 Table II): n=366, D=34, k=6, energy alpha=1/2, "
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


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (raised, so ``main`` can return 2)."""

    def error(self, message):
        err = UsageError(f"{message} (see '{self.prog} --help')")
        err.prog = self.prog
        raise err


COLUMN_HELP = "(a header name, or a number counted from 1; -1 is the last column)"

CLUSTER_EPILOG = """\
The file: comma-, semicolon- or whitespace-separated numbers, one row per point,
UTF-8, with an optional header row ('-' reads standard input). Columns are counted
from 1, in options and in error messages; lines too.

examples:
  kgroups cluster data.csv -k 3
  kgroups cluster data.csv -k 3 --alpha 0.5 --label-column class --weights w -o labels.csv
  kgroups cluster iris.data -k 3 --label-column 5 --verbose
"""


def _cluster_parser(sub):
    c = sub.add_parser("cluster", help="cluster the rows of a CSV file", epilog=CLUSTER_EPILOG,
                       description="Cluster the rows of a CSV file with kernel k-groups.",
                       formatter_class=_Formatter)
    c.add_argument("file", help="CSV file of numbers, one row per point ('-': standard input)")
    c.add_argument("-k", type=int, required=True, metavar="K",
                   help="number of clusters, 1 <= K <= number of rows (required)")
    c.add_argument("--semimetric", default="energy", choices=SEMIMETRIC_NAMES,
                   help="semimetric rho of negative type")
    c.add_argument("--alpha", type=float, default=1.0,
                   help="exponent of the energy semimetric |x - y|^alpha, in (0, 2]")
    c.add_argument("--sigma", type=float, default=1.0,
                   help="scale of the gaussian, laplacian and localized semimetrics, > 0")
    c.add_argument("--theta", type=float, default=1.0,
                   help="scale of the sinusoidal semimetric, > 0")
    c.add_argument("--weights", metavar="COLUMN",
                   help=f"column of sample weights (finite, > 0) {COLUMN_HELP} "
                        "(default: every row weighs 1)")
    c.add_argument("--label-column", metavar="COLUMN",
                   help=f"column of true class labels, left out of the features and used for "
                        f"accuracy, NMI and ARI {COLUMN_HELP} (default: none)")
    c.add_argument("--delimiter", default="auto", choices=tuple(DELIMITERS),
                   help="field separator; auto: comma or semicolon if the first line has one, "
                        "else runs of tabs and spaces (as awk splits)")
    c.add_argument("--header", default="auto", choices=("auto", "yes", "no"),
                   help="whether the first row names the columns; auto: yes when it has a "
                        "non-number above a number")
    c.add_argument("--init", default="k-means++", choices=INIT_NAMES,
                   help="starting partition of each run")
    c.add_argument("--n-init", type=int, default=5, metavar="N",
                   help="runs from different starts; the best objective is kept, >= 1")
    c.add_argument("--max-iter", type=int, default=100, metavar="N",
                   help="most sweeps over the data per run, >= 1")
    c.add_argument("--engine", default="auto", choices=ENGINE_NAMES,
                   help="how the kernel is stored and swept; auto picks by size and memory")
    c.add_argument("--n-components", type=int, default=256, metavar="M",
                   help="engine low-rank: number of kernel features, 1 <= M <= number of rows")
    c.add_argument("--seed", type=int, default=0, help="random seed, in [0, 2**32 - 1]")
    c.add_argument("-o", "--out", "--output", dest="out", metavar="FILE",
                   help="write the labels (header 'label', one per data row, in file order) "
                        "to FILE; checked for writability before clustering (default: not "
                        "written)")
    c.add_argument("-v", "--verbose", action="count", default=0,
                   help="print the engine and why, the memory estimate, each restart and "
                        "sweep (repeat for more) (default: quiet)")
    c.set_defaults(func=_cluster)


def build_parser():
    """The argument parser of the ``kgroups`` command (subcommands cluster, demo, reproduce)."""
    parser = _Parser(prog="kgroups", description="Kernel k-groups clustering from energy "
                     "statistics\n(Franca, Rizzo & Vogelstein, IEEE TPAMI 2020).",
                     epilog="'kgroups COMMAND --help' describes each command.",
                     formatter_class=_Formatter)
    parser.add_argument("--version", action="version", version=f"kgroups {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND",
                                parser_class=_Parser)
    _cluster_parser(sub)
    d = sub.add_parser("demo", help="dermatology: kernel k-groups beside the baselines",
                       description="TPAMI Table II and Fig. 6 on the bundled dermatology data.",
                       formatter_class=_Formatter)
    d.add_argument("--out", default="kgroups_demo", metavar="DIR",
                   help="folder for the table and PNG (created; checked before running)")
    d.add_argument("--n-init", type=int, default=5, metavar="N",
                   help="starts per method, >= 1")
    d.add_argument("--seed", type=int, default=0, help="random seed, in [0, 2**32 - 1]")
    d.set_defaults(func=_demo)
    r = sub.add_parser("reproduce", help="regenerate a table or figure of the papers",
                       description="Regenerate a table or figure of the papers; "
                                   "'kgroups reproduce list' names them.",
                       formatter_class=_Formatter)
    r.add_argument("name", help="an experiment name (see 'list'), 'all', or 'list'")
    r.add_argument("--trials", type=int, default=None, metavar="N",
                   help="Monte Carlo trials, >= 1 (default: the paper's count)")
    r.add_argument("--quick", action="store_true",
                   help="reduced sizes, about a minute per item")
    r.add_argument("--out", default="reproduction", metavar="DIR",
                   help="folder for tables and PNGs (created; checked before running)")
    r.add_argument("--seed", type=int, default=0, help="random seed, in [0, 2**32 - 1]")
    r.set_defaults(func=_reproduce)
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
