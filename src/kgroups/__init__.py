"""kgroups: clustering from energy statistics.

Kernel k-groups (Hartigan's method in the kernel space of a semimetric of
negative type, weighted), kernel k-means, the spectral relaxation, the exact
one-dimensional algorithm, energy statistics (energy distance, within and
between energy, the k-sample energy test), graph community detection and the
harness that reproduces França, Rizzo & Vogelstein, "Kernel k-Groups via
Hartigan's Method", IEEE TPAMI 2020.
"""

from ._energy import (
    EnergyTestResult,
    between_energy,
    energy_distance,
    energy_test,
    total_energy,
    within_energy,
)
from ._kernel_kmeans import KernelKMeans
from ._kgroups import KernelKGroups, KGroupsResult, improving_moves, kernel_kgroups
from ._onedim import OneDimResult, onedim_kgroups
from ._semimetrics import SEMIMETRICS, pairwise, rho_to_origin
from ._spectral import kernel_from_semimetric_x0, spectral_embedding, spectral_kgroups

__version__ = "0.1.0"

__all__ = [
    "EnergyTestResult",
    "KGroupsResult",
    "KernelKGroups",
    "KernelKMeans",
    "OneDimResult",
    "SEMIMETRICS",
    "between_energy",
    "energy_distance",
    "energy_test",
    "improving_moves",
    "kernel_from_semimetric_x0",
    "kernel_kgroups",
    "onedim_kgroups",
    "pairwise",
    "rho_to_origin",
    "spectral_embedding",
    "spectral_kgroups",
    "total_energy",
    "within_energy",
]
