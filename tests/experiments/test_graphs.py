"""Helpers of the community-detection experiments (``kgroups.experiments._graphs``)."""

import numpy as np
import pytest

from kgroups.experiments import _graphs


def test_paired_difference_and_matching_by_hand():
    mean, se = _graphs.paired([1.0, 2.0, 4.0], [0.0, 1.0, 1.0])
    # differences 1, 1, 3: mean 5/3, sd sqrt(4/3), se sqrt(4/9) = 2/3
    assert mean == pytest.approx(5 / 3) and se == pytest.approx(2 / 3)
    y = np.array([0, 0, 1, 1, 2, 2])
    assert _graphs.match_to_truth(y, np.array([2, 2, 0, 0, 1, 0])).tolist() == [0, 0, 1, 1, 2, 1]
    assert _graphs.sizes(np.array([1, 1, 1, 0, 3, 3])) == [3, 2, 1]
