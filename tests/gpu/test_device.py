"""The device layer (``kgroups._kernels.device``, ``kgroups._kernels.numba_cuda``):
numba-cuda imported after the NumPy names its compiler still calls are restored, and
the memory check of each allocation.

The alias tests run without a device or the simulator (the subprocess sets
``NUMBA_ENABLE_CUDASIM=1`` for itself).
"""

import os
import subprocess
import sys

import numpy as np
import pytest

from kgroups._kernels import device, numba_cuda


def test_missing_row_stack_is_restored_as_vstack(monkeypatch):
    """NumPy 2.5 removed ``numpy.row_stack`` (an alias of ``vstack``), which numba-cuda
    0.30.4 calls: the name comes back as the same function, and only when missing."""
    monkeypatch.delattr(np, "row_stack", raising=False)
    assert numba_cuda.restore_numpy_aliases() == ["row_stack"]
    assert np.row_stack is np.vstack
    assert numba_cuda.restore_numpy_aliases() == []


def test_cuda_kernels_load_on_a_numpy_without_row_stack():
    """Every way into numba.cuda (``cuda_usable`` first of all, as ``engine="auto"``
    asks it before anything else) goes through the shim: with ``row_stack`` deleted
    from NumPy before ``kgroups`` is imported, the CUDA kernels compile and run (in the
    simulator) and ``row_stack`` is ``vstack``."""
    code = (
        "import numpy as np\n"
        "if hasattr(np, 'row_stack'): del np.row_stack\n"
        "np.__all__ = [a for a in np.__all__ if a != 'row_stack']  # as NumPy 2.5\n"
        "from kgroups._kernels.device import cuda_usable, cuda_kernels\n"
        "assert cuda_usable(real_device=False)\n"
        "assert np.row_stack is np.vstack\n"
        "k = cuda_kernels()\n"
        "A = k.cuda.to_device(np.ones((2, 5)))\n"
        "k.zero_rows[1, 8](A, 1)\n"
        "print(A.copy_to_host().sum())\n")
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "5.0"


def test_allocation_checked_against_free_memory(monkeypatch):
    """Each device allocation is refused before it is made when it does not fit in 90%
    of the free memory, with the sizes and the alternative in the message."""
    monkeypatch.setattr(device, "device_free_memory", lambda: 2.0**30)
    device.check_device_fits(0.9 * 2**30 - 1, "x")
    with pytest.raises(ValueError, match=r"the sums needs 1\.00 GiB of device memory but "
                       r"1\.00 GiB are free; use engine='matrix-free'"):
        device.check_device_fits(2**30, "the sums")


@pytest.mark.parametrize("configuration", [(1, 128), ((2, 3), (32, 8), 0, 4096)])
def test_simulated_launch_check_takes_plain_ints(configuration):
    """The simulator's launches are checked as a device checks them (conftest.py):
    Python ints pass."""
    from tests.gpu.conftest import check_launch
    check_launch(configuration)


@pytest.mark.parametrize("configuration", [(np.int64(40), 128), ((np.int64(2), 1), 128),
                                           (1, 128, 0, np.int64(64))])
def test_simulated_launch_check_refuses_numpy_integers(configuration):
    """...and NumPy integers in the grid, the block or the shared memory fail, as
    numba-cuda's launch on a device refuses them."""
    from tests.gpu.conftest import check_launch
    with pytest.raises(ValueError, match="must be an int"):
        check_launch(configuration)
