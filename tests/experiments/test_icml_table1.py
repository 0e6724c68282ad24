"""ICML Table 1 (``icml_table1``): every printed value (the session's quick reproduction,
``conftest.py``)."""


def test_table1_reports_every_printed_paper_value(quick_reproduction):
    text = quick_reproduction.report("icml-table1")
    printed = ("0.705 ± 0.065", "0.9987 ± 0.0008", "1.0 ± 0.0", "0.676 ± 0.002",
               "0.465 ± 0.03")
    for value in printed:
        assert value in text
