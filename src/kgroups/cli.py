"""The ``kgroups`` command.

``kgroups cluster FILE [--n-clusters K]`` (short ``-k K``)
    Cluster the rows of a CSV file with kernel k-groups and print sizes, W, Q,
    sweeps and time (and accuracy, NMI, ARI when ``--label-column`` is given);
    ``--standardize`` z-scores each column first. Without ``--n-clusters`` (or with
    ``auto``) the number of clusters and the semimetric are chosen from the data,
    and the choice, with its reasoning, is printed to standard error. ``--noise
    auto|SHARE`` sets points aside (label -1 in the labels written, counted apart in
    the summary, left out of the metrics) and says on standard error how many and why.
``kgroups choose-k FILE``
    Choose the number of clusters of the rows of a CSV file with
    :func:`kgroups.choose_k` and say why (``--plot`` draws its curves).
``kgroups demo``
    The dermatology dataset as in the TPAMI paper (Table II, Fig. 6): kernel
    k-groups beside k-means, GMM, spectral clustering and kernel k-means.
``kgroups reproduce NAME|all|list``
    Regenerate a table or figure of the papers (see :mod:`kgroups.experiments`).
``kgroups calibrate``
    Measure this machine's pass rates (CPU, and GPU when a CUDA device is usable)
    for ``engine="auto"`` and cache them (:mod:`kgroups._engines.calibration`);
    ``--show`` prints the cached ones.
``kgroups datasets [NAME]``
    Write a bundled UCI table as CSV to standard output (without a name: list them).

Like a Unix tool: options are checked (values through the estimator's
constraint table, output paths for writability) before any work starts; a bad
option, file or value prints one line ``kgroups CMD: error: ...`` on stderr and
exits with status 2 (as argparse does); columns and lines are counted from 1 in
options and in messages. ``-`` as the input reads standard input and ``-o -``
writes the labels, and nothing else, to standard output (the summary, the notes and
the estimator's ``-v`` progress go to standard error); gzip-compressed input is
recognised by its first bytes; the field separator is found from the first lines
and the decimal mark from the data; ``--columns`` and ``--drop-columns`` choose the
feature columns. A misspelt option is answered with the nearest one (``--n_init``
-> ``--n-init``). Unexpected internal errors keep their traceback.

The parser is built (:mod:`kgroups._cli_parser`) from the tables of
``kgroups._cli_options``, whose
defaults and choices are the library's, and NumPy, SciPy, scikit-learn and numba
are imported only once a command runs, so ``--help`` and ``--version`` start at once.
``kgroups cluster`` fits with :class:`kgroups._fitting.CommandLineKGroups`,
:class:`KernelKGroups`' fit without scikit-learn's estimator machinery: with a given
number of clusters and semimetric it does not import scikit-learn at all. Choosing
them (``auto``) fits, predicts and compares scikit-learn estimators, so the command
then fits with :class:`KernelKGroups` itself, imported without pandas (scikit-learn
imports pandas when it is installed; the command never uses it).
"""

from __future__ import annotations

import os
import re
import sys
import time
from contextlib import contextmanager, redirect_stdout
from pathlib import Path

from . import __version__
from ._cli_csv import CSVError, Table, UsageError, load_table, read_csv, reproduced_note
from ._cli_options import (
    CHOOSE_K_DEFAULTS,
    CHOOSE_K_METHODS,
    CHOOSE_K_SEMIMETRICS,
    CLUSTER_OPTIONS,
    DELIMITERS,
    DEMO_DEFAULTS,
    ESTIMATOR_DEFAULTS,
    HEADER_CHOICES,
    OPTION_WORDS,
    REPRODUCE_DEFAULTS,
)
from ._cli_parser import (
    COLUMN_HELP,
    Formatter,
    Parser,
    add_estimator_option,
    add_table_options,
)
from ._progress import running

__all__ = ["CSVError", "Table", "UsageError", "build_parser", "console", "load_table", "main",
           "read_csv"]

_STARTED = time.perf_counter()  # the summary reports the time since the command started

EXIT_USAGE = 2  # bad option, file or value (argparse's status)


# --------------------------------------------------------------------------- options
def check_option(option, value, owner, param, words=None):
    """Check one option's value with the constraint of ``owner.param`` in the table.

    The error names the option (``--n-init``), the value and what the table expects of
    what a command line can write (``words``: the option's own words, where its parser
    reads less than the parameter takes: ``--seed`` an integer, not a Generator).
    """
    from ._validation import (
        PARAMETER_CONSTRAINTS,
        InvalidParameterError,
        describe,
        expected,
        validate_params,
    )

    try:
        validate_params(owner, {param: value})
    except InvalidParameterError:
        raise UsageError(f"argument {option}: {describe(value)} should be "
                         f"{words or expected(PARAMETER_CONSTRAINTS[owner][param])}") from None


def _check_trials(value):
    if value is not None and value < 1:
        raise UsageError(f"argument --trials: {value!r} should be an integer >= 1")


def _option_name(flags):
    return "/".join(flags)  # as argparse names an option in its messages: -k/--n-clusters


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


# --------------------------------------------------------------------------- commands
# kgroups choose-k's options of choose_k's parameters: (option, parameter)
CHOOSE_K_OPTIONS = (("--method", "method"), ("--semimetric", "semimetric"),
                    ("--n-refs", "n_refs"), ("--n-splits", "n_splits"), ("--n-init", "n_init"),
                    ("--alpha", "alpha"), ("--n-neighbors", "n_neighbors"),
                    ("--seed", "random_state"))
WEIGHTS_OPTION = ("--weights", "sample_weight")  # the data's, named in the library's errors


def _options_named_in(message, options=(*((o, p) for o, _, p in ESTIMATOR_OPTIONS),
                                        WEIGHTS_OPTION)):
    """The options (``(option, parameter)`` pairs; default: the cluster command's) whose
    parameter a library message names: as ``param=``, or, for a name no prose holds
    (``sample_weight``, ``n_clusters``), as a word of its own."""
    found = [option for option, param in options if f"{param}=" in message
             or "_" in param and re.search(rf"\b{param}\b", message)]
    return f" (set by {', '.join(found)})" if found else ""


def _fit_quietly(est, X, w, prog):
    """Fit; kgroups' input errors become one line, each distinct warning one line on stderr.

    What the estimator prints while it fits (``verbose``: the engine, each restart and
    sweep, the choice of k) goes to stderr too: standard output holds only the labels
    of ``-o -``, so that a pipe reads them alone.
    """
    import warnings

    with warnings.catch_warnings(record=True) as caught, redirect_stdout(sys.stderr):
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


@contextmanager
def _without_pandas():
    """Imports inside see pandas as not installed (unless it is loaded already):
    scikit-learn imports it when it can, and the command never uses it."""
    blocked = "pandas" not in sys.modules
    if blocked:
        sys.modules["pandas"] = None  # ``import pandas`` raises ImportError
    try:
        yield
    finally:
        if blocked and sys.modules.get("pandas", 0) is None:
            del sys.modules["pandas"]


def _cluster(args):
    import numpy as np

    _defaults(args)
    cls = _estimator_class(args)  # imports the engines, whose names the checks read
    for option, attr, param in ESTIMATOR_OPTIONS:
        check_option(option, getattr(args, attr), "KernelKGroups", param,
                     OPTION_WORDS.get(option))
    if args.out:
        check_output_file(args.out, "--out", args.file)
    notes = {}
    X, w, y = _load(args, notes)
    if args.engine == "dask" and w is not None and not np.all(w > 0):
        raise UsageError(f"argument --weights: {int(np.sum(w == 0))} row(s) of {args.file} "
                         "weigh 0, and --engine dask takes weights > 0 only: drop those rows, "
                         "or choose another engine (one that leaves a row of weight 0 out of "
                         "the fit and labels it as a new point)")
    auto = args.n_clusters == "auto"  # the spread's note waits for the choice of k
    _say_notes("kgroups cluster", {**notes, "spread": None} if auto else notes, args.standardize)
    if not auto and X.shape[0] < args.n_clusters:
        raise UsageError(f"argument -k/--n-clusters: {args.n_clusters} clusters but "
                         f"{args.file} has only {X.shape[0]} data rows")
    read = X  # the columns as read: the note on a column the clusters reproduce
    if args.standardize:
        from ._rescale import standardize

        X = standardize(X, w)
    est = cls(**{param: getattr(args, attr) for _, attr, param in ESTIMATOR_OPTIONS})
    start = time.perf_counter()
    _fit_quietly(est, X, w, "kgroups cluster")
    if hasattr(est.labels_, "compute"):  # --engine dask: labels held by Dask
        est.labels_ = np.asarray(est.labels_.compute())
    seconds = time.perf_counter() - start
    to_stdout = args.out == "-"
    if auto:
        _say_notes("kgroups cluster", {"spread": notes.get("spread")},
                   args.standardize or est.n_clusters_choice_.geometry.startswith("standardized"))
        _print_choice(args, est)
    _say_noise("kgroups cluster", est)
    _say_reproduced("kgroups cluster", read, est.labels_, notes)
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


def _load(args, notes):
    """``(X, weights, labels)`` of the file of ``args`` (:func:`load_table`); on a
    terminal, a line with its clock while a large file is read."""
    name = "standard input" if args.file == "-" else args.file
    with running(f"kgroups {args.command}: reading {name}"):
        return load_table(args.file, args.weights, args.label_column, args.delimiter,
                          args.header, notes=notes, columns=args.columns,
                          drop_columns=args.drop_columns, decimal=args.decimal)


def _say_noise(prog, est):
    """With ``--noise``: how many points were set aside (label -1) and why, on stderr."""
    if est.noise is None:
        return
    n = est.labels_.shape[0]
    print(f"{prog}: set aside {est.n_noise_} of {n} points (label -1); why: "
          f"{est.noise_reasoning_}", file=sys.stderr, flush=True)


def _say_reproduced(prog, X, labels, notes):
    """The note of :func:`reproduced_note` on stderr, when there is one."""
    note = reproduced_note(X, labels, notes)
    if note:
        print(f"{prog}: note: {note}", file=sys.stderr, flush=True)


def _say_notes(prog, notes, standardized):
    """The notes of :func:`load_table` on stderr, one line each (the spread's only when
    the columns are not standardized, by --standardize or by a choice of k that found
    its k on them standardized, after which the note is said)."""
    for kind in ("label", "spread"):
        if notes.get(kind) and not (kind == "spread" and standardized):
            print(f"{prog}: note: {notes[kind]}", file=sys.stderr, flush=True)


def _estimator_class(args):
    """The estimator of ``kgroups cluster``: :class:`KernelKGroups` itself when the number
    of clusters or the semimetric is chosen (the choices fit, predict and compare
    scikit-learn estimators), else its fit without scikit-learn's machinery
    (:class:`kgroups._fitting.CommandLineKGroups`, the same code and results)."""
    if "auto" in (args.n_clusters, args.semimetric):
        with _without_pandas():  # scikit-learn imports pandas when it can
            from ._kgroups import KernelKGroups
        return KernelKGroups
    from ._fitting import CommandLineKGroups

    return CommandLineKGroups


def _defaults(args):
    """``--n-clusters`` auto unless given, and ``--semimetric`` then auto unless given
    (energy, the library's default, with a given number of clusters)."""
    if args.n_clusters is None:
        args.n_clusters = "auto"
    if args.semimetric is None:
        args.semimetric = "auto" if args.n_clusters == "auto" else "energy"


def _print_choice(args, est):
    """``--n-clusters auto``: the choice in one line on standard error; with
    ``--verbose`` the estimator's progress has said that line (on standard error too,
    :func:`_fit_quietly`), and the whole reasoning follows it, a line per step."""
    r = est.n_clusters_choice_
    if not args.verbose:
        print(f"kgroups cluster: chose {r.summary()}", file=sys.stderr, flush=True)
    else:
        print("kgroups cluster: why:", r.explain("\n  "), sep="\n  ", file=sys.stderr, flush=True)


def _print_summary(args, est, X, y, seconds, file):
    import numpy as np

    labels = est.labels_
    kept = labels >= 0  # -1: a point set aside (--noise), in no cluster
    sizes = np.bincount(labels[kept], minlength=est.n_clusters_)
    aside = est.noise is not None
    scaled = ", columns z-scored (--standardize)" if args.standardize else ""
    geometry = getattr(getattr(est, "n_clusters_choice_", None), "geometry", "data")
    if geometry != "data":  # the choice found k in a rescaled geometry, and fitted there
        scaled += (f", fitted on X {geometry} (where the choice of k found structure; W and "
                   "Q in its units)" if geometry.startswith("standardized") else
                   f", fitted on the {geometry} of X sphered (where the choice of k found "
                   "structure; W and Q in its units)")
    chosen = (f" -> {est.semimetric_}" if args.semimetric == "auto" else "")
    given = args.n_clusters != "auto"
    k = est.n_clusters_ if given else f"auto -> {est.n_clusters_}"
    lines = [(f"kernel k-groups: n={X.shape[0]} D={X.shape[1]} n_clusters={k} "
              f"semimetric={args.semimetric}{chosen} engine={est.engine_}{scaled}"),
             *([f"semimetric auto: {est.semimetric_choice_.reasoning}"]
               if args.semimetric == "auto" and given else []),
             f"cluster sizes: {' '.join(map(str, sizes))}",
             *([f"set aside (label -1): {est.n_noise_} points, weight "
                f"{est.noise_weight_:.6g} (--noise {args.noise})"] if aside else []),
             f"W (within energy): {est.within_energy_:.6g}"
             + (" (of the points kept)" if aside else ""),
             f"Q (objective):     {est.objective_:.6g}",
             f"sweeps: {est.n_iter_}   moves per sweep: {est.n_moves_}",
             f"time: {seconds:.3f} s (the fit; {time.perf_counter() - _STARTED:.3f} s since "
             "the command started)"]
    if y is not None:
        from .metrics import accuracy, ari, nmi

        on = (f"   (on the {int(kept.sum())} points kept; -1 left out)"
              if aside and not kept.all() else "")
        # the metrics leave out the points labelled -1 (kgroups.metrics)
        lines.append(f"accuracy: {accuracy(y, labels):.4f}   NMI: {nmi(y, labels):.4f}   "
                     f"ARI: {ari(y, labels):.4f}{on}")
    print("\n".join(lines), file=file, flush=True)


def _choose_k(args):
    import numpy as np

    from . import choose_k
    from ._choose_k.core import default_top

    for option, param in CHOOSE_K_OPTIONS[2:]:  # the method and semimetric: argparse's choices
        check_option(option, getattr(args, param), "choose_k", param, OPTION_WORDS.get(option))
    if not 1 <= args.k_min <= (args.k_max or args.k_min):
        raise UsageError(f"arguments --k-min/--k-max: {args.k_min}..{args.k_max} should satisfy "
                         "1 <= k-min <= k-max")
    if args.plot:
        import importlib.util

        if importlib.util.find_spec("matplotlib") is None:
            raise UsageError("argument --plot: drawing needs matplotlib; install the plot "
                             "extra of kgroups, or leave --plot out")
        check_output_file(args.plot, "--plot", args.file)
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        kinds = FigureCanvasAgg.get_supported_filetypes()  # no extension: a PNG
        if (ext := os.path.splitext(args.plot)[1][1:].lower()) and ext not in kinds:
            raise UsageError(f"argument --plot: {args.plot}: .{ext} is not an image format "
                             f"matplotlib writes; use one of .{', .'.join(sorted(kinds))}")
    notes = {}
    X, w, y = _load(args, notes)
    _say_notes("kgroups choose-k", {**notes, "spread": None}, args.standardize)
    read = X
    if args.standardize:
        from ._rescale import standardize

        X = standardize(X, w)
    start, top = time.perf_counter(), args.k_max
    try:
        if top is None and args.k_min > 1:  # the default range's top, from --k-min
            top = max(args.k_min, default_top(X, w, args.method, args.semimetric))
        # without either bound, choose_k's own default range (1..15 cut to what X allows)
        r = choose_k(X, None if top is None else range(args.k_min, top + 1), method=args.method,
                     n_refs=args.n_refs, n_splits=args.n_splits, n_init=args.n_init,
                     semimetric=args.semimetric, alpha=args.alpha,
                     n_neighbors=args.n_neighbors, sample_weight=w,
                     random_state=args.random_state)
    except ValueError as err:  # InvalidParameterError: a k range the data cannot support
        text = str(err)
        span = "choose_k's default k range" if top is None else (
            f"--k-min/--k-max ({args.k_min}..{top})")
        raise UsageError(text.replace("k_range", span)
                         + _options_named_in(text, (*CHOOSE_K_OPTIONS, WEIGHTS_OPTION))) from None
    seconds = time.perf_counter() - start
    _say_notes("kgroups choose-k", {"spread": notes.get("spread")},
               args.standardize or r.geometry.startswith("standardized"))
    _say_reproduced("kgroups choose-k", read, r.labels, notes)
    print(f"k = {r.k}   (method {r.method}, k in {r.k_values[0]}..{r.k_values[-1]}, "
          f"n={X.shape[0]} D={X.shape[1]}, {seconds:.2f} s)")
    print("why:", r.explain("\n  "), sep="\n  ")
    if y is not None:
        from .metrics import ari

        print(f"ARI of its labels against --label-column: {ari(y, r.labels):.4f}")
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        np.atleast_1d(r.plot())[0].figure.savefig(args.plot, dpi=110)
        print(f"curves drawn in {args.plot}")


def _demo(args):
    from .experiments import registry

    check_option("--n-init", args.n_init, "KernelKGroups", "n_init", "an integer >= 1")
    check_option("--seed", args.seed, "KernelKGroups", "random_state", OPTION_WORDS["--seed"])
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
    check_option("--seed", args.seed, "KernelKGroups", "random_state", OPTION_WORDS["--seed"])
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


def _calibrate(args):
    from ._engines import calibration, registry

    path = calibration.default_path() if args.file is None else Path(args.file)
    if args.show:
        try:
            cal = calibration.load(path, strict=True)
        except ValueError as err:
            raise UsageError(f"argument --file: {err}") from None
        if cal is None:
            print(f"no calibration in {path}: run 'kgroups calibrate' to measure one "
                  "(engine='auto' measures it the first time it considers a GPU)")
            return 1
        for line in cal.describe():
            print(line)
        if cal.machine != calibration.this_machine():
            print("measured on another machine: engine='auto' ignores it here")
        print(f"file: {path}")
        return 0
    if path.is_dir():
        raise UsageError(f"argument --file: {path}: is a directory")
    print("measuring (a few seconds)...", flush=True)
    cal, why = calibration.measure_all(registry.engines().values())
    for line in cal.describe():
        print(line)
    if why is not None:
        print("why: " + why)
    try:
        calibration.save(cal, path)
    except OSError as err:
        raise UsageError(f"argument --file: cannot write {path}: {err.strerror}") from None
    print(f"written to {path}")
    return 0


def _datasets(args):
    from ._cli_datasets import table_csv, table_list

    sys.stdout.write(table_list() if args.name is None else table_csv(args.name))
    sys.stdout.flush()


# --------------------------------------------------------------------------- parser
CLUSTER_EPILOG = """\
The file: numbers separated by commas, semicolons, tabs or runs of spaces
(found from the first lines; --delimiter sets it), with a decimal point or a
decimal comma (--decimal), one row per point, UTF-8, plain or gzip-compressed,
with an optional header row. '-' reads standard input; -o - writes the labels
to standard output and everything else (summary, notes, -v progress) to
standard error. Columns are counted from 1, in options and in error messages;
lines too. 'kgroups datasets' writes the bundled tables as CSV.

examples:
  kgroups cluster data.csv -k 3
  kgroups datasets wine > wine.csv
  kgroups cluster wine.csv --n-clusters 3 --standardize --label-column class
  kgroups cluster data.csv.gz -k 3 --alpha 0.5 --label-column class --weights w -o labels.csv
  kgroups cluster people.csv -k 4 --drop-columns id,name
  kgroups cluster mesures.csv -k 3 --columns 2-5 --decimal comma
  kgroups cluster data.tsv.gz -k 3 -v -o - 2>/dev/null | tail -n +2 | sort -n | uniq -c
"""


def _cluster_parser(sub):
    c = sub.add_parser("cluster", help="cluster the rows of a CSV file", epilog=CLUSTER_EPILOG,
                       description="Cluster the rows of a CSV file with kernel k-groups.\n"
                                   "The kernel k-groups options are the parameters of "
                                   "kgroups.KernelKGroups;\neach states its default here. "
                                   "Two defaults differ from the library's:\n"
                                   "-k/--n-clusters is auto (KernelKGroups: n_clusters="
                                   f"{ESTIMATOR_DEFAULTS['n_clusters']}),\nand --semimetric "
                                   "is then auto too (KernelKGroups: semimetric="
                                   f"{ESTIMATOR_DEFAULTS['semimetric']!r}).",
                       formatter_class=Formatter)
    c.add_argument("file", nargs="?", help="CSV file of numbers, one row per point, plain "
                                           "or gzip; '-': standard input (default: standard "
                                           "input where rows are piped in)")
    io = c.add_argument_group("input and output")
    io.add_argument("--weights", metavar="COLUMN",
                    help=f"column of sample weights (finite, >= 0; a row of weight 0 is left "
                         f"out of the fit and labelled as a new point) {COLUMN_HELP} "
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
    add_table_options(io)
    io.add_argument("--standardize", action="store_true",
                    help="z-score each feature column (subtract its mean, divide by its "
                         "standard deviation, weighted by --weights) before clustering, so "
                         "that columns in different units weigh alike; the summary says so "
                         "(default: the values as they are)")
    io.add_argument("-o", "--out", "--output", dest="out", metavar="FILE",
                    help="write the labels (header 'label', one per data row, in file order) "
                         "to FILE ('-': standard output); checked for writability before "
                         "clustering (default: not written)")
    est = c.add_argument_group("kernel k-groups (kgroups.KernelKGroups)")
    for option in CLUSTER_OPTIONS:
        add_estimator_option(est, *option)
    c.set_defaults(func=_cluster)


CHOOSE_K_DESCRIPTION = """\
Choose the number of clusters k of the rows of a CSV file with kgroups.choose_k,
and print the reasoning. The options are its parameters, and each states its
default here; k runs from --k-min to --k-max (choose_k's k_range)."""


def _choose_k_parser(sub):
    d = CHOOSE_K_DEFAULTS
    c = sub.add_parser("choose-k", help="choose the number of clusters of a CSV file",
                       description=CHOOSE_K_DESCRIPTION,
                       formatter_class=Formatter)
    c.add_argument("file", nargs="?", help="CSV file of numbers, one row per point, plain "
                                           "or gzip; '-': standard input (default: standard "
                                           "input where rows are piped in)")
    c.add_argument("--weights", metavar="COLUMN",
                   help=f"column of sample weights (finite, >= 0; a row of weight 0 is left "
                        f"out of the choice and labelled as a new point) {COLUMN_HELP} "
                        "(default: every row weighs 1)")
    c.add_argument("--label-column", metavar="COLUMN",
                   help=f"column of true class labels, left out of the features; the ARI of "
                        f"the chosen k's labels is printed {COLUMN_HELP} (default: none)")
    c.add_argument("--delimiter", default="auto", choices=tuple(DELIMITERS),
                   help="field separator (see 'kgroups cluster --help')")
    c.add_argument("--header", default="auto", choices=HEADER_CHOICES,
                   help="whether the first row names the columns")
    add_table_options(c)
    c.add_argument("--standardize", action="store_true",
                   help="z-score each feature column (weighted mean 0, standard deviation "
                        "1) before choosing, as kgroups cluster --standardize does")
    c.add_argument("--method", default=d["method"], choices=CHOOSE_K_METHODS,
                   help="auto: the rule of the semimetric. Point data (the energy rule): "
                        "structure when X is multimodal (dip tests, cross-fitted) or k = "
                        "2..5 beat uniform reference samples by 3.5 standard errors; the "
                        "smallest k within half a standard error of the largest silhouette, "
                        "the curve followed to twice its best k (at least 10); then one more "
                        "cluster while a cluster is multimodal (dip test), keeping 0.7 "
                        "of the silhouette; when X shows none, the same on its multimodal "
                        "sphered axes, then X standardized; else k = 1. "
                        "nearest_neighbors: the k >= 2 after which the "
                        "neighbourhood graph's Laplacian eigenvalues rise most, as a ratio. "
                        "auto (--semimetric auto): both, judged by the normalised cut of "
                        "the neighbourhood graph. The others: the gap statistic, prediction "
                        "strength, the silhouette, the eigengap of the energy kernel")
    c.add_argument("--k-min", type=int, default=d["k_min"], metavar="K",
                   help="smallest k compared (1 lets the answer be 'no structure'; 2 for "
                        "data known to hold clusters: the same rule, never answering 1)")
    c.add_argument("--k-max", type=int, default=d["k_max"], metavar="K",
                   help="largest k compared (default: 15, or fewer where the data allow "
                        "fewer)")
    c.add_argument("--n-refs", type=int, default=d["n_refs"], metavar="B",
                   help="reference samples of the gap statistic, >= 1")
    c.add_argument("--n-splits", type=int, default=d["n_splits"], metavar="N",
                   help="random halvings of prediction strength (methods with 'ps')")
    c.add_argument("--n-init", type=int, default=d["n_init"], metavar="N",
                   help="restarts of each kernel k-groups fit of the data, >= 1")
    c.add_argument("--semimetric", default=d["semimetric"], choices=CHOOSE_K_SEMIMETRICS,
                   help="semimetric of the fits (nearest_neighbors: clusters of any shape, "
                        "with the graph's own rule; auto: energy or the graph, chosen)")
    c.add_argument("--n-neighbors", type=int, default=d["n_neighbors"], metavar="N",
                   help="semimetric nearest_neighbors: neighbours of each point, >= 1")
    c.add_argument("--alpha", type=float, default=d["alpha"],
                   help="exponent of the energy semimetric, in (0, 2]")
    c.add_argument("--seed", dest="random_state", type=int, default=None, metavar="SEED",
                   help="random seed, in [0, 2**32 - 1] (default: None; give one to repeat "
                        "a run)")
    c.add_argument("--plot", metavar="FILE.png",
                   help="draw the curves that decided k, with the reasoning, into a PNG "
                        "(needs matplotlib)")
    c.set_defaults(func=_choose_k)


def _demo_parser(sub):
    d = sub.add_parser("demo", help="dermatology: kernel k-groups beside the baselines",
                       description="TPAMI Table II and Fig. 6 on the bundled dermatology data.",
                       formatter_class=Formatter)
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
                       formatter_class=Formatter)
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


def _calibrate_parser(sub):
    c = sub.add_parser("calibrate", help="measure the CPU and GPU rates engine=auto compares",
                       description="Measure the pairs per second of a pass over the pairs "
                                   "on this machine's cores (engine matrix-free) and, when a "
                                   "CUDA device is usable, on the device (engine gpu, with "
                                   "the fixed cost of a fit), and cache them: engine=auto "
                                   "takes the GPU where its cost model predicts it faster.",
                       formatter_class=Formatter)
    c.add_argument("--show", action="store_true",
                   help="print the cached calibration instead of measuring")
    c.add_argument("--file", metavar="PATH",
                   help="the calibration file (default: $KGROUPS_CALIBRATION, else "
                        "kgroups/calibration.json under $XDG_CACHE_HOME or ~/.cache)")
    c.set_defaults(func=_calibrate)


def _datasets_parser(sub):
    from ._cli_datasets import TABLES  # names only: the tables are read when written

    d = sub.add_parser("datasets", help="write a bundled table as CSV to standard output",
                       description="Write a bundled UCI table (kgroups.datasets) as CSV to "
                                   "standard output:\na header x1,...,xD,class, then one row "
                                   "per sample, the raw values and the class\nas 0..k-1. "
                                   "Without a name, list the tables.",
                       epilog="example:\n  kgroups datasets wine > wine.csv\n"
                              "  kgroups cluster wine.csv -k 3 --label-column class "
                              "--standardize",
                       formatter_class=Formatter)
    d.add_argument("name", nargs="?", choices=tuple(TABLES), metavar="NAME",
                   help=f"the table: {', '.join(TABLES)} (default: list them)")
    d.set_defaults(func=_datasets)


def build_parser():
    """The argument parser of the ``kgroups`` command (subcommands cluster, choose-k, demo,
    reproduce, calibrate, datasets)."""
    parser = Parser(prog="kgroups", description="Kernel k-groups clustering from energy "
                     "statistics\n(Franca, Rizzo & Vogelstein, IEEE TPAMI 2021).",
                     epilog="'kgroups COMMAND --help' describes each command.",
                     formatter_class=Formatter)
    parser.add_argument("--version", action="version", version=f"kgroups {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND",
                                parser_class=Parser)
    _cluster_parser(sub)
    _choose_k_parser(sub)
    _demo_parser(sub)
    _reproduce_parser(sub)
    _calibrate_parser(sub)
    _datasets_parser(sub)
    parser.commands = dict(sub.choices)
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
    if getattr(args, "file", "") is None and args.command in ("cluster", "choose-k"):
        if sys.stdin is None or sys.stdin.isatty():  # nothing piped in: a file is needed
            print(f"{prog}: error: the following arguments are required: file (or pipe the "
                  f"CSV into standard input; see '{prog} --help')", file=sys.stderr)
            return EXIT_USAGE
        args.file = "-"  # a file's contents piped in, as cat or sort read them
    try:
        code = args.func(args)
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
    return code or 0


def console():
    """The ``kgroups`` console script: :func:`main`, then exit at once.

    The output is flushed and every file the command wrote is closed by then; the
    interpreter's teardown (unloading NumPy, SciPy, scikit-learn and numba: about
    a quarter of a second, more on a busy machine) is skipped.
    """
    code = main()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (BrokenPipeError, ValueError):
        code = code or 141
    os._exit(code)


if __name__ == "__main__":  # pragma: no cover
    console()
