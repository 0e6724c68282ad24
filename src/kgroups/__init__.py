"""kgroups: clustering from energy statistics.

Kernel k-groups (Hartigan's method in the kernel space of a semimetric of
negative type, weighted), kernel k-means, energy statistics, graph community
detection and the harness that reproduces França, Rizzo & Vogelstein,
"Kernel k-Groups via Hartigan's Method", IEEE TPAMI 2020.
"""

from ._kernel_kmeans import KernelKMeans
from ._kgroups import KernelKGroups, KGroupsResult, kernel_kgroups
from ._semimetrics import SEMIMETRICS, pairwise

__version__ = "0.1.0"

__all__ = [
    "KernelKGroups",
    "KernelKMeans",
    "KGroupsResult",
    "SEMIMETRICS",
    "kernel_kgroups",
    "pairwise",
]
