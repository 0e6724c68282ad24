"""The Fig. 5 ablation (``tpami_fig5_ablation``): variants and the quick report (the
session's quick reproduction, ``conftest.py``)."""

import numpy as np

from kgroups.experiments import tpami_fig5_ablation

from tests._helpers import assert_png


def test_fig5_ablation_variants_coincide_on_a_connected_graph(monkeypatch):
    # Dense SBM (d = 14, n = 300): connected, no isolated node, so keeping isolated
    # nodes or moving only the giant component must change nothing, exactly.
    monkeypatch.setattr(tpami_fig5_ablation, "N", 300)
    monkeypatch.setattr(tpami_fig5_ablation, "D", 14.0)
    res = tpami_fig5_ablation.simulate([(3, 2.0)], 3, seed=2, progress=False)[(3, 2.0)]
    assert np.all(res["giant fraction"] == 1.0)
    for v in ("w = 1, isolated kept", "w = 1, giant only", tpami_fig5_ablation.GIANT):
        np.testing.assert_array_equal(res[v], res["w = 1"])
    assert np.all(res["moved"] < 0.5) and np.all(res["bethe"] > 0.5)


def test_fig5_ablation_quick_report(quick_reproduction):
    md = quick_reproduction.report("tpami-fig5-ablation")
    assert md.count("| 5 | 1.3 |") == 1 and "Read off the table" in md
    assert_png(quick_reproduction.out / "fig5_ablation.png")
