"""The Examples of every public docstring run, and print what they say they print.

The objects are those of tests/test_docstrings.py (every name in the ``__all__`` of
``kgroups``, ``kgroups.graph``, ``kgroups.datasets`` and ``kgroups.metrics``, and the
public methods kgroups defines on their classes); each one's examples run as a
doctest in the namespace of the module that defines it, as
``pytest --doctest-modules`` (pyproject's default, over ``src/kgroups``) runs them,
with pytest's default ``ELLIPSIS``. This file runs them when only ``tests/`` is
collected too, one test per object, and fails for an object without examples.
"""

import doctest
import inspect
import sys

import pytest

from .test_docstrings import BACKLOG, OBJECTS, resolve as _resolve


def _unique_paths():
    """One path per docstring (a method shared by two estimators runs once)."""
    seen, out = set(), []
    for path, _ in OBJECTS:
        target = inspect.unwrap(_resolve(path))
        if id(target) not in seen:
            seen.add(id(target))
            out.append(path)
    return out


PATHS = _unique_paths()


@pytest.mark.parametrize("path", PATHS)
def test_examples(path):
    obj = _resolve(path)
    module = sys.modules[inspect.unwrap(obj).__module__]
    tests = doctest.DocTestFinder(recurse=False).find(
        obj, name=path, module=False, globs=vars(module).copy())
    examples = [t for t in tests if t.examples]
    if not examples and "EX01" in BACKLOG.get(path, ()):
        pytest.skip(f"{path}: Examples are in tests/test_docstrings.py's BACKLOG")
    assert examples, f"{path} has no Examples to run"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for test in examples:
        runner.run(test, out=lambda text: None)  # failures are counted, not printed
        if runner.failures:
            report = []
            runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
            runner.run(test, out=report.append)
            pytest.fail("".join(report), pytrace=False)
