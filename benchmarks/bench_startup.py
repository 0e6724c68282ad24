"""Start-up costs a new user meets, each in a fresh process, against scikit-learn's.

Measured in one run, the commands alternated round by round so that both sides
share the machine's state (file cache, other load):

* ``kgroups --help`` and ``kgroups --version`` (the installed console script);
* ``kgroups cluster`` on a 2,000-row CSV file (four blobs, 8 columns, k = 4), by the
  console script and by ``python -m kgroups.cli``, whose *fit* phase is the time
  the command reports for its fit; the report gives its wall time over that fit
  plus Python's own start-up (``python -c pass``), medians of the same run;
* the goal of the command line: ``python -c "import numpy, numba"`` (the floor of
  any command that clusters with numba kernels) and the same fit in a running
  Python (``KernelKGroups(4, random_state=0)`` on the file's rows, its kernels
  loaded by an earlier fit: the median of a few fits); the report gives
  ``kgroups cluster`` over 2 x the floor + that fit, and ``kgroups --help`` over
  0.25 s (a ratio <= 1 meets the goal);
* what running any numba kernel from its disk cache costs: a fresh process that
  imports numpy and numba and calls one trivial kernel (``x + 1.0``) compiled with
  ``cache=True`` by the warm-up round, numba's first use of its CPU target included;
  the report gives ``kgroups cluster`` over it;
* a tiny first fit, ``KernelKGroups(3).fit(np.random.rand(50, 2))``, against
  ``KMeans(3).fit(...)`` of scikit-learn on the same kind of data, each with its
  imports, split into phases (import numpy, import the estimator, fit: timed by
  the child process; exit: from the child's last line to its end, the
  interpreter's teardown);
* what the imports cost: ``python -X importtime`` of both tiny fits, summed by
  top-level package, and the packages only kgroups' fit imports;
* the first use after an install: the same ``kgroups cluster`` with numba's cache of
  compiled kernels empty (``NUMBA_CACHE_DIR`` a new folder), so that every kernel
  the fit runs is compiled for this machine, as on a user's first fit
  (``--first-uses`` runs, default 1: each takes tens of seconds);
* the first fits after an install, each in a fresh process with numba's cache empty
  (``--first-fits`` rounds, the fits alternated; ``benchmarks/_first_fit.py`` is the
  child): kgroups' default fit ``KernelKGroups(4)`` and its fit with nothing given
  (``n_clusters="auto", semimetric="auto"``) of the 2,000 x 8 points (goals: 5 s and
  8 s for the fit on two cores), beside scikit-learn's ``KMeans(4)`` and ``HDBSCAN()``
  (compiled wheels) and the numba-based UMAP and pynndescent (from the venv that
  ``benchmarks/setup_startup_peers.sh`` makes, ``--peers-python``; left out, and said
  so, where it is missing). Each row gives the import, the fit's wall and CPU time,
  the CPU numba spent compiling and the part of it in LLVM, and the process's wall and
  CPU time; then the per-kernel table of kgroups' two fits: each function numba
  compiled, its compilations (one per signature) and its own CPU seconds (nested
  compilations subtracted), from the first round.

Prints, in Markdown, the machine's load average before and after, the median and the
fastest wall time of each command, the ratios to the goals, the ratio of the medians
kgroups / scikit-learn, and the breakdown; ``--out`` also writes it to a file (the
performance page shows ``benchmarks/results/bench_startup.md``).
The children run as after an install: with ``PYTHONDONTWRITEBYTECODE`` removed from
their environment, so Python's bytecode cache and numba's cache of compiled kernels
are written in the first round, which warms them and is left out of the statistics.

Usage: python benchmarks/bench_startup.py [--rounds 5] [--first-uses 1] [--first-fits 1]
       [--peers-python PY] [--before-src OLD/src] [--out FILE]
       (--rounds 0 --first-uses 0: the first fits only)
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import resource
import statistics
import subprocess
import sys
import tempfile
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
# The same fit as ``kgroups cluster FILE -k 4 --seed 0``, in a running Python: the
# first fit loads the kernels, the median of the next ones is the fit's own time.
RUNNING_FIT = """
import json, statistics, sys, time
import numpy as np
from kgroups import KernelKGroups
X = np.loadtxt(sys.argv[1], delimiter=",")
times = []
for _ in range(6):
    t0 = time.perf_counter()
    KernelKGroups(4, random_state=0).fit(X)
    times.append(time.perf_counter() - t0)
print(json.dumps({"fit": statistics.median(times[1:])}))
"""
# One trivial kernel, cached on disk: the cost of running any numba kernel in a fresh
# process (the module is written beside the CSV file; the warm-up round caches it).
ONE_KERNEL_MODULE = """import numba


@numba.njit(cache=True)
def f(x):
    return x + 1.0
"""
N_ROWS, N_COLS, K = 2000, 8, 4
HELP_GOAL = 0.25  # seconds


def console_script():
    """The ``kgroups`` command of this interpreter's environment (or ``python -m``)."""
    path = os.path.join(os.path.dirname(sys.executable), "kgroups")
    return [path] if os.path.exists(path) else [sys.executable, "-m", "kgroups.cli"]


ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
KG_FIT = "kgroups KernelKGroups"
CLI = f"kgroups cluster ({N_ROWS:,} x {N_COLS}, k={K})"
CLI_MODULE = f"python -m kgroups.cli cluster ({N_ROWS:,} x {N_COLS}, k={K})"
FLOOR = 'python -c "import numpy, numba"'
ONE_KERNEL = "import numpy, numba and run one cached numba kernel"
RUNNING = f"the same fit in a running Python ({N_ROWS:,} x {N_COLS}, k={K})"
FIT_LINE = re.compile(r"^time: ([\d.]+) s")


def write_csv(folder):
    """A CSV file of ``N_ROWS`` rows in ``N_COLS`` columns, ``K`` blobs; its path."""
    import numpy as np

    rng = np.random.default_rng(0)
    X = rng.normal(size=(N_ROWS, N_COLS)) + 6.0 * rng.integers(0, K, size=(N_ROWS, 1))
    path = os.path.join(folder, "points.csv")
    np.savetxt(path, X, delimiter=",", fmt="%.6f")
    with open(os.path.join(folder, "one_kernel.py"), "w") as fh:
        fh.write(ONE_KERNEL_MODULE)
    return path


def commands(csv_path):
    """name -> (argv, environment) of every measured command."""
    kg = console_script()
    cluster = ["cluster", csv_path, "-k", str(K), "--seed", "0"]
    out = {"kgroups --help": (kg + ["--help"], ENV),
           "kgroups --version": (kg + ["--version"], ENV),
           "python -c pass": ([sys.executable, "-c", "pass"], ENV),
           FLOOR: ([sys.executable, "-c", "import numpy, numba"], ENV),
           ONE_KERNEL: ([sys.executable, "-c", "import numpy, numba, one_kernel; "
                         "one_kernel.f(1.0)"],
                        {**ENV, "PYTHONPATH": os.path.dirname(csv_path)}),
           CLI: (kg + cluster, ENV),
           CLI_MODULE: ([sys.executable, "-m", "kgroups.cli"] + cluster, ENV),
           RUNNING: ([sys.executable, "-c", RUNNING_FIT, csv_path], ENV)}
    for name, (imp, fit) in FITS.items():
        out[name] = ([sys.executable, "-c", CHILD.format(import_line=imp, fit_line=fit)], ENV)
    return out


def run_once(argv, env):
    """Wall seconds of one run and the phases it printed (if any): the JSON line of a
    tiny fit, or the fit time ``kgroups cluster`` reports."""
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, check=True, env=env)
    wall, ended = time.perf_counter() - start, time.time()
    lines = done.stdout.strip().splitlines()
    last = lines[-1] if lines else ""
    phases = json.loads(last) if last.startswith("{") else {}
    if "end" in phases:  # from the child's last line to its exit: interpreter teardown
        phases["exit"] = ended - phases.pop("end")
    fit = next((FIT_LINE.match(ln) for ln in lines if FIT_LINE.match(ln)), None)
    if fit:
        phases["fit"] = float(fit.group(1))
    return wall, phases


def first_uses(runs, csv_path):
    """Wall seconds of ``runs`` runs of ``kgroups cluster``, each with numba's cache
    empty (a new ``NUMBA_CACHE_DIR``)."""
    argv = commands(csv_path)[CLI][0]
    walls = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as cache:
            walls.append(run_once(argv, {**ENV, "NUMBA_CACHE_DIR": cache})[0])
    return walls


FIRST_FIT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_first_fit.py")
PEERS_PYTHON = os.path.join(os.path.dirname(os.path.abspath(__file__)), ".data",
                            "startup-peers", "bin", "python")
FIRST_GOALS = {"kgroups default": 5.0, "kgroups nothing given": 8.0}  # fit seconds, 2 cores
KGROUPS_FITS = tuple(FIRST_GOALS)


BEFORE = " (before)"


def first_fit_children(peers_python, before_src=None):
    """row -> (the Python that runs ``_first_fit.py WHAT``, WHAT, its environment): the
    peers' venv for UMAP and pynndescent where it imports them, and kgroups' fits again
    from ``before_src`` (another version's ``src`` on ``PYTHONPATH``, rows marked
    :data:`BEFORE`); and the peers left out with the reason."""
    out = {w: (sys.executable, w, ENV) for w in KGROUPS_FITS}
    if before_src:
        env = {**ENV, "PYTHONPATH": os.path.abspath(before_src)}
        out.update({w + BEFORE: (sys.executable, w, env) for w in KGROUPS_FITS})
    out.update({w: (sys.executable, w, ENV) for w in ("sklearn KMeans", "sklearn HDBSCAN")})
    missing = []
    for what, module in (("UMAP", "umap"), ("pynndescent", "pynndescent")):
        ok = peers_python and os.path.exists(peers_python) and subprocess.run(
            [peers_python, "-c", f"import {module}"], capture_output=True, env=ENV).returncode == 0
        if ok:
            out[what] = (peers_python, what, ENV)
        else:
            missing.append(f"{what} (not importable by {peers_python or 'no --peers-python'}: "
                           "run benchmarks/setup_startup_peers.sh)")
    return out, missing


def first_fits(runs, csv_path, peers_python, before_src=None):
    """row -> the runs of its first fit, each in a fresh process with numba's cache in a
    new folder, the rows alternated round by round: the child's JSON with the
    process's wall and CPU seconds added."""
    children, missing = first_fit_children(peers_python, before_src)
    for python, what, env in children.values():  # Python's bytecode written, as installed
        subprocess.run([python, "-c", _first_fit_import(what)], capture_output=True, env=env)
    results = {row: [] for row in children}
    for _ in range(runs):
        for row, (python, what, env) in children.items():
            with tempfile.TemporaryDirectory() as cache:
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                t0 = time.perf_counter()
                done = subprocess.run([python, FIRST_FIT, what, csv_path], capture_output=True,
                                      text=True, check=True,
                                      env={**env, "NUMBA_CACHE_DIR": cache})
                wall = time.perf_counter() - t0
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
            out = json.loads(done.stdout.strip().splitlines()[-1])
            out["wall"] = wall
            out["cpu"] = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            results[row].append(out)
    return results, missing


def _first_fit_import(what):
    sys.path.insert(0, os.path.dirname(FIRST_FIT))
    from _first_fit import FITS

    return FITS[what][0]


def _compiling(row):
    return sum(r[1] for r in row["kernels"].values()), sum(r[0] for r in row["kernels"].values())


def report_first_fits(results, missing, say):
    """The first fits' table (medians over the rounds) and kgroups' two goals."""
    if not results:
        return
    say("First fits after an install, each in a fresh process with numba's cache empty "
        "(medians over the rounds; *compiling*: the CPU seconds numba spent compiling, "
        "nested compilations counted once, and the part in LLVM):")
    say("")
    say("| first fit (2,000 x 8) | import s | fit s | fit CPU s | compiling CPU s | of which "
        "LLVM s | compilations | process s | process CPU s |")
    say("|---|---|---|---|---|---|---|---|---|")
    med = statistics.median
    for what, rows in results.items():
        comp = [_compiling(r) for r in rows]
        say(f"| {what} | {med(r['import'] for r in rows):.2f} | {med(r['fit'] for r in rows):.2f}"
            f" | {med(r['fit_cpu'] for r in rows):.2f} | {med(c[0] for c in comp):.2f} | "
            f"{med(sum(k[2] for k in r['kernels'].values()) for r in rows):.2f} | "
            f"{med(c[1] for c in comp):.0f} | {med(r['wall'] for r in rows):.2f} | "
            f"{med(r['cpu'] for r in rows):.2f} |")
    say("")
    for what, goal in FIRST_GOALS.items():
        for row in (what, what + BEFORE):
            fits = [r["fit"] for r in results.get(row, [])]
            if fits:
                say(f"Goal: the first `{row}` fit within {goal:g} s: {med(fits):.2f} s "
                    f"({', '.join(f'{f:.2f}' for f in fits)}) = **{med(fits) / goal:.2f}x** of "
                    "the goal.")
    if missing:
        say("")
        say("Left out: " + "; ".join(missing) + ".")
    say("")
    report_compile_table(results, say)


def report_compile_table(results, say):
    """Each function numba compiled for kgroups' two first fits (their first round)."""
    runs = {row: results[row][0]["kernels"] for what in KGROUPS_FITS
            for row in (what, what + BEFORE) if results.get(row)}
    if not runs:
        return
    names = sorted(set().union(*runs.values()),
                   key=lambda n: -sum(r.get(n, [0, 0.0])[1] for r in runs.values()))
    say("What numba compiled for kgroups' first fits (first round): per function, its "
        "compilations (one per signature) and its own CPU seconds, of which LLVM:")
    say("")
    say("| function | " + " | ".join(f"{w}: compilations | own CPU s | LLVM s" for w in runs)
        + " |")
    say("|---|" + "---|---|---|" * len(runs))
    for name in names + ["all"]:
        cells = []
        for rows in runs.values():
            row = ([sum(r[0] for r in rows.values()), sum(r[1] for r in rows.values()),
                    sum(r[2] for r in rows.values())] if name == "all" else rows.get(name))
            cells.append(" | ".join(
                [f"{row[0]}", f"{row[1]:.2f}", f"{row[2]:.2f}"] if row else ["", "", ""]))
        short = name.replace("kgroups._kernels.", "")
        say(f"| {'**all**' if name == 'all' else f'`{short}`'} | " + " | ".join(cells) + " |")
    say("")


def report_first_uses(first, walls, say):
    if not first:
        return
    cached = statistics.median(walls[CLI])
    say(f"First use after an install: `{CLI}` with numba's cache empty (every kernel of "
        f"the fit compiled for this machine): median **{statistics.median(first):.1f} s** "
        f"({', '.join(f'{w:.1f}' for w in first)} s), against {cached:.3f} s once the "
        "kernels are cached.")
    say("")


def measure(rounds, csv_path):
    """name -> (wall seconds per round, phases per round); round 0 is a warm-up."""
    cmds = commands(csv_path)
    walls = {name: [] for name in cmds}
    phases = {name: [] for name in cmds}
    for r in range(rounds + 1):
        for name, (argv, env) in cmds.items():
            wall, ph = run_once(argv, env)
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


PHASES = ("numpy", "import", "fit", "exit")


def report(walls, phases, say):
    say("| command | median s | min s | " + " | ".join(f"{p} s" for p in PHASES) + " |")
    say("|---|---|---|" + "---|" * len(PHASES))
    for name, values in walls.items():
        ph = phases[name]
        cells = [f"{statistics.median(p[k] for p in ph):.3f}" if ph and k in ph[0] else ""
                 for k in PHASES]
        say(f"| `{name}` | {statistics.median(values):.3f} | {min(values):.3f} | "
            + " | ".join(cells) + " |")
    say("")
    report_goal(walls, phases, say)
    kg, sk = (statistics.median(walls[n]) for n in FITS)
    say(f"Tiny fit in a fresh process: kgroups / scikit-learn KMeans = **{kg / sk:.2f}x** "
        f"(medians {kg:.3f} s / {sk:.3f} s).")
    python = statistics.median(walls["python -c pass"])
    for name in (CLI, CLI_MODULE):
        wall = statistics.median(walls[name])
        fit = statistics.median(p["fit"] for p in phases[name])
        say(f"`{name}`: wall / (the fit it reports + `python -c pass`) = "
            f"**{wall / (fit + python):.2f}x** (medians {wall:.3f} s / ({fit:.3f} s + "
            f"{python:.3f} s)).")
    say("")


def report_goal(walls, phases, say):
    """The command line's goals: ``kgroups cluster`` within 2 x the numba floor + the
    fit in a running Python, ``kgroups --help`` within HELP_GOAL seconds."""
    floor = statistics.median(walls[FLOOR])
    fit = statistics.median(p["fit"] for p in phases[RUNNING])
    goal = 2 * floor + fit
    wall = statistics.median(walls[CLI])
    say(f"Goal: `{CLI}` within 2 x `{FLOOR}` + {RUNNING}: {wall:.3f} s / (2 x {floor:.3f} s "
        f"+ {fit:.3f} s = {goal:.3f} s) = **{wall / goal:.2f}x** of the goal.")
    one = statistics.median(walls[ONE_KERNEL])
    say(f"Beside what any numba kernel costs: `{CLI}` / `{ONE_KERNEL}` = "
        f"**{wall / one:.2f}x** (medians {wall:.3f} s / {one:.3f} s).")
    help_wall = statistics.median(walls["kgroups --help"])
    say(f"Goal: `kgroups --help` within {HELP_GOAL} s: {help_wall:.3f} s = "
        f"**{help_wall / HELP_GOAL:.2f}x** of the goal.")
    say("")


def report_imports(say):
    (kg_name, kg), (sk_name, sk) = FITS.items()
    ours, theirs = import_breakdown(*kg), import_breakdown(*sk)
    say("Import time of the tiny fits by top-level package (`-X importtime`, self times "
        "summed, s):")
    say("")
    say(f"| package | {kg_name} | {sk_name} |")
    say("|---|---|---|")
    rows = sorted(set(ours) | set(theirs), key=lambda p: -max(ours.get(p, 0), theirs.get(p, 0)))
    for pkg in rows[:10]:
        say(f"| {pkg} | {ours.get(pkg, 0.0):.3f} | {theirs.get(pkg, 0.0):.3f} |")
    say(f"| all | {sum(ours.values()):.3f} | {sum(theirs.values()):.3f} |")
    only = {p: t for p, t in ours.items() if p not in theirs}
    say("")
    say(f"Imported only by kgroups' fit: {sum(only.values()):.3f} s in {len(only)} "
        f"packages ("
        + ", ".join(f"{p} {t:.3f}" for p, t in sorted(only.items(), key=lambda x: -x[1])[:5])
        + ").")
    say("")


def report_help_imports(say):
    code = ("import sys; from kgroups.cli import main; main(['cluster', '--help']); "
            f"print([m for m in {HEAVY!r} if m in sys.modules], file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, env=ENV)
    say(f"Scientific packages loaded by `kgroups cluster --help`: "
        f"{done.stderr.strip().splitlines()[-1]}.")


def load_average():
    """The machine's load average, as ``uptime`` prints it (other work slows every row)."""
    try:
        return ", ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:  # pragma: no cover - platforms without it
        return "unknown"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--first-uses", type=int, default=1,
                        help="runs with numba's cache empty (0: none)")
    parser.add_argument("--first-fits", type=int, default=1,
                        help="rounds of the first fits with numba's cache empty (0: none)")
    parser.add_argument("--peers-python", default=PEERS_PYTHON,
                        help="the Python of the venv with umap-learn and pynndescent "
                             "(benchmarks/setup_startup_peers.sh)")
    parser.add_argument("--before-src", default=None,
                        help="another version's src folder: its first fits too, alternated "
                             "with this one's (rows marked 'before')")
    parser.add_argument("--out", default=None, help="also write the report here")
    args = parser.parse_args()
    import kgroups

    lines = []

    def say(line):
        print(line, flush=True)
        lines.append(line)

    say(f"kgroups {kgroups.__version__} from {os.path.dirname(kgroups.__file__)}")
    say(f"{platform.machine()}, {os.cpu_count()} cores, python "
        f"{sys.version.split()[0]}, {time.strftime('%Y-%m-%d')}")
    say(f"command: python {' '.join(sys.argv)}")
    say(f"load average (1, 5, 15 min) before: {load_average()}")
    say("")
    with tempfile.TemporaryDirectory() as tmp:
        csv_path = write_csv(tmp)
        walls, phases = measure(args.rounds, csv_path) if args.rounds else ({}, {})
        first = first_uses(args.first_uses, csv_path) if args.rounds else []
        fits, missing = (first_fits(args.first_fits, csv_path, args.peers_python,
                                    args.before_src) if args.first_fits else ({}, []))
    if args.rounds:
        say(f"{args.rounds} rounds after one warm-up round, the commands alternated; the "
            "phases are the medians of the times the child took for each.")
        say("")
        report(walls, phases, say)
        report_first_uses(first, walls, say)
    report_first_fits(fits, missing, say)
    if args.rounds:
        report_imports(say)
        report_help_imports(say)
        say("")
    say(f"load average (1, 5, 15 min) after: {load_average()}")
    if args.out:
        with open(args.out, "w") as fh:
            fh.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
