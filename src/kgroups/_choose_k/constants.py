"""Every constant that changes an answer of the choice of k (:data:`CONSTANTS`): its
value, what it does, its source (a study of ``benchmarks/``) and the half of the
batteries it was decided on (``bench_choice.py`` splits every battery by a fixed hash
of each set's name). The user guide's table of constants is rendered from it."""

from __future__ import annotations

from typing import NamedTuple


class Constant(NamedTuple):
    """One constant of the choice of k."""

    value: float
    meaning: str
    source: str
    decided_on: str


C = Constant
DEV = "the development half (bench_choice.py)"
ALL = "every battery of its study, before the halves (the study at commit b3fd664)"
CONSTANTS = {
    "STRUCTURE_ALPHA": C(0.01, "family-wise level of step 1's two dip tests (reused untuned for "
        "the multimodal axes' dips, the F test of equal column variances and that of a code's "
        "relation to the other columns)", "bench_choose_k.py:"
        " the radial dip below 0.01 on none of 320 draws of 8 settings without structure", ALL),
    "STRUCTURE_Z": C(3.5, "standard errors of the gain over one cluster, against uniform "
        "references, that show structure", "bench_choose_k.py: the largest of four such "
        "t-statistics passes 3 on 4 %, 3.5 on 1 % of uniform rectangles", ALL),
    "STRUCTURE_KMAX": C(5, "the largest k the references are fitted at", "bench_choose_k.py: past "
        "5 the references' W falls more slowly than that of data of low intrinsic dimension", ALL),
    "STRUCTURE_MAX_N": C(500, "rows of X the reference test uses at most",
        "bench_choose_k_batteries.py --timing (issue 42)", ALL),
    "STRUCTURE_SAMPLES": C(3, "disjoint samples of STRUCTURE_MAX_N rows whose median gain the "
        "reference test reads", "bench_choice.py: one sample's gain moved by up to 20 standard "
        "errors on tables of 2,000-4,600 rows; the median of three keeps the level", DEV),
    "N_REFS": C(10, "reference samples of the structure test", "Tibshirani, Walther & Hastie 2001, "
        "section 4", "the literature"),
    "SCAN_MIN": C(10, "the silhouette is followed at least to this k", "bench_choice_rules.py: "
        "the development half's best, with 12; 6 and 8 lose tables", DEV),
    "SCAN_FACTOR": C(2, "and to this many times its best k so far", "design: past it a partition "
        "splits every cluster", "design"),
    "SILHOUETTE_SE": C(0.5, "step 2 answers the smallest k within this many standard errors of the "
        "largest mean silhouette", "bench_choice_rules.py: alike from 0.25 to 1; 0 loses a shape, "
        "2 the tables' mean ARI; the middle of that range", DEV),
    "SPLIT_ALPHA": C(0.05, "family-wise level of the split tests of a partition, reused untuned "
        "by the arbiter's dip and split tests and energy's tiles (step 4)",
        "bench_choice_rules.py, 0.001 to 0.2: tables prefer 0.05, shapes 0.05 and 0.1 alike; "
        "bench_split_level.py: no false split below 0.05 on 8 unimodal clouds", DEV),
    "SILHOUETTE_KEEP": C(0.7, "the split walk goes on while the partitions keep this share of the "
        "silhouette", "bench_choice_rules.py: the development half's best of 0.5 to 0.9 on "
        "tables and shapes", DEV),
    "GROUP_HALVINGS": C(3, "random halvings of energy's split test of the graph's groups, "
        "aggregated as twice their median p-value (Meinshausen, Meier & Buehlmann 2009)",
        "bench_outside.py: with one, a sparse zigzag of the curve draws rejected on one draw "
        "and kept energy's tiles (curve draws 0.842, the graph's 0.854); three: 0.861", DEV),
    "SPLIT_N_INIT": C(3, "starts of the 2-cluster fit of half a cluster that draws the other "
        "half's line", "design: the line, not the fit, is tested", "design"),
    "SPLIT_MIN": C(20, "clusters of fewer points are not split-tested", "design: each half holds "
        "10", "design"),
    "PRECISION_STEP": C(1.0, "the dips spread a column's repeated values over its rounding cells "
        "where its median step is at most this many standard deviations", "design: codes of a "
        "few levels keep their atoms unless unrelated to the rest; bench_null.py, rounded data",
        "design"),
    "COMPONENT_FLOOR": C(0.2, "a zero eigenvalue (a component) counts as this share of the "
        "smallest above zero", "bench_nothing_given.py (issue 47): 0.02-0.3; the least that keeps "
        "a curve whole", ALL),
    "CUT_RATIO": C(1.0, "the graph wins where its groups cut below this times the energy partition "
        "of as many clusters", "bench_choice.py, arbiter table: 0.3 to 1.5; at the true k 0.7 and "
        "1.0 tie", DEV),
    "NO_STRUCTURE_RATIO": C(0.5, "without structure for energy, the graph's groups that are not "
        "components must cut below this times energy's", "bench_semimetric.py (issue 40)", ALL),
    "WITHIN": C(0.95, "share of the energy clusters' weight within the graph's groups that nests "
        "them (reused untuned the other way, rule 3's mirror, and for tiles, step 4)",
        "bench_choice.py, arbiter table: 0.9, 0.95", DEV),
    "BALANCE": C(0.35, "the graph sets a small part apart where its smallest group of more than "
        "n_neighbors + 1 rows holds less than this over its number of groups", "bench_arbiter.py: "
        "tables 0.25 < 0.35 = 0.5, shapes and sets 0.35 = 0.5; the smaller of the tie", DEV),
    "AGREE": C(0.95, "the energy partition of the graph's number of groups is those groups where "
        "their adjusted Rand index reaches this", "bench_arbiter.py: shapes and sets alike from "
        "0.9 to 0.99 and lower without it, tables lower at 0.9", DEV),
    "CLEAN_CUT": C(0.02, "the normalised cut below which the graph's groups are cleanly cut "
        "(energy's clusters nested in groups that are not are kept, and are not tiles)",
        "bench_arbiter.py: tables 0.374 -> 0.381 from 0.011 to 0.045, shapes and sets alike; the "
        "middle of that range", DEV),
    "UNITS_RATIO": C(10, "the split walk goes on in X standardized within clusters where the "
        "columns' spreads within X's answer's clusters differ by this factor (and beyond sampling "
        "error): units, not shapes", "the development half (a scratch comparison of every set's "
        "answer): with the F test alone, zigzags and rings of the curve draws were cut (nothing "
        "given 0.860 -> 0.848); at 10 one table moved (shuttle 0.39 -> 0.36); the synthetic "
        "sets with a column x 100, 0.40 -> 0.76 (bench_mixed_units.py)", DEV),
    "CHOICE_STARTS": C(5, "starts per k of n_clusters='auto' when n_init='auto' (the fit of the "
        "chosen k runs the estimator's own)", "design: the choice fits every k of its range",
        "design"),
    "SAMPLE_N": C(5000, "rows of the uniform sample the choice runs on past it",
        "bench_nothing_given.py --scale (issue 47): the time per set", "design"),
    "SAMPLES": C(3, "past SAMPLE_N, disjoint samples of SAMPLE_N rows each chosen on; the answer "
        "of most is kept", "bench_sample_stability.py --votes 25: the most common answer's share "
        "from one sample to three, noisy moons 0.92 -> 0.99, five blobs 0.80 -> 0.92",
        "design: synthetic draws (the halves' sets have at most 5,000 rows)"),
    "AUTO_SAMPLE_N": C(20000, "semimetric='auto' at a given k: rows up to which the energy "
        "candidate is fitted on every row", "bench_neighbors_scale.py --auto: past it a sample "
        "keeps make_moons(10^6) near the graph candidate's time", "design"),
    "AUTO_SAMPLE_ROWS": C(2000, "semimetric='auto' at a given k: rows of the energy candidate's "
        "sample past AUTO_SAMPLE_N", "bench_neighbors_scale.py --auto", "design"),
    "ROWS_PER_CLUSTER": C(200, "semimetric='auto' at a given k: sample rows per cluster when that "
        "is more", "bench_neighbors_scale.py --auto", "design"),
    "K_MAX": C(15, "the largest k of the default range of choose_k and n_clusters='auto'",
        "bench_outside.py: at 10 nothing given lost the outside development half's chainlink "
        "and tables of 10 to 15 classes (pen digits 0.67 -> 0.36)", DEV),
}


def value(name):
    """The value of constant ``name`` (``value("STRUCTURE_ALPHA")``: 0.01)."""
    return CONSTANTS[name].value


# Each constant is also a name of this module: ``from .constants import SPLIT_ALPHA``.
globals().update({name: c.value for name, c in CONSTANTS.items()})
