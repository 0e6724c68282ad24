"""Start-up costs a new user meets, each in a fresh process, against scikit-learn's.

Measured in one run, the commands alternated round by round so that both sides
share the machine's state (file cache, other load):

* ``kgroups --help`` and ``kgroups --version`` (the installed console script);
* a tiny first fit, ``KernelKGroups(3).fit(np.random.rand(50, 2))``, against
  ``KMeans(3).fit(...)`` of scikit-learn on the same kind of data, each with its
  imports, split into phases (import numpy, import the estimator, fit: timed by
  the child process; exit: from the child's last line to its end, the
  interpreter's teardown);
* what the imports cost: ``python -X importtime`` of both tiny fits, summed by
  top-level package, and the packages only kgroups' fit imports.

Prints the median and the fastest wall time of each command, the ratio of the
medians kgroups / scikit-learn, and the breakdown. The children run as after an
install: with ``PYTHONDONTWRITEBYTECODE`` removed from their environment, so
Python's bytecode cache and numba's cache of compiled kernels are written in the
first round, which warms them and is left out of the statistics.

Usage: python benchmarks/bench_startup.py [--rounds 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

CHILD = """
import json, time
t0 = time.perf_counter()
import numpy as np
t1 = time.perf_counter()
{import_line}
t2 = time.perf_counter()
{fit_line}
t3 = time.perf_counter()
print(json.dumps({{"numpy": t1 - t0, "import": t2 - t1, "fit": t3 - t2,
                  "end": time.time()}}))
"""
FITS = {
    "kgroups KernelKGroups": ("from kgroups import KernelKGroups",
                              "KernelKGroups(3).fit(np.random.rand(50, 2))"),
    "sklearn KMeans": ("from sklearn.cluster import KMeans",
                       "KMeans(3).fit(np.random.rand(50, 2))"),
}
HEAVY = ("numpy", "scipy", "sklearn", "numba", "llvmlite", "pandas", "networkx")


def console_script():
    """The ``kgroups`` command of this interpreter's environment (or ``python -m``)."""
    path = os.path.join(os.path.dirname(sys.executable), "kgroups")
    return [path] if os.path.exists(path) else [sys.executable, "-m", "kgroups.cli"]


def commands():
    """name -> argv of every measured command."""
    kg = console_script()
    out = {"kgroups --help": kg + ["--help"], "kgroups --version": kg + ["--version"],
           "python -c pass": [sys.executable, "-c", "pass"]}
    for name, (imp, fit) in FITS.items():
        out[name] = [sys.executable, "-c", CHILD.format(import_line=imp, fit_line=fit)]
    return out


ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def run_once(argv):
    """Wall seconds of one run and the phases it printed (if any)."""
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, check=True, env=ENV)
    wall, ended = time.perf_counter() - start, time.time()
    last = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
    phases = json.loads(last) if last.startswith("{") else {}
    if "end" in phases:  # from the child's last line to its exit: interpreter teardown
        phases["exit"] = ended - phases.pop("end")
    return wall, phases


def measure(rounds):
    """name -> (wall seconds per round, phases per round); round 0 is a warm-up."""
    cmds = commands()
    walls = {name: [] for name in cmds}
    phases = {name: [] for name in cmds}
    for r in range(rounds + 1):
        for name, argv in cmds.items():
            wall, ph = run_once(argv)
            if r:
                walls[name].append(wall)
                phases[name].append(ph)
    return walls, phases


def import_breakdown(import_line, fit_line):
    """Top-level package -> seconds of its own imports, in the tiny fit's process."""
    code = f"import numpy as np\n{import_line}\n{fit_line}\n"
    done = subprocess.run([sys.executable, "-X", "importtime", "-c", code],
                          capture_output=True, text=True, check=True, env=ENV)
    per_package = {}
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        self_us, _, module = line[len("import time:"):].split("|")
        top = module.strip().split(".")[0]
        per_package[top] = per_package.get(top, 0.0) + int(self_us) / 1e6
    return per_package


def report(walls, phases):
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, "
          f"{len(next(iter(walls.values())))} rounds (after one warm-up round)")
    print(f"{'command':24s} {'median s':>9s} {'min s':>7s}   phases (median s)")
    for name, values in walls.items():
        ph = phases[name]
        text = "  ".join(f"{k} {statistics.median(p[k] for p in ph):.3f}"
                         for k in (ph[0] if ph and ph[0] else {}))
        print(f"{name:24s} {statistics.median(values):9.3f} {min(values):7.3f}   {text}")
    kg, sk = (statistics.median(walls[n]) for n in FITS)
    print(f"\ntiny fit, fresh process: kgroups / scikit-learn KMeans = {kg / sk:.2f}x "
          f"(medians {kg:.3f} s / {sk:.3f} s)")


def report_imports():
    (kg_name, kg), (sk_name, sk) = FITS.items()
    ours, theirs = import_breakdown(*kg), import_breakdown(*sk)
    print("\nimport time by top-level package (-X importtime, self times summed, s):")
    print(f"{'package':16s} {kg_name:>22s} {sk_name:>16s}")
    rows = sorted(set(ours) | set(theirs), key=lambda p: -max(ours.get(p, 0), theirs.get(p, 0)))
    for pkg in rows[:14]:
        print(f"{pkg:16s} {ours.get(pkg, 0.0):22.3f} {theirs.get(pkg, 0.0):16.3f}")
    print(f"{'all':16s} {sum(ours.values()):22.3f} {sum(theirs.values()):16.3f}")
    only = {p: t for p, t in ours.items() if p not in theirs}
    print(f"imported only by kgroups' fit: {sum(only.values()):.3f} s in {len(only)} "
          f"packages, most: " + ", ".join(f"{p} {t:.3f}" for p, t in
                                          sorted(only.items(), key=lambda x: -x[1])[:5]))


def report_help_imports():
    code = ("import sys; from kgroups.cli import main; main(['cluster', '--help']); "
            f"print([m for m in {HEAVY!r} if m in sys.modules], file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, env=ENV)
    print(f"\nscientific packages loaded by 'kgroups cluster --help': "
          f"{done.stderr.strip().splitlines()[-1]}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    walls, phases = measure(args.rounds)
    report(walls, phases)
    report_imports()
    report_help_imports()


if __name__ == "__main__":
    main()
