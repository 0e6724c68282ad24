"""The experiment registry (``kgroups.experiments``): every item is listed, the ICML and
arXiv items run quickly and write their report and figures, plotting is optional.

The quick runs are those of ``kgroups reproduce all --quick`` (the ``quick_reproduction``
fixture of ``conftest.py``: one run for the test session).
"""

import pytest

from kgroups.cli import main
from kgroups.experiments import registry


NAMES = {"tpami-table1", "tpami-fig4", "tpami-fig5", "tpami-fig5-ablation", "tpami-table4",
         "tpami-table5", "tpami-table6"}


def test_registry_lists_the_graph_items():
    assert NAMES <= set(registry())
    for name in NAMES:
        module = registry()[name]
        assert module.TITLE and module.PAPER and module.NAME == name


def test_registry_and_cli_list_the_four_items(capsys):
    names = {"tpami-fig1", "tpami-fig2", "tpami-fig3", "tpami-table3"}
    assert names <= set(registry())
    assert main(["reproduce", "list"]) == 0
    listed = capsys.readouterr().out
    assert all(name in listed for name in names)


PAPER_ITEMS = {
    "icml-fig1": ["icml_fig1.png"],
    "icml-fig2": ["icml_fig2.png"],
    "icml-fig3": ["icml_fig3.png"],
    "icml-table1": ["icml_fig4.png"],
    "icml-fig5": ["icml_fig5_standin.png"],
    "arxiv-fig-1d": ["arxiv_fig_1d.png"],
    "arxiv-fig-gauss": ["arxiv_fig_gauss.png"],
    "arxiv-fig-unbalanced": ["arxiv_fig_unbalanced.png"],
    "arxiv-fig-weird": ["arxiv_fig_weird.png"],
}


@pytest.mark.parametrize("name", sorted(PAPER_ITEMS))
def test_quick_run_writes_markdown_and_pngs(name, quick_reproduction):
    module = registry()[name]
    assert module.TITLE and module.PAPER
    text = quick_reproduction.report(name)  # the file, and what run() returned (printed)
    for png in PAPER_ITEMS[name]:
        data = (quick_reproduction.out / png).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5000
    assert "paper" in text.lower()


def test_require_plot_fails_up_front_naming_the_extra(monkeypatch):
    import sys

    from kgroups.experiments import require_plot

    require_plot()  # installed here: no error
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.delitem(sys.modules, "matplotlib.pyplot", raising=False)
    with pytest.raises(ModuleNotFoundError, match=r"the plot extra \(pip install '\.\[plot\]'"):
        require_plot()
