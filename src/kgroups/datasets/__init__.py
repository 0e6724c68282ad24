"""Datasets for kgroups: the papers' real data (bundled) and synthetic generators.

Real data live in ``kgroups/datasets/data/`` with ``MANIFEST.md`` (sources, SHA-256,
class counts, the paper's preprocessing). Loaders return ``(X, y)`` with float64
``X`` and int64 labels ``0..k-1``; :func:`load_network` returns a networkx graph and
labels, :func:`load_drosophila` a sparse adjacency, labels and the cell-type names.
Datasets that cannot be shipped are read from the user's file by
:func:`load_user_file`, which applies the paper's preprocessing.
"""

from ._real import (
    DATA_DIR,
    USER_DATASETS,
    load_dermatology,
    load_drosophila,
    load_glass,
    load_ionosphere,
    load_iris,
    load_network,
    load_seeds,
    load_user_file,
    load_wine,
)
from ._synthetic import (
    SIGMA_TILDE_10,
    make_cigars,
    make_concentric_circles,
    make_diagonal_gaussian_mixture,
    make_gaussians_20d,
    make_grid_blobs,
    make_lognormal_1d,
    make_lognormals_20d,
    make_mean_shift_gaussians,
    make_normal_1d,
    make_spirals,
    make_unbalanced_gaussians,
    make_unequal_covariance_gaussians,
)

__all__ = [
    "DATA_DIR",
    "USER_DATASETS",
    "load_dermatology",
    "load_drosophila",
    "load_glass",
    "load_ionosphere",
    "load_iris",
    "load_network",
    "load_seeds",
    "load_user_file",
    "load_wine",
    "SIGMA_TILDE_10",
    "make_cigars",
    "make_concentric_circles",
    "make_diagonal_gaussian_mixture",
    "make_gaussians_20d",
    "make_grid_blobs",
    "make_lognormal_1d",
    "make_lognormals_20d",
    "make_mean_shift_gaussians",
    "make_normal_1d",
    "make_spirals",
    "make_unbalanced_gaussians",
    "make_unequal_covariance_gaussians",
]
