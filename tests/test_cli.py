"""The ``kgroups`` command line, run in-process through ``kgroups.cli.main``.

Hostile inputs (bad options, files and values) are in ``tests/hostile/test_cli.py``.
"""

import argparse
import io
import os
import sys
import types
import warnings

import numpy as np
import pytest

import kgroups
import kgroups.experiments
from kgroups._fitting import CommandLineKGroups
from kgroups.cli import _fit_quietly, build_parser, load_table, main, prepare_output_dir
from kgroups.datasets import DATA_DIR


@pytest.fixture
def blobs_csv(tmp_path):
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1, 2], 30)
    X = np.array([[0, 0], [9, 0], [0, 9]])[y] + rng.normal(size=(90, 2))
    path = tmp_path / "blobs.csv"
    with open(path, "w") as fh:
        fh.write("x,y,weight,class\n")
        for (a, b), c in zip(X, y):
            fh.write(f"{a},{b},1.5,c{c}\n")
    return path


def _sizes(text):
    line = next(l for l in text.splitlines() if l.startswith("cluster sizes: "))
    return [int(s) for s in line.split(":")[1].split()]


def test_cluster_prints_summary_and_writes_labels(blobs_csv, tmp_path, capsys):
    out = tmp_path / "labels.csv"
    rc = main(["cluster", str(blobs_csv), "-k", "3", "--weights", "weight",
               "--label-column", "class", "--alpha", "0.5", "-o", str(out)])
    text = capsys.readouterr().out
    assert rc == 0
    assert "W (within energy)" in text and "sweeps" in text
    assert "accuracy: 1.0000" in text
    assert sorted(_sizes(text)) == [30, 30, 30]
    labels = np.loadtxt(out, skiprows=1, dtype=int)
    assert labels.shape == (90,) and sorted(np.bincount(labels).tolist()) == [30, 30, 30]


def test_output_option_has_three_spellings(blobs_csv, tmp_path, capsys):
    for i, flag in enumerate(("-o", "--out", "--output")):
        out = tmp_path / f"l{i}.csv"
        assert main(["cluster", str(blobs_csv), "-k", "3", "--label-column", "4",
                     flag, str(out)]) == 0
        assert out.read_text().splitlines()[0] == "label"
    capsys.readouterr()


def test_columns_are_counted_from_one_and_minus_one_is_the_last(tmp_path):
    path = tmp_path / "plain.csv"
    path.write_text("1,2,0\n3,4,1\n5,6,1\n")
    for spec in ("3", "-1"):
        X, w, y = load_table(str(path), label_column=spec)
        assert X.tolist() == [[1, 2], [3, 4], [5, 6]] and w is None and y.tolist() == [0, 1, 1]
    X, w, y = load_table(str(path), weights="1")
    assert w.tolist() == [1, 3, 5] and X.tolist() == [[2, 0], [4, 1], [6, 1]]


def test_error_messages_count_columns_and_lines_from_one(tmp_path, capsys):
    path = tmp_path / "bad.csv"
    path.write_text("a,b,c\n1,2,3\n\n4,oops,6\n")  # the blank line still counts
    assert main(["cluster", str(path), "-k", "1"]) == 2
    err = capsys.readouterr().err
    assert "line 4, column 2 ('b'): 'oops' is not a number" in err
    assert "--label-column 2" in err  # the hint uses the same base


def test_iris_first_row_is_data_not_a_header(capsys):
    # iris.data has no header: 150 rows, the 5th column is the species.
    path = os.path.join(DATA_DIR, "iris.data")
    X, _, y = load_table(path, label_column="5")
    assert X.shape == (150, 4) and np.bincount(y).tolist() == [50, 50, 50]


def test_seeds_whitespace_runs_are_one_separator():
    # seeds_dataset.txt: 210 rows of 7 features and a class, tab-separated with some
    # doubled tabs.
    X, _, y = load_table(os.path.join(DATA_DIR, "seeds_dataset.txt"), label_column="-1")
    assert X.shape == (210, 7) and np.bincount(y).tolist() == [70, 70, 70]


@pytest.mark.parametrize("text, delimiter, header, shape", [
    ("1;2\n3;4\n", "auto", "auto", (2, 2)),
    ("1;2\n3;4\n", "semicolon", "no", (2, 2)),
    ("1 2\n3\t 4\n", "whitespace", "auto", (2, 2)),
    ("1\t2\n3\t4\n", "tab", "auto", (2, 2)),
    ("10,20\n1,2\n3,4\n", "comma", "yes", (2, 2)),  # numeric header only when asked
    ("10,20\n1,2\n3,4\n", "auto", "auto", (3, 2)),
    ('"x","y"\n"1","2"\n3,4\n', "auto", "auto", (2, 2)),
    ("\ufeffx,y\n1,2\n3,4\n", "auto", "auto", (2, 2)),  # a UTF-8 byte-order mark
    ("x,y\r\n1,2\r\n3,4\r\n", "auto", "auto", (2, 2)),
    ("x,y\r1,2\r3,4\r", "auto", "auto", (2, 2)),   # old Mac line ends
    ("1 2\r3 4\r\n5 6", "whitespace", "no", (3, 2)),
    ('x,"y\nz"\n1,2\n3,4\n', "auto", "auto", (2, 2)),   # a quoted name over two lines
])
def test_delimiters_and_headers(tmp_path, text, delimiter, header, shape):
    path = tmp_path / "t.csv"
    path.write_bytes(text.encode("utf-8"))
    X, _, _ = load_table(str(path), delimiter=delimiter, header=header)
    assert X.shape == shape


def test_standard_input(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"0\n0.1\n5\n5.2\n")))
    assert main(["cluster", "-", "-k", "2"]) == 0
    assert sorted(_sizes(capsys.readouterr().out)) == [2, 2]


def test_standard_input_is_read_in_blocks_each_checked_to_fit(monkeypatch, capsys):
    """Standard input's size is not known ahead: it is read a block at a time, the
    blocks joined as they came, and input that outgrows the memory is refused on the
    way, in one line naming it, before all of it is held."""
    import kgroups._cli_csv as csv
    import kgroups._memory as memory

    text = b"".join(b"%d,%d\n" % (i % 7, i % 3) for i in range(300))
    monkeypatch.setattr(csv, "STDIN_BLOCK", 64)
    stream = io.BytesIO(text)
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(stream))
    assert csv._read_stdin() == text
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(text)))
    assert main(["cluster", "-", "-k", "2", "--seed", "0"]) == 0
    assert sum(_sizes(capsys.readouterr().out)) == 300
    monkeypatch.setattr(memory, "available_memory", lambda: 4096)
    read = io.BytesIO(text)
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(read))
    assert main(["cluster", "-", "-k", "2"]) == 2
    err = capsys.readouterr().err
    assert "reading <stdin>" in err and "GiB" in err and err.count("\n") == 1
    assert read.tell() < len(text)                       # refused before the end


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_rows_are_read_chunk_by_chunk_with_their_lines(tmp_path, monkeypatch):
    """The cells become numbers CHUNK_ROWS rows at a time, the rows split again from the
    text at each pass: the same numbers and labels as one pass, blank lines skipped,
    and an error past the first chunks names its own line."""
    monkeypatch.setattr("kgroups._cli_csv.CHUNK_ROWS", 3)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(11, 3)).round(6)
    text = "a,b,c,class\n" + "".join(
        f"{x[0]},{x[1]},{x[2]},c{i % 2}\n" + ("\n" if i == 4 else "") for i, x in enumerate(X))
    path = tmp_path / "t.csv"
    path.write_text(text)
    got, _, y = load_table(str(path), label_column="class")
    np.testing.assert_array_equal(got, X)
    np.testing.assert_array_equal(y, np.arange(11) % 2)
    path.write_text(text.replace(f"{X[9, 1]},", "oops,"))
    with pytest.raises(kgroups.cli.CSVError, match=r"line 12, column 2 \('b'\): 'oops'"):
        load_table(str(path), label_column="class")   # row 10 after the header and a blank


@pytest.mark.parametrize("command", ["cluster", "choose-k"])
def test_reading_the_file_has_a_line_on_a_terminal(command, blobs_csv, monkeypatch, capsys):
    """A large file takes seconds to read: on a terminal a line says which one, with its
    clock (from the bars' delay on); off a terminal, nothing."""
    monkeypatch.setattr("kgroups._progress.BAR_DELAY", 0.0)
    monkeypatch.setattr("sys.stderr", _Terminal())
    k = ["-k", "3"] if command == "cluster" else ["--k-max", "4"]
    assert main([command, str(blobs_csv), *k, "--label-column", "class"]) == 0
    assert f"kgroups {command}: reading {blobs_csv} [" in sys.stderr.getvalue()
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(blobs_csv.read_bytes())))
    monkeypatch.setattr("sys.stderr", _Terminal())
    assert main([command, "-", *k, "--label-column", "class"]) == 0
    assert f"kgroups {command}: reading standard input [" in sys.stderr.getvalue()
    monkeypatch.setattr("sys.stderr", io.StringIO())
    assert main([command, str(blobs_csv), *k, "--label-column", "class"]) == 0
    assert "reading" not in sys.stderr.getvalue()


@pytest.mark.parametrize("command", ["cluster", "choose-k"])
def test_no_file_reads_a_pipe_and_asks_for_one_at_a_terminal(command, monkeypatch, capsys):
    # as cat and sort do: with no file named, a pipe is read; at a terminal nothing is
    # piped, and the error says a file is needed rather than waiting for typed rows
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"0\n0.1\n5\n5.2\n")))
    assert main([command, "-k" if command == "cluster" else "--k-max", "2"]) == 0
    out = capsys.readouterr().out
    assert (sorted(_sizes(out)) == [2, 2]) if command == "cluster" else out.startswith("k = 2")
    monkeypatch.setattr("sys.stdin", _Terminal())
    assert main([command]) == 2
    assert capsys.readouterr().err == (
        f"kgroups {command}: error: the following arguments are required: file (or pipe "
        f"the CSV into standard input; see 'kgroups {command} --help')\n")


def test_version(capsys):
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"kgroups {kgroups.__version__}"


def _subparsers():
    parser = build_parser()
    action = next(a for a in parser._actions if a.dest == "command")
    return action.choices


@pytest.mark.parametrize("command", ["cluster", "demo", "reproduce", "datasets"])
def test_every_option_has_help_with_default_and_choices(command, capsys):
    assert main([command, "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    parser = _subparsers()[command]
    for action in parser._actions:
        if action.dest == "help":
            continue
        shown = parser._get_formatter()._expand_help(action)
        assert " ".join(shown.split()) in text, action.dest
        if action.option_strings and not action.required:
            assert "(default: " in shown, action.dest
        for choice in action.choices or ():
            assert choice in text, (action.dest, choice)
    if command == "cluster":
        assert "counted from 1" in text


def test_out_is_checked_before_computing(blobs_csv, tmp_path, monkeypatch, capsys):
    def fit(*args, **kwargs):
        raise AssertionError("fit started before --out was checked")

    monkeypatch.setattr(kgroups.KernelKGroups, "fit", fit)
    missing = tmp_path / "no" / "such" / "dir" / "labels.csv"
    assert main(["cluster", str(blobs_csv), "-k", "3", "-o", str(missing)]) == 2
    err = capsys.readouterr().err
    assert "argument --out" in err and str(missing) in err and "Traceback" not in err
    assert not missing.parent.exists()


def test_a_failed_run_leaves_an_existing_output_file_alone(tmp_path, capsys):
    out = tmp_path / "labels.csv"
    out.write_text("precious\n")
    bad = tmp_path / "bad.csv"
    bad.write_text("1,2\n3\n")
    assert main(["cluster", str(bad), "-k", "1", "-o", str(out)]) == 2
    assert out.read_text() == "precious\n"
    fresh = tmp_path / "fresh.csv"
    assert main(["cluster", str(bad), "-k", "1", "-o", str(fresh)]) == 2
    assert not fresh.exists()  # the probe leaves nothing behind
    capsys.readouterr()


def test_demo_and_reproduce_check_out_before_running(tmp_path, monkeypatch, capsys):
    def boom():
        raise AssertionError("an experiment started before --out was checked")

    blocker = tmp_path / "a_file"
    blocker.write_text("")
    assert main(["demo", "--out", str(blocker)]) == 2
    assert "argument --out" in capsys.readouterr().err
    monkeypatch.setattr(kgroups.experiments, "registry",
                        lambda: {"x": types.SimpleNamespace(TITLE="t", run=boom)})
    assert main(["reproduce", "x", "--out", str(blocker / "sub")]) == 2
    err = capsys.readouterr().err
    assert "argument --out" in err and "Traceback" not in err


def test_prepare_output_dir_creates_parents(tmp_path):
    target = tmp_path / "a" / "b" / "c"
    prepare_output_dir(str(target))
    assert target.is_dir() and list(target.iterdir()) == []


def test_reproduce_all_prints_a_line_per_experiment_start_and_end(tmp_path, monkeypatch,
                                                                  capsys):
    calls = []

    def fake(name):
        def run(out, trials=None, quick=False, seed=0):
            calls.append((name, out, trials, quick, seed))
            return f"| table of {name} |"
        return types.SimpleNamespace(TITLE=f"title {name}", run=run)

    monkeypatch.setattr(kgroups.experiments, "registry",
                        lambda: {"alpha": fake("alpha"), "beta": fake("beta")})
    assert main(["reproduce", "all", "--quick", "--trials", "3", "--seed", "7",
                 "--out", str(tmp_path / "r")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [c[0] for c in calls] == ["alpha", "beta"]
    assert calls[0][1:] == (str(tmp_path / "r"), 3, True, 7)
    starts = [l for l in lines if l.startswith("== ") and "started" in l]
    ends = [l for l in lines if l.startswith("== ") and "done in" in l]
    assert starts == ["== alpha: title alpha  [1/2 started]", "== beta: title beta  [2/2 started]"]
    assert len(ends) == 2 and ends[1].startswith("== beta: done in ") and " s " in ends[1]
    assert lines.index(starts[0]) < lines.index("| table of alpha |") < lines.index(ends[0])


def test_reproduce_list(capsys):
    assert main(["reproduce", "list"]) == 0
    names = [line.split()[0] for line in capsys.readouterr().out.splitlines()]
    assert "tpami-table2" in names and names == sorted(names)


def test_verbose_is_passed_to_the_estimator(blobs_csv, monkeypatch, capsys):
    seen = []

    fit = CommandLineKGroups.fit  # the command's estimator: KernelKGroups' fit

    def spy(self, X, y=None, sample_weight=None):
        seen.append(self.verbose)
        return fit(self, X, y, sample_weight)

    monkeypatch.setattr(CommandLineKGroups, "fit", spy)
    for flags, level in (([], 0), (["-v"], 1), (["--verbose", "-v"], 2)):
        assert main(["cluster", str(blobs_csv), "-k", "3", "--label-column", "class",
                     "--n-init", "1", *flags]) == 0
        assert seen[-1] == level
    capsys.readouterr()


def test_warnings_are_one_line_each(blobs_csv, capsys):
    assert main(["cluster", str(blobs_csv), "-k", "3", "--label-column", "class",
                 "--init", "random", "--max-iter", "1", "--n-init", "1"]) == 0
    err = capsys.readouterr().err
    assert err.startswith("kgroups cluster: warning: ") and "max_iter=1" in err
    assert err.count("\n") == 1


def test_identical_rows_give_k_non_empty_clusters(tmp_path, capsys):
    # issue 10: a file of 20 identical rows printed "20 0 0". Any partition into
    # 3 non-empty groups is optimal for identical points.
    path = tmp_path / "same.csv"
    path.write_text("1.5,2\n" * 20)
    assert main(["cluster", str(path), "-k", "3"]) == 0
    sizes = _sizes(capsys.readouterr().out)
    assert len(sizes) == 3 and sum(sizes) == 20 and min(sizes) >= 1


def test_estimator_input_errors_are_one_line(blobs_csv, monkeypatch, capsys):
    def fit(self, X, y=None, sample_weight=None):
        raise kgroups._validation.InvalidParameterError("KernelKGroups: something=1 is bad")

    monkeypatch.setattr(CommandLineKGroups, "fit", fit)
    assert main(["cluster", str(blobs_csv), "-k", "3", "--label-column", "class"]) == 2
    assert capsys.readouterr().err == \
        "kgroups cluster: error: KernelKGroups: something=1 is bad\n"


def test_repeated_warnings_are_counted_not_repeated(capsys):
    class Noisy:
        def fit(self, X, sample_weight=None):
            for _ in range(3):
                warnings.warn("overflow encountered in matmul", RuntimeWarning)
            warnings.warn("something else", UserWarning)

    _fit_quietly(Noisy(), None, None, "kgroups cluster")
    assert capsys.readouterr().err.splitlines() == [
        "kgroups cluster: warning: overflow encountered in matmul (3 times)",
        "kgroups cluster: warning: something else"]


def test_estimator_errors_name_the_options_of_the_parameters(blobs_csv, monkeypatch, capsys):
    def fit(self, X, y=None, sample_weight=None):
        raise ValueError("KernelKGroups: n_components=9 should be <= 5 for engine='low-rank'")

    monkeypatch.setattr(CommandLineKGroups, "fit", fit)
    assert main(["cluster", str(blobs_csv), "-k", "3", "--label-column", "class"]) == 2
    assert capsys.readouterr().err.splitlines() == [
        "kgroups cluster: error: KernelKGroups: n_components=9 should be <= 5 for "
        "engine='low-rank' (set by --engine, --n-components)"]


def test_unexpected_internal_errors_keep_their_traceback(blobs_csv, monkeypatch):
    def fit(self, X, y=None, sample_weight=None):
        raise RuntimeError("a bug")

    monkeypatch.setattr(CommandLineKGroups, "fit", fit)
    with pytest.raises(RuntimeError, match="a bug"):
        main(["cluster", str(blobs_csv), "-k", "3", "--label-column", "class"])


def test_demo_writes_table_and_heatmap(tmp_path, capsys):
    out = tmp_path / "new" / "demo"  # created by the command
    assert main(["demo", "--out", str(out), "--n-init", "5"]) == 0
    text = capsys.readouterr().out
    assert (out / "fig6_dermatology_heatmap.png").stat().st_size > 10_000
    row = next(line for line in text.splitlines() if line.startswith("| kernel k-groups"))
    accuracy = float(row.split("|")[2])
    assert accuracy >= 0.95  # paper: 0.962


# --------------------------------------------------------------------------- the option table
def _cluster_actions():
    return {a.dest: a for a in _subparsers()["cluster"]._actions}


def test_every_cluster_default_and_choice_is_the_library_one():
    import inspect

    from kgroups._validation import PARAMETER_CONSTRAINTS, EngineNames, Options
    from kgroups.cli import ESTIMATOR_OPTIONS

    signature = inspect.signature(kgroups.KernelKGroups).parameters
    constraints = PARAMETER_CONSTRAINTS["KernelKGroups"]
    actions = _cluster_actions()
    for option, attr, param in ESTIMATOR_OPTIONS:
        action = actions[attr]
        assert option.split("/") == action.option_strings
        if param in ("n_clusters", "semimetric"):  # their defaults follow each other
            assert action.default is None and not action.required, option
            continue
        default = signature[param].default
        assert action.default == default and type(action.default) is type(default), option
        allowed = [v for rule in constraints[param] if isinstance(rule, (Options, EngineNames))
                   for v in rule.values]
        if action.choices is None:  # free values, and the strings the option's type reads
            assert allowed in ([], ["auto"]), (option, allowed)
            assert [action.type(v) for v in allowed] == allowed, option
        else:
            assert list(action.choices) == [v for v in allowed if v != "precomputed"], option
    # every parameter is an option, but the precomputed-kernel switch (a CSV holds data)
    assert set(signature) - {param for _, _, param in ESTIMATOR_OPTIONS} == {"kernel"}


def test_the_light_table_equals_the_library_constants():
    import kgroups._engines.select as select
    import kgroups._memory as memory
    from kgroups._engines import registry
    from kgroups._engines.gpu import GpuEngine
    from kgroups._engines.matrix_free import MatrixFreeEngine
    import kgroups._init as init
    import kgroups._validation as validation
    from kgroups import _cli_options as table

    import inspect

    signature = inspect.signature(kgroups.KernelKGroups).parameters
    assert table.ESTIMATOR_DEFAULTS == {p: signature[p].default for p in signature
                                        if p != "kernel"}
    assert table.SEMIMETRIC_NAMES == validation.SEMIMETRIC_NAMES
    assert table.INIT_NAMES == validation.INIT_NAMES
    assert table.ENGINE_NAMES == (registry.AUTO,) + registry.names()
    assert table.MATRIX_FREE_MIN_N == MatrixFreeEngine.MIN_N_MODELLED
    assert table.GPU_MIN_N == GpuEngine.MIN_N
    assert table.DENSE_HEADROOM == select.HEADROOM
    assert table.MEMORY_FRACTION == memory.MEMORY_FRACTION
    assert (table.AUTO_MAX_STARTS, table.AUTO_START_BUDGET) == \
        (init.AUTO_MAX_STARTS, init.AUTO_START_BUDGET)


def test_demo_and_reproduce_defaults_are_those_of_the_experiments():
    import inspect

    from kgroups._cli_options import DEMO_DEFAULTS, REPRODUCE_DEFAULTS

    experiments = kgroups.experiments.registry()
    demo = inspect.signature(experiments["tpami-table2"].run).parameters
    assert {p: demo[p].default for p in ("n_init", "seed")} == \
        {p: DEMO_DEFAULTS[p] for p in ("n_init", "seed")}
    for name, module in experiments.items():
        run = inspect.signature(module.run).parameters
        for p in ("trials", "quick", "seed"):
            assert run[p].default == REPRODUCE_DEFAULTS[p], (name, p)
    parsers = _subparsers()
    for command, table in (("demo", DEMO_DEFAULTS), ("reproduce", REPRODUCE_DEFAULTS)):
        actions = {a.dest: a for a in parsers[command]._actions}
        assert {p: actions[p].default for p in table} == table


def test_help_states_the_library_defaults_and_what_engine_auto_does(capsys):
    assert main(["cluster", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    for fragment in ("(default: auto; kgroups.KernelKGroups' default is 8)",
                     "(default: kernel-k-means++)", "(default: None",
                     "(default: energy, as in kgroups.KernelKGroups; auto with --n-clusters "
                     "auto)", "(default: 256)", "dense below 5000 rows",
                     "cost model", "laplacian and gaussian semimetrics"):
        assert fragment in text, fragment
    sigma = " ".join(_cluster_actions()["sigma"].help.split())
    assert "localized" not in sigma  # the localized semimetric has no scale


@pytest.mark.parametrize("argv", [["--help"], ["--version"], ["cluster", "--help"],
                                  ["demo", "--help"], ["reproduce", "--help"],
                                  ["datasets", "--help"]])
def test_help_and_version_import_no_scientific_package(argv):
    import subprocess
    import sys

    code = (f"import sys; from kgroups.cli import main; rc = main({argv!r}); "
            "print([m for m in ('numpy', 'scipy', 'sklearn', 'numba', 'networkx', 'pandas') "
            "if m in sys.modules], rc, file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.stderr.strip().splitlines()[-1] == "[] 0", done.stderr
    assert done.stdout.startswith("usage: kgroups") or done.stdout.startswith("kgroups ")


def test_cluster_with_a_given_k_imports_no_scikit_learn(tmp_path):
    """``kgroups cluster -k`` fits with KernelKGroups' fit alone
    (kgroups._fitting.CommandLineKGroups): scikit-learn and pandas stay unloaded, and so
    do scipy.sparse (dense rows are known not to be sparse without it) and tqdm (off a
    terminal no bar is drawn)."""
    import subprocess
    import sys

    rng = np.random.default_rng(0)
    X = np.array([[0, 0], [9, 0], [0, 9]])[np.repeat([0, 1, 2], 30)] + rng.normal(size=(90, 2))
    path = tmp_path / "plain.csv"
    np.savetxt(path, X, delimiter=",")
    code = (f"import sys; from kgroups.cli import main; rc = main(['cluster', "
            f"{str(path)!r}, '-k', '3']); "
            "print([m for m in ('sklearn', 'pandas', 'scipy.sparse', 'tqdm') "
            "if m in sys.modules], rc, "
            "file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.stderr.strip().splitlines()[-1] == "[] 0", done.stderr
    assert "cluster sizes: 30 30 30" in done.stdout


# --------------------------------------------------------------------------- Unix behaviour
def test_dash_out_writes_the_labels_to_stdout_and_the_summary_to_stderr(
        blobs_csv, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["cluster", str(blobs_csv), "-k", "3", "--label-column", "class",
                 "--seed", "0", "-o", "-"]) == 0
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert lines[0] == "label" and len(lines) == 91
    labels = np.array(lines[1:], dtype=int)
    assert sorted(np.bincount(labels).tolist()) == [30, 30, 30]
    # the three blobs are rows 0-29, 30-59, 60-89 of the file
    assert all(len(set(labels[i:i + 30])) == 1 for i in (0, 30, 60))
    assert "cluster sizes: " in err and "accuracy: 1.0000" in err
    assert not (tmp_path / "-").exists()


def test_gzip_input_by_content_from_a_file_and_from_stdin(blobs_csv, tmp_path, monkeypatch):
    import gzip

    plain = load_table(str(blobs_csv), label_column="class")
    packed = tmp_path / "blobs.csv.gz"
    packed.write_bytes(gzip.compress(blobs_csv.read_bytes()))
    renamed = tmp_path / "blobs.dat"  # no .gz: found by its first bytes
    renamed.write_bytes(packed.read_bytes())
    for path in (packed, renamed):
        X, _, y = load_table(str(path), label_column="class")
        assert np.array_equal(X, plain[0]) and np.array_equal(y, plain[2])
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(packed.read_bytes())))
    X, _, _ = load_table("-", label_column="class")
    assert np.array_equal(X, plain[0])
    text_named_gz = tmp_path / "plain.csv.gz"  # a plain file, whatever its name
    text_named_gz.write_text("1,2\n3,4\n")
    assert load_table(str(text_named_gz))[0].tolist() == [[1, 2], [3, 4]]


@pytest.mark.parametrize("text, separator", [
    ("sepal length\tsepal width\tspecies\n5.1\t3.5\tsetosa\n6.2\t2.9\tvirginica\n", "\t"),
    ("a b,c d\n1,2\n3,4\n", ","),  # spaces inside comma-separated names
    ("x;y\n1;2\n3;4\n", ";"),
    ("x y\n1 2\n3   4\n", "whitespace"),
    ("1\t\t2\n3\t4\n5\t\t6\n", "whitespace"),  # doubled tabs, as in seeds_dataset.txt
    ('"a,b"\t"c"\n1\t2\n', "\t"),
    ("1,2\n3,4\n5\n", ","),  # one short row: the separator of the others
    ("1\n2\n", "whitespace"),  # one column
    # decimal commas: split at commas these rows are as wide, but '5;2' is no number
    ("1,5;2,5\n3,5;4,5\n", ";"),
    ("1,5\t2,5\n3,5\t4,5\n", "\t"),
    ("1,5 2,5\n3,5 4,5\n", "whitespace"),
])
def test_the_separator_is_sniffed_from_the_first_lines(text, separator):
    from kgroups._cli_csv import _detect_delimiter

    assert _detect_delimiter(text) == separator


def test_a_tsv_whose_header_has_spaces(tmp_path):
    path = tmp_path / "iris.tsv"
    path.write_text("sepal length\tsepal width\tspecies\n5.1\t3.5\tsetosa\n"
                    "4.9\t3.0\tsetosa\n6.3\t3.3\tvirginica\n")
    X, _, y = load_table(str(path), label_column="species")
    assert X.tolist() == [[5.1, 3.5], [4.9, 3.0], [6.3, 3.3]] and y.tolist() == [0, 0, 1]


# Each CSV mistake and the fix its message should point at (and a fix it must not suggest).
HINTS = [
    ("x,y\n1,2\n3,?\n", [], "a missing value", "--label-column"),
    ("x,y\n1,2\n3,NA\n", [], "a missing value", "--label-column"),
    ("x;y\n1,5;2,5\n3,1;4\n", ["--decimal", "point"], "read with --decimal comma",
     "--label-column"),
    ("x;y\n1,5;2.5\n3,1;4\n", [], "also writes decimal points", "--label-column"),
    ("1;2\n3;4\n", ["--delimiter", "comma"], "--delimiter semicolon", "--label-column"),
    ("1 2\n3 4\n", ["--delimiter", "tab"], "--delimiter whitespace", "--label-column"),
    ("x,y\n1,2\n3,4\n", ["--header", "no"], "--header yes", "--label-column"),
    ("1,2,a\n3,4,b\n", [], "--label-column 3", "--header"),
    ("1,2,a\n3,4,b\n", [], "--drop-columns 3", "--header"),
    ("id,name,x\n1,ann,2\n2,bob,3\n3,cy,4\n", [], "--drop-columns 2", "--label-column"),
    ("1,a,x\n2,b,y\n", ["--label-column", "3"], "column 2 is text", "pass --label-column"),
    ("x,y\n1,2\n3,4\n5,4..2\n", [], "fix or drop the row", "--label-column"),
    ("x,w\n1,2\n3,heavy\n", ["--weights", "w"], "--weights names a column of numbers",
     "--label-column"),
]


@pytest.mark.parametrize("text, extra, fix, not_fix", HINTS, ids=[h[2] for h in HINTS])
def test_csv_errors_point_at_the_right_fix(tmp_path, capsys, text, extra, fix, not_fix):
    path = tmp_path / "t.csv"
    path.write_text(text)
    assert main(["cluster", str(path), "-k", "1", *extra]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and fix in err and not_fix not in err, err


def test_a_row_of_weight_zero_is_left_out_and_labelled_as_a_new_point(tmp_path, capsys):
    """As in the library: a row of weight 0 does not move the fit (the other rows' labels
    are those of the file without it) and gets the label predict gives it; both
    commands take it; --engine dask, which refuses a zero weight, says so by option."""
    from kgroups import KernelKGroups

    rng = np.random.default_rng(5)
    X = np.vstack([rng.normal(0, 1, (20, 2)), rng.normal(7, 1, (20, 2)), [[30.0, 30.0]]])
    w = np.r_[np.ones(40), 0.0]              # a far row that would pull a cluster
    full, kept = tmp_path / "w.csv", tmp_path / "kept.csv"
    full.write_text("x,y,w\n" + "".join(f"{a},{b},{c}\n" for (a, b), c in zip(X, w)))
    kept.write_text("x,y,w\n" + "".join(f"{a},{b},1\n" for a, b in X[:40]))
    labels = {}
    for path in (full, kept):
        out = tmp_path / f"{path.stem}.labels"
        assert main(["cluster", str(path), "-k", "2", "--weights", "w", "--seed", "0",
                     "-o", str(out)]) == 0
        labels[path] = np.loadtxt(out, skiprows=1, dtype=int)
    assert labels[full][:40].tolist() == labels[kept].tolist()
    est = KernelKGroups(2, random_state=0).fit(X[:40])   # the command's fit, in Python
    assert labels[kept].tolist() == est.labels_.tolist()
    assert labels[full][40] == est.predict(X[40:])[0]
    capsys.readouterr()
    assert main(["choose-k", str(full), "--weights", "w"]) == 0
    assert capsys.readouterr().out.startswith("k = 2 ")
    assert main(["cluster", str(full), "-k", "2", "--weights", "w", "--engine", "dask"]) == 2
    err = capsys.readouterr().err
    assert "argument --weights: 1 row(s)" in err and "--engine dask" in err
    one = tmp_path / "one.csv"   # one row of positive weight: the library's error, by option
    one.write_text("x,w\n1,1\n2,0\n3,0\n")
    assert main(["choose-k", str(one), "--weights", "w"]) == 2
    assert capsys.readouterr().err.rstrip().endswith("(set by --weights)")


# --------------------------------------------------------------------------- --standardize
def _ari(text):
    return float(text.split("ARI: ")[1].split()[0])


def test_standardize_puts_the_wine_columns_on_one_scale(capsys):
    """The wine table mixes units (proline in the hundreds, hue near 1): raw, the
    partition follows proline (ARI 0.37); z-scored, the three cultivars (ARI >= 0.85,
    0.91 with seed 0)."""
    wine = str(DATA_DIR / "wine.data")   # column 1: the cultivar
    argv = ["cluster", wine, "--n-clusters", "3", "--label-column", "1", "--seed", "0"]
    assert main(argv + ["--standardize"]) == 0
    text = capsys.readouterr().out
    assert text.splitlines()[0].endswith(", columns z-scored (--standardize)")
    assert _ari(text) >= 0.85
    assert main(argv) == 0
    raw = capsys.readouterr().out
    assert "z-scored" not in raw and _ari(raw) < 0.5


def test_standardize_z_scores_each_column_with_the_weights():
    from kgroups._rescale import standardize, standardizing

    rng = np.random.default_rng(3)
    X = rng.normal([5.0, -300.0, 0.0], [2.0, 50.0, 1e-3], size=(40, 3))
    Z = standardize(X)
    np.testing.assert_allclose(Z.mean(axis=0), 0.0, atol=1e-12)
    np.testing.assert_allclose(Z.std(axis=0), 1.0, rtol=1e-12)
    # integer weights act as repeated rows
    w = rng.integers(1, 4, size=40)
    np.testing.assert_allclose(np.repeat(standardize(X, w), w, axis=0),
                               standardize(np.repeat(X, w, axis=0)), rtol=1e-12, atol=1e-12)
    # a constant column becomes 0, not NaN
    assert standardize(np.array([[1.0, 7.0], [3.0, 7.0]])).tolist() == [[-1.0, 0.0], [1.0, 0.0]]
    # or is left out (the choice of k's standardized geometry)
    C = X[:, [0, 0]] * [1, 0]
    assert standardizing(C)(C).shape == (40, 1)


def test_summary_reports_the_fit_and_the_time_since_the_start(blobs_csv, capsys):
    assert main(["cluster", str(blobs_csv), "-k", "3", "--label-column", "class"]) == 0
    line = next(l for l in capsys.readouterr().out.splitlines() if l.startswith("time: "))
    fit, total = float(line.split()[1]), float(line.split("; ")[1].split()[0])
    assert 0 < fit <= total


def test_cluster_leaves_pandas_importable(blobs_csv, capsys, monkeypatch):
    """A choice (here the semimetric's) imports scikit-learn with pandas hidden, and
    unhides it after."""
    import sys

    monkeypatch.delitem(sys.modules, "pandas", raising=False)
    assert main(["cluster", str(blobs_csv), "-k", "3", "--semimetric", "auto",
                 "--label-column", "class"]) == 0
    capsys.readouterr()
    assert sys.modules.get("pandas", "absent") is not None


def test_calibrate_show_without_a_file_says_so(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("KGROUPS_CALIBRATION", str(tmp_path / "none.json"))
    assert main(["calibrate", "--show"]) == 1
    out = capsys.readouterr().out
    assert f"no calibration in {tmp_path / 'none.json'}" in out
    assert "run 'kgroups calibrate'" in out
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": 99}')
    assert main(["calibrate", "--show", "--file", str(bad)]) == 2
    assert f"calibration file {bad} cannot be read: " in capsys.readouterr().err


def test_calibrate_measures_writes_and_shows(tmp_path, capsys, monkeypatch):
    from kgroups._engines import calibration

    fake = calibration.Calibration(calibration.this_machine(), 2.5e8, "Test GPU", 5e10, 0.125,
                                   measured="2026-01-01T00:00:00Z")
    seen = []
    monkeypatch.setattr(calibration, "measure", lambda g=None: seen.append(g) or fake)
    path = tmp_path / "sub" / "cal.json"
    assert main(["calibrate", "--file", str(path)]) == 0
    out = capsys.readouterr().out
    from kgroups._engines.gpu import GpuEngine

    assert seen == [GpuEngine]
    assert "2.5e+08 pairs/s" in out and "5e+10 pairs/s, 200 x the cpu" in out
    assert "fixed cost of a fit: 0.125 s" in out and f"written to {path}" in out
    assert calibration.load(path) == fake
    assert main(["calibrate", "--show", "--file", str(path)]) == 0
    out = capsys.readouterr().out
    assert "Test GPU" in out and f"file: {path}" in out and "another machine" not in out
    calibration.save(calibration.Calibration({"host": "elsewhere"}, 1e8), path)
    assert main(["calibrate", "--show", "--file", str(path)]) == 0
    assert "measured on another machine: engine='auto' ignores it" in capsys.readouterr().out
    assert main(["calibrate", "--file", str(tmp_path)]) == 2  # a folder
    assert "is a directory" in capsys.readouterr().err


def test_calibrate_under_the_simulator_measures_no_gpu(tmp_path, capsys, monkeypatch):
    """The simulator is not a device: only the CPU is measured (a short real timing)."""
    from numba import config

    from kgroups._engines import calibration
    from kgroups._kernels.numba_cuda import numba_cuda

    numba_cuda()  # imported as it is (switching the simulator on later must not swap it)
    monkeypatch.setattr(config, "ENABLE_CUDASIM", 1)
    monkeypatch.setattr(calibration, "CPU_SIZES", (256, 1024))
    path = tmp_path / "cal.json"
    assert main(["calibrate", "--file", str(path)]) == 0
    out = capsys.readouterr().out
    assert "simulator" in out and "gpu: none measured" in out
    cal = calibration.load(path)
    assert cal.device is None and cal.cpu_pairs_per_second > 0


def test_without_n_clusters_the_choice_is_made_and_told_on_stderr(tmp_path, capsys):
    """No --n-clusters: k and the semimetric are chosen (--semimetric auto by default)
    and the choice with its reasoning goes to standard error; with -k the semimetric
    stays the library's default, energy."""
    import numpy as np
    from sklearn.datasets import make_moons

    from kgroups.cli import _defaults

    X, y = make_moons(300, noise=0.05, random_state=0)
    path = tmp_path / "moons.csv"
    np.savetxt(path, np.column_stack([X, y]), delimiter=",", fmt="%.8g")
    assert main(["cluster", str(path), "--label-column", "3", "--seed", "0"]) == 0
    out, err = capsys.readouterr()
    assert "n_clusters=auto -> 2 semimetric=auto -> nearest_neighbors" in out
    assert "ARI: 1.0000" in out
    # one line on stderr: k, the semimetric and the deciding numbers (the arbiter's cuts)
    assert err.startswith("kgroups cluster: chose k=2 with semimetric='nearest_neighbors' (")
    assert len(err.splitlines()) == 1 and "arbiter: {graph's groups: 0, energy partition" in err
    # short: the last step of each kind, the arbiter's pick in words, not its sentence
    assert err.count("structure:") == 1 and err.rstrip().endswith(": the graph's groups)")
    assert "cut below" not in err
    # --verbose adds the whole reasoning, a line per step, once; the estimator's own
    # progress says the choice in the one line, on standard error too (issue 93: it
    # was said on both streams)
    assert main(["cluster", str(path), "--label-column", "3", "--seed", "0", "--verbose"]) == 0
    out, err = capsys.readouterr()
    lines = err.splitlines()
    steps = lines[lines.index("kgroups cluster: why:") + 1:]
    assert steps and all(s.startswith("  ") and s.endswith(".") for s in steps)
    assert steps[0].startswith("  structure: ") and steps[-1].startswith("  arbiter: ")
    assert "normalised cut on the neighbourhood graph" in steps[-1]
    assert "KernelKGroups: chose k=2 with semimetric='nearest_neighbors' (" in err
    assert err.count("chose k=") == 1 and "KernelKGroups:" not in out
    assert "normalised cut" not in out
    args = argparse.Namespace(n_clusters=None, semimetric=None)
    _defaults(args)
    assert (args.n_clusters, args.semimetric) == ("auto", "auto")
    args = argparse.Namespace(n_clusters=3, semimetric=None)
    _defaults(args)
    assert (args.n_clusters, args.semimetric) == (3, "energy")


def _three_blobs_csv(path, n):
    rng = np.random.default_rng(1)
    centres = np.array([[0.0, 0.0], [4.0, 0.0], [0.0, 4.0]])
    y = np.arange(n) % 3
    X = centres[y] + rng.normal(scale=0.4, size=(n, 2))
    np.savetxt(path, X, delimiter=",", header="a,b", comments="")
    return y


def test_cluster_without_k_past_the_choice_sample(tmp_path, capsys):
    """Issue 54: past 5,000 rows the choice runs on a sample and labels every row by
    the sample fit's predict, which the command's scikit-learn-free class lacked: the
    command crashed on 5,001 rows (its default: k and the semimetric chosen)."""
    from kgroups._choose_k.core import SAMPLE_N
    from kgroups.metrics import ari

    path, out = tmp_path / "big.csv", tmp_path / "labels.csv"
    y = _three_blobs_csv(path, SAMPLE_N + 1)
    assert main(["cluster", str(path), "-o", str(out)]) == 0
    captured = capsys.readouterr()
    assert f"uniform sample of {SAMPLE_N} of the {SAMPLE_N + 1} rows" in captured.err
    labels = np.loadtxt(out, skiprows=1, dtype=int)
    assert labels.shape == (SAMPLE_N + 1,) and ari(y, labels) > 0.99


@pytest.mark.parametrize("flags", [["--semimetric", "energy"], ["--semimetric", "auto"],
                                   ["--semimetric", "nearest_neighbors"],
                                   ["-k", "3", "--semimetric", "auto"]],
                         ids=["auto k, energy", "auto k, auto", "auto k, graph",
                              "k=3, auto semimetric"])
def test_every_choice_path_on_a_sample_through_the_command_line(flags, tmp_path, monkeypatch,
                                                                 capsys):
    """Every path that chooses on a sample and labels the rest (the choice of k past its
    sample size, semimetric='auto' past its own), with the sizes lowered so the test is
    quick, runs through the command line's estimator."""
    from kgroups._choose_k import at_k as _auto_fit
    from kgroups._choose_k import core
    from kgroups.metrics import ari

    monkeypatch.setattr(core, "SAMPLE_N", 240)
    monkeypatch.setattr(_auto_fit, "AUTO_SAMPLE_N", 240)
    monkeypatch.setattr(_auto_fit, "AUTO_SAMPLE_ROWS", 150)
    path, out = tmp_path / "blobs.csv", tmp_path / "labels.csv"
    y = _three_blobs_csv(path, 300)
    assert main(["cluster", str(path), *flags, "-o", str(out)]) == 0
    text = capsys.readouterr()
    if flags[-1] != "nearest_neighbors":  # the graph's eigengap samples the graph's nodes
        assert "uniform sample of" in text.err + text.out
    labels = np.loadtxt(out, skiprows=1, dtype=int)
    assert labels.shape == (300,) and ari(y, labels) > 0.99


def test_a_column_named_like_labels_is_pointed_out(tmp_path, capsys):
    """Issue 54: an integer column named 'class' was clustered as a feature without a
    word; now a note names it and the option that leaves it out."""
    path = tmp_path / "points.csv"
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1, 2], 20)
    X = np.array([[0, 0], [6, 0], [0, 6]])[y] + rng.normal(size=(60, 2))
    np.savetxt(path, np.c_[X, y], delimiter=",", header="x,y2,class", comments="",
               fmt=["%.4f", "%.4f", "%d"])
    assert main(["cluster", str(path), "-k", "3"]) == 0
    err = capsys.readouterr().err
    assert err == ("kgroups cluster: note: column 3 ('class') holds 3 distinct integers and is "
                   "named like class labels, yet it is clustered as a feature; if it holds "
                   "labels, pass --label-column class (to score the clusters against it) or "
                   "--drop-columns class\n")
    assert main(["cluster", str(path), "-k", "3", "--label-column", "class"]) == 0
    assert capsys.readouterr().err == ""


def test_columns_in_different_units_get_the_hint_to_standardize(tmp_path, capsys):
    """Issue 54: raw wine clusters by its widest column (ARI 0.375 against 0.915 with
    --standardize) and nothing said so."""
    from sklearn.datasets import load_wine

    X, y = load_wine(return_X_y=True)
    path = tmp_path / "wine.csv"
    np.savetxt(path, np.c_[X, y], delimiter=",", fmt="%.6g")
    assert main(["cluster", str(path), "-k", "3", "--label-column", "14"]) == 0
    err = capsys.readouterr().err
    assert err.startswith("kgroups cluster: note: the columns' spreads differ by a factor of "
                          "2,530 (standard deviation 314 in column 13, 0.1241 in column 8)")
    assert err.rstrip().endswith("pass --standardize")
    for command in (["cluster", str(path), "-k", "3"], ["choose-k", str(path), "--k-max", "4"]):
        assert main([*command, "--label-column", "14", "--standardize"]) == 0
        assert "note" not in capsys.readouterr().err


def test_the_spread_note_at_any_magnitude(tmp_path, capsys):
    """Columns of magnitude 1e200 and 1e190: their squares overflow float64, yet the note
    gives their spreads and its ratio (each column read in units of a power of two near
    its largest |x|), with no overflow warning on the way; 1e200 and 1e-200: a ratio
    beyond float64, said so."""
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=200), rng.normal(size=200)
    path = tmp_path / "huge.csv"
    np.savetxt(path, np.c_[a * 1e200, b * 1e190], delimiter=",", fmt="%.17g")
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        assert main(["cluster", str(path), "-k", "2"]) == 0
    err = capsys.readouterr().err
    ratio = f"{(a.std() * 1e200) / (b.std() * 1e190):.3g}"     # 1e10: 3 digits, not 11
    assert err.startswith(f"kgroups cluster: note: the columns' spreads differ by a factor of "
                          f"{ratio} (standard deviation {a.std() * 1e200:.4g} in column 1")
    np.savetxt(path, np.c_[a * 1e200, b * 1e-200], delimiter=",", fmt="%.17g")
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        assert main(["cluster", str(path), "-k", "2"]) == 0
    assert capsys.readouterr().err.startswith("kgroups cluster: note: the columns' spreads "
                                              "differ by a factor of more than 1e308 (")


def test_the_spread_note_waits_for_the_choice_of_k(tmp_path, capsys):
    """Without -k the choice of k tries the columns standardized when X shows no structure
    as it is: on raw wine it finds k there, and the hint to standardize is not said. On
    blobs beside a column of tiny spread, k is found in X's units: the hint is said."""
    from sklearn.datasets import load_wine, make_blobs

    X, y = load_wine(return_X_y=True)
    wine = tmp_path / "wine.csv"
    np.savetxt(wine, np.c_[X, y], delimiter=",", fmt="%.6g")
    for command in (["cluster", str(wine)], ["choose-k", str(wine)]):
        assert main([*command, "--label-column", "14"]) == 0
        out, err = capsys.readouterr()
        assert "note" not in err and "standardized: k=3" in err + out
    B, _ = make_blobs(300, 2, centers=3, random_state=0)
    tiny = np.random.default_rng(0).normal(scale=1e-3, size=300)
    blobs = tmp_path / "blobs.csv"
    np.savetxt(blobs, np.c_[B, tiny], delimiter=",", fmt="%.6g")
    for command in (["cluster", str(blobs)], ["choose-k", str(blobs)]):
        assert main(command) == 0
        out, err = capsys.readouterr()
        assert err.startswith("kgroups %s: note: the columns' spreads differ" % command[0])
        assert "k = 3" in out or "chose k=3" in err


@pytest.mark.parametrize("cell, fix", [
    ("NaN", "a missing value? every feature cell needs a number: fill it in (impute it) or "
            "drop the row"),
    ("inf", "replace it or drop the row")])
def test_a_non_finite_cell_says_what_to_do(tmp_path, capsys, cell, fix):
    path = tmp_path / "bad.csv"
    path.write_text(f"a,b\n1,2\n3,{cell}\n4,5\n")
    assert main(["cluster", str(path), "-k", "2"]) == 2
    assert capsys.readouterr().err == (
        f"kgroups cluster: error: {path}, line 3, column 2 ('b'): {cell!r} is not a finite "
        f"number; {fix}\n")


def test_a_decimal_comma_file_points_at_the_first_data_cell(tmp_path, capsys):
    """Issue 54: the header of 'a;b / 1,5;2,5' was read as data and the error pointed at
    'a'; the header is recognised, and read with the decimal point the error names the
    first decimal comma (issue 93: the comma is read by default, found in the data)."""
    path = tmp_path / "comma.csv"
    path.write_text("a;b\n1,5;2,5\n3,5;4\n")
    assert main(["cluster", str(path), "-k", "2", "--decimal", "point"]) == 2
    assert capsys.readouterr().err == (
        f"kgroups cluster: error: {path}, line 2, column 1 ('a'): '1,5' is not a number; "
        "decimal commas (1,5) are read with --decimal comma\n")
    X, _, _ = load_table(str(path))
    assert X.tolist() == [[1.5, 2.5], [3.5, 4.0]]


# --------------------------------------------------------------------------- the command's streams
# Issue 93: the command as a shell sees it, its exit status and its two streams apart.
# ``_kgroups`` runs it in this process, standard input, output and error replaced by
# byte streams as a pipe gives them; ``_kgroups_process`` in a process of its own (the
# script that installing kgroups writes beside this interpreter; ``python -m
# kgroups.cli`` where there is none), for what only a process shows: nothing written
# to standard output below Python.
def _kgroups(*args, stdin=None):
    import subprocess

    streams = {name: io.TextIOWrapper(io.BytesIO(), encoding="utf-8", newline="")
               for name in ("stdout", "stderr")}
    stdin = io.TextIOWrapper(io.BytesIO((stdin or "").encode("utf-8")), encoding="utf-8")
    with pytest.MonkeyPatch.context() as patch:
        for name, stream in (("stdin", stdin), *streams.items()):
            patch.setattr(sys, name, stream)
        code = main([*map(str, args)])
    text = {}
    for name, stream in streams.items():
        stream.flush()
        text[name] = stream.buffer.getvalue().decode("utf-8")
    return subprocess.CompletedProcess(["kgroups", *map(str, args)], code, **text)


def _kgroups_process(*args):
    import subprocess
    from pathlib import Path

    script = Path(sys.executable).with_name("kgroups")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "kgroups.cli"]
    return subprocess.run([*command, *map(str, args)], capture_output=True, text=True,
                          timeout=300, check=False)


def _blobs_table(n_per=10, seed=0):
    """Three far-apart blobs of ``n_per`` points each, and their classes 0, 1, 2."""
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1, 2], n_per)
    return np.array([[0.0, 0.0], [8.0, 0.0], [0.0, 8.0]])[y] + rng.normal(size=(3 * n_per, 2)), y


def test_with_dash_out_stdout_holds_the_labels_alone_even_verbose(tmp_path):
    """Issue 93 (1): with -v and -o -, the engine line and each restart's lines came
    before the 'label' header on standard output, and the choice of k was said on both
    streams. Standard output holds the CSV of labels only; everything else goes to
    standard error, the choice of k once."""
    import csv

    X, y = _blobs_table()
    path = tmp_path / "blobs.csv"
    np.savetxt(path, X, delimiter=",", header="a,b", comments="", fmt="%.4f")
    for extra in (["-k", "3", "--n-init", "3"], []):  # a given k; k chosen
        done = _kgroups_process("cluster", path, "-v", "--seed", "0", "-o", "-", *extra)
        assert done.returncode == 0, done.stderr
        rows = list(csv.reader(io.StringIO(done.stdout)))
        assert rows[0] == ["label"] and len(rows) == 31, done.stdout[:300]
        labels = np.array([int(r[0]) for r in rows[1:]])
        assert len(set(zip(labels, y))) == 3  # the three blobs
        assert "KernelKGroups: engine='dense'" in done.stderr
        assert "KernelKGroups: restart 1/" in done.stderr and "cluster sizes: " in done.stderr
        assert done.stderr.count("chose k=") == (1 if not extra else 0), done.stderr
    assert "kgroups cluster: why:" in done.stderr  # the choice's reasoning, under -v


def _people_csv(tmp_path):
    """An id column, a column of names, two coordinates of three blobs and the class."""
    X, y = _blobs_table()
    path = tmp_path / "people.csv"
    with open(path, "w") as fh:
        fh.write("id,name,x,y,class\n")
        for i, ((a, b), c) in enumerate(zip(X, y)):
            fh.write(f"{i + 1},person {i},{a:.4f},{b:.4f},c{c}\n")
    return path


def test_feature_columns_are_chosen_by_name_number_or_range(tmp_path, capsys):
    """Issue 93 (2): a column of names could not be left out, and the message for it
    offered --label-column, which scored the fit against the names. --drop-columns and
    --columns choose the features (names, numbers, ranges, as cut -f); the message for
    a text column offers --drop-columns."""
    path = _people_csv(tmp_path)
    done = _kgroups("cluster", path, "-k", "3")
    assert done.returncode == 2
    assert done.stderr == (f"kgroups cluster: error: {path}, line 2, column 2 ('name'): "
                           "'person 0' is not a number; column 2 is text (names or ids?): "
                           "--drop-columns 2 leaves it out of the features\n")
    for choice in (["--drop-columns", "id,name"], ["--columns", "3-4"]):
        done = _kgroups("cluster", path, "-k", "3", "--label-column", "class", "--n-init", "2",
                        "--seed", "0", *choice)
        assert done.returncode == 0, (choice, done.stderr)
        assert "n=30 D=2 " in done.stdout and "accuracy: 1.0000" in done.stdout, choice
    # the same lists in process: every form, and the errors naming option and value
    for spec, drop in (("x,y", None), ("y,x", "1"), ("3-", "class"), ("-2,3", None),
                       (None, "1-2,-1")):
        X, _, _ = load_table(str(path), columns=spec, drop_columns=drop)
        assert X.shape == (30, 2), (spec, drop)
    from kgroups.cli import _load  # choose-k reads the file as cluster does

    args = build_parser().parse_args(["choose-k", str(path), "--drop-columns", "1-2",
                                      "--label-column", "-1", "--decimal", "."])
    X, _, y = _load(args, {})
    assert X.shape == (30, 2) and args.decimal == "point" and np.bincount(y).tolist() == [10] * 3
    for choice, message in (
            (["--columns", "2-9"], "argument --columns: the range 2-9 should lie within 1-5"),
            (["--columns", "3-5", "--label-column", "class"],
             "argument --columns: '3-5' lists column 5 ('class'), the --label-column column"),
            (["--drop-columns", "id,nom"], "argument --drop-columns: no column named 'nom'"),
            (["--columns", "1,,2"], "argument --columns: '1,,2' holds an empty item"),
            (["--columns", "1", "--drop-columns", "1"], "no feature columns left")):
        assert main(["cluster", str(path), "-k", "3", *choice]) == 2
        assert message in capsys.readouterr().err, choice


def test_decimal_commas_are_read_when_unambiguous_or_asked(tmp_path):
    """Issue 93 (3): a ';'-separated file with decimal commas was refused. The decimal
    comma is found where it is unambiguous (fields not separated by commas that hold
    1,5 and no 1.5), and --decimal names it; the numbers read are the file's."""
    from kgroups import within_energy

    X, _ = _blobs_table()
    rows = [";".join(f"{v:.3f}".replace(".", ",") for v in row) for row in X]
    path = tmp_path / "mesures.csv"
    path.write_text("a;b\n" + "\n".join(rows) + "\n")
    done = _kgroups("cluster", path, "-k", "3", "--n-init", "2", "--seed", "0", "-o", "-")
    assert done.returncode == 0, done.stderr
    labels = np.array(done.stdout.split()[1:], dtype=int)
    W = float(done.stderr.split("W (within energy): ")[1].split()[0])
    assert W == pytest.approx(within_energy(np.round(X, 3), labels), rel=1e-5)
    tsv = "\n".join(row.replace(";", "\t") for row in rows) + "\n"  # no header, from stdin
    for dash in (["-"], []):  # '-', or no file at all: the pipe is read
        done = _kgroups("cluster", *dash, "-k", "3", "--n-init", "2", "--seed", "0", stdin=tsv)
        assert done.returncode == 0 and f"W (within energy): {W:.6g}" in done.stdout, done.stderr
    done = _kgroups("cluster", path, "-k", "3", "--decimal", ".")
    assert done.returncode == 2 and done.stderr == (
        f"kgroups cluster: error: {path}, line 2, column 1 ('a'): {rows[0].split(';')[0]!r} "
        "is not a number; decimal commas (1,5) are read with --decimal comma\n")
    mixed = tmp_path / "mixed.csv"  # a point beside commas: not guessed, and said why
    mixed.write_text("a;b\n1,5;2.5\n3,5;4\n")
    done = _kgroups("cluster", mixed, "-k", "2")
    assert done.returncode == 2 and "the file also writes decimal points ('2.5')" in done.stderr
    done = _kgroups("cluster", mixed, "-k", "2", "--decimal", "comma")
    assert done.returncode == 2 and "'2.5' is not a number; --decimal comma reads 1,5" \
        in done.stderr


def test_columns_that_look_like_or_act_like_labels_are_pointed_out(tmp_path):
    """Issue 93 (4): a column named 'truth' was clustered as a feature without a word.
    Label-like names are widened (spaces and case aside: 'Ground Truth'), and after the
    fit a feature column of few distinct integers that the clusters reproduce is named
    whatever its name; a column of integers the clusters do not follow is not."""
    X, y = _blobs_table()
    counts = np.random.default_rng(1).integers(0, 4, size=y.size)
    path = tmp_path / "t.csv"
    np.savetxt(path, np.c_[X, y, y + 1, counts], delimiter=",", comments="",
               header="x,y,Ground Truth,code,count", fmt=["%.4f", "%.4f", "%d", "%d", "%d"])
    done = _kgroups("cluster", path, "-k", "3", "--n-init", "2", "--seed", "0")
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines() == [
        "kgroups cluster: note: column 3 ('Ground Truth') holds 3 distinct integers and is "
        "named like class labels, yet it is clustered as a feature; if it holds labels, pass "
        "--label-column 'Ground Truth' (to score the clusters against it) or --drop-columns "
        "'Ground Truth'",
        "kgroups cluster: note: the clusters reproduce a feature column almost exactly "
        "(column 4 ('code'), 3 distinct integers: ARI 1.000); if it holds class labels, they "
        "decided the clusters: pass --label-column code to score the clusters against it, "
        "or --drop-columns code to leave it out"]
    from kgroups._cli_csv import LABEL_LIKE_MAX, LABEL_NAMES, REPRODUCED_ARI

    assert {"truth", "ground_truth", "labels", "category", "group", "groups", "class_label",
            "true_label"} <= LABEL_NAMES
    from pathlib import Path

    page = (Path(__file__).resolve().parents[1] / "docs" / "user_guide" / "cli.rst").read_text()
    page = " ".join(page.split())  # the CLI page states the constants as the code has them
    assert f"an integer column of at most {LABEL_LIKE_MAX} distinct values named like" in page
    assert f"a feature column of 2 to {LABEL_LIKE_MAX} distinct integers" in page
    assert f"(adjusted Rand index at least {REPRODUCED_ARI:g})" in page


def test_cluster_help_states_each_default_as_it_is(tmp_path):
    """Issue 93 (5): the help said the options had 'the same defaults' as
    KernelKGroups, but -k defaults to auto on the command line and to 8 in Python."""
    import inspect
    import re

    done = _kgroups("cluster", "--help")
    text = " ".join(done.stdout.split())
    k = inspect.signature(kgroups.KernelKGroups).parameters["n_clusters"].default
    assert done.returncode == 0 and "same defaults" not in text
    assert f"(default: auto; kgroups.KernelKGroups' default is {k})" in text
    assert f"-k/--n-clusters is auto (KernelKGroups: n_clusters={k})" in text
    blocks = [" ".join(b.split()) for b in re.split(r"\n(?=  -)", done.stdout)]  # an option each
    for option in ("--columns COLUMNS", "--drop-columns COLUMNS", "--decimal {auto,point,comma}"):
        block = next(b for b in blocks if b.startswith(option))
        assert "(default: " in block, block


def test_datasets_writes_the_bundled_tables(tmp_path):
    """Issue 93 (7): the CLI page clustered 'the bundled wine table' without saying where
    it is; 'kgroups datasets NAME' writes it (the loader's raw values and labels)."""
    from kgroups.datasets import load_wine

    done = _kgroups("datasets")
    names = [line.split()[0] for line in done.stdout.splitlines()]
    assert done.returncode == 0 and names == ["dermatology", "glass", "ionosphere", "iris",
                                              "seeds", "wine"]
    assert "wine          178 rows, 13 features, 3 classes" in done.stdout
    done = _kgroups("datasets", "wine")
    header, *rows = done.stdout.splitlines()
    assert header == ",".join([f"x{j}" for j in range(1, 14)] + ["class"])
    table = np.array([row.split(",") for row in rows], dtype=float)
    X, y = load_wine(standardize=False)
    assert np.array_equal(table[:, :13], X) and np.array_equal(table[:, 13], y)
    done = _kgroups("datasets", "wines")
    assert done.returncode == 2 and "invalid choice: 'wines'" in done.stderr


def test_the_cli_page_s_wine_example_runs_as_written_and_prints_its_aris(tmp_path):
    """Issue 93 (7): the page's wine example runs in an empty folder (it makes its file
    with 'kgroups datasets'), and prints the ARIs the prose states, raw and standardized."""
    import os
    import re
    import subprocess
    import sys
    from pathlib import Path

    page = Path(__file__).resolve().parents[1] / "docs" / "user_guide" / "cli.rst"
    text = page.read_text(encoding="utf-8")
    raw, standardized = re.search(r"the cultivars come out with an ARI of ([\d.]+)\s+raw and "
                                  r"([\d.]+) standardized", text).groups()
    block = re.search(r"\n   (kgroups datasets wine > wine\.csv\n   kgroups cluster .*)\n",
                      text).group(1)
    commands = [line.strip() for line in block.splitlines()]
    assert commands[1].endswith(" --standardize --seed 0"), commands
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    outputs = []
    for command in [*commands, commands[1].replace(" --standardize", "")]:
        done = subprocess.run(["/bin/sh", "-c", command], cwd=tmp_path, env=env, timeout=300,
                              capture_output=True, text=True, check=False)
        assert done.returncode == 0, (command, done.stderr)
        outputs.append(done.stdout)
    assert f"{_ari(outputs[1]):.2f}" == standardized and f"{_ari(outputs[2]):.2f}" == raw


# --------------------------------------------------------------------------- --noise
def _blobs_and_strays_csv(tmp_path):
    """The three blobs of :func:`_blobs_table` and two strays 25 and more away (class
    -1), with a class column."""
    X, y = _blobs_table()
    X = np.vstack([X, [[25.0, -20.0], [-20.0, 28.0]]])
    y = np.r_[y, -1, -1]
    path = tmp_path / "strays.csv"
    np.savetxt(path, np.c_[X, y], delimiter=",", header="a,b,class", comments="", fmt="%.4f")
    return path, y


def _labels_of(text):
    header, *rows = text.splitlines()
    assert header == "label"
    return np.array([int(r) for r in rows])


def test_noise_auto_writes_minus_one_and_says_how_many_and_why(tmp_path):
    """--noise auto at a given k: the two strays are -1 in the file, the summary counts
    them apart from the cluster sizes, the metrics are those of the points kept, and
    standard error says how many were set aside and why."""
    path, y = _blobs_and_strays_csv(tmp_path)
    out = tmp_path / "labels.csv"
    done = _kgroups("cluster", path, "-k", "3", "--label-column", "class", "--noise", "auto",
                    "--seed", "0", "-o", out)
    assert done.returncode == 0, done.stderr
    labels = _labels_of(out.read_text())
    assert labels[y == -1].tolist() == [-1, -1] and (labels[y >= 0] >= 0).all()
    assert len(set(zip(labels[y >= 0], y[y >= 0]))) == 3  # the three blobs
    assert sorted(_sizes(done.stdout)) == [10, 10, 10]
    assert "set aside (label -1): 2 points, weight 2 (--noise auto)" in done.stdout
    assert "accuracy: 1.0000   NMI: 1.0000   ARI: 1.0000   (on the 30 points kept; -1 left " \
        "out)" in done.stdout
    assert "kgroups cluster: set aside 2 of 32 points (label -1); why: 2 of 32 points" \
        in done.stderr and "far-out fence" in done.stderr


def test_noise_share_with_dash_out_and_k_chosen(tmp_path):
    """--noise SHARE with -o -: standard output holds the labels alone, -1 included, at
    most floor(SHARE n) of them; with the number of clusters chosen, the strays are left
    out of the choice and do not become clusters of their own (without --noise too: each
    is a lone outlier), and only --noise sets them aside."""
    path, y = _blobs_and_strays_csv(tmp_path)
    done = _kgroups("cluster", path, "-k", "3", "--noise", "0.1", "--seed", "0", "-o", "-",
                    "--label-column", "class")
    assert done.returncode == 0, done.stderr
    labels = _labels_of(done.stdout)
    assert labels.size == 32 and 2 <= (labels == -1).sum() <= 3  # floor(0.1 * 32) = 3
    assert (labels[y == -1] == -1).all()
    assert sum(_sizes(done.stderr)) == (labels >= 0).sum()
    assert "why: noise=0.1: whole points of weight at most 0.1" in done.stderr
    for noise, k, aside in ((["--noise", "auto"], 3, 2), ([], 3, 0)):
        done = _kgroups("cluster", path, *noise, "--seed", "0", "-o", "-")
        assert done.returncode == 0, done.stderr
        labels = _labels_of(done.stdout)
        assert f"chose k={k} " in done.stderr and (labels == -1).sum() == aside
        assert len(set(labels[labels >= 0])) == k
        assert ("set aside" in done.stderr) == bool(noise)


@pytest.mark.parametrize("extra, fragment", [
    (["--noise", "0.5"], "argument --noise: 0.5 should be"),
    (["--noise=-0.1"], "argument --noise: -0.1 should be"),
    (["--noise", "lots"], "argument --noise: 'lots' should be 'auto', 'none' or a share"),
    (["--noise", "0.1", "--engine", "dask"], "(set by --noise, --engine)"),
])
def test_bad_noise_values_are_refused_naming_the_option(tmp_path, extra, fragment):
    path, _ = _blobs_and_strays_csv(tmp_path)
    done = _kgroups("cluster", path, "-k", "3", "--drop-columns", "class", *extra)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("kgroups cluster: error: ")
    assert fragment in done.stderr, done.stderr
    assert ("[0, 0.5)" in done.stderr) != ("dask" in extra), done.stderr  # what is allowed


def test_a_column_list_written_with_spaces_is_answered_with_the_comma_list(tmp_path):
    """``--drop-columns name truth`` (a list with spaces, as ``cut -f`` does not take it)
    left 'truth' over as an unknown argument with no hint; the error now shows the list
    as one comma-separated value, and that value runs."""
    X, _ = _blobs_table()
    path = tmp_path / "t.csv"
    rows = [f"p{i},{a:.4f},{b:.4f},{i % 2}" for i, (a, b) in enumerate(X)]
    path.write_text("name,x,y,truth\n" + "\n".join(rows) + "\n")
    done = _kgroups("cluster", path, "-k", "3", "--drop-columns", "name", "truth")
    assert done.returncode == 2
    assert "unrecognized arguments: truth; --drop-columns takes one comma-separated list: " \
        "--drop-columns name,truth" in done.stderr, done.stderr
    done = _kgroups("cluster", path, "-k", "3", "--drop-columns", "name,truth", "-o", "-")
    assert done.returncode == 0 and done.stdout.splitlines()[0] == "label", done.stderr


@pytest.mark.parametrize("argv, words", [
    (["demo", "--n-init", "0"], "argument --n-init: 0 should be an integer >= 1"),
    (["demo", "--seed", "-1"], "argument --seed: -1 should be an integer in [0, 2**32 - 1]"),
])
def test_an_option_s_error_says_what_the_command_line_can_write(argv, words, capsys):
    """The constraint table's words where the option's parser reads what the parameter
    takes; the option's own where it reads less (--seed takes no Generator, demo's
    --n-init no 'auto')."""
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert words in err and "Generator" not in err and "'auto'" not in err
