"""The starts of one fit: given labels, checked on the rows the fit keeps, or
``n_init`` starts of the named ``init`` (:func:`kgroups._init.initial_labels`), all
drawn before the runs from one random stream, so that the engine builds their ``M``
together and the starts are those of one start at a time."""

from __future__ import annotations

import numpy as np

from ._init import initial_labels
from ._input import kept_starts
from ._validation import as_seed


def given_starts(init, engine, keep, n_clusters, owner, noise=False):
    """The given labels of ``init`` as the engine's starts (one, or one per row of a
    2-D ``init``), on the kept rows ``keep`` (None: every row); None for a named
    ``init``. With ``noise`` (points may be set aside) a label may be -1, a point set
    aside, which the starts carry as label ``n_clusters`` (as the trimmed runs do,
    :mod:`kgroups._engines.trimmed`).

    Parameters
    ----------
    init : str or array-like of shape (n_samples,) or (n_starts, n_samples)
        The estimator's ``init``.
    engine : Engine
        The fit's engine (it checks the labels against its rows).
    keep : ndarray of bool of shape (n_samples,) or None
        The rows of positive weight.
    n_clusters : int
        The number of clusters k.
    owner : str
        The name errors start with.
    noise : bool, default=False
        Whether -1 (set aside) is a label.

    Returns
    -------
    starts : list of ndarray of shape (n_kept,) or None

    Examples
    --------
    >>> import numpy as np
    >>> from kgroups import KernelKGroups
    >>> eng = KernelKGroups(2)._prepare(np.array([[0.0], [1.0], [5.0]]), None)[2]
    >>> [s.tolist() for s in given_starts([0, 0, 1], eng, None, 2, "KernelKGroups")]
    [[0, 0, 1]]
    >>> given_starts("random", eng, None, 2, "KernelKGroups") is None
    True
    """
    if isinstance(init, str):
        return None
    if not noise:
        return engine.given_starts(kept_starts(init, keep, n_clusters, owner), n_clusters,
                                   owner)
    starts = kept_starts(init, keep, n_clusters, owner, noise=True, n_rows=engine.n_samples)
    return engine.given_starts(np.where(starts < 0, n_clusters, starts), n_clusters + 1, owner)


def named_starts(init, engine, X, w, kind, *, n_clusters, n_init, random_state, input_space,
                 gram, fit_sample, semimetric):
    """``n_init`` starts of the named ``init``, in the engine's form.

    Parameters
    ----------
    init : str
        A name of :mod:`kgroups._init`.
    engine : Engine
        The fit's engine.
    X : array-like of shape (n_samples, n_features)
        The fit's data (as the engine laid them out).
    w : array-like of shape (n_samples,)
        Their weights.
    kind : object
        The input's kind (:func:`kgroups._input.input_kind`): ``host_rows`` and
        ``take``.
    n_clusters, n_init : int
        The number of clusters k and of starts.
    random_state : None, int or numpy.random.Generator
        The seed of the starts' one random stream.
    input_space : bool
        Whether the semimetric's space is the input's (raw data of a closed-form or
        callable semimetric), where ``"k-means++"`` seeds the rows themselves.
    gram : callable
        ``gram()``: the ``x0 = 0`` Gram matrix of the spectral start.
    fit_sample : callable
        ``fit_sample(X_sample, w_sample, seed)``: the labels of the estimator's fit of
        a sample (the sample start).
    semimetric : str or callable
        The semimetric (a callable one has no sample start).

    Returns
    -------
    starts : list of ndarray of shape (n_samples,)

    Examples
    --------
    >>> import numpy as np
    >>> from kgroups import KernelKGroups
    >>> from kgroups._input import input_kind
    >>> X = np.array([[0.0], [0.1], [5.0], [5.1]])
    >>> eng = KernelKGroups(2)._prepare(X, None)[2]
    >>> starts = named_starts("random", eng, X, np.ones(4), input_kind(X), n_clusters=2,
    ...                       n_init=3, random_state=0, input_space=True, gram=None,
    ...                       fit_sample=None, semimetric="energy")
    >>> len(starts), sorted(set(starts[0].tolist()))
    (3, [0, 1])
    """
    rng = np.random.default_rng(as_seed(random_state))
    # the input-space seeding ("k-means++") reads rows in host memory; without them
    # (a precomputed matrix, data on a CUDA device), or where the semimetric's space
    # is not the input's (one built from the data), it seeds in the kernel's space
    raw = X if input_space and kind.host_rows else None
    return [initial_labels(init, engine, raw, w, n_clusters, rng, gram=gram,
                           fit_sample=None if raw is None else fit_sample,
                           take=kind.take, semimetric=semimetric)
            for _ in range(n_init)]


def init_name(init):
    """How ``verbose`` names ``init``: the name, or the kind of given labels.

    Parameters
    ----------
    init : str or array-like
        The estimator's ``init``.

    Returns
    -------
    text : str

    Examples
    --------
    >>> init_name("random"), init_name([0, 1, 1]), init_name([[0, 1, 1], [1, 0, 0]])
    ("'random'", 'given labels', 'given labels, one start per row')
    """
    if isinstance(init, str):
        return repr(init)
    return "given labels" if np.ndim(init) == 1 else "given labels, one start per row"
