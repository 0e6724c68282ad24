"""The GPU engine under the trimmed rules (``noise``): the primitives the trimmed runs
use (``build_ms``, ``move_rows``, ``column``, ``predictor``) are the engine's host-side
ones, so from the same start it sets aside the points and makes the partition of the
matrix-free engine. On a device or under numba's CUDA simulator (``make test-gpu``);
skipped without either. Small inputs: the simulator runs every thread as Python."""

import numpy as np
import pytest

from kgroups._engines.gpu import cuda_usable

pytestmark = pytest.mark.skipif(not cuda_usable(real_device=False),
                                reason="no CUDA device and NUMBA_ENABLE_CUDASIM is not set")

from kgroups import KernelKGroups, KernelKMeans  # noqa: E402


@pytest.mark.parametrize("Est", [KernelKGroups, KernelKMeans])
def test_gpu_sets_aside_what_matrix_free_does(Est):
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(0, 1, (15, 2)), rng.normal(6, 1, (15, 2)),
                   [[40.0, 40.0], [-40.0, 30.0]]])
    init = (X[:, 0] > 3).astype(int)
    a = Est(2, noise=0.07, engine="matrix-free", init=init).fit(X)
    b = Est(2, noise=0.07, engine="gpu", init=init).fit(X)
    assert b.engine_ == "gpu"
    np.testing.assert_array_equal(b.labels_, a.labels_)
    np.testing.assert_array_equal(np.flatnonzero(b.labels_ == -1), [30, 31])
    assert b.within_energy_ == pytest.approx(a.within_energy_, rel=1e-10)
    np.testing.assert_array_equal(b.predict([[0.0, 0.0], [90.0, 90.0]]),
                                  a.predict([[0.0, 0.0], [90.0, 90.0]]))
