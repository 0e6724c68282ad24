"""``seeding.draw`` turns a uniform into an index as ``Generator.choice(n, p=pot /
pot.sum())`` does: the first index whose normalised cumulative sum exceeds it."""

import numpy as np
import pytest

from kgroups import config_context
from kgroups._kernels import seeding


def reference(pot, u):
    """numpy's search of the normalised cumulative sum, from the right (uniform
    ``floor(u n)`` when every weight is zero)."""
    n = pot.shape[0]
    total = pot.sum()
    if not total > 0.0:
        return min(int(u * n), n - 1)
    cdf = np.cumsum(pot / total)  # the kernel adds in the same order
    cdf /= cdf[-1]
    return min(int(np.searchsorted(cdf, u, side="right")), n - 1)


@pytest.mark.parametrize("kernels", ["compiled", "python"])
def test_draw_is_numpys_search_from_the_right(kernels):
    rng = np.random.default_rng(3)
    pots = [rng.uniform(0.0, 2.0, 50), np.zeros(7), np.array([0.0, 1.0, 0.0, 0.0, 3.0]),
            np.array([2.0]), np.where(rng.random(40) < 0.5, 0.0, 1.0)]
    with config_context(kernels=kernels):
        for pot in pots:
            cdf = np.cumsum(pot / pot.sum()) if pot.sum() > 0 else np.zeros(0)
            # uniforms at the cumulative sums themselves (ties) and between them
            us = np.concatenate([[0.0, 1.0 - 2.0 ** -53], cdf[:-1] / cdf[-1] if cdf.size else [],
                                 rng.random(30)])
            for u in us:
                assert seeding.draw(pot, u) == reference(pot, u), (pot, u)
