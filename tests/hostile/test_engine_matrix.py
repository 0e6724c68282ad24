"""Every engine with every kind of semimetric (the table of docs/user_guide/engines.rst):
each combination works, agreeing with the dense engine from the same start (the exact
engines to 1e-10, the approximate ones by their features), or is refused before any
work with a message naming the engine and the semimetric."""

import warnings

import numpy as np
import pytest

from kgroups import KernelKGroups, pairwise

X = np.vstack([np.random.default_rng(0).normal(0, 1, (40, 2)),
               np.random.default_rng(1).normal(4, 1, (40, 2))])
START = np.random.default_rng(2).integers(0, 2, 80)
SEMIMETRICS = {
    "energy": {"semimetric": "energy", "alpha": 0.5},
    "laplacian": {"semimetric": "laplacian", "sigma": 2.0},
    "gaussian": {"semimetric": "gaussian", "sigma": 2.0},
    "localized": {"semimetric": "localized"},
    "sinusoidal": {"semimetric": "sinusoidal", "theta": 3.0},
    "callable": {"semimetric": pairwise},
}
# engine -> semimetrics it refuses (the table of the user guide)
REFUSES = {"dense": set(), "matrix-free": {"callable"}, "low-rank": {"localized", "sinusoidal"},
           "dask": {"localized", "sinusoidal"}}
EXACT = {"dense", "matrix-free"}


@pytest.mark.parametrize("engine", list(REFUSES))
@pytest.mark.parametrize("name", list(SEMIMETRICS))
def test_engine_with_semimetric(engine, name):
    params = SEMIMETRICS[name]
    data = X
    if engine == "dask":
        da = pytest.importorskip("dask.array")
        data = da.from_array(X, chunks=(40, 2))
    kw = {"n_components": 40, "random_state": 0} if engine in ("low-rank", "dask") else {}
    est = KernelKGroups(2, engine=engine, init=START, **params, **kw)
    if name in REFUSES[engine]:
        shown = "semimetric=" if name == "callable" else f"semimetric='{name}'"
        with pytest.raises(ValueError, match=rf"engine='{engine}'.*{shown}"):
            est.fit(data)
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(data)
        ref = KernelKGroups(2, engine="dense", init=START, **params).fit(X)
    labels = np.asarray(est.labels_.compute() if hasattr(est.labels_, "compute") else est.labels_)
    if engine in EXACT:
        np.testing.assert_array_equal(labels, ref.labels_)
        assert est.within_energy_ == pytest.approx(ref.within_energy_, rel=1e-10)
    else:  # 40 Nystrom landmarks of 80 points: the exact engine's partition here
        agree = max(np.mean(labels == ref.labels_), np.mean(labels != ref.labels_))
        assert agree >= 0.95
