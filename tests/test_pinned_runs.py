"""Every engine and start gives the results the code had before the engines shared
one run interface and one driver (``tests/pinned``: the cases, how the data were
made and from which commit).

Labels, sweep counts and moves per sweep must be identical; W equal to 1e-12
relative (the sums may be added in another order).

``KGROUPS_PINNED_AS_PYTHON=1`` runs every kernel of the in-memory cases as Python
(``kgroups.config_context(kernels="python")``; minutes, not part of the default run): the
same results are expected, since both ways make the same operations in the same order.
"""

import contextlib
import os
import pathlib
import warnings

import numpy as np
import pytest

from tests.pinned.cases import all_cases, run_case
from tests.pinned.make_pinned import load

pytest.importorskip("dask.array")

PINNED = load(pathlib.Path(__file__).parent / "pinned" / "pinned_runs.npz")
CASES = all_cases()
GROUPS = sorted({name.rsplit("/", 2)[0] for name in CASES})


def test_every_case_is_pinned():
    assert set(PINNED) == set(CASES)


def kernels_way(group):
    """As Python when asked for (not Dask: its worker threads choose on their own)."""
    if os.environ.get("KGROUPS_PINNED_AS_PYTHON") == "1":
        from kgroups import config_context

        return config_context(kernels="python")
    return contextlib.nullcontext()


@pytest.mark.parametrize("group", GROUPS)
def test_same_results_as_before(group):
    names = [n for n in CASES if n.rsplit("/", 2)[0] == group]
    with warnings.catch_warnings(), kernels_way(group):
        warnings.simplefilter("ignore")
        for name in names:
            got, want = run_case(name, CASES[name]), PINNED[name]
            for key in ("labels", "n_iter", "n_moves"):
                np.testing.assert_array_equal(got[key], want[key], err_msg=f"{name}: {key}")
            assert got["W"] == pytest.approx(float(want["W"]), rel=1e-12), name


MATRIX_FREE = sorted(n for n in CASES if n.startswith("kg/matrix-free/"))


@pytest.mark.parametrize("semimetric", sorted({n.split("/")[2] for n in MATRIX_FREE}))
def test_certified_float32_pass_gives_the_pinned_results(semimetric):
    """dtype="float32" on the matrix-free engine (the certified float32 pass over the
    pairs, decisions checked against its error bound and made again in float64 where
    they cannot be): the pinned float64 labels, sweeps and moves, W to 1e-12."""
    names = [n for n in MATRIX_FREE if n.split("/")[2] == semimetric]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in names:
            cls, X, w, params = CASES[name]
            got = run_case(name, (cls, X, w, dict(params, dtype="float32")))
            want = PINNED[name]
            for key in ("labels", "n_iter", "n_moves"):
                np.testing.assert_array_equal(got[key], want[key], err_msg=f"{name}: {key}")
            assert got["W"] == pytest.approx(float(want["W"]), rel=1e-12), name
