"""TPAMI Fig. 4 (``tpami_fig4``): three graphs drawn (the session's quick reproduction,
``conftest.py``)."""

import pytest

from kgroups.experiments import tpami_fig4

from tests._helpers import assert_png


def test_fig4_draws_three_graphs(quick_reproduction):
    md = quick_reproduction.report("tpami-fig4")
    assert_png(quick_reproduction.out / tpami_fig4.FILE)
    rows = [line for line in md.splitlines() if line.startswith("| (")]
    assert len(rows) == 3
    overlap_35 = float(rows[2].split("|")[3])
    assert overlap_35 == pytest.approx(1.0, abs=0.02)
    assert rows[2].split("|")[6].strip() in ("0 / 128", "1 / 128")
