"""The engines: the Python objects behind the driver that hold ``B = diag(w) K diag(w)``
in some form and run the sweeps of kernel k-groups and kernel k-means.

* :mod:`~kgroups._engines.engine`: the contract every engine implements
  (:class:`~kgroups._engines.engine.Engine`, its :class:`~kgroups._engines.engine.
  Capabilities`, the run state);
* one module per engine: :mod:`~kgroups._engines.dense`, :mod:`~kgroups._engines.sparse`,
  :mod:`~kgroups._engines.matrix_free`, :mod:`~kgroups._engines.lowrank`,
  :mod:`~kgroups._engines.dask`, :mod:`~kgroups._engines.gpu`;
* :mod:`~kgroups._engines.registry`: the engines by name (the one table of names);
* :mod:`~kgroups._engines.select`: ``engine="auto"`` and the checks of an input against
  an engine, from the declared capabilities;
* :mod:`~kgroups._engines.build`: the engine of one fit, from the estimator's parameters
  as plain values.

The numba and CUDA kernels the engines call live in :mod:`kgroups._kernels`.
"""
