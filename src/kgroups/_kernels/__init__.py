"""numba kernels: arrays and scalars in, arrays out. No estimators, no validation.

Each kernel has a plain NumPy twin in :mod:`tests._twins` that the tests
compare it with.
"""
