"""The studies the choice of k was decided on still run against the library as it is:
``benchmarks/bench_choice.py`` collects one small labelled set whole (its peers, the
energy and graph fits, the library's answers, the graph's eigengap, stability)."""

import importlib.util
import pathlib
import sys
from types import SimpleNamespace

import numpy as np

BENCH = pathlib.Path(__file__).resolve().parents[1] / "benchmarks"


def test_bench_choice_collects_a_set():
    sys.path.insert(0, str(BENCH))              # its helpers (_batteries) sit beside it
    try:
        spec = importlib.util.spec_from_file_location("bench_choice", BENCH / "bench_choice.py")
        bench = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(bench)
    finally:
        sys.path.remove(str(BENCH))
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(c, 0.3, (20, 2)) for c in ((0, 0), (4, 0), (0, 4))])
    d = SimpleNamespace(battery="test", name="three blobs", X=X, y=np.repeat([0, 1, 2], 20), k=3)
    rec = bench.collect_one(d)
    assert rec["new"]["joint"][0] == 3 and rec["k graph"] == 3
    assert max(rec["curve"].values()) == 1.0 and rec["curve"][3] == 1.0
    assert ("energy", 3) in rec["stability"]
