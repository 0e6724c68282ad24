"""The command line's estimator (``kgroups._fitting.CommandLineKGroups``): KernelKGroups'
fit without scikit-learn's machinery gives KernelKGroups' results, parameters and errors."""

import numpy as np
import pytest

from kgroups import KernelKGroups
from kgroups._fitting import CommandLineKGroups
from kgroups._validation import InvalidParameterError


def data(seed=0, n=240):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    X[: n // 3] += 4.0
    X[n // 3: 2 * n // 3, 0] -= 4.0
    return X


@pytest.mark.parametrize("params", [
    {"n_clusters": 3, "random_state": 0},
    {"n_clusters": 3, "random_state": 1, "engine": "matrix-free", "n_init": 3},
    {"n_clusters": 2, "random_state": 2, "semimetric": "laplacian", "sigma": 2.0,
     "init": "random"},
    {"n_clusters": 4, "random_state": 3, "engine": "low-rank", "n_components": 30},
])
def test_same_fit_as_kernel_kgroups(params):
    X = data()
    w = np.random.default_rng(5).uniform(0.5, 2.0, X.shape[0])
    w[:4] = 0.0  # rows left out of the fit and labelled afterwards
    got = CommandLineKGroups(**params).fit(X, sample_weight=w)
    want = KernelKGroups(**params).fit(X, sample_weight=w)
    np.testing.assert_array_equal(got.labels_, want.labels_)
    assert got.within_energy_ == want.within_energy_
    assert got.objective_ == want.objective_
    assert (got.n_iter_, got.n_moves_, got.engine_, got.n_features_in_) == (
        want.n_iter_, want.n_moves_, want.engine_, want.n_features_in_)


def test_parameters_and_errors_are_kernel_kgroups_ones():
    est = CommandLineKGroups(3, alpha=0.5)
    assert est.get_params() == KernelKGroups(3, alpha=0.5).get_params()
    assert est.set_params(n_init=2) is est and est.n_init == 2
    with pytest.raises(InvalidParameterError, match="KernelKGroups: no parameter 'bogus'"):
        est.set_params(bogus=1)
    with pytest.raises(InvalidParameterError, match="^KernelKGroups.*n_init"):
        CommandLineKGroups(3, n_init=0).fit(data())
    with pytest.raises(InvalidParameterError, match="^KernelKGroups: X has 2 features"):
        fitted = CommandLineKGroups(3, random_state=0).fit(data())
        from kgroups._input import checked_rows
        checked_rows(fitted, data()[:, :2], reset=False)
    with pytest.raises(InvalidParameterError,
                       match=r"^KernelKGroups: X has 0 sample\(s\) \(shape=\(0, 2\)\) while a"):
        CommandLineKGroups(3).fit(np.empty((0, 2)))
    with pytest.raises(InvalidParameterError, match="^KernelKGroups: .*sample_weight"):
        CommandLineKGroups(3).fit(data(), sample_weight=-np.ones(240))
    with pytest.raises(InvalidParameterError, match="^KernelKGroups: X.*NaN"):
        CommandLineKGroups(3).fit(np.full((5, 2), np.nan))
