"""scikit-learn's estimator checks in every documented setting of ``KernelKGroups``, not
only its defaults (issue 54): the choice of k validates X through the fit's own front
door, and ``semimetric="auto"`` takes the energy semimetric, saying why, where the
neighbourhood graph has too few distinct points to judge with."""

import numpy as np
import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from kgroups import KernelKGroups

from tests.test_base import EXPECTED_FAILED

SETTINGS = [
    KernelKGroups(n_clusters="auto", random_state=0),
    KernelKGroups(n_clusters=3, semimetric="auto", random_state=0),
    KernelKGroups(n_clusters="auto", semimetric="auto", random_state=0),
    KernelKGroups(n_clusters=3, semimetric="nearest_neighbors", random_state=0),
    KernelKGroups(n_clusters="auto", semimetric="nearest_neighbors", random_state=0),
    KernelKGroups(n_clusters=3, semimetric="gaussian", random_state=0),
    KernelKGroups(n_clusters=3, engine="matrix-free", random_state=0),
    KernelKGroups(n_clusters=3, engine="low-rank", random_state=0),
    KernelKGroups(n_clusters=3, engine="matrix-free", noise=0.1, random_state=0),
]


# n_clusters="auto" chooses on the distinct rows with their weights, so that repeated
# and weighted rows give one k (on the check's 15 points of 30 uniform columns: 1, a
# partition without names to differ); the fits of a given k keep EXPECTED_FAILED's cause.
@parametrize_with_checks(SETTINGS, expected_failed_checks=lambda est: (
    {} if est.n_clusters == "auto" else EXPECTED_FAILED))
def test_sklearn_compatible_in_every_setting(estimator, check):
    check(estimator)


def test_auto_keeps_energy_and_says_why_when_the_graph_has_too_few_points():
    X = np.repeat(np.array([[0.0, 0.0], [0.0, 1.0], [5.0, 5.0], [5.0, 6.0]]), 4, axis=0)
    est = KernelKGroups(2, semimetric="auto", random_state=0).fit(X)
    assert est.semimetric_ == "energy"
    assert est.semimetric_choice_.reasoning == (
        "arbiter: distinct rows of positive weight = 4 (threshold 11): 4 distinct row(s), "
        "not more than n_neighbors=10: too few for the neighbourhood graph: energy.")
    assert np.array_equal(est.labels_, KernelKGroups(2, random_state=0).fit(X).labels_)
