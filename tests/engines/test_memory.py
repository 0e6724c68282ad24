"""The memory guard (``kgroups._memory``): a clear ValueError naming the bytes
and the alternative, never a MemoryError.
"""

import numpy as np
import pytest

import kgroups._memory as memory
from kgroups import KernelKGroups

from tests._helpers import blobs


def test_forced_dense_too_big_raises_clear_error_auto_succeeds(monkeypatch):
    """6,000 points, 40 MiB free: the dense engine refuses, naming the bytes; 'auto'
    takes the matrix-free engine there (by its cost model, not the memory free)."""
    X, y = blobs(6000, 3, 3, seed=16, spread=0.5)
    avail = 40 * 2**20  # 40 MiB: the 288 MB float64 kernel does not fit
    monkeypatch.setattr(memory, "available_memory", lambda: avail)
    with pytest.raises(ValueError) as err:
        KernelKGroups(3, engine="dense", random_state=0).fit(X)
    msg = str(err.value)
    # the n x n kernel, then 8 bytes x n x (D + 2k + 6): data, M (k x n), labels
    need = 6000 * 6000 * 8 + 8 * 6000 * (3 + 2 * 3 + 6)
    assert str(need) in msg and "0.04 GiB" in msg and "matrix-free" in msg
    km = KernelKGroups(3, engine="auto", random_state=0).fit(X)
    dense_free = KernelKGroups(3, engine="matrix-free", random_state=0).fit(X)
    np.testing.assert_array_equal(km.labels_, dense_free.labels_)


def test_dense_engine_refuses_what_cannot_fit(monkeypatch):
    from kgroups import _memory

    monkeypatch.setattr(_memory, "available_memory", lambda: 10**6)
    with pytest.raises(ValueError, match=r"needs .* GiB .* may be used .* GiB available\); use engine="):
        KernelKGroups(2, engine="dense").fit(np.random.default_rng(0).normal(size=(1000, 2)))
