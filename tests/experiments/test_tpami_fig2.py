"""TPAMI Fig. 2 (``tpami_fig2``): quick run."""

from kgroups.experiments import tpami_fig2

from tests._helpers import assert_png


def test_fig2_quick(tmp_path):
    md = tpami_fig2.run(tmp_path, quick=True, trials=2)
    assert (tmp_path / "tpami-fig2.md").exists()
    assert "0.851" in md and "0.870" in md  # the caption's values are printed
    assert_png(tmp_path / "fig2_densities.png")
