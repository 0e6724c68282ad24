"""The same configurations on two versions of kgroups, alternated in one run.

    python benchmarks/bench_ab.py --old REV                  # bench_targets' rows
    python benchmarks/bench_ab.py --old REV --dask 10000000  # and bench_dask's fit

``REV`` (a commit) is extracted into a temporary directory (``git archive``: the
repository's state is not touched); the new version is this working tree, or the
tree at ``--new PATH``. Each configuration runs in its own process with
``PYTHONPATH`` pointing at one tree's ``src`` and that tree's own benchmark script
(``bench_targets.py --child``, ``bench_dask.py``), so each version is timed by the
code that was written for it. The rounds alternate old and
new (``--rounds``, default 2) and each version keeps its fastest round: other jobs
on the machine slow one run, rarely both. Prints, per configuration, both times with
their phases, new / old and the sweeps of each (W: the Dask row; the exact engines'
results are compared by tests/test_pinned_runs.py).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

KPP = {"init": "k-means++", "n_init": 1}
CONFIGS = [  # (label, n, parameters): rows of bench_targets.py
    ("20k auto, n_init=1", 20_000, KPP),
    ("20k auto, n_init=10", 20_000, {"init": "k-means++", "n_init": 10}),
    ("20k auto, defaults", 20_000, {}),
    ("100k exact (matrix-free)", 100_000, {**KPP, "engine": "matrix-free"}),
    ("1M low-rank", 1_000_000, {**KPP, "engine": "low-rank"}),
]


def targets_child(tree, n, kw):
    env = {**os.environ, "PYTHONPATH": os.path.join(tree, "src")}
    out = subprocess.run([sys.executable, os.path.join(tree, "benchmarks", "bench_targets.py"),
                          "--child", str(n), json.dumps(kw)], env=env, capture_output=True,
                         text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def dask_run(tree, n):
    env = {**os.environ, "PYTHONPATH": os.path.join(tree, "src")}
    out = subprocess.run([sys.executable, os.path.join(tree, "benchmarks", "bench_dask.py"),
                          "--n", str(n)], env=env, capture_output=True, text=True, check=True)
    text = out.stdout
    fit = float(re.search(r"^fit: ([0-9.]+) s", text, re.M).group(1))
    w = float(re.search(r"W = ([0-9.e+-]+)", text).group(1))
    ari = float(re.search(r"ARI to the generating labels: ([0-9.]+)", text).group(1))
    return {"seconds": fit, "W": w, "ari": ari, "text": text}


def fastest(runs):
    return min(runs, key=lambda r: r["seconds"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", required=True, help="the commit to compare with")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--dask", type=int, default=0, help="also bench_dask.py at this n")
    parser.add_argument("--only", default=None, help="configurations whose label contains this")
    parser.add_argument("--new", default=ROOT, help="the tree of the new version (default: "
                        "this working tree, uncommitted changes included)")
    args = parser.parse_args()
    new = os.path.abspath(args.new)
    head = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                          capture_output=True, text=True, check=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "src"],
                           capture_output=True, text=True, check=True).stdout.strip()
    with tempfile.TemporaryDirectory() as tmp:
        old = os.path.join(tmp, "old")
        os.makedirs(old)
        archive = subprocess.run(["git", "-C", ROOT, "archive", args.old], check=True,
                                 capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", old], input=archive, check=True)
        what = (f"{head}{' + uncommitted src' if dirty else ''}" if new == ROOT
                else f"the tree at {new}")
        print(f"old = {args.old}, new = {what}; {args.rounds} rounds alternated, fastest "
              "kept", flush=True)
        configs = [c for c in CONFIGS if args.only is None or args.only in c[0]]
        for label, n, kw in configs:
            runs = {"old": [], "new": []}
            for rnd in range(args.rounds):
                order = ("old", "new") if rnd % 2 == 0 else ("new", "old")
                for which in order:
                    runs[which].append(targets_child(old if which == "old" else new, n, kw))
            show(label, fastest(runs["old"]), fastest(runs["new"]))
        if args.dask:
            runs = {"old": [], "new": []}
            for rnd in range(args.rounds):
                order = ("old", "new") if rnd % 2 == 0 else ("new", "old")
                for which in order:
                    runs[which].append(dask_run(old if which == "old" else new, args.dask))
            a, b = fastest(runs["old"]), fastest(runs["new"])
            print(f"{'dask ' + str(args.dask):<28} old {a['seconds']:7.1f} s  new "
                  f"{b['seconds']:7.1f} s  new/old {b['seconds'] / a['seconds']:.2f}  "
                  f"W {a['W']:.6g} / {b['W']:.6g}  ARI {a['ari']:.4f} / {b['ari']:.4f}; "
                  f"every fit: old {[r['seconds'] for r in runs['old']]}, "
                  f"new {[r['seconds'] for r in runs['new']]}", flush=True)


def show(label, a, b):
    print(f"{label:<28} old {a['seconds']:6.2f} s (prepare {a['prepare']:.2f}, starts+M "
          f"{a['starts_m']:.2f}, sweeps {a['sweep_s']:.2f})  new {b['seconds']:6.2f} s "
          f"(prepare {b['prepare']:.2f}, starts+M {b['starts_m']:.2f}, sweeps "
          f"{b['sweep_s']:.2f})  new/old {b['seconds'] / a['seconds']:.2f}  sweeps "
          f"{a['sweeps']}/{b['sweeps']}" + (f"  new pass: {b['pass']}" if b.get("pass") else
                                              ""), flush=True)


if __name__ == "__main__":
    main()
