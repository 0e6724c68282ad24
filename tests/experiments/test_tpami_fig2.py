"""TPAMI Fig. 2 (``tpami_fig2``): quick run (the session's quick reproduction,
``conftest.py``)."""

from tests._helpers import assert_png


def test_fig2_quick(quick_reproduction):
    md = quick_reproduction.report("tpami-fig2")
    assert "0.851" in md and "0.870" in md  # the caption's values are printed
    assert_png(quick_reproduction.out / "fig2_densities.png")
