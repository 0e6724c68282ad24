"""Random states: what ``random_state`` becomes, the seed drawn from it and uniform draws.

Every value that the constraint ``RANDOM_STATE`` of :mod:`kgroups._validation`
accepts (None, an integer, a numpy RandomState or Generator) becomes a numpy random
state (:func:`as_random_state`), an integer seed for ``numpy.random.default_rng``
(:func:`as_seed`) or uniform draws from either kind (:func:`uniform_sample`); one seed
keys many named streams (:func:`stream`).
:mod:`kgroups._validation` re-exports them.
"""

from __future__ import annotations

import zlib

import numpy as np


def as_random_state(random_state):
    """A numpy RandomState or Generator from a value that :data:`RANDOM_STATE` accepts.

    None gives numpy's global RandomState and an integer a new ``RandomState(seed)``
    (scikit-learn's ``check_random_state``, without importing scikit-learn); a
    RandomState or Generator is returned as is.
    """
    if random_state is None:
        return np.random.mtrand._rand
    if isinstance(random_state, (np.random.RandomState, np.random.Generator)):
        return random_state
    return np.random.RandomState(random_state)


def as_seed(random_state):
    """An integer seed in ``[0, 2**31 - 1)`` drawn from :func:`as_random_state`'s state
    (``randint`` of a RandomState, ``integers`` of a Generator): how the estimators
    and engines turn ``random_state`` into a ``numpy.random.default_rng`` seed."""
    rs = as_random_state(random_state)
    top = np.iinfo(np.int32).max
    return int(rs.integers(top) if isinstance(rs, np.random.Generator) else rs.randint(top))


def uniform_sample(rs, shape):
    """Uniform [0, 1) draws from a RandomState (``random_sample``) or Generator (``random``)."""
    if isinstance(rs, np.random.Generator):
        return rs.random(shape)
    return rs.random_sample(shape)


def stream(seed, purpose, index=0):
    """The seed of one random stream, keyed by a ``seed`` (the choice of k's: the data's),
    the stream's ``purpose`` (a name) and an ``index``: no two streams share a seed.

    >>> stream(7, "graph") != stream(7, "reference", 8), stream(7, "graph") == stream(7, "graph")
    (True, True)
    """
    key = [int(seed) % 2**32, zlib.crc32(purpose.encode()), int(index)]
    return int(np.random.SeedSequence(key).generate_state(1)[0])
