"""Community detection in graphs: kernel k-groups on the Bethe Hessian (TPAMI section 5.2)."""

from ._bethe import (
    bethe_hessian,
    bethe_r,
    bethe_spectral,
    estimate_k,
    kmeans_rows,
    negative_eigenpairs,
    smallest_eigenpairs,
)
from ._community import CommunityKGroups, CommunityResult, detect_communities
from ._io import GraphData, GraphInputWarning, as_adjacency, read_graph
from ._metrics import coverage, modularity, overlap, partition_quality, performance
from ._sbm import girvan_newman_benchmark, sbm_parameters, stochastic_block_model

__all__ = [
    "CommunityKGroups",
    "CommunityResult",
    "detect_communities",
    "GraphData",
    "GraphInputWarning",
    "as_adjacency",
    "read_graph",
    "bethe_hessian",
    "bethe_r",
    "bethe_spectral",
    "estimate_k",
    "kmeans_rows",
    "negative_eigenpairs",
    "smallest_eigenpairs",
    "girvan_newman_benchmark",
    "sbm_parameters",
    "stochastic_block_model",
    "modularity",
    "coverage",
    "performance",
    "partition_quality",
    "overlap",
]
