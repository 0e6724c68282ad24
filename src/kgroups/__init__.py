"""kgroups: clustering from energy statistics.

Kernel k-groups (Hartigan's method in the kernel space of a semimetric of
negative type, weighted), kernel k-means, the spectral relaxation, the exact
one-dimensional algorithm, energy statistics (energy distance, within and
between energy, the k-sample energy test), graph community detection and the
harness that reproduces França, Rizzo & Vogelstein, "Kernel k-Groups via
Hartigan's Method", IEEE TPAMI 43(12), 2021.

``import kgroups`` loads nothing heavy: every public name is imported from its
module the first time it is used (``kgroups.KernelKGroups`` or
``from kgroups import KernelKGroups``), so scikit-learn, numba and scipy are
loaded only by the parts that need them, and ``kgroups.graph``,
``kgroups.datasets``, ``kgroups.experiments`` and ``kgroups.metrics`` only
when asked for.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

__version__ = "0.1.0"

# public name -> private module that defines it
_LAZY = {
    "ChooseKResult": "_choose_k.result",
    "choose_k": "_choose_k.api",
    "config_context": "_config",
    "get_config": "_config",
    "set_config": "_config",
    "DiscoResult": "_stats.disco",
    "disco": "_stats.disco",
    "EnergyTestResult": "_stats.energy",
    "between_energy": "_stats.energy",
    "energy_distance": "_stats.energy",
    "energy_test": "_stats.energy",
    "total_energy": "_stats.energy",
    "within_energy": "_stats.energy",
    "EnergyHierarchical": "_hierarchical",
    "HierarchicalResult": "_hierarchical",
    "energy_hclust": "_hierarchical",
    "KernelKMeans": "_kernel_kmeans",
    "KMeansResult": "_kernel_kmeans",
    "kernel_kmeans": "_kernel_kmeans",
    "KGroupsResult": "_kgroups",
    "KernelKGroups": "_kgroups",
    "improving_moves": "_kgroups",
    "kernel_kgroups": "_kgroups",
    "OneDimResult": "_onedim",
    "onedim_kgroups": "_onedim",
    "DistinctRowsWarning": "exceptions",
    "InvalidParameterError": "exceptions",
    "KRangeWarning": "exceptions",
    "SEMIMETRICS": "_semimetrics",
    "pairwise": "_semimetrics",
    "rho_to_origin": "_semimetrics",
    "SpectralResult": "_spectral",
    "kernel_from_semimetric_x0": "_spectral",
    "spectral_embedding": "_spectral",
    "spectral_kgroups": "_spectral",
}
# public subpackages, imported on first attribute access (``kgroups.graph``)
_SUBMODULES = ("datasets", "exceptions", "experiments", "graph", "metrics")

__all__ = sorted(_LAZY)


def __getattr__(name):
    module = _LAZY.get(name)
    if module is not None:
        value = getattr(importlib.import_module(f".{module}", __name__), name)
        globals()[name] = value  # later look-ups skip __getattr__
        return value
    if name in _SUBMODULES:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    """The public names only: the API, the public subpackages and ``__version__``."""
    return sorted(set(__all__) | set(_SUBMODULES) | {"__version__"})


if TYPE_CHECKING:  # for type checkers and IDEs; never executed
    from ._stats.energy import (
        EnergyTestResult,
        between_energy,
        energy_distance,
        energy_test,
        total_energy,
        within_energy,
    )
    from ._choose_k.api import choose_k
    from ._choose_k.result import ChooseKResult
    from ._config import config_context, get_config, set_config
    from ._stats.disco import DiscoResult, disco
    from ._hierarchical import EnergyHierarchical, HierarchicalResult, energy_hclust
    from ._kernel_kmeans import KernelKMeans, KMeansResult, kernel_kmeans
    from ._kgroups import KernelKGroups, KGroupsResult, improving_moves, kernel_kgroups
    from ._onedim import OneDimResult, onedim_kgroups
    from ._semimetrics import SEMIMETRICS, pairwise, rho_to_origin
    from ._spectral import (
        SpectralResult,
        kernel_from_semimetric_x0,
        spectral_embedding,
        spectral_kgroups,
    )
