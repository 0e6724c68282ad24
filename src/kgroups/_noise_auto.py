"""``noise="auto"``: the share of the total weight a fit sets aside, decided from the
data (issue 89). One function, :func:`resolve_noise_share`, turns a fitted untrimmed
run into the share; ``KernelKGroups(noise="auto")`` and ``KernelKMeans(noise="auto")``
then fit as with that share (:func:`kgroups._noise.run_fit`).
"""

from __future__ import annotations


def resolve_noise_share(run, engine, n_clusters, owner="KernelKGroups"):
    """The share ``s`` in ``[0, 0.5)`` of the total weight that ``noise="auto"`` sets
    aside, from the best untrimmed run on these data.

    Parameters
    ----------
    run : RunResult
        The best run of the fit's starts without points set aside
        (:class:`kgroups._engines.engine.RunResult`): ``labels`` (in ``[0, k)``),
        ``s`` and ``q`` (each cluster's weight and sum of ``B``, length k),
        ``objective`` (``Q``).
    engine : Engine
        The fit's engine: ``w`` (the weights, in its units), ``diag`` (``B_ii``),
        ``build_m(labels, k)`` (``M``, k x n), ``column(i)`` (the unweighted kernel
        column of point ``i``), ``kernel_max``, ``negative_type``.
    n_clusters : int
        The number of clusters k.
    owner : str
        The name errors start with.

    Returns
    -------
    share : float
        The share of the total weight to set aside, ``0 <= share < 0.5``.
    """
    raise NotImplementedError(
        f"{owner}: noise='auto' (a share of points set aside decided from the data) is not "
        "available yet; give the share as a number, e.g. noise=0.05, or noise=None")
