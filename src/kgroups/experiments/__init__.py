"""Experiments of the papers, one module per table or figure.

Every module in this package that defines ``NAME`` is an experiment. It also
defines ``TITLE`` (one line: paper and item), ``PAPER`` (the published numbers
it is compared with) and

``run(out, trials=None, quick=False, seed=0) -> str``

which writes a Markdown table (``NAME.md``) and PNG figures under ``out``,
prints the paper's values beside ours, and returns the Markdown. ``trials=None``
means the paper's trial count; ``quick=True`` shrinks the experiment (fewer
trials, smaller grids or data) to a quick check. ``kgroups reproduce NAME`` runs one,
``kgroups reproduce all`` runs them all (see :func:`registry`).

Why the harness ships in the installed package, and why its plots are an extra:
``kgroups reproduce`` and ``kgroups demo`` are commands of the installed tool,
so a user who ran ``pip install kgroups`` can check the papers' numbers without
a clone; the experiments use only the public API and the bundled datasets, and
nothing here is imported by ``import kgroups`` (no cost to estimator users).
What the harness needs beyond the estimators (matplotlib for the figures) is
the ``plot`` extra:
``pip install 'kgroups[plot]'`` (``make demo`` and ``make test`` install it).
Without it, running an experiment stops with a ``ModuleNotFoundError`` that
names the extra; :func:`require_plot` raises the same error up front (before
minutes of Monte Carlo), for callers such as the CLI.
"""

from __future__ import annotations

import importlib
import pkgutil

__all__ = ["registry", "require_plot"]


def require_plot():
    """Raise ``ModuleNotFoundError`` naming the ``plot`` extra if matplotlib is missing.

    Every experiment draws figures; call this before running one so that a
    missing extra is reported before the computation, not after it.
    """
    import importlib.util

    from .._errors import no_matplotlib
    from ._methods import HARNESS

    if importlib.util.find_spec("matplotlib") is None:
        raise no_matplotlib(HARNESS)


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
