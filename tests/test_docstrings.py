"""numpydoc validation of every public docstring (what the API reference shows).

Every name in the ``__all__`` of ``kgroups``, ``kgroups.graph``, ``kgroups.datasets``
and ``kgroups.metrics`` that is a class or a function, and every public method that
kgroups defines on those classes (methods inherited from scikit-learn are
scikit-learn's to document), is checked with :func:`numpydoc.validate.validate`.
Skipped when numpydoc is not installed (it is in the ``test`` and ``docs`` extras).

Every one also has a References section (the papers, with equation numbers;
numpydoc has no check for it: ``REF01`` below), a See Also section (``SA01``) and
Examples (``EX01``), which tests/test_doctests.py runs.

Checks left out, everywhere (codes of numpydoc's validation guide):

* ``ES01`` (no extended summary): a one-line summary is enough for small helpers.
* ``RT02`` (the first Returns line should be the type only): numpydoc's format
  also allows a named return, ``labels : ndarray of shape (n,)``, and kgroups
  names its return values (they are the names the user guide uses).
* ``SS05`` (summary should start with an infinitive verb): many summaries say
  what is returned, "Number of negative eigenvalues of H_r ...", which reads
  better for functions that compute a quantity.

Checks left out for some objects:

* ``PR01`` (parameters not documented) for the result dataclasses: their
  constructor's parameters are their fields, documented as Attributes.

``BACKLOG`` lists docstrings that still miss a section or a description
(``PR01``/``PR07``: a parameter undocumented or without description;
``RT01``/``RT03``: no Returns section or a return value without description;
``SA01``, ``REF01``, ``EX01``: no See Also, References or Examples). Only its
codes are waived for that object, every other check applies, and
:func:`test_backlog_is_current` fails once the entry is fixed.
"""

import importlib
import inspect
from dataclasses import is_dataclass

import pytest

validate = pytest.importorskip("numpydoc.validate").validate
NumpyDocString = pytest.importorskip("numpydoc.docscrape").NumpyDocString

PUBLIC_MODULES = ("kgroups", "kgroups.graph", "kgroups.datasets", "kgroups.metrics",
                  "kgroups.exceptions")
# GL01: the summary starts on the line of the opening quotes, the package's style
# (numpydoc >= 1.9 accepts it; 1.8, the oldest the test extra allows, flags it).
IGNORED = {"ES01", "GL01", "RT02", "SS05"}
IGNORED_FOR_METHODS = set()
IGNORED_FOR_RESULTS = {"PR01"}


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
    errors = validate(path)["errors"]
    if not _docstring(path)["References"]:
        errors.append(("REF01", "No References section (the papers the object follows)"))
    return [(code, msg) for code, msg in errors if code not in ignored]


def resolve(path):
    """The object a dotted public path names (attributes, else submodules)."""
    module, _, rest = path.partition(".")
    obj = importlib.import_module(module)
    for part in rest.split("."):
        obj = getattr(obj, part) if hasattr(obj, part) else importlib.import_module(
            f"{obj.__name__}.{part}")
    return obj


def _docstring(path):
    return NumpyDocString(inspect.getdoc(resolve(path)) or "")


def test_backlog_is_current():
    kinds = dict(OBJECTS)
    assert set(BACKLOG) <= set(kinds), set(BACKLOG) - set(kinds)
    fixed = {path: codes - {c for c, _ in _errors(path, kinds[path])}
             for path, codes in BACKLOG.items()}
    fixed = {path: codes for path, codes in fixed.items() if codes}
    assert not fixed, f"fixed, remove from BACKLOG: {fixed}"
