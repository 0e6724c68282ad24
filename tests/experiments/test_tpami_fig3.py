"""TPAMI Fig. 3 (``tpami_fig3``): quick run, every panel (the session's quick
reproduction, ``conftest.py``)."""

from tests._helpers import assert_png


def test_fig3_quick_writes_every_panel(quick_reproduction):
    md = quick_reproduction.report("tpami-fig3")
    for panel in "abcdef":
        assert f"## ({panel})" in md
        assert_png(quick_reproduction.out / f"fig3{panel}.png")
    assert_png(quick_reproduction.out / "fig3.png")
