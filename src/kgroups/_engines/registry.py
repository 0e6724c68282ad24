"""The engines by name: the one table that maps ``engine=`` to an engine class.

Each engine declares what it can do on its class (:class:`~kgroups._engines.engine.
Capabilities`: exact or approximate, the inputs and semimetrics it takes, the array
kind, the device, the memory it holds, the move rules). Everything that needs the
engines reads this table: the parameter check of ``engine=`` (:func:`names`), the
choice of ``engine="auto"`` and the checks of an input against an engine
(:mod:`kgroups._engines.select`), the choices of the command line, the table of
engines in the documentation, and the error messages that name alternatives.

The built-in engines are imported on first use (the command line reads the names
without importing NumPy); :func:`register` adds an engine class at run time (a
subclass of :class:`~kgroups._engines.engine.Engine` with a ``name`` of its own).
"""

from __future__ import annotations

import importlib

# The value of ``engine=`` that lets the registry choose (kgroups._engines.select).
AUTO = "auto"

# name -> (module, class) of the built-in engines, in order of preference on ties.
BUILTIN = {
    "dense": ("kgroups._engines.dense", "DenseEngine"),
    "sparse": ("kgroups._engines.sparse", "SparseEngine"),
    "matrix-free": ("kgroups._engines.matrix_free", "MatrixFreeEngine"),
    "low-rank": ("kgroups._engines.lowrank", "LowRankEngine"),
    "dask": ("kgroups._engines.dask", "DaskEngine"),
    "gpu": ("kgroups._engines.gpu", "GpuEngine"),
}

# Engines registered at run time: name -> class.
_REGISTERED: dict = {}


def names():
    """The engine names, in order of preference on ties (without ``"auto"``)."""
    return tuple(BUILTIN) + tuple(n for n in _REGISTERED if n not in BUILTIN)


def engine_class(name):
    """The engine class registered as ``name`` (a KeyError for an unknown name: the
    parameter check of ``engine=`` refuses unknown names before)."""
    if name in _REGISTERED:
        return _REGISTERED[name]
    module, cls = BUILTIN[name]
    return getattr(importlib.import_module(module), cls)


def engines():
    """``{name: class}`` of every engine, in order of preference on ties."""
    return {name: engine_class(name) for name in names()}


def register(cls):
    """Add (or replace) the engine ``cls`` under ``cls.name``; returns ``cls``, so it
    can decorate the class.

    Examples
    --------
    >>> from kgroups._engines.dense import DenseEngine
    >>> class Mine(DenseEngine):
    ...     name = "mine"
    >>> _ = register(Mine)
    >>> "mine" in names()
    True
    >>> unregister("mine")
    >>> "mine" in names()
    False
    """
    from .engine import Engine

    if not (isinstance(cls, type) and issubclass(cls, Engine)):
        raise TypeError(f"register: expected a subclass of Engine, got {cls!r}")
    if not isinstance(cls.name, str) or cls.name in (AUTO, "engine"):
        raise ValueError(f"register: {cls.__name__}.name={cls.name!r} should be a new name")
    _REGISTERED[cls.name] = cls
    return cls


def unregister(name):
    """Remove the engine registered at run time as ``name``."""
    _REGISTERED.pop(name, None)


def names_for(array_kind=None):
    """The engine names, or those that take arrays of ``array_kind`` (``"numpy"``,
    ``"dask"``)."""
    if array_kind is None:
        return names()
    return tuple(n for n, cls in engines().items() if array_kind in cls.capabilities.array_kinds)

