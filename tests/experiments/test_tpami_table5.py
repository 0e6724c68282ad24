"""TPAMI Table V and Fig. 8a (``tpami_table5``): k estimated and cluster sizes (the
session's quick reproduction, ``conftest.py``)."""

from kgroups.experiments import _graphs

from tests._helpers import assert_png


def test_table5_k_estimated_sizes_and_fig8a(quick_reproduction):
    md = quick_reproduction.report("tpami-table5")
    for side in ("left", "right"):
        assert_png(quick_reproduction.out / f"fig8a_drosophila_{side}.png")
    default = [r.split("|") for r in md.splitlines() if f"| {_graphs.DEFAULT} |" in r]
    assert len(default) == 2
    for cells, paper_sizes in zip(default, ([116, 93], [112, 101])):
        assert cells[3].strip().startswith("2 ")  # k estimated = 2, as the paper
        assert cells[4].strip().startswith(str(paper_sizes))
        perf, cov, mod = (float(c) for c in cells[5:8])
        assert 0.6 <= perf <= 1 and 0.75 <= cov <= 1 and 0 <= mod <= 0.2
