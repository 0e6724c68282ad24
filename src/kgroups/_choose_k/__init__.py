r"""Choosing the number of clusters k of point data: :func:`choose_k` and
``KernelKGroups(n_clusters="auto")``.

Every criterion judges the partitions kernel k-groups finds for each k, with the
semimetric of the fits. The default is the rule of the semimetric's kind of clusters:
the **energy rule** (:mod:`~kgroups._choose_k.point`) for point data, the **graph's
rule** (:mod:`~kgroups._choose_k.graph`) for ``"nearest_neighbors"``, and for
``"auto"`` both, one kept by the **arbiter** (:mod:`~kgroups._choose_k.arbiter`). The
named methods (:mod:`~kgroups._choose_k.criteria`) are the papers': the gap statistic,
prediction strength, the silhouette, the eigengap. Every fit runs through
:mod:`~kgroups._choose_k.fits`, every constant is recorded in
:mod:`~kgroups._choose_k.constants`, every decision in a :mod:`~kgroups._choose_k.trace`.
"""
