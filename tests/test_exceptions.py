"""The public exceptions and warnings (issue 54: the error class was private; more
clusters than distinct rows gave W = 0 without a word)."""

import warnings

import numpy as np
import pytest

import kgroups
from kgroups import KernelKGroups, KernelKMeans
from kgroups.exceptions import DistinctRowsWarning, InvalidParameterError, KRangeWarning


def test_the_error_is_public_and_the_one_every_check_raises():
    assert kgroups.InvalidParameterError is InvalidParameterError
    assert issubclass(InvalidParameterError, ValueError)
    assert InvalidParameterError.__module__ == "kgroups.exceptions"
    assert kgroups.KRangeWarning is KRangeWarning and issubclass(KRangeWarning, UserWarning)
    with pytest.raises(InvalidParameterError, match="n_clusters=0"):
        KernelKGroups(n_clusters=0).fit(np.zeros((3, 2)))
    with pytest.raises(InvalidParameterError, match="NaN"):
        KernelKGroups(2).fit(np.array([[0.0, 1.0], [np.nan, 2.0], [3.0, 4.0]]))
    with pytest.raises(InvalidParameterError, match="k_range"):
        kgroups.choose_k(np.zeros((5, 2)) + np.arange(5)[:, None], k_range=[0])


def _distinct_warnings(est, X, **fit_kw):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est.fit(X, **fit_kw)
    return [str(w.message) for w in caught if w.category is DistinctRowsWarning]


TWO_POINTS = np.repeat([[0.0, 0.0], [5.0, 5.0]], 4, axis=0)


@pytest.mark.parametrize("Est", [KernelKGroups, KernelKMeans])
def test_more_clusters_than_distinct_rows_warn(Est):
    said = _distinct_warnings(Est(3, random_state=0), TWO_POINTS)
    assert said == [f"{Est.__name__}: n_clusters=3 but X has 2 distinct row(s) of positive "
                    "weight: 1 cluster(s) repeat the points of another and W = 0; use "
                    "n_clusters <= 2"]
    assert _distinct_warnings(Est(2, random_state=0), TWO_POINTS) == []
    assert len(_distinct_warnings(Est(2, random_state=0), np.ones((4, 3)))) == 1


def test_rows_of_zero_weight_do_not_count_and_matrices_warn_too():
    X = np.vstack([TWO_POINTS, [[9.0, 9.0]]])
    w = np.r_[np.ones(8), 0.0]
    assert _distinct_warnings(KernelKGroups(3, random_state=0), X) == []
    said = _distinct_warnings(KernelKGroups(3, random_state=0), X, sample_weight=w)
    assert len(said) == 1 and "2 distinct row(s)" in said[0]
    D = np.linalg.norm(TWO_POINTS[:, None] - TWO_POINTS[None], axis=2)
    assert len(_distinct_warnings(KernelKGroups(3, semimetric="precomputed",
                                                random_state=0), D)) == 1


def test_clusters_of_repeated_points_are_no_warning_when_there_are_enough():
    X = np.repeat([[0.0, 0.0], [5.0, 5.0], [0.0, 9.0]], 5, axis=0)  # W = 0, 3 distinct
    est = KernelKGroups(3, random_state=0)
    assert _distinct_warnings(est, X) == [] and est.within_energy_ == 0.0


def test_the_warning_points_at_the_users_line_from_every_front_door():
    for call in (lambda: KernelKGroups(3, random_state=0).fit(TWO_POINTS),
                 lambda: kgroups.kernel_kgroups(TWO_POINTS, 3, random_state=0)):
        with pytest.warns(DistinctRowsWarning) as record:
            call()
        assert record[0].filename == __file__
