r"""Choosing the number of clusters k of point data: :func:`choose_k` and
``KernelKGroups(n_clusters="auto")``. The default is the **energy rule**
(:mod:`~kgroups._choose_k.point`), the **graph's rule** (:mod:`~kgroups._choose_k.graph`) for
``"nearest_neighbors"``, both judged by the **arbiter** (:mod:`~kgroups._choose_k.arbiter`) for
``"auto"``; the named methods are the papers' (:mod:`~kgroups._choose_k.criteria`). Every fit runs
through :mod:`~kgroups._choose_k.fits`, every constant is in :mod:`~kgroups._choose_k.constants`,
every decision in a :mod:`~kgroups._choose_k.trace`.
"""
