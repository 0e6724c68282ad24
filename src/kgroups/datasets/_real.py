"""Loaders for the real datasets bundled with kgroups (and for files users supply).

Every bundled file sits in ``kgroups/datasets/data/`` (:data:`DATA_DIR`) next to
``MANIFEST.md``, which gives its source, its SHA-256, its class counts and how França,
Rizzo & Vogelstein (TPAMI 43(12), 2021, "Kernel k-Groups via Hartigan's Method")
preprocessed it. The loaders, a module per kind of data:

* :mod:`kgroups.datasets._tables`: the UCI tables (``(X, y)``, ``X`` float64 of
  shape (n_samples, n_features), ``y`` int64 labels 0..k-1);
* :mod:`kgroups.datasets._networks`: the networks with ground-truth communities and
  the Drosophila connectome;
* :mod:`kgroups.datasets._user`: the datasets that cannot be shipped, read from the
  user's file;

with what they share (the data folder, reading a text table, the preprocessing) in
:mod:`kgroups.datasets._parsing`. Cite the original donors (UCI Machine Learning
Repository) when you publish results obtained on these data.
"""

from ._networks import load_drosophila, load_network  # noqa: F401  (kgroups.datasets)
from ._parsing import DATA_DIR  # noqa: F401
from ._tables import (  # noqa: F401
    load_dermatology,
    load_glass,
    load_ionosphere,
    load_iris,
    load_seeds,
    load_wine,
)
from ._user import USER_DATASETS, load_user_file  # noqa: F401
