"""Refuse the old spelling of a renamed keyword argument, naming the new one."""

from __future__ import annotations

import functools

from .._validation import InvalidParameterError


def renamed(**old_to_new):
    """Decorator: a call passing ``old=`` is refused with a message naming ``new``.

    The number of clusters is ``n_clusters`` across kgroups (as in scikit-learn);
    ``renamed(k="n_clusters")`` says so to a caller who writes ``k=``.

    Examples
    --------
    >>> @renamed(k="n_clusters")
    ... def f(n_clusters=2):
    ...     return n_clusters
    >>> f(k=3)
    Traceback (most recent call last):
    ...
    kgroups.exceptions.InvalidParameterError: f: k=3 is spelled n_clusters=3 (the number \
of clusters is n_clusters across kgroups)
    """
    def decorate(func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            for old, new in old_to_new.items():
                if old in kwargs:
                    raise InvalidParameterError(
                        f"{func.__name__}: {old}={kwargs[old]!r} is spelled {new}="
                        f"{kwargs[old]!r} (the number of clusters is {new} across kgroups)")
            return func(*args, **kwargs)
        return wrapper
    return decorate
