"""The Performance page: generated for users (a figure and a summary table at the top),
with no development log in it, and regenerated from any results folder."""

import csv
import importlib.util
import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_user_pages_hold_no_development_log():
    """No commit hashes, worktrees or load averages on the documentation's pages."""
    pattern = re.compile(r"commit [0-9a-f]{7}|worktree|load average", re.IGNORECASE)
    docs = ROOT / "docs"
    pages = sorted(docs.glob("*.rst")) + sorted(docs.glob("user_guide/*.rst"))
    found = [f"{p.name}:{i}" for p in pages
             for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
             if pattern.search(line)]
    assert found == []


def _fake_scaling(folder):
    rows = []
    for n, scale in ((1000, 1.0), (2000, 4.0)):
        rows += [["kgroups matrix-free", n, 0.01 * scale, 300, 100.0 * scale, 0.9, ""],
                 ["R energy::kgroups", n, 0.5 * scale, 80, 101.0 * scale, 0.85, ""],
                 ["sklearn-kmeans", n, 0.02 * scale, 120, 99.0 * scale, 1.0, ""]]
    with open(folder / "scaling.csv", "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["method", "n", "time_s", "peak_MB", "W", "ARI", "error"])
        writer.writerows(rows)


def test_figure_and_summary_regenerate_from_a_results_folder(tmp_path):
    pytest.importorskip("matplotlib")
    _fake_scaling(tmp_path)
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_scaling.py"),
                           "--plot-only", "--results", str(tmp_path), "--machine", "a test box"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert (tmp_path / "scaling.png").stat().st_size > 10_000
    page = tmp_path / "performance.rst"
    make = _load(ROOT / "docs" / "make_performance.py", "make_performance_under_test")
    assert make.main(["--results", str(tmp_path), "--out", str(page)]) == 0
    text = page.read_text(encoding="utf-8")
    head = text[:text.index("\nDetails\n")]
    assert ".. figure:: scaling.png" in head   # the figure first, then the summary
    assert head.index(".. figure::") < head.index("Summary\n-------")
    # the scaling run's largest n: kgroups against the fastest peer on the same problem
    row = head[head.index("* - blobs 2,000 x 10, k = 10, the scaling run"):].splitlines()[:6]
    assert [c.strip(" *-") for c in row[1:]] == [
        "kgroups matrix-free: 0.040\u00a0s", "R energy::kgroups: 2.00\u00a0s", "50x",
        "400 / 404", "0.900 / 0.850"]
    assert "not measured yet" in head   # the GPU row
    assert "is missing" in text         # the sections whose results this folder lacks


def test_gpu_goals_missed_with_their_factors():
    """The GPU section lists each goal its table marks missed with the factor it missed
    by (goal over rate, seconds over goal, or goal over ratio), and no goal met."""
    page = _load(ROOT / "docs" / "make_performance.py", "make_performance_gpu")
    table = "\n".join([
        "| target | size | goal | GPU | CPU (every core) | GPU / CPU | goal met |",
        "|---|---|---|---|---|---|---|",
        "| pass | n | ≥ 300 G pairs/s | 75.0 G pairs/s (1 s) | 2 G pairs/s | 37× | no |",
        "| fit | n | ≤ 20 s, no improving move left | 12.3 s, 3 sweeps |  |  | yes |",
        "| vs CPU | n | ≥ 20× the matrix-free engine, identical | 9 s | 18 s | 2.0× | no |",
        "| ed | n | ≤ 5 s | 20.00 s (51 G pairs/s) | 6 s | 194× (pairs/s) | no |"])
    lines = page.gpu_shortfalls(table)
    assert lines[2:-1] == [
        "* pass: 75.0 G pairs/s against ≥ 300 G pairs/s: **4.0×** short.",
        "* vs CPU: 2.0× the matrix-free engine against ≥ 20× the matrix-free engine: "
        "**10.0×** short.",
        "* ed: 20.00 s against ≤ 5 s: **4.0×** short."]
    assert page.gpu_shortfalls(table.replace("| no |", "| yes |")) == []
