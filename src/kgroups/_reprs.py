"""Short reprs of the result objects: the class, the sizes and the key numbers.

A result holds arrays as long as the data (labels, a linkage, an embedding); its
``repr`` never prints them, so that the result of a fit of a million points reads
in one line at the prompt, e.g.
``KGroupsResult(n_samples=366, n_clusters=6, objective=..., within_energy=..., n_iter=5)``.
The arrays stay where they are, as attributes.
"""

from __future__ import annotations

import numbers

import numpy as np

from ._validation import Integer


def short_repr(obj, **items) -> str:
    """``ClassName(key=value, ...)`` with each value formatted by :func:`_format`."""
    body = ", ".join(f"{key}={_format(value)}" for key, value in items.items())
    return f"{type(obj).__name__}({body})"


def n_clusters_of(labels):
    """``max(labels) + 1`` of an in-memory label array (None for a lazy one: a
    repr never starts a computation)."""
    if isinstance(labels, np.ndarray):
        return int(labels.max()) + 1 if labels.size else 0
    return None


def _format(value) -> str:
    """Numbers short (6 significant digits), arrays as their shape, never their data."""
    if value is None or isinstance(value, (bool, np.bool_)):
        return repr(None if value is None else bool(value))
    if Integer()(value):  # the one integer rule (numpy integers too)
        return str(int(value))
    if isinstance(value, numbers.Real):
        return f"{float(value):.6g}"
    if isinstance(value, str):
        return repr(value) if len(value) <= 40 else repr(value[:37] + "...")
    shape = getattr(value, "shape", None)
    if shape is not None:
        if isinstance(value, np.ndarray) and value.ndim == 1 and value.size <= 6:
            return "[" + ", ".join(_format(v.item()) for v in value) + "]"
        return f"<{type(value).__name__} of shape {tuple(shape)}>"
    if isinstance(value, (list, tuple)):
        return f"<{type(value).__name__} of length {len(value)}>"
    text = repr(value)
    return text if len(text) <= 40 else f"<{type(value).__name__}>"
