"""Label -1 in the statistics: the points a fit with ``noise`` set aside are left out.

``KernelKGroups(noise=s)`` labels the points it sets aside -1, and its
``within_energy_`` is the within energy of the points it keeps. The statistics that
take labels (:func:`kgroups.within_energy`, :func:`kgroups.between_energy`,
:func:`kgroups.disco`) leave those points out the same way (:func:`without_set_aside`):
their rows are dropped (so DISCO's degrees of freedom count the others), or, for data
on a CUDA device, which stay where they are, W and S give them weight 0 (a group of
weight 0 adds nothing). Only the number -1 is read so; labels of another type
(strings) have no set-aside points.
"""

from __future__ import annotations

import numbers

import numpy as np

from .._kernels.device import host_values
from .._sparse import issparse
from .._validation import InvalidParameterError, is_dask_collection, is_device_array


def _as_array(v):
    """A dask collection as a dask array, anything else in host memory."""
    if is_dask_collection(v):
        return v.to_dask_array(lengths=True) if hasattr(v, "to_dask_array") else v
    return host_values(v)


def _set_aside(labels, owner):
    """The mask of the labels equal to -1 (host memory, dask labels computed: n
    numbers), or None when there are none or the labels are not numbers (the
    statistic's own checks judge them)."""
    lab = _as_array(labels)
    if is_dask_collection(lab):
        if lab.dtype.kind not in "iuf":
            return None
        lab = lab.compute()
    try:
        lab = np.asarray(lab)
    except (ValueError, TypeError):  # ragged: the statistic's checks say so
        return None
    if lab.ndim != 1 or lab.dtype.kind not in "iuf":
        return None
    mask = lab == -1
    if mask.size and mask.all():
        raise InvalidParameterError(
            f"{owner}: every label is -1 (set aside by a fit with noise): no point is left")
    return mask if mask.any() else None


def without_set_aside(X, labels, sample_weight, owner, precomputed=False, weights=True):
    """``(X, labels, sample_weight)`` without the points labelled -1: their rows (and
    columns of a precomputed matrix) dropped; data on a CUDA device keep their rows and
    get weight 0 there (``weights``: the statistic takes weights, else refused). As
    given when no label is -1."""
    mask = None if labels is None else _set_aside(labels, owner)
    if mask is None:
        return X, labels, sample_weight
    if is_device_array(X):
        if not weights:
            raise InvalidParameterError(
                f"{owner}: labels -1 (points set aside) with X on a CUDA device: pass the "
                "kept rows, X[labels != -1] and labels[labels != -1]")
        w = 1.0 if sample_weight is None else np.asarray(host_values(sample_weight), float)
        return X, labels, np.where(mask, 0.0, w)
    keep = ~mask
    lab = _as_array(labels)
    lab = np.asarray(lab.compute() if is_dask_collection(lab) else lab)[keep]
    w = sample_weight
    if w is not None and not isinstance(w, numbers.Real):
        w = _as_array(w)
        w = w[keep] if is_dask_collection(w) else np.asarray(w)[keep]
    if is_dask_collection(X):
        return _as_array(X)[keep], lab, w
    if issparse(X):
        X = X.tocsr()[keep]
        return (X[:, keep] if precomputed else X), lab, w
    X = np.asarray(X)
    return (X[np.ix_(keep, keep)] if precomputed else X[keep]), lab, w
