"""ICML Table 1 (``icml_table1``): every printed value."""

from kgroups.experiments import registry


def test_table1_reports_every_printed_paper_value(tmp_path):
    text = registry()["icml-table1"].run(str(tmp_path), trials=2, quick=True)
    printed = ("0.705 ± 0.065", "0.9987 ± 0.0008", "1.0 ± 0.0", "0.676 ± 0.002",
               "0.465 ± 0.03")
    for value in printed:
        assert value in text
