"""Under numba's CUDA simulator, every kernel launch's configuration is checked as a
device's launch checks it: a launch on a device (numba-cuda over ``cuda.core``)
refuses a grid, block or shared-memory size given as a NumPy integer, which the
simulator takes."""

import pytest


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


@pytest.fixture(autouse=True)
def _launches_as_on_a_device(monkeypatch):
    from numba import config
    if not config.ENABLE_CUDASIM:
        return
    from numba.cuda.simulator import kernel

    real = kernel.FakeCUDAKernel.__getitem__

    def getitem(self, configuration):
        check_launch(configuration)
        return real(self, configuration)

    monkeypatch.setattr(kernel.FakeCUDAKernel, "__getitem__", getitem)
