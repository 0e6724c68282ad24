"""kgroups' settings: :func:`set_config`, :func:`get_config` and :func:`config_context`.

One setting today, ``kernels``: how the numerical kernels run.

* ``"compiled"``: by numba (compiled for the machine on first use and cached on disk);
* ``"python"``: as plain Python, the same functions uncompiled: the same operations in
  the same order, so the same numbers and the same labels, only slower (useful to
  debug, or to check a result without numba);
* ``"auto"`` (the default): compiled, except a small call (a fit, a prediction or a
  block of semimetric values whose work is at most a fit of about 100 points) in a
  process where no kernel has run compiled yet and small calls have taken less than
  half a second in all: such a call costs less as Python than loading numba does.
  The rule and its thresholds are in :mod:`kgroups._kernels.jit`.

:func:`set_config` changes the setting for the whole process, every thread included;
:func:`config_context` changes it within a ``with`` block (and the calls it makes),
and the Dask tasks a fit or a statistic sends to its workers carry the setting in
force when they were made (:func:`carried`). Whatever the setting, results are the
same: only the time differs.
"""

from __future__ import annotations

import contextvars
import functools
from contextlib import contextmanager

from ._validation import KERNEL_MODES, validated

KERNELS = KERNEL_MODES

_GLOBAL = {"kernels": "auto"}
# The settings of the innermost config_context (None outside any).
_LOCAL = contextvars.ContextVar("kgroups_config", default=None)


@validated
def get_config():
    """The settings in force here, as a dict (a copy).

    Returns
    -------
    config : dict
        ``{"kernels": "auto" | "compiled" | "python"}``: the innermost
        :func:`config_context`'s settings, else those of :func:`set_config`.

    See Also
    --------
    set_config : Change the settings for the whole process.
    config_context : Change them within a ``with`` block.

    References
    ----------
    .. [1] G. França, M. L. Rizzo, J. T. Vogelstein, "Kernel k-Groups via
       Hartigan's Method", IEEE TPAMI 43(12), 2021, Algorithm 2 (the sweeps the
       kernels run, the same in every mode).

    Examples
    --------
    >>> import kgroups
    >>> kgroups.get_config()["kernels"]
    'auto'
    """
    local = _LOCAL.get()
    return dict(_GLOBAL if local is None else local)


def kernels_setting():
    """The setting ``kernels`` in force here, read without a copy of the settings or a
    check of arguments: every kernel call asks it (:mod:`kgroups._kernels.jit`)."""
    local = _LOCAL.get()
    return (_GLOBAL if local is None else local)["kernels"]


@validated
def set_config(kernels=None):
    """Change the settings for the whole process (every thread); None keeps a setting.

    Parameters
    ----------
    kernels : {"auto", "compiled", "python"}, default=None
        How the numerical kernels run: compiled by numba, as plain Python, or
        ``"auto"``, compiled except for small calls before numba is loaded. The results are the same in every mode.

    See Also
    --------
    get_config : The settings in force.
    config_context : Change them within a ``with`` block.

    References
    ----------
    .. [1] G. França, M. L. Rizzo, J. T. Vogelstein, "Kernel k-Groups via
       Hartigan's Method", IEEE TPAMI 43(12), 2021, Algorithm 2 (the sweeps the
       kernels run, the same in every mode).

    Examples
    --------
    >>> import kgroups
    >>> kgroups.set_config(kernels="compiled")
    >>> kgroups.get_config()["kernels"]
    'compiled'
    >>> kgroups.set_config(kernels="auto")
    """
    if kernels is not None:
        _GLOBAL["kernels"] = kernels


@contextmanager
@validated
def config_context(*, kernels=None):
    """Settings changed within a ``with`` block; None keeps a setting.

    Parameters
    ----------
    kernels : {"auto", "compiled", "python"}, default=None
        As :func:`set_config`.

    Yields
    ------
    None
        The block runs with the settings changed; they are restored when it ends.

    See Also
    --------
    set_config : Change the settings for the whole process.
    get_config : The settings in force.

    References
    ----------
    .. [1] G. França, M. L. Rizzo, J. T. Vogelstein, "Kernel k-Groups via
       Hartigan's Method", IEEE TPAMI 43(12), 2021, Algorithm 2 (the sweeps the
       kernels run, the same in every mode).

    Examples
    --------
    >>> import numpy as np
    >>> import kgroups
    >>> X = np.random.default_rng(0).normal(size=(40, 2))
    >>> with kgroups.config_context(kernels="python"):
    ...     a = kgroups.KernelKGroups(2, random_state=0).fit(X).labels_
    >>> b = kgroups.KernelKGroups(2, random_state=0).fit(X).labels_
    >>> bool((a == b).all())
    True
    """
    new = get_config()
    if kernels is not None:
        new["kernels"] = kernels
    token = _LOCAL.set(new)
    try:
        yield
    finally:
        _LOCAL.reset(token)


def _run_with(settings, fn, *args, **kwargs):
    with config_context(**dict(settings)):
        return fn(*args, **kwargs)


def carried(fn):
    """``fn`` to run elsewhere (a Dask task, on a worker thread or process) with the
    settings in force now. A :func:`functools.partial` of module-level functions, so
    Dask names it deterministically."""
    return functools.partial(_run_with, tuple(sorted(get_config().items())), fn)
