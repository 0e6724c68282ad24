"""The errors of the front door: what kgroups raises for an invalid input, and its words.

:class:`InvalidParameterError` (both a ``ValueError`` and a ``TypeError``, so either
``except`` catches it) is what every check of :mod:`kgroups._validation` raises, and
:func:`describe` is how a message shows the value it received. A call that does not
fit a signature is told why, with a hint for a likely slip of a parameter's name
(:func:`did_you_mean`, :func:`signature_error`); :func:`named_init` makes an
estimator's ``__init__`` say so in the name of its own class. :func:`pyplot` says
which extra a figure needs when matplotlib is missing.
:mod:`kgroups._validation` re-exports all of them.
"""

from __future__ import annotations

import difflib
import functools
import inspect
import os
import sys

import numpy as np

from ._sparse import issparse
from .exceptions import DistinctRowsWarning, InvalidParameterError, KRangeWarning  # noqa: F401




def describe(value, width=60):
    """Short text for a value in an error message (arrays by shape and dtype)."""
    if issparse(value):
        return f"a scipy.sparse matrix of shape {value.shape}"
    if isinstance(value, np.ndarray) and value.size > 8:
        return f"an array of shape {value.shape} and dtype {value.dtype}"
    text = repr(value)
    return text if len(text) <= width else text[:width - 3] + "..."


_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def user_stacklevel():
    """The ``stacklevel`` that makes the warning of the function calling this one point
    at the first line outside kgroups (the user's call, whatever path led to it)."""
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame, level = frame.f_back, level + 1
    return level


# Parameter names users bring from other libraries -> ours (for "did you mean").
LIKELY_MEANT = {"k": "n_clusters", "n_groups": "n_clusters", "clusters": "n_clusters",
                "seed": "random_state", "metric": "semimetric", "gamma": "sigma",
                "n_iter": "max_iter", "weights": "sample_weight"}


def did_you_mean(name, known):
    """`` (did you mean X?)`` for an unknown parameter ``name`` that is a likely slip for
    one of ``known`` (a name of another library, or a close spelling), else ``""``."""
    guess = LIKELY_MEANT.get(name)
    if guess not in known:
        close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.75)
        guess = close[0] if close else None
    return f" (did you mean {guess}?)" if guess else ""


def signature_error(exc, sig, kwargs):
    """Why a call does not fit ``sig`` (``exc``: ``sig.bind``'s), with hints."""
    unknown = [k for k in kwargs if k not in sig.parameters]
    if unknown and not any(p.kind == p.VAR_KEYWORD for p in sig.parameters.values()):
        return (f"got an unexpected keyword argument {unknown[0]!r}"
                f"{did_you_mean(unknown[0], sig.parameters)}")
    if "positional" in str(exc):
        names = [p.name for p in sig.parameters.values() if p.name != "self"
                 and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        return f"{exc} (positional: {', '.join(names)}; pass the others by name)"
    hints = [k + hint for k in unknown if (hint := did_you_mean(k, sig.parameters))]
    return f"{exc}; got {', '.join(hints)}" if hints else str(exc)


def named_init(cls, init):
    """``init`` raising, for a call that does not fit it, an error that names ``cls``, not
    the class defining it; ``inspect`` (and ``get_params``) still see its signature."""
    sig = inspect.signature(init)

    @functools.wraps(init)
    def __init__(self, *args, **kwargs):
        try:
            sig.bind(self, *args, **kwargs)
        except TypeError as exc:
            raise InvalidParameterError(
                f"{cls.__name__}.__init__() {signature_error(exc, sig, kwargs)}; expected "
                f"parameters: {', '.join(p for p in sig.parameters if p != 'self')}") from None
        init(self, *args, **kwargs)

    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    return __init__


def no_matplotlib(who):
    """The ``ModuleNotFoundError`` of a figure without matplotlib: ``who`` needs it,
    and the extra that installs it."""
    return ModuleNotFoundError(f"{who} needs matplotlib, which is not installed; install the "
                               "plot extra (pip install '.[plot]' from a checkout of kgroups)",
                               name="matplotlib")


def pyplot(who, backend=None):
    """``matplotlib.pyplot`` (``backend`` chosen first when given), or
    :func:`no_matplotlib` of ``who``."""
    try:
        import matplotlib
    except ModuleNotFoundError as err:
        if err.name != "matplotlib":
            raise
        raise no_matplotlib(who) from err
    if backend is not None:
        matplotlib.use(backend)
    import matplotlib.pyplot as plt

    return plt
