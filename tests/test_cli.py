"""The ``kgroups`` command line."""

import numpy as np
import pytest

from kgroups.cli import load_table, main


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


def test_cluster_prints_summary_and_writes_labels(blobs_csv, tmp_path, capsys):
    out = tmp_path / "labels.csv"
    rc = main(["cluster", str(blobs_csv), "-k", "3", "--weights", "weight",
               "--label-column", "class", "--alpha", "0.5", "-o", str(out)])
    text = capsys.readouterr().out
    assert rc == 0
    assert "cluster sizes: " in text and "W (within energy)" in text and "sweeps" in text
    assert "accuracy: 1.0000" in text
    labels = np.loadtxt(out, skiprows=1, dtype=int)
    assert sorted(np.bincount(labels).tolist()) == [30, 30, 30]


def test_load_table_columns_by_index_without_header(tmp_path):
    path = tmp_path / "plain.csv"
    path.write_text("1,2,0\n3,4,1\n5,6,1\n")
    X, w, y = load_table(str(path), label_column="-1")
    assert X.tolist() == [[1, 2], [3, 4], [5, 6]] and w is None and y.tolist() == [0, 1, 1]


@pytest.mark.parametrize(
    "content, match",
    [
        ("", "the file is empty"),
        ("a,b\n", "header but no data rows"),
        ("1,2\n3,x\n", r"line 2, column 2: 'x' is not a number"),
        ("1,2\n3\n", "line 2: 1 fields, expected 2"),
        ("1,2\n3,nan\n", "line 2, column 2: nan is not finite"),
    ],
)
def test_bad_files_give_clear_errors(tmp_path, capsys, content, match):
    path = tmp_path / "bad.csv"
    path.write_text(content)
    assert main(["cluster", str(path), "-k", "2"]) == 2
    err = capsys.readouterr().err
    assert "kgroups: error:" in err
    import re

    assert re.search(match, err), err


def test_missing_file_and_bad_k(tmp_path, blobs_csv, capsys):
    assert main(["cluster", str(tmp_path / "nope.csv"), "-k", "2"]) == 2
    assert "no such file" in capsys.readouterr().err
    assert main(["cluster", str(blobs_csv), "-k", "500", "--label-column", "class",
                 "--weights", "weight"]) == 2
    assert "n_samples=90 should be >= n_clusters=500" in capsys.readouterr().err


def test_demo_writes_table_and_heatmap(tmp_path, capsys):
    assert main(["demo", "--out", str(tmp_path), "--n-init", "5"]) == 0
    text = capsys.readouterr().out
    assert (tmp_path / "fig6_dermatology_heatmap.png").stat().st_size > 10_000
    row = next(line for line in text.splitlines() if line.startswith("| kernel k-groups"))
    accuracy = float(row.split("|")[2])
    assert accuracy >= 0.95  # paper: 0.962
