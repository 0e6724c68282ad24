"""The reasoning of a choice as a structured trace: each step's statistic, threshold and
outcome (:class:`Step`), rendered to text in one place (:func:`render`)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


# The summary's word for the structure step that the neighbourhood graph's groups decided.
GRAPH_SHOWS = "the graph's groups show it"


@dataclass(frozen=True)
class Step:
    """One decision: its statistic's ``value`` (or values by k), ``threshold``, ``outcome``
    (``short``: for the summary), ``margin`` (if close), ``rule``: the clause that decided."""

    step: str
    statistic: str
    value: object
    threshold: float | None = None
    outcome: str = ""
    margin: str = ""
    short: str = ""
    rule: str = ""


def close(a, b, factor=1.5):
    """The margin note of a comparison of ``a`` with ``b`` decided within ``factor``."""
    low, high = min(a, b), max(a, b)
    return f"close: within a factor {factor:g}" if 0 < low and 0 < high < factor * low else ""


def _number(v):
    return v if isinstance(v, str) else (
        str(int(v)) if isinstance(v, (int, np.integer)) else f"{float(v):.3g}")


def _values(value):
    if not isinstance(value, dict):
        return _number(value)
    keys = sorted(value) if all(isinstance(k, (int, np.integer)) for k in value) else value
    return "{" + ", ".join(f"{k}: {_number(value[k])}" for k in keys) + "}"


def few(value):
    """``value`` in words where it is a few named numbers (not a curve by k), else None."""
    by_k = isinstance(value, dict) and (len(value) > 2 or any(
        isinstance(k, (int, np.integer)) for k in value))
    return None if by_k or isinstance(value, (int, np.integer)) else _values(value)


def render(steps, sep=" "):
    """The trace in words: one sentence per step, joined by ``sep``.

    >>> print(render([Step("structure", "dip p-value", 0.0002, 0.005, "structure"),
    ...               Step("silhouette", "mean silhouette by k", {3: 0.71, 2: 0.67})]))
    structure: dip p-value = 0.0002 (threshold 0.005): structure. silhouette: mean silhouette by k = {2: 0.67, 3: 0.71}.
    """
    return sep.join(f"{s.step}: {s.statistic} = {_values(s.value)}"
                    + ("" if s.threshold is None else f" (threshold {_number(s.threshold)})")
                    + (f": {s.outcome}" if s.outcome else "")
                    + (f" ({s.margin})" if s.margin else "") + "." for s in steps)


@dataclass
class Trace:
    """The steps of one choice, in order."""

    steps: list = field(default_factory=list)

    def add(self, *args, **kwargs):
        """Append a :class:`Step` made of the arguments."""
        self.steps.append(Step(*args, **kwargs))
