"""TPAMI Table I (``tpami_table1``): quick run (the session's quick reproduction,
``conftest.py``) and the checks."""

import re

import numpy as np

from kgroups.experiments import _graphs, tpami_table1


def test_table1_quick_run_and_checks(quick_reproduction):
    md = quick_reproduction.report("tpami-table1")
    rows = [line for line in md.splitlines() if re.match(r"\| \d\.\d \|", line)]
    assert [float(r.split("|")[1]) for r in rows] == list(tpami_table1.QUICK_LAMBDAS)
    for row in rows:
        means = [float(c.split("±")[0]) for c in row.split("|")[2:5]]
        assert all(-0.1 <= m <= 1.0 for m in means)
    assert float(rows[-1].split("|")[3].split("±")[0]) >= 0.99  # lambda = 3.5: exact
    assert float(rows[0].split("|")[3].split("±")[0]) <= 0.4  # lambda = 0.6: noise
    assert "0.870 ± 0.074" in md and "0.489 ± 0.133" in md  # the paper's values beside
    # The checks, on results built by hand: the paper's own means pass, a shift fails.
    ones = np.ones(4)
    paper = {lam: {"Bethe": pb * ones, _graphs.KG1: pk * ones, _graphs.KGD: pk * ones}
             for lam, (pb, _, pk, _) in tpami_table1.PAPER.items()}
    assert all(ok for _, ok, _ in tpami_table1.checks(paper))
    shifted = {lam: {m: v - 0.05 * (m != "Bethe") for m, v in r.items()}
               for lam, r in paper.items()}
    assert not any(ok for _, ok, _ in tpami_table1.checks(shifted))
