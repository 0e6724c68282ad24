"""What a fitted kernel clustering answers about new points: ``predict``,
``transform``, ``score`` (and ``fit_transform``), from the fitted engine's predictor.

New rows reach the clusters through one function,
:func:`kgroups._placement.per_cluster`, with the score functions of
:mod:`kgroups._placement`.
"""

from __future__ import annotations

import functools

import numpy as np
from sklearn.base import TransformerMixin
from sklearn.utils.validation import check_is_fitted

from ._input import IN_MEMORY, input_kind, n_rows
from ._kernels.device import host_values
from ._placement import predict_rows, transform_rows
from ._progress import running
from ._kernels.jit import tiered
from ._semimetrics.closed_form import centred_sq_norm_max, check_semimetric_range
from ._semimetrics.prepare import kernel_rows
from ._validation import InvalidParameterError, check_in_memory, check_sample_weight


class NewPointsMixin(TransformerMixin):
    """``predict``, ``transform``, ``fit_transform``, ``score`` and ``set_output`` of
    :class:`~kgroups._base.BaseKernelClustering`.

    A scikit-learn ``TransformerMixin`` (its ``transform`` and ``fit_transform``
    are wrapped for ``set_output`` here, where they are defined). It reads what the
    estimator's fit keeps: ``_predictor``, ``_s``, ``_q`` (the engine's units of
    weight), ``_scale``, ``_keep`` and ``_rescaling`` (``n_clusters="auto"``'s map of
    new rows, or None), the class's ``_scores`` and
    ``_predict_needs_kxx``, and the estimator's ``_owner()``, ``_precomputed()``,
    ``_objective_unit()`` and semimetric (``_semimetric_in_use()``, ``_params()``,
    ``_data_built()``, ``_feature_map``).
    """

    def _needs_kxx(self, method):
        """The error of a method that needs ``K(x, x)`` of new points."""
        return ValueError(
            f"{self._owner()}: {method} needs K(x, x) for new points, which a "
            "precomputed Gram matrix does not give; fit on semimetric='precomputed' "
            "distances or on raw data instead")

    def _new_work(self, X):
        """The work of scoring new rows ``X`` (:func:`~kgroups._kernels.jit.tiered`'s
        count): their kernel block against the training rows."""
        n, n_fit = n_rows(X), n_rows(self.labels_)
        return float("inf") if n is None or n_fit is None else n * n_fit

    def _validate_new(self, X):
        """New data of any kind, checked against the fit and in the fit's (rescaled)
        units, and its kind."""
        check_is_fitted(self)
        kind = input_kind(X)
        if not (kind.host_rows or self._predictor.device_rows):
            raise InvalidParameterError(
                f"{self._owner()}: X is an array on a CUDA device, and this fit "
                f"(engine={self.engine_!r}) predicts from host memory: pass host data "
                "(e.g. X.get() for CuPy), or fit on the device (engine='gpu')")
        X = kind.check_new(self, X, "csr" if self.kernel == "precomputed" else False)
        keep = getattr(self, "_keep", None)
        if keep is not None and self._precomputed():  # the columns of the kept rows
            X = X[:, np.flatnonzero(keep)]
        geo = getattr(self, "_rescaling", None)  # a fit of X's image (_fitting._fit)
        X = X if geo is None else geo(X)
        return (X if self._scale == 1.0 else X * self._scale), kind

    def _bar(self, kind, method):
        """The name of ``method``'s bar over new rows (:func:`~kgroups._placement.row_blocks`),
        None where the input kind maps its rows chunk by chunk at once (dask: a bar each
        would crowd the terminal; Dask's own diagnostics follow a computation)."""
        return f"{self._owner()}: {method}" if kind.one_call else None

    def _in_range(self, fn, method, new_weight=0.0):
        r"""``fn`` on blocks of new rows whose semimetric values to the training rows,
        and their sums over the clusters, fit float64 (checked for a closed-form
        semimetric; :func:`_range_checked`); ``new_weight``: the new rows' total weight
        where their own pairs are summed too (``score``: a cluster's
        :math:`\sum_{x, y} w_x w_y \rho(x, y)` is at most that weight squared times the
        largest value)."""
        center = self._predictor.center
        if center is None or not self._closed_form():
            return fn
        with np.errstate(over="ignore"):  # inf: refused by the check
            factor = max(0.5 * float(np.sum(self._s)), float(np.square(new_weight)))
        return functools.partial(_range_checked, fn=fn, semimetric=self._semimetric_in_use(),
                                 params=self._params(), center=center, factor=factor,
                                 owner=f"{self._owner()}.{method}")

    def predict(self, X):
        """Cluster of best score (see the class docstring) for each new point.

        With ``engine="low-rank"`` the new points get features from the same
        map as the training points (Nystrom landmarks or random Fourier
        frequencies of the fit), so ``predict`` on the training data of a
        converged fit returns ``labels_`` (up to floating-point ties), as it
        does for the exact engines.

        Parameters
        ----------
        X : array-like of shape (n_new, n_features) or (n_new, n_train)
            New points; with ``semimetric="precomputed"``, their semimetric values
            to the training points. A dask array gives a dask array of labels,
            computed block by block.

        Returns
        -------
        labels : ndarray of shape (n_new,)
            Cluster of each new point; after a fit with ``noise`` that set points
            aside, -1 for a point whose cost of insertion is at least
            ``noise_threshold_`` (see the class's Notes).

        See Also
        --------
        transform : The distances the prediction compares.
        score : The objective of new points.

        References
        ----------
        .. [1] G. França, M. L. Rizzo, J. T. Vogelstein, "Kernel k-Groups via
           Hartigan's Method", IEEE TPAMI 43(12), 2021, equations 42 and 47-51.

        Examples
        --------
        >>> import numpy as np
        >>> from kgroups import KernelKGroups
        >>> X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0],
        ...               [8.0, 8.0], [8.0, 9.0], [9.0, 8.0]])
        >>> est = KernelKGroups(n_clusters=2, random_state=0).fit(X)
        >>> est.predict([[0.5, 0.5], [8.5, 8.5]]).tolist()
        [0, 1]
        """
        noise = self._noise_rule()
        if (self._predict_needs_kxx or noise is not None) and self.kernel == "precomputed":
            raise self._needs_kxx("predict" if noise is None else "predict after a fit with "
                                  "noise")
        X, kind = self._validate_new(X)
        fn = self._in_range(functools.partial(predict_rows, predictor=self._predictor, s=self._s,
                                              q=self._q, scores=self._scores, noise=noise,
                                              desc=self._bar(kind, "predict")), "predict")
        with tiered(self._new_work(X)):
            return kind.map_rows(X, fn, None, np.int64, self._owner())

    def transform(self, X):
        r"""Squared kernel-space distance of each point to each cluster's weighted mean.

        The analogue of ``KMeans.transform`` (which gives distances, not squared,
        in input space): with :math:`\varphi` the feature map of the kernel
        :math:`K = -\rho/2` and :math:`\mu_l = \frac{1}{s_l}\sum_{y \in C_l}
        w_y \varphi(y)`,

        .. math:: d_l(x) = \|\varphi(x) - \mu_l\|^2 = K(x, x) - \frac{2 m_l}{s_l}
                  + \frac{q_l}{s_l^2}, \quad m_l = \sum_{y \in C_l} w_y K(x, y),
                  \quad q_l = \sum_{x, y \in C_l} w_x w_y K(x, y),

        computed from the same quantities as :meth:`predict`, block by block.
        For a semimetric :math:`\rho` this is :math:`\frac{1}{s_l}\sum_y w_y
        \rho(x, y) - \frac{1}{2 s_l^2} \sum_{y, z} w_y w_z \rho(y, z)` (any base
        point of the kernel gives the same values), in the data's units (for
        ``semimetric="energy"``, units of :math:`\|x - y\|^\alpha`, also when the
        data were rescaled internally). Negative values, from rounding or from a
        kernel that is not positive semidefinite (``"localized"``,
        ``"sinusoidal"``, an indefinite matrix), are set to 0. With
        ``engine="low-rank"`` the distances are those of the approximate kernel
        (the fit's features). A precomputed Gram matrix cannot be transformed
        (:math:`K(x, x)` of new points is unknown).

        :meth:`predict` of :class:`KernelKMeans` is the nearest mean, the column
        of smallest ``transform`` (up to ties and clipping). That of
        :class:`KernelKGroups` is the insertion gain of its fit, the column of
        smallest :math:`s_l d_l(x) / (s_l + 1)`, not always the nearest mean; at
        a converged fit (positive semidefinite kernel) each training point's
        label is also its nearest mean.

        Parameters
        ----------
        X : array-like of shape (n_new, n_features) or (n_new, n_train)
            New points; with ``semimetric="precomputed"``, their semimetric values
            to the training points.

        Returns
        -------
        distances : ndarray of shape (n_new, n_clusters)
            Squared kernel-space distances, >= 0.

        See Also
        --------
        fit_transform : Fit, then transform the same data.
        predict : The nearest cluster.

        References
        ----------
        .. [1] G. França, M. L. Rizzo, J. T. Vogelstein, "Kernel k-Groups via
           Hartigan's Method", IEEE TPAMI 43(12), 2021, equations 39-40.

        Examples
        --------
        >>> import numpy as np
        >>> from kgroups import KernelKMeans
        >>> X = np.array([[0.0], [2.0], [10.0], [12.0]])
        >>> km = KernelKMeans(2, init=np.array([0, 0, 1, 1])).fit(X)
        >>> km.transform([[1.0]]).round(6).tolist()  # mean |x - y| - mean |y - z| / 2
        [[0.5, 9.5]]
        >>> km.get_feature_names_out().tolist()
        ['kernelkmeans0', 'kernelkmeans1']
        """
        if self.kernel == "precomputed":
            raise self._needs_kxx("transform")
        X, kind = self._validate_new(X)
        fn = self._in_range(functools.partial(transform_rows, predictor=self._predictor,
                                              s=self._s, q=self._q, unit=self._objective_unit(),
                                              desc=self._bar(kind, "transform")), "transform")
        with tiered(self._new_work(X)):
            return kind.map_rows(X, fn, self.n_clusters_, np.float64, self._owner())

    def fit_transform(self, X, y=None, sample_weight=None):
        """Fit ``X`` and return :meth:`transform` of ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features) or (n_samples, n_samples)
            Data, or a semimetric matrix when ``semimetric="precomputed"`` (a
            Gram matrix, ``kernel="precomputed"``, cannot be transformed).
        y : None
            Ignored; present for compatibility with scikit-learn.
        sample_weight : array-like of shape (n_samples,), default=None
            Weights >= 0, some > 0; integer weights are equivalent to repeated rows,
            and a zero weight to a removed row (its label is the one
            :meth:`predict` gives it).

        Returns
        -------
        distances : ndarray of shape (n_samples, n_clusters)
            Squared kernel-space distance of each point to each cluster's
            weighted mean, as ``fit(X).transform(X)``.

        See Also
        --------
        transform : The same distances for new points.
        predict : The nearest cluster of new points.

        References
        ----------
        .. [1] G. França, M. L. Rizzo, J. T. Vogelstein, "Kernel k-Groups via
           Hartigan's Method", IEEE TPAMI 43(12), 2021, equations 39-40 (the
           distance to a cluster's mean in feature space).

        Examples
        --------
        >>> import numpy as np
        >>> from kgroups import KernelKGroups
        >>> X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0],
        ...               [8.0, 8.0], [8.0, 9.0], [9.0, 8.0]])
        >>> D = KernelKGroups(n_clusters=2, random_state=0).fit_transform(X)
        >>> D.shape, D.argmin(axis=1).tolist()
        ((6, 2), [0, 0, 0, 1, 1, 1])
        """
        if self.kernel == "precomputed":
            raise self._needs_kxx("fit_transform")
        return self.fit(X, sample_weight=sample_weight).transform(X)

    def set_output(self, *, transform=None):
        """Choose the container that :meth:`transform` and :meth:`fit_transform` return.

        scikit-learn's ``set_output`` (documented here for its references):
        columns named by ``get_feature_names_out`` (scikit-learn's
        :meth:`~sklearn.base.ClassNamePrefixFeaturesOutMixin.get_feature_names_out`),
        rows indexed as the input
        DataFrame's.

        Parameters
        ----------
        transform : {"default", "pandas", "polars"} or None, default=None
            ``"default"``: a NumPy array; ``"pandas"`` / ``"polars"``: a
            DataFrame of that library (which must be installed); ``None``: no
            change.

        Returns
        -------
        self : object
            The estimator.

        See Also
        --------
        transform : The output this container holds.
        sklearn.base.TransformerMixin.set_output : The scikit-learn method.

        References
        ----------
        .. [1] F. Pedregosa et al., "Scikit-learn: Machine learning in Python", JMLR
           12, 2825-2830, 2011.

        Examples
        --------
        >>> import numpy as np
        >>> from kgroups import KernelKGroups
        >>> X = np.array([[0.0], [0.1], [5.0], [5.2]])
        >>> est = KernelKGroups(2, random_state=0).set_output(transform="default")
        >>> est.fit_transform(X).shape
        (4, 2)
        """
        return super().set_output(transform=transform)

    def score(self, X, y=None, sample_weight=None):
        """Objective Q (= -W) of ``X`` partitioned by :meth:`predict`; higher is better.

        Parameters
        ----------
        X : array-like of shape (n_new, n_features)
            New points (raw data; a precomputed matrix cannot be scored).
        y : None
            Ignored; present for compatibility with scikit-learn.
        sample_weight : array-like of shape (n_new,), default=None
            Weights >= 0 of the new points (a zero-weight point adds nothing).

        Returns
        -------
        score : float
            Q of the partition of ``X`` given by :meth:`predict`, in the data's units.

        See Also
        --------
        predict : The labels the score is computed with.
        kgroups.within_energy : W of any partition.

        References
        ----------
        .. [1] G. França, M. L. Rizzo, J. T. Vogelstein, "Kernel k-Groups via
           Hartigan's Method", IEEE TPAMI 43(12), 2021, equation 15 (W) and
           equation 41 (Q).

        Examples
        --------
        >>> import numpy as np
        >>> from kgroups import KernelKGroups
        >>> X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0],
        ...               [8.0, 8.0], [8.0, 9.0], [9.0, 8.0]])
        >>> est = KernelKGroups(n_clusters=2, random_state=0).fit(X)
        >>> round(float(est.score(X)), 4), round(float(est.within_energy_), 4)
        (-2.2761, 2.2761)
        """
        if self._precomputed():
            raise ValueError(f"{self._owner()}: score needs raw data, not a precomputed matrix")
        check_in_memory(X, "X", self._owner(), device_ok=True)
        X, kind = self._validate_new(X)
        w = check_sample_weight(host_values(sample_weight), X.shape[0], self._owner(),
                                allow_zero=True)
        X, w = X[w > 0], w[w > 0]  # a zero-weight point adds nothing to W
        # W is linear in the weights: weights of extreme magnitude divided by a power of
        # two, W multiplied back at the end (their sums and products stay finite)
        w, wscale = IN_MEMORY.normalized_weights(w, self._owner()) if w.size else (w, 1.0)
        X = self._in_range(lambda rows: rows, "score", new_weight=float(np.sum(w)))(X)
        with tiered(self._new_work(X) + X.shape[0] ** 2):  # the block, and the clusters' pairs
            labels = predict_rows(X, self._predictor, self._s, self._q, self._scores,
                                  self._noise_rule(), desc=self._bar(kind, "score"))
            X, w, labels = X[labels >= 0], w[labels >= 0], labels[labels >= 0]  # set aside
            # sum_{x, y in C_l} w_x w_y rho(x, y) of each cluster, then W (eq. 15)
            fmap = self._feature_map if self._data_built() else None
            rows, semimetric, params = kernel_rows(X, self._semimetric_in_use(),
                                                   self._params(), fmap)
            with running(f"{self._owner()}: score: the clusters' pairs"):  # a terminal's
                sums = kind.within_sums(rows, w, labels, self.n_clusters_, semimetric, params)
            s = np.bincount(labels, weights=w, minlength=self.n_clusters_)
            total = float(np.sum(sums[s > 0] / (2.0 * s[s > 0])))
        return -total * wscale * self._objective_unit()


def _range_checked(Xb, fn, semimetric, params, center, factor, owner):
    """``fn(Xb)`` after checking that the semimetric values of the new rows ``Xb`` to
    the training rows, bounded from the predictor's ``center``, times ``factor`` (half
    the training weight: a cluster's sum), fit float64; an error naming ``X``
    otherwise, not the overflow of a pairwise block deep inside. Rows on a device
    (:class:`~kgroups._input_device.DeviceRows`) are bounded from their largest
    ``|x|``, found when they were checked: ``|x - c|^2 <= D (|x|_max + |c|_max)^2``."""
    if isinstance(Xb, np.ndarray):
        sq = centred_sq_norm_max(Xb, center)
    elif getattr(Xb, "largest", None) is not None:
        with np.errstate(over="ignore"):  # inf: refused by the check
            sq = Xb.shape[1] * np.square(np.float64(Xb.largest) * Xb.scale
                                         + np.max(np.abs(center)))
    else:
        return fn(Xb)
    check_semimetric_range(sq, semimetric, params, factor, owner, advice="X holds rows too "
                           "far from the training rows for float64: check it for values out "
                           "of range")
    return fn(Xb)
