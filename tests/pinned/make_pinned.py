"""Write ``pinned_runs.npz``: the results of every case of ``cases.py``.

The file was produced from the code at commit ae0f0db (before the engines shared
one run interface and one driver), in a worktree of that commit:

    git worktree add /tmp/kg_old ae0f0db
    PYTHONPATH=/tmp/kg_old/src:. NUMBA_NUM_THREADS=1 .venv/bin/python tests/pinned/make_pinned.py

on one thread and again on two (``--check``): both gave the same labels, sweep
counts and W. One deliberate change followed: the sample start of large data
(cases ``*/sample-start/*``) now draws its seed before the sample's rows, as the
Dask engine always did, so that both engines share one sample start. Those cases
were pinned again from the same old code with its two draws swapped (lines 119-120
of ``src/kgroups/_init.py`` at ae0f0db: ``idx = ...`` and ``seed = ...``), with
``--only sample-start``.

A second deliberate change: the base point ``x0`` of the Nystrom kernel (eq. 7) is
the robust centre of the landmarks instead of the mean of the data (a mean dragged by
one far row made every feature lose its digits), which changes the low-rank and Dask
approximations. Those cases (``--only low-rank``, ``--only /dask/``) were pinned again
from the code of that change, on one thread, and checked on two; the engines' own
exactness on their feature kernels is tested in ``tests/engines/test_lowrank.py``.

``tests/test_pinned_runs.py`` fits every case with the current code and compares.
Run this again only to pin a deliberate change of results, and say why in the
commit message.
"""

from __future__ import annotations

import argparse
import pathlib
import sys
import warnings

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

from tests.pinned.cases import all_cases, run_case  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(HERE / "pinned_runs.npz"))
    parser.add_argument("--check", action="store_true",
                        help="compare with the file instead of writing it")
    parser.add_argument("--only", default=None,
                        help="fit only the cases whose name contains this; the file keeps "
                        "the others' results")
    args = parser.parse_args()
    results = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, case in all_cases().items():
            if args.only is None or args.only in name:
                results[name] = run_case(name, case)
    if args.only is not None and not args.check:
        results = {**load(args.out), **results}
    if args.check:
        old = load(args.out)
        bad = [name for name, res in results.items()
               if name not in old or any(not np.array_equal(res[key], old[name][key])
                                         for key in res)]
        print(f"{len(results)} cases, {len(bad)} differ: {bad[:10]}")
        return 1 if bad else 0
    np.savez_compressed(args.out, **pack(results))
    print(f"wrote {len(results)} cases to {args.out}")
    return 0


def pack(results):
    """One array per quantity: the cases' labels and moves concatenated, with offsets."""
    names = list(results)
    lab = [results[n]["labels"] for n in names]
    mov = [results[n]["n_moves"] for n in names]
    return {"names": np.array(names), "W": np.array([results[n]["W"] for n in names]),
            "n_iter": np.array([results[n]["n_iter"] for n in names]),
            "labels": np.concatenate(lab), "labels_at": np.cumsum([0] + [len(a) for a in lab]),
            "n_moves": np.concatenate(mov), "n_moves_at": np.cumsum([0] + [len(a) for a in mov])}


def load(path):
    """name -> {"labels", "W", "n_iter", "n_moves"}: the inverse of :func:`pack`."""
    z = np.load(path)
    la, ma = z["labels_at"], z["n_moves_at"]
    return {str(name): {"labels": z["labels"][la[i]:la[i + 1]], "W": z["W"][i],
                        "n_iter": z["n_iter"][i], "n_moves": z["n_moves"][ma[i]:ma[i + 1]]}
            for i, name in enumerate(z["names"])}


if __name__ == "__main__":
    sys.exit(main())
