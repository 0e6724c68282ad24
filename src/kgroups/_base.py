"""The estimators' base: :class:`kgroups._fitting.KernelClusteringFit` (the
parameters, ``fit`` and its fitted attributes) with scikit-learn's estimator
machinery and :class:`kgroups._predict.NewPointsMixin` (``predict``, ``transform``,
``score`` on new points).
"""

from __future__ import annotations

from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, ClusterMixin

from ._fitting import KernelClusteringFit
from ._predict import NewPointsMixin


class BaseKernelClustering(KernelClusteringFit, ClassNamePrefixFeaturesOutMixin, NewPointsMixin,
                           ClusterMixin, BaseEstimator):
    """Common parameters and machinery; see :class:`KernelKGroups`.

    The mixins are those of scikit-learn's ``KMeans`` (same order), with
    :class:`~kgroups._predict.NewPointsMixin` (a ``TransformerMixin``) in the place
    of ``TransformerMixin``: a clusterer whose ``transform`` gives one column per
    cluster, named ``<classname>0`` ... ``<classname>{k-1}`` by
    ``get_feature_names_out``, with ``set_output``.
    """

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self._precomputed()
        return tags
