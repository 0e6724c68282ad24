"""TPAMI Fig. 5 (``tpami_fig5``): quick run (the session's quick reproduction,
``conftest.py``) and the checks."""

import re

import numpy as np

from kgroups.experiments import _graphs, tpami_fig5

from tests._helpers import assert_png


def test_fig5_quick_run_and_checks(quick_reproduction):
    md = quick_reproduction.report("tpami-fig5")
    assert_png(quick_reproduction.out / "fig5_sbm_overlap.png")
    assert_png(quick_reproduction.out / "fig5_sbm_overlap_k25.png")
    rows = [line for line in md.splitlines() if re.match(r"\| \d+ \| \d\.\d \|", line)]
    assert len(rows) == len(tpami_fig5.KS) * len(tpami_fig5.QUICK_LAMBDAS)
    for row in rows:
        means = [float(c.split("±")[0]) for c in row.split("|")[3:6]]
        assert all(-0.2 <= m <= 1.0 for m in means)
    # Hand-built results: gaps 0, .01, .05, .1 growing with k and Bethe decreasing pass.
    rng = np.random.default_rng(0)
    res = {}
    for k, gap, level in zip((2, 5, 15, 25), (0.0, 0.01, 0.05, 0.1), (0.9, 0.85, 0.8, 0.75)):
        b = level + 0.01 * rng.standard_normal(50)
        res[k] = {lam: {"Bethe": b, _graphs.KG1: b + gap, _graphs.KGD: b + gap}
                  for lam in (0.8, 1.5)}
    assert all(ok for _, ok, _ in tpami_fig5.checks(res))
    res[25][1.5] = {m: v - 0.2 * (m != "Bethe") for m, v in res[25][1.5].items()}
    assert not all(ok for _, ok, _ in tpami_fig5.checks(res))
