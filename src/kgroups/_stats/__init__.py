"""The energy statistics (energy distance, W, S, T, the k-sample energy test, DISCO) and
the pair-sum layer they compute through, with one implementation per array kind
(in memory, Dask, CUDA device arrays) chosen by :mod:`kgroups._stats.dispatch`."""
