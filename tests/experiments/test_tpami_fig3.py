"""TPAMI Fig. 3 (``tpami_fig3``): quick run, every panel."""

from kgroups.experiments import tpami_fig3

from tests._helpers import assert_png


def test_fig3_quick_writes_every_panel(tmp_path):
    md = tpami_fig3.run(tmp_path, quick=True, trials=2)
    assert (tmp_path / "tpami-fig3.md").exists()
    for panel in "abcdef":
        assert f"## ({panel})" in md
        assert_png(tmp_path / f"fig3{panel}.png")
    assert_png(tmp_path / "fig3.png")
