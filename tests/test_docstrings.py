"""numpydoc validation of every public docstring (what the API reference shows).

Every name in the ``__all__`` of ``kgroups``, ``kgroups.graph``, ``kgroups.datasets``
and ``kgroups.metrics`` that is a class or a function, and every public method that
kgroups defines on those classes (methods inherited from scikit-learn are
scikit-learn's to document), is checked with :func:`numpydoc.validate.validate`.
Skipped when numpydoc is not installed (it is in the ``test`` and ``docs`` extras).

Checks left out, everywhere (codes of numpydoc's validation guide):

* ``SA01`` (no See Also section): the cross-links live in the user guide and the
  API index; a See Also section on every function would repeat them.
* ``ES01`` (no extended summary): a one-line summary is enough for small helpers.
* ``RT02`` (the first Returns line should be the type only): numpydoc's format
  also allows a named return, ``labels : ndarray of shape (n,)``, and kgroups
  names its return values (they are the names the user guide uses).
* ``SS05`` (summary should start with an infinitive verb): many summaries say
  what is returned, "Number of negative eigenvalues of H_r ...", which reads
  better for functions that compute a quantity.

Checks left out for some objects:

* ``EX01`` (no Examples section) for methods and for the result dataclasses and
  warning classes: the class's or the function's own Examples show them.
* ``PR01`` (parameters not documented) for the result dataclasses: their
  constructor's parameters are their fields, documented as Attributes.

``BACKLOG`` would list docstrings that still miss a description (``PR01``/``PR07``:
a parameter undocumented or without description; ``RT01``/``RT03``: no Returns
section or a return value without description; ``EX01``: no Examples). It is
empty: every public docstring passes. Should an entry ever be needed, only its
codes are waived for that object, every other check applies, and
:func:`test_backlog_is_current` fails once the entry is fixed.
"""

import importlib
import inspect
from dataclasses import is_dataclass

import pytest

validate = pytest.importorskip("numpydoc.validate").validate

PUBLIC_MODULES = ("kgroups", "kgroups.graph", "kgroups.datasets", "kgroups.metrics")
IGNORED = {"SA01", "ES01", "RT02", "SS05"}
IGNORED_FOR_METHODS = {"EX01"}
IGNORED_FOR_RESULTS = {"EX01", "PR01"}


def _public_objects():
    """``(import path, kind)`` of every public callable and kgroups-defined method."""
    out = []
    for modname in PUBLIC_MODULES:
        module = importlib.import_module(modname)
        for name in module.__all__:
            obj = getattr(module, name)
            if not callable(obj):
                continue  # constants (SEMIMETRICS, DATA_DIR...) carry no docstring
            result = inspect.isclass(obj) and (is_dataclass(obj) or issubclass(obj, Warning))
            out.append((f"{modname}.{name}", "result" if result else "object"))
            if inspect.isclass(obj) and not result:
                for attr in sorted(dir(obj)):
                    method = getattr(obj, attr)
                    if (not attr.startswith("_") and callable(method)
                            and getattr(method, "__module__", "").startswith("kgroups")):
                        out.append((f"{modname}.{name}.{attr}", "method"))
    return out


BACKLOG: dict[str, set[str]] = {}


OBJECTS = _public_objects()


def test_every_public_name_is_checked():
    assert len(OBJECTS) > 60
    assert ("kgroups.KernelKGroups.fit", "method") in OBJECTS


@pytest.mark.parametrize("path, kind", OBJECTS, ids=[p for p, _ in OBJECTS])
def test_docstring(path, kind):
    errors = _errors(path, kind, BACKLOG.get(path, set()))
    assert not errors, f"{path}:\n" + "\n".join(f"  {c}: {m}" for c, m in errors)


def _errors(path, kind, waived=()):
    ignored = IGNORED | {"method": IGNORED_FOR_METHODS, "result": IGNORED_FOR_RESULTS,
                         "object": set()}[kind] | set(waived)
    return [(code, msg) for code, msg in validate(path)["errors"] if code not in ignored]


def test_backlog_is_current():
    kinds = dict(OBJECTS)
    assert set(BACKLOG) <= set(kinds), set(BACKLOG) - set(kinds)
    fixed = {path: codes - {c for c, _ in _errors(path, kinds[path])}
             for path, codes in BACKLOG.items()}
    fixed = {path: codes for path, codes in fixed.items() if codes}
    assert not fixed, f"fixed, remove from BACKLOG: {fixed}"
