"""Community detection in graphs: kernel k-groups on the Bethe Hessian (TPAMI section 5.2).

Every function takes a graph in any of the forms :func:`as_adjacency` reads (a
networkx graph, a scipy.sparse or NumPy adjacency matrix, a :class:`GraphData`,
or a path to an edge list / GML file) and validates its arguments (a
``ValueError`` names the parameter and the value). As in networkx, the edge
attribute ``weight`` is used where present (``weight="weight"``, the default; an
edge without it weighs 1; the weighted Bethe Hessian, see :func:`bethe_hessian`)
and ``weight=None`` ignores it; invalid weights are refused. The number of
communities is ``n_clusters``, as everywhere in kgroups. The overlap of TPAMI
equation 63 is :func:`kgroups.metrics.overlap`.
"""

from ._bethe import bethe_hessian, bethe_spectral, estimate_k
from ._community import CommunityKGroups, CommunityResult, detect_communities
from ._io import GraphData, GraphInputWarning, as_adjacency, read_graph
from ._metrics import coverage, modularity, partition_quality, performance
from ._sbm import girvan_newman_benchmark, stochastic_block_model

__all__ = [
    "CommunityKGroups",
    "CommunityResult",
    "detect_communities",
    "estimate_k",
    "bethe_hessian",
    "bethe_spectral",
    "GraphData",
    "GraphInputWarning",
    "as_adjacency",
    "read_graph",
    "stochastic_block_model",
    "girvan_newman_benchmark",
    "modularity",
    "coverage",
    "performance",
    "partition_quality",
]
