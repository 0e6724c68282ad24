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


DEV = "the development half (bench_choice.py)"
ALL = "every battery of its study, before the halves (the study at commit b3fd664)"
CONSTANTS = {
    "STRUCTURE_ALPHA": Constant(0.01, "family-wise level of step 1's two dip tests",
                                "bench_choose_k.py: the radial dip below 0.01 on none of 320 "
                                "draws of 8 settings without structure", ALL),
    "STRUCTURE_Z": Constant(3.5, "standard errors of the gain over one cluster, against "
                            "uniform references, that show structure",
                            "bench_choose_k.py: the largest of four such t-statistics "
                            "passes 3 on 4 %, 3.5 on 1 % of uniform rectangles", ALL),
    "STRUCTURE_KMAX": Constant(5, "the largest k the references are fitted at",
                               "bench_choose_k.py: past 5 the references' W falls more "
                               "slowly than that of data of low intrinsic dimension", ALL),
    "STRUCTURE_MAX_N": Constant(500, "rows of X the reference test uses at most",
                                "bench_choose_k_batteries.py --timing (issue 42)", ALL),
    "STRUCTURE_SAMPLES": Constant(3, "disjoint samples of STRUCTURE_MAX_N rows whose median "
                                  "gain the reference test reads, where X has the rows",
                                  "bench_choice.py: which sample was drawn moved the gain "
                                  "by up to 20 standard errors on tables of 2,000 to 4,600 "
                                  "rows; the median of three keeps the level (no structure "
                                  "on Gaussian, uniform, t3 or lognormal draws of 2,000)",
                                  DEV),
    "N_REFS": Constant(10, "reference samples of the structure test",
                       "Tibshirani, Walther & Hastie 2001, section 4", "the literature"),
    "SCAN_MIN": Constant(10, "the silhouette is followed at least to this k",
                         "bench_choose_k.py: the default range of the methods before", ALL),
    "SCAN_FACTOR": Constant(2, "and to this many times its best k so far",
                            "design: past it a partition splits every cluster", "design"),
    "SILHOUETTE_SE": Constant(0.5, "step 2 answers the smallest k within this many "
                              "standard errors of the largest mean silhouette",
                              "bench_choose_k_batteries.py (issue 42); bench_choice.py: it "
                              "decides none of the answers of 2 where the truth has more",
                              ALL),
    "SPLIT_ALPHA": Constant(0.05, "family-wise level of the split tests of a partition; "
                            "the arbiter's level for clusters within the graph's groups",
                            "bench_choice.py --library, development half: energy rule "
                            "tables 0.366 / 0.369 / 0.366 at 0.01 / 0.05 / 0.1, shapes and "
                            "sets 0.775 / 0.777 / 0.780; nothing given tables 0.409 / 0.412 "
                            "/ 0.409; the conventional level of the two, which the tables "
                            "prefer. bench_split_level.py: no false split below 0.05 on 8 "
                            "unimodal clouds (the dip test is conservative on them); "
                            "bench_arbiter.py: the arbiter's test alike at 0.001 to 0.05",
                            DEV),
    "SILHOUETTE_KEEP": Constant(0.7, "the split walk goes on while the partitions keep this "
                                "share of the silhouette", "bench_choose_k_batteries.py "
                                "(issue 42): finer levels keep 0.72-0.9, sub-modes of real "
                                "classes 0.4-0.6", ALL),
    "SPLIT_MIN": Constant(20, "clusters of fewer points are not split-tested",
                          "design: each half holds 10", "design"),
    "COMPONENT_FLOOR": Constant(0.2, "a zero eigenvalue (a component) counts as this share "
                                "of the smallest above zero", "bench_nothing_given.py "
                                "(issue 47): 0.02-0.3; the least that keeps a curve whole",
                                ALL),
    "CUT_RATIO": Constant(1.0, "the graph wins where its groups cut below this times the "
                          "energy partition of as many clusters", "bench_choice.py, arbiter "
                          "table: 0.3-1.5, and a rule for cuts near 0 (dropped: it split "
                          "sets whose cuts differ in the third decimal); at the true k 0.7 "
                          "and 1.0 tie", DEV),
    "NO_STRUCTURE_RATIO": Constant(0.5, "without structure for energy, the graph must cut "
                                   "below this times energy's", "bench_semimetric.py (issue "
                                   "40)", ALL),
    "WITHIN": Constant(0.95, "share of the energy clusters' weight within the graph's groups "
                       "that nests them", "bench_choice.py, arbiter table: 0.9, 0.95", DEV),
    "BALANCE": Constant(0.35, "the graph sets a small part apart where its smallest group "
                        "holds less than this over its number of groups",
                        "bench_arbiter.py, development half: tables 0.422 at 0.35 and 0.5, "
                        "0.418 at 0.25; shapes and sets 0.882 at 0.35 and 0.5 with the "
                        "test of clusters within groups; the smaller of the tie", DEV),
    "AGREE": Constant(0.95, "the energy partition of the graph's number of groups is those "
                      "groups where their adjusted Rand index reaches this",
                      "bench_arbiter.py, development half (72 draws): shapes and sets "
                      "0.860 without it, 0.864 at 0.9, 0.95 and 0.99; tables 0.422 at 0.95 "
                      "and 0.99, 0.415 at 0.9 (biopsy, breast cancer, oils)", DEV),
    "CHOICE_STARTS": Constant(5, "starts per k of n_clusters='auto' when n_init='auto' "
                              "(the fit of the chosen k runs the estimator's own)",
                              "design: the choice fits every k of its range", "design"),
    "SAMPLE_N": Constant(5000, "rows of the uniform sample the choice runs on past it",
                         "bench_nothing_given.py --scale (issue 47): the time per set",
                         "design"),
    "AUTO_SAMPLE_N": Constant(20_000, "semimetric='auto' at a given k: rows up to which the "
                              "energy candidate is fitted on every row",
                              "bench_neighbors_scale.py --auto: past it a sample keeps "
                              "make_moons(10^6) near the graph candidate's time", "design"),
    "AUTO_SAMPLE_ROWS": Constant(2000, "semimetric='auto' at a given k: rows of the energy "
                                 "candidate's sample past AUTO_SAMPLE_N",
                                 "bench_neighbors_scale.py --auto", "design"),
    "ROWS_PER_CLUSTER": Constant(200, "semimetric='auto' at a given k: sample rows per "
                                 "cluster when that is more", "bench_neighbors_scale.py "
                                 "--auto", "design"),
    "K_MAX": Constant(30, "the largest k n_clusters='auto' compares", "design: the rules "
                      "decide before it on every set of the batteries", "design"),
}


def value(name):
    """The value of constant ``name``.

    >>> value("STRUCTURE_ALPHA")
    0.01
    """
    return CONSTANTS[name].value
