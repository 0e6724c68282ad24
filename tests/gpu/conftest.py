"""Under numba's CUDA simulator, every kernel launch's configuration is checked as a
device's launch checks it: a launch on a device (numba-cuda over ``cuda.core``)
refuses a grid, block or shared-memory size given as a NumPy integer, which the
simulator takes.

The simulator runs each thread of a block as a Python thread and polls them from the
launching thread; a barrier (``syncthreads``) waits for that poll. Python's switch
interval is shortened for the run (:data:`SWITCH_INTERVAL_S`) so that the poll hands
the interpreter to the threads it releases sooner, and a block's static shared arrays
are made under a lock: the simulator makes each on the first thread's call, unlocked,
and two threads racing to the same ``cuda.shared.array`` line could each make their
own (each then reads memory the other writes, as no device does), a race that a short
interval makes likely."""

import sys
import threading

import numpy as np
import pytest

SWITCH_INTERVAL_S = 5e-4


def _plain_ints(value):
    items = value if isinstance(value, tuple) else (value,)
    return 1 <= len(items) <= 3 and all(type(v) is int for v in items)


def check_launch(configuration):
    """Raise as a device's launch does when the grid or block is not an ``int`` or a
    tuple of up to 3 of them, or the shared memory not an ``int``."""
    grid, block = configuration[:2]
    for name, value in (("grid", grid), ("block", block)):
        if not _plain_ints(value):
            raise ValueError(f"LaunchConfig.{name} must be an int, or a tuple with up to 3 "
                             f"ints (got {value!r})")
    if len(configuration) == 4 and not type(configuration[3]) is int:
        raise ValueError(f"the shared memory must be an int (got {configuration[3]!r})")


def locked_shared_array(dynamic):
    """``cuda.shared.array`` of the simulator's block (``self``): a static array is one
    per calling line for the whole block, made once under a lock; a dynamic one (shape
    0) is the simulator's own (``dynamic``)."""
    from numba.core import types
    from numba.np import numpy_support

    lock = threading.Lock()

    def array(self, shape, dtype):
        if shape == 0:
            return dynamic(self, shape, dtype)
        caller = sys._getframe(1)
        line = (caller.f_code.co_filename, caller.f_lineno)
        with lock:
            if line not in self._allocations:
                if isinstance(dtype, types.Type):
                    dtype = numpy_support.as_dtype(dtype)
                self._allocations[line] = np.empty(shape, dtype)
            return self._allocations[line]

    return array


@pytest.fixture(autouse=True, scope="session")
def _short_switch_interval():
    from numba import config
    if not config.ENABLE_CUDASIM:
        yield
        return
    before = sys.getswitchinterval()
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    yield
    sys.setswitchinterval(before)


@pytest.fixture(autouse=True)
def _launches_as_on_a_device(monkeypatch):
    from numba import config
    if not config.ENABLE_CUDASIM:
        return
    from numba.cuda.simulator import kernel, kernelapi

    real = kernel.FakeCUDAKernel.__getitem__

    def getitem(self, configuration):
        check_launch(configuration)
        return real(self, configuration)

    monkeypatch.setattr(kernel.FakeCUDAKernel, "__getitem__", getitem)
    monkeypatch.setattr(kernelapi.FakeCUDAShared, "array",
                        locked_shared_array(kernelapi.FakeCUDAShared.array))
