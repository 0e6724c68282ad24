"""Hostile inputs to the ``kgroups`` command.

Each case must end with exit status 2 and exactly one line on stderr,
``kgroups CMD: error: ...``, naming the option, file or value at fault, and no
traceback. The expected fragments are written from the specification (the
option's constraint, 1-based lines and columns), not copied from the code.
"""

import gzip
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kgroups.cli import main


@pytest.fixture
def good_csv(tmp_path):
    rng = np.random.default_rng(1)
    X = np.vstack([rng.normal(0, 1, (10, 2)), rng.normal(8, 1, (10, 2))])
    path = tmp_path / "good.csv"
    path.write_text("x,y,w,class\n" + "".join(f"{a},{b},1,c{i // 10}\n"
                                               for i, (a, b) in enumerate(X)))
    return str(path)


def _fails_cleanly(capsys, argv, *fragments, command="cluster"):
    rc = main(argv)
    captured = capsys.readouterr()
    err = captured.err
    assert rc == 2, (rc, err, captured.out)
    assert "Traceback" not in err
    assert err.endswith("\n") and err.count("\n") == 1, err  # one line
    prog = f"kgroups {command}" if command else "kgroups"
    assert err.startswith(f"{prog}: error: "), err
    for fragment in fragments:
        assert fragment in err, (fragment, err)
    return err


# --------------------------------------------------------------------------- options
BAD_OPTIONS = [
    (["--n-init", "0"], ["argument --n-init", "0", "integer >= 1"]),
    (["--n-init", "-3"], ["argument --n-init", "-3"]),
    (["--n-init", "2.5"], ["argument --n-init", "2.5"]),
    (["--n-init", "many"], ["argument --n-init", "many"]),
    (["--max-iter", "0"], ["argument --max-iter", "0", "integer >= 1"]),
    (["-k", "0"], ["argument -k", "0", "integer >= 1"]),
    (["-k", "-2"], ["argument -k", "-2"]),
    (["-k", "two"], ["argument -k", "two"]),
    (["-k", "21"], ["argument -k", "21", "20 data rows"]),
    (["--alpha", "0"], ["argument --alpha", "0", "(0, 2]"]),
    (["--alpha", "2.5"], ["argument --alpha", "2.5", "(0, 2]"]),
    (["--alpha", "nan"], ["argument --alpha", "nan"]),
    (["--alpha", "inf"], ["argument --alpha", "inf"]),
    (["--alpha=-1e400"], ["argument --alpha", "-inf"]),
    (["--alpha", "-1e400"], ["argument --alpha", "expected one argument"]),
    (["--sigma", "0", "--semimetric", "gaussian"], ["argument --sigma", "0"]),
    (["--sigma", "-1"], ["argument --sigma", "-1"]),
    (["--theta", "0"], ["argument --theta", "0"]),
    (["--seed", "-1"], ["argument --seed", "-1"]),
    (["--seed", "4294967296"], ["argument --seed", "4294967296"]),
    (["--semimetric", "euclid"], ["argument --semimetric", "euclid", "energy"]),
    (["--semimetric", "precomputed"], ["argument --semimetric", "precomputed"]),
    (["--engine", "cuda"], ["argument --engine", "cuda", "matrix-free"]),
    (["--init", "kmeans"], ["argument --init", "kmeans", "k-means++"]),
    (["--n-components", "0", "--engine", "low-rank"], ["argument --n-components", "0"]),
    (["--engine", "sparse"], ["engine='sparse'", "--engine"]),
    (["--delimiter", "|"], ["argument --delimiter", "|"]),
    (["--header", "maybe"], ["argument --header", "maybe"]),
]


@pytest.mark.parametrize("extra, fragments", BAD_OPTIONS,
                         ids=[" ".join(e) for e, _ in BAD_OPTIONS])
def test_bad_cluster_options(good_csv, capsys, extra, fragments):
    argv = ["cluster", good_csv, "--label-column", "class"]
    if "-k" not in extra:
        argv += ["-k", "2"]
    _fails_cleanly(capsys, argv + extra, *fragments)


def test_gpu_engine_without_a_device_names_the_option(good_csv, capsys):
    from kgroups._engines.gpu import cuda_usable

    if cuda_usable():
        pytest.skip("a CUDA device is usable here: --engine gpu runs")
    _fails_cleanly(capsys, ["cluster", good_csv, "-k", "2", "--label-column", "class",
                            "--engine", "gpu"],
                   "engine='gpu'", "(set by --engine)")


def test_a_bad_k_names_the_option(good_csv, capsys):
    """Without -k the command chooses k (tests/test_cli.py); a bad value fails cleanly."""
    _fails_cleanly(capsys, ["cluster", good_csv, "-k", "two"], "-k")


def test_no_command_and_unknown_options(good_csv, capsys):
    _fails_cleanly(capsys, [], "COMMAND", command=None)
    _fails_cleanly(capsys, ["cluster", good_csv, "-k", "2", "--bogus"], "--bogus")
    _fails_cleanly(capsys, ["frobnicate"], "'frobnicate'", "cluster", command=None)


@pytest.mark.parametrize("typo, fix", [
    (["--n_init", "5"], "did you mean --n-init?"),          # underscore for dash
    (["--n_init=5"], "did you mean --n-init?"),
    (["--standardise"], "did you mean --standardize?"),     # a close spelling
    (["--n_init", "5", "--sed", "3"], "did you mean --n-init for --n_init, --seed for --sed?"),
])
def test_a_misspelt_option_is_answered_with_the_nearest_one(good_csv, capsys, typo, fix):
    _fails_cleanly(capsys, ["cluster", good_csv, "-k", "2", *typo],
                   f"unrecognized arguments: {' '.join(typo)}; {fix}")


def test_an_unknown_option_far_from_every_known_one_gets_no_guess(good_csv, capsys):
    err = _fails_cleanly(capsys, ["cluster", good_csv, "-k", "2", "--zzzz"], "--zzzz")
    assert "did you mean" not in err


def test_k_and_n_clusters_are_one_option(good_csv, capsys):
    for flag in ("-k", "--n-clusters"):
        assert main(["cluster", good_csv, flag, "2", "--seed", "0",
                     "--label-column", "class"]) == 0
        assert "accuracy: 1.0000" in capsys.readouterr().out
    _fails_cleanly(capsys, ["cluster", good_csv, "--n-clusters", "0"],
                   "argument -k/--n-clusters: 0 should be 'auto' or an integer >= 1")


@pytest.mark.parametrize("value", ["0", "-3", "bogus", "2.5"])
def test_every_bad_k_reads_as_the_library_says_it(good_csv, capsys, value):
    """Issue 54: ``-k 0`` said "should be an integer >= 1 or one of ('auto',)" where
    ``-k bogus`` said "should be 'auto' or an integer >= 1": one text, the library's."""
    from kgroups import KernelKGroups

    with pytest.raises(ValueError) as library:
        KernelKGroups(n_clusters=0).fit(np.zeros((4, 2)))
    expected = str(library.value).split(" should be ")[1]
    err = _fails_cleanly(capsys, ["cluster", good_csv, "-k", value], "argument -k/--n-clusters")
    assert f" should be {expected}" in err and "(" not in expected


@settings(max_examples=15, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(-10**6, 0))
def test_any_n_init_below_one_names_the_option_and_value(good_csv, capsys, n):
    _fails_cleanly(capsys, ["cluster", good_csv, "-k", "2", "--n-init", str(n)],
                   "argument --n-init", f"{n} should be")


# --------------------------------------------------------------------------- files
BAD_FILES = [
    ("empty", b"", [], ["the file is empty"]),
    ("blank lines", b"\n  \n\n", [], ["the file is empty"]),
    ("header only", b"x,y\n", [], ["header", "no data rows"]),
    ("short row", b"1,2\n3,4\n5\n", [], ["line 3", "1 fields, expected 2"]),
    ("long row", b"x,y\n1,2\n3,4,5\n", [], ["line 3", "3 fields, expected 2"]),
    ("non-numeric", b"x,y\n1,2\n3,abc\n", [], ["line 3", "column 2 ('y')", "'abc'"]),
    ("non-numeric no header", b"1,2\n3,4\nfoo,6\n", [], ["line 3", "column 1", "'foo'"]),
    ("nan cell", b"1,2\n3,nan\n", [], ["line 2", "column 2", "'nan'", "finite"]),
    ("inf cell", b"1,2\n-inf,4\n", [], ["line 2", "column 1", "'-inf'", "finite"]),
    ("overflowing cell", b"1,2\n1e999,4\n", [], ["line 2", "column 1", "'1e999'"]),
    ("NUL bytes", b"1,2\n3,\x004\n", [], ["NUL byte"]),
    ("binary (PNG)", b"\x89PNG\r\n\x1a\n" + bytes(range(256)), [], ["NUL byte"]),
    ("latin-1", "x,\u00e9t\u00e9\n1,2\n".encode("latin-1"), [], ["not UTF-8", "0xe9"]),
    ("label name missing", b"x,y,c\n1,2,a\n3,4,b\n", ["--label-column", "class"],
     ["argument --label-column", "'class'", "x, y, c"]),
    ("label column 0", b"1,2,0\n3,4,1\n", ["--label-column", "0"],
     ["argument --label-column", "no column 0", "3 columns", "counted from 1"]),
    ("label column 4 of 3", b"1,2,0\n3,4,1\n", ["--label-column", "4"],
     ["argument --label-column", "no column 4", "3 columns"]),
    ("label column -4 of 3", b"1,2,0\n3,4,1\n", ["--label-column", "-4"],
     ["argument --label-column", "no column -4"]),
    ("label name, no header", b"1,2,0\n3,4,1\n", ["--label-column", "class"],
     ["argument --label-column", "'class'", "no header"]),
    ("duplicate column names", b"x,c,c\n1,2,0\n3,4,1\n", ["--label-column", "c"],
     ["argument --label-column", "2 columns named 'c'"]),
    ("weights name missing", b"x,y\n1,2\n3,4\n", ["--weights", "w"],
     ["argument --weights", "'w'"]),
    ("negative weight", b"x,w\n1,2\n3,-4\n", ["--weights", "w"],
     ["line 3", "column 2 ('w')", "'-4'", "--weights"]),
    ("every weight zero", b"x,w\n1,0\n3,0.0\n", ["--weights", "2"],
     ["every --weights value", "column 2", "is 0", "positive weight"]),
    ("text weight", b"x,w\n1,2\n3,heavy\n", ["--weights", "w"],
     ["line 3", "column 2 ('w')", "'heavy'"]),
    ("weights = labels", b"x,w\n1,2\n3,4\n", ["--weights", "w", "--label-column", "-1"],
     ["--weights and --label-column", "column 2"]),
    ("no features left", b"x,c\n1,a\n3,b\n", ["--weights", "1", "--label-column", "2"],
     ["no feature columns"]),
    ("bad field size", b'1,"' + b"9" * 200_000 + b'"\n', [], ["line 1", "field larger"]),
    ("damaged gzip", b"\x1f\x8b" + b"not gzip at all", [], ["gzip", "does not decompress"]),
    ("truncated gzip", gzip.compress(b"1,2\n3,4\n" * 100)[:30], [], ["does not decompress"]),
    ("gzip of a binary file", gzip.compress(b"\x89PNG\r\n\x1a\n\x00\x00"), [], ["NUL byte"]),
    ("gzip of latin-1", gzip.compress("x,\u00e9\n1,2\n".encode("latin-1")), [],
     ["not UTF-8", "0xe9"]),
]


@pytest.mark.parametrize("name, content, extra, fragments", BAD_FILES,
                         ids=[case[0] for case in BAD_FILES])
def test_bad_files(tmp_path, capsys, name, content, extra, fragments):
    path = tmp_path / "input.csv"
    path.write_bytes(content)
    _fails_cleanly(capsys, ["cluster", str(path), "-k", "1", *extra], str(path), *fragments)


def test_missing_file(tmp_path, capsys):
    path = tmp_path / "nope.csv"
    _fails_cleanly(capsys, ["cluster", str(path), "-k", "1"], f"{path}: no such file")


def test_directory_as_file(tmp_path, capsys):
    _fails_cleanly(capsys, ["cluster", str(tmp_path), "-k", "1"], f"{tmp_path}: is a directory")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_unreadable_file(tmp_path, capsys):
    path = tmp_path / "secret.csv"
    path.write_text("1,2\n")
    path.chmod(0)
    _fails_cleanly(capsys, ["cluster", str(path), "-k", "1"], str(path), "ermission denied")


# --------------------------------------------------------------------------- outputs
def test_out_in_a_missing_folder(good_csv, tmp_path, capsys):
    out = tmp_path / "missing" / "labels.csv"
    _fails_cleanly(capsys, ["cluster", good_csv, "-k", "2", "-o", str(out)],
                   "argument --out", str(out), "No such file or directory")


def test_out_is_a_directory(good_csv, tmp_path, capsys):
    _fails_cleanly(capsys, ["cluster", good_csv, "-k", "2", "--out", str(tmp_path)],
                   "argument --out", f"{tmp_path}: is a directory")


def test_out_under_a_regular_file(good_csv, tmp_path, capsys):
    out = os.path.join(good_csv, "labels.csv")
    _fails_cleanly(capsys, ["cluster", good_csv, "-k", "2", "-o", out],
                   "argument --out", out)


def test_out_is_the_input_file(good_csv, capsys):
    before = open(good_csv).read()
    _fails_cleanly(capsys, ["cluster", good_csv, "-k", "2", "-o", good_csv],
                   "argument --out", "is the input file")
    assert open(good_csv).read() == before


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes files whatever their mode")
def test_out_in_a_read_only_folder(good_csv, tmp_path, capsys):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    _fails_cleanly(capsys, ["cluster", good_csv, "-k", "2", "-o", str(ro / "l.csv")],
                   "argument --out", "ermission denied")


# --------------------------------------------------------------------------- demo, reproduce
@pytest.mark.parametrize("argv, fragments", [
    (["demo", "--n-init", "0"], ["argument --n-init", "0"]),
    (["demo", "--seed", "-1"], ["argument --seed", "-1"]),
    (["demo", "--n-init", "x"], ["argument --n-init", "'x'"]),
    (["reproduce", "tpami-table1", "--trials", "0"], ["argument --trials", "0"]),
    (["reproduce", "tpami-table1", "--trials", "-5"], ["argument --trials", "-5"]),
    (["reproduce", "tpami-table1", "--seed", "-2"], ["argument --seed", "-2"]),
    (["reproduce", "no-such-table"], ["'no-such-table'", "tpami-table1"]),
    (["reproduce"], ["name"]),
])
def test_bad_demo_and_reproduce_options(tmp_path, capsys, argv, fragments):
    _fails_cleanly(capsys, argv + ["--out", str(tmp_path / "o")], *fragments,
                   command=argv[0])
    assert not (tmp_path / "o").exists()  # nothing created before the options are good


@pytest.mark.parametrize("command", [["demo"], ["reproduce", "tpami-table1", "--quick"]])
def test_demo_and_reproduce_out_is_a_file(tmp_path, capsys, command):
    blocker = tmp_path / "file"
    blocker.write_text("")
    _fails_cleanly(capsys, command + ["--out", str(blocker)], "argument --out", str(blocker),
                   "not a directory", command=command[0])
    _fails_cleanly(capsys, command + ["--out", str(blocker / "sub")], "argument --out",
                   str(blocker / "sub"), command=command[0])


# --------------------------------------------------------------------------- fuzz
CELLS = st.text(alphabet="0123456789.-+eE,;\t \n\"abnif", max_size=80)


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(CELLS)
def test_any_small_text_file_gives_a_result_or_one_clear_line(tmp_path, capsys, text):
    path = tmp_path / "fuzz.csv"
    path.write_text(text)
    rc = main(["cluster", str(path), "-k", "1"])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    if rc == 0:
        assert "cluster sizes: " in out
        assert not [line for line in err.splitlines() if "error" in line]
    else:
        assert rc == 2 and err.count("\n") == 1, err
        assert err.startswith(f"kgroups cluster: error: {path}") or "argument -k" in err, err


@pytest.mark.parametrize("argv", [["demo", "--out", "{tmp}"], ["reproduce", "tpami-fig4", "--quick",
                                                               "--out", "{tmp}"]])
def test_missing_plot_extra_is_reported_before_any_work(tmp_path, capsys, monkeypatch, argv):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "matplotlib" else real(name, *a))
    argv = [a.format(tmp=tmp_path / "out") for a in argv]
    _fails_cleanly(capsys, argv, "the plot extra", command=argv[0])
    assert not list((tmp_path / "out").glob("*.md"))  # nothing was computed
