"""Experiments of the papers, one module per table or figure.

Every module in this package that defines ``NAME`` is an experiment. It also
defines ``TITLE`` (one line: paper and item), ``PAPER`` (the published numbers
it is compared with) and

``run(out, trials=None, quick=False, seed=0) -> str``

which writes a Markdown table (``NAME.md``) and PNG figures under ``out``,
prints the paper's values beside ours, and returns the Markdown. ``trials=None``
means the paper's trial count; ``quick=True`` shrinks the experiment so that it
finishes in about a minute on 2 cores. ``kgroups reproduce NAME`` runs one,
``kgroups reproduce all`` runs them all (see :func:`registry`).
"""

from __future__ import annotations

import importlib
import pkgutil

__all__ = ["registry"]


def registry():
    """``{NAME: module}`` for every experiment module, sorted by name."""
    found = {}
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        if hasattr(module, "NAME"):
            found[module.NAME] = module
    return dict(sorted(found.items()))
