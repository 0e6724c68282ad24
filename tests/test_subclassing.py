"""Parameter constraints live on each estimator class and are inherited: a subclass
of every public estimator fits (and predicts, where the estimator predicts), its
errors name the subclass, and it may extend the constraints."""

import networkx as nx
import numpy as np
import pytest

from kgroups import EnergyHierarchical, KernelKGroups, KernelKMeans
from kgroups.graph import CommunityKGroups

X = np.vstack([np.random.default_rng(0).normal(0, 1, (30, 2)),
               np.random.default_rng(1).normal(6, 1, (30, 2))])


@pytest.mark.parametrize("base", [KernelKGroups, KernelKMeans])
def test_subclass_fits_and_predicts(base):
    sub = type(f"My{base.__name__}", (base,), {})
    est = sub(2, random_state=0).fit(X)
    ref = base(2, random_state=0).fit(X)
    np.testing.assert_array_equal(est.labels_, ref.labels_)
    np.testing.assert_array_equal(est.predict(X[:5]), ref.predict(X[:5]))
    assert est.get_feature_names_out()[0] == f"my{base.__name__.lower()}0"
    with pytest.raises(ValueError, match=rf"My{base.__name__}: max_iter=0 should be"):
        sub(2, max_iter=0).fit(X)


def test_subclass_of_the_hierarchical_estimator():
    sub = type("MyHierarchy", (EnergyHierarchical,), {})
    np.testing.assert_array_equal(sub(2).fit_predict(X), EnergyHierarchical(2).fit_predict(X))
    with pytest.raises(ValueError, match="MyHierarchy: alpha=3"):
        sub(2, alpha=3).fit(X)


def test_subclass_of_the_community_estimator():
    sub = type("MyCommunities", (CommunityKGroups,), {})
    G = nx.karate_club_graph()
    got = sub(2, weight=None, random_state=0).fit(G).labels_
    np.testing.assert_array_equal(
        got, CommunityKGroups(2, weight=None, random_state=0).fit(G).labels_)
    with pytest.raises(ValueError, match="MyCommunities: n_init=0"):
        sub(2, n_init=0).fit(G)


def test_subclass_extends_the_constraints():
    from kgroups._validation import Integer

    class Tagged(KernelKGroups):
        _parameter_constraints = {**KernelKGroups._parameter_constraints, "tag": [Integer(0)]}

        def __init__(self, n_clusters=8, *, tag=0, **kw):
            super().__init__(n_clusters, **kw)
            self.tag = tag

    assert Tagged(2, tag=1, random_state=0).fit(X).labels_.shape == (60,)
    with pytest.raises(ValueError, match="Tagged: tag=-1 should be an integer >= 0"):
        Tagged(2, tag=-1).fit(X)
    assert "tag" not in KernelKGroups._parameter_constraints  # the parent's is untouched
