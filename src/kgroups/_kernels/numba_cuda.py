"""numba's CUDA module, imported in one place: :func:`numba_cuda` first puts back the
NumPy names that numba-cuda still uses and NumPy removed."""

from __future__ import annotations

import numpy as np

# Names that numba-cuda's compiler still looks up on NumPy and that NumPy removed,
# with the function each was an alias of (numpy.row_stack was numpy.vstack; NumPy
# 2.5 removed the alias, numba-cuda 0.30.4 still calls it).
NUMPY_ALIASES = {"row_stack": "vstack"}


def restore_numpy_aliases():
    """Put back on ``numpy`` each alias of :data:`NUMPY_ALIASES` that it lacks (the
    same function under its old name); the names restored."""
    restored = []
    for old, new in NUMPY_ALIASES.items():
        if not hasattr(np, old):
            setattr(np, old, getattr(np, new))
            restored.append(old)
    return restored


def numba_cuda():
    """``numba.cuda``, imported after :func:`restore_numpy_aliases` (raises ImportError
    when numba has no CUDA support)."""
    restore_numpy_aliases()
    from numba import cuda

    return cuda
