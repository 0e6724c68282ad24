"""TPAMI Table VI (``tpami_table6``): without data, and on a SNAP-style file."""

import numpy as np
import pytest

from kgroups.experiments import tpami_table6
from kgroups.graph import stochastic_block_model

from tests._helpers import assert_png, read_report


def test_table6_bundled_file_and_bad_override(tmp_path, monkeypatch):
    # The bundled copy is the SNAP file (5,242 nodes, 14,484 edges without the 12
    # self-loops); a KGROUPS_GRQC path that is not a file gives a report saying so.
    from kgroups.graph import GraphInputWarning, read_graph

    with pytest.warns(GraphInputWarning, match="12 self-loops were removed"):
        g = read_graph(str(tpami_table6.BUNDLED))
    assert (g.n_nodes, g.n_edges) == (5242, 14484)
    monkeypatch.setenv(tpami_table6.ENV, str(tmp_path / "missing.txt"))
    text = tpami_table6.run(str(tmp_path), quick=True)
    md = read_report(tmp_path, "tpami-table6", text)
    assert "is not a file" in md and "| k-groups | 0.86 | 0.81 | 0.55 |" in md
    assert not (tmp_path / tpami_table6.FIG).exists()


def _snap_file(tmp_path):
    A, _ = stochastic_block_model(300, 3, 10.0, 2.5, random_state=np.random.default_rng(5))
    r, c = A.nonzero()
    lines = ["# Directed graph (each unordered pair of nodes is saved twice)",
             "# FromNodeId\tToNodeId"]
    lines += [f"{a + 100}\t{b + 100}" for a, b in zip(r, c)]
    path = tmp_path / "ca-GrQc.txt"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_table6_runs_without_the_variable_on_the_bundled_path(tmp_path, monkeypatch):
    # Without KGROUPS_GRQC the bundled path is read (here pointed at a small file, to
    # keep the test fast: the real network takes about 80 s).
    monkeypatch.delenv(tpami_table6.ENV, raising=False)
    monkeypatch.setattr(tpami_table6, "BUNDLED", _snap_file(tmp_path))
    md = read_report(tmp_path, "tpami-table6", tpami_table6.run(str(tmp_path), quick=True))
    assert "(bundled)" in md and "300 nodes" in md


def test_table6_runs_on_a_snap_style_file(tmp_path, monkeypatch):
    A, _ = stochastic_block_model(300, 3, 10.0, 2.5, random_state=np.random.default_rng(5))
    r, c = A.nonzero()
    lines = ["# Directed graph (each unordered pair of nodes is saved twice)",
             "# FromNodeId\tToNodeId"]
    lines += [f"{a + 100}\t{b + 100}" for a, b in zip(r, c)]
    path = tmp_path / "ca-GrQc.txt"
    path.write_text("\n".join(lines) + "\n")
    monkeypatch.setenv(tpami_table6.ENV, str(path))
    text = tpami_table6.run(str(tmp_path), quick=True)
    md = read_report(tmp_path, "tpami-table6", text)
    assert_png(tmp_path / tpami_table6.FIG)
    assert "300 nodes" in md and "k estimated = 3" in md
    rows = [r.split("|") for r in md.splitlines() if r.startswith("| k-groups") or
            r.startswith("| Bethe") or r.startswith("| spectral")]
    assert len(rows) == 4
    for cells in rows:
        assert all(0 <= float(v) <= 1 for v in cells[2:5])
