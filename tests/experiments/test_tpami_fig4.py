"""TPAMI Fig. 4 (``tpami_fig4``): three graphs drawn."""

import pytest

from kgroups.experiments import tpami_fig4

from tests._helpers import assert_png, read_report


def test_fig4_draws_three_graphs(tmp_path):
    text = tpami_fig4.run(str(tmp_path), quick=True, seed=0)
    md = read_report(tmp_path, "tpami-fig4", text)
    assert_png(tmp_path / tpami_fig4.FILE)
    rows = [line for line in md.splitlines() if line.startswith("| (")]
    assert len(rows) == 3
    overlap_35 = float(rows[2].split("|")[3])
    assert overlap_35 == pytest.approx(1.0, abs=0.02)
    assert rows[2].split("|")[6].strip() in ("0 / 128", "1 / 128")
