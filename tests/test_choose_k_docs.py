"""The user guide's prose names the constants of the choice of k by their values
(``choosing_k.rst``, ``nothing_given.rst``); the table of constants is rendered from
``kgroups._choose_k.constants``, and this test holds the prose to the same record:
change a constant and the sentence that states it fails here until it is rewritten."""

import pathlib

import pytest

from kgroups._choose_k.constants import CONSTANTS, value

GUIDE = pathlib.Path(__file__).resolve().parents[1] / "docs" / "user_guide"
WORDS = {0.2: "a fifth", 0.5: "half", 2: "twice", 3: "three"}


def _text(name):
    return " ".join((GUIDE / name).read_text().split())


# constant -> (page, the sentence's words as the value makes them)
PROSE = {
    "STRUCTURE_ALPHA": ("choosing_k.rst", lambda v: f"at level {v / 2:g} each"),
    "STRUCTURE_Z": ("choosing_k.rst", lambda v: f"is above {v:g} standard errors"),
    "STRUCTURE_KMAX": ("choosing_k.rst", lambda v: f"the fits of k = 2..{v:g}"),
    "STRUCTURE_MAX_N": ("choosing_k.rst", lambda v: f"or past {v:g} rows on up to"),
    "STRUCTURE_SAMPLES": ("choosing_k.rst", lambda v: f"up to {WORDS[v]} disjoint samples"),
    "SCAN_MIN": ("choosing_k.rst", lambda v: f"and at least {v:g}."),
    "SCAN_FACTOR": ("choosing_k.rst", lambda v: f"until k reaches {WORDS[v]} its best k"),
    "SILHOUETTE_SE": ("choosing_k.rst", lambda v: f"within {WORDS[v]} a standard error"),
    "SPLIT_ALPHA": ("choosing_k.rst", lambda v: f"(at level {v:g}, Bonferroni"),
    "SILHOUETTE_KEEP": ("choosing_k.rst", lambda v: f"keeps {v:g} of the silhouette"),
    "COMPONENT_FLOOR": ("choosing_k.rst", lambda v: f"a zero counts as {WORDS[v]} of"),
    "PRECISION_STEP": ("choosing_k.rst", lambda v: f"is at most {v:g} standard deviation"),
    "UNITS_RATIO": ("choosing_k.rst", lambda v: f"differ by a factor of {v:g} at least"),
    "NO_STRUCTURE_RATIO": ("nothing_given.rst",
                           lambda v: f"must cut below {WORDS[v]} the normalised cut"),
    "WITHIN": ("nothing_given.rst", lambda v: f"({100 * v:g}% of the weight)"),
    "BALANCE": ("nothing_given.rst", lambda v: f"(:math:`{v:g} / k_g` of the weight)"),
    "AGREE": ("nothing_given.rst", lambda v: f"(adjusted Rand index at least {v:g})"),
    "SAMPLE_N": ("nothing_given.rst", lambda v: f"uniform sample of {v:,} rows"),
}


@pytest.mark.parametrize("name", sorted(PROSE))
def test_the_guide_states_each_constant_as_the_code_has_it(name):
    page, words = PROSE[name]
    assert words(value(name)) in _text(page), (name, words(value(name)))


def test_the_arbiter_s_dip_level_is_the_split_test_s_as_the_code_has_it():
    """Rules 1 and 3's dip tests of groups and of clusters within groups are stated at
    SPLIT_ALPHA on both pages."""
    v = value("SPLIT_ALPHA")
    assert f"the split test's level {v:g}:" in _text("choosing_k.rst")
    assert f"(p below {v:g})" in _text("nothing_given.rst")
    assert f"the dip test of each at half the split test's level {v:g})" in _text(
        "choosing_k.rst")                   # rule 1: two views, Bonferroni
    assert f"(a gap; the dip test of each at level {v / 2:g}, {v:g} for the two)" in _text(
        "nothing_given.rst")


def test_the_arbiter_s_clean_cut_is_stated_on_both_pages():
    """Rule 3's groups not cleanly cut: CLEAN_CUT in the prose of both pages."""
    v = value("CLEAN_CUT")
    assert f"normalised cut at least {v:g}:" in _text("choosing_k.rst")
    assert f"a normalised cut of {v:g} or more" in _text("nothing_given.rst")


def test_the_arbiter_s_cut_ratio_is_stated_as_the_code_has_it():
    """CUT_RATIO = 1: "below the normalised cut" (a ratio other than 1 needs words)."""
    assert value("CUT_RATIO") == 1.0
    assert "the graph when its groups cut below the normalised cut of the energy " \
        "partition" in _text("choosing_k.rst")


def test_every_constant_has_its_source_and_half():
    for name, c in CONSTANTS.items():
        assert c.meaning and c.source and c.decided_on, name


@pytest.mark.parametrize("name", ["AUTO_SAMPLE_N", "AUTO_SAMPLE_ROWS", "ROWS_PER_CLUSTER"])
def test_the_record_holds_the_values_kept_with_semimetric_auto(name):
    """semimetric="auto" at a given k (kgroups._choose_k.at_k) reads its sample's sizes
    from the record."""
    import kgroups._choose_k.at_k as auto_fit
    assert value(name) == getattr(auto_fit, name)


# The widest line a code block of the documentation's theme shows without a scroll bar,
# in characters (its article column at the default font size holds about 80).
CODE_WIDTH = 72


def test_the_first_code_block_fits_the_page_width():
    """Issue 93 (7): the comments of the page's first code block ran past the page's
    width (up to 78 characters) and were clipped."""
    text = (GUIDE / "choosing_k.rst").read_text()
    block = text.split("::\n\n", 1)[1].split("\n\n``", 1)[0]
    lines = [line[4:] for line in block.splitlines() if line.strip()]
    assert lines[0] == "from kgroups import choose_k" and "r.plot()" in block
    assert max(len(line) for line in lines) <= CODE_WIDTH, max(lines, key=len)


def test_the_curves_of_the_choice_have_whole_numbers_on_the_k_axis():
    """Issue 93 (7): the page's figure (ChooseKResult.plot, also kgroups choose-k --plot)
    marked k = 1.5, 2.5, ... on a range of a few k."""
    import matplotlib
    import numpy as np

    matplotlib.use("Agg")
    from kgroups._choose_k.result import ChooseKResult

    for ks in ([1, 2, 3], [2, 3, 4, 5, 6, 7]):
        r = ChooseKResult(2, "silhouette", np.array(ks), silhouette=np.linspace(0.1, 0.6, len(ks)))
        ax = r.plot()
        ticks = [t for t in ax.get_xticks() if ks[0] <= t <= ks[-1]]
        assert ticks and all(t == round(t) for t in ticks), ticks
        ax.figure.clf()
