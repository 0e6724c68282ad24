"""Write ``docs/performance.rst`` from the benchmark outputs in ``benchmarks/results/``.

``docs/conf.py`` runs this at every build, so the performance page always shows the
results files that are in the tree; it also runs alone::

    python docs/make_performance.py            # writes docs/performance.rst
    python docs/make_performance.py --check    # exit 1 if the page is out of date
    python docs/make_performance.py --results DIR --out FILE   # another results folder

The page opens with one figure (time against n, every engine and the peers of one
run, ``scaling.png`` from ``benchmarks/bench_scaling.py``) and one summary table
(each workload: kgroups, the best peer of the same run, their ratio, W and ARI), then
the detailed sections. Long study grids are written as CSV files beside the page
(``docs/_static/performance/``), downloadable, under a short table.

Every table states the machine, the date and the command that produced it. The date
is that of the last commit that changed the results file (the file's modification
time, marked "not committed", when the file has changes git does not know). A results
file that is missing is left out with a note, so the page builds from whatever ran.
This is the one page of the documentation with measurements: the user guide links
here instead of quoting numbers.
"""

from __future__ import annotations

import csv
import datetime
import json
import math
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
RESULTS = ROOT / "benchmarks" / "results"
OUT = DOCS / "performance.rst"
# The full grids of the long studies, as CSV files the page links for download.
GRIDS = DOCS / "_static" / "performance"

# The results files in the tree were all produced on one machine; a file whose header
# names its machine is quoted as it says.
NBSP = "\u00a0"  # keeps a number and its unit on one line of a table cell
MACHINE = ("an x86_64 virtual machine with 2 cores and 24 GB of memory, shared with "
           "other work")


# --------------------------------------------------------------------------- helpers
def _date(path: Path) -> str:
    """The date of the last commit that changed ``path``, or its mtime if uncommitted."""
    try:
        rel = path.resolve().relative_to(ROOT).as_posix()
    except ValueError:  # a results folder outside the repository (make bench --quick)
        return datetime.date.fromtimestamp(path.stat().st_mtime).isoformat()
    try:
        dirty = subprocess.run(["git", "status", "--porcelain", "--", rel], cwd=ROOT,
                               capture_output=True, text=True, check=True).stdout.strip()
        date = subprocess.run(["git", "log", "-1", "--format=%cs", "--", rel], cwd=ROOT,
                              capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        dirty, date = "no git", ""
    if date and not dirty:
        return date
    mtime = datetime.date.fromtimestamp(path.stat().st_mtime).isoformat()
    return f"{mtime} (not committed)"


def _source(files, command, machine=MACHINE, note=None):
    """The provenance line under a table: machine, date, command and files."""
    files = [RESULTS / f for f in files]
    dates = sorted({_date(f) for f in files if f.exists()})
    names = ", ".join(f"``{_shown(f)}``" for f in files)
    lines = ["", f"*Machine:* {machine}. *Date:* {', '.join(dates)}. "
                 f"*Command:* ``{command}``. *Output:* {names}."]
    if note:
        lines[-1] += " " + note
    return lines + [""]


def _command(text, default):
    """The command a Markdown results file records on its first line of the form
    ```python ...``` (``default`` when it records none)."""
    found = re.search(r"^`(python [^`]+)`", text, re.M)
    return found.group(1) if found else default


def _shown(path):
    """A results file as the page names it (relative to the repository if inside)."""
    try:
        return path.resolve().relative_to(ROOT).as_posix()
    except ValueError:
        return path.name


def _relative(path):
    """``path`` as a reST directive in the page ``OUT`` reaches it."""
    return Path(os.path.relpath(path, OUT.parent)).as_posix()


def _grid_csv(name, header, rows):
    """Write a long study's full grid to ``GRIDS/name``; the :download: link to it."""
    GRIDS.mkdir(parents=True, exist_ok=True)
    path = GRIDS / name
    with path.open("w", newline="") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)
    return f":download:`{name} <{_relative(path)}>`"


def _table(header, rows, widths=None, caption=""):
    """An RST list-table."""
    out = [f".. list-table:: {caption}".rstrip(), "   :header-rows: 1"]
    if widths:
        out.append("   :widths: " + " ".join(str(w) for w in widths))
    out.append("")
    for row in [header, *rows]:
        for j, cell in enumerate(row):
            text = str(cell) if str(cell) != "" else " "
            out.append(("   * - " if j == 0 else "     - ") + text)
    return out + [""]


def _heading(text, char="="):
    return [text, char * len(text), ""]


def _missing(name):
    return [f"No results yet (``{_shown(RESULTS / name)}`` is missing).", ""]


def _s(x, digits=2):
    """Seconds, to ``digits`` significant decimals but never fewer than needed."""
    if x is None:
        return "–"
    if x >= 100:
        return f"{x:.0f}{NBSP}s"
    if x >= 10:
        return f"{x:.1f}{NBSP}s"
    if x >= 0.1:
        return f"{x:.{digits}f}{NBSP}s"
    return f"{x:.3f}{NBSP}s"


def _mb(x):
    if x is None:
        return "–"
    return f"{x / 1024:.1f}{NBSP}GB" if x >= 1024 else f"{x:.0f}{NBSP}MB"


def _load(name):
    path = RESULTS / name
    if not path.exists():
        return None
    if path.suffix == ".json":
        return json.loads(path.read_text())
    return path.read_text()


# -------------------------------------------------------------------------- sections
def intro():
    return [
        ":html_theme.sidebar_secondary.remove: true",
        "",
        ".. This file is generated by docs/make_performance.py from benchmarks/results/;",
        "   edit the script or re-run the benchmarks, not this file.",
        "",
        ".. _performance:",
        "",
        *_heading("Performance", "="),
        "How long kgroups takes beside the programs that solve the same problems (R's",
        "``energy`` and ``kernlab``, scikit-learn, networkx), and how good the partitions",
        "are. Every comparison runs the programs in one session on one machine, so read",
        "the ratios rather than the absolute times. ``make bench`` reruns everything and",
        "regenerates this page; ``python benchmarks/run_all.py --quick`` is a smoke run of",
        "the figure and the summary (about a minute).",
        "",
        *scaling_figure(),
        *summary(),
        *_heading("Details"),
        f"Unless a table says otherwise, the machine is {MACHINE}. On such a machine",
        "the same run can vary by 10 to 30% from one minute to the next; the",
        "benchmarks keep the fastest of repeated fits and, where they compare two",
        "programs, run them alternately in one session. Each table says the date and",
        "the command that produced it.",
        "",
        "W is the within energy (TPAMI eq. 15) of the labels found, recomputed for",
        "every program by :func:`kgroups.within_energy`; *moves left* counts the points",
        "that a single move to another cluster would still lower W for",
        "(:func:`kgroups.improving_moves`): 0 at a Hartigan optimum.",
        "",
    ]


def scaling_figure():
    """The figure at the top: time against n, every engine and peer of one run."""
    png = RESULTS / "scaling.png"
    if not png.exists():
        return _missing("scaling.png")
    return [
        f".. figure:: {_relative(png)}",
        "   :width: 100%",
        "   :alt: time of one clustering call against n, log-log, for the kgroups engines,"
        " R energy::kgroups and scikit-learn",
        "",
        "   Time of one clustering call against n (blobs, D = 10, k = 10), log-log: the",
        "   kgroups engines (solid) and the peers (dashed) from the same random labels",
        "   where they accept them, in one run; b is the growth exponent. The line under",
        "   the plot names the machine. Details: `How the time grows with n`_.",
        "",
    ]


def _best(rows, prefixes, exclude=(), key="time_s"):
    """The row of ``rows`` (no error) whose method starts with one of ``prefixes``
    (and holds none of ``exclude``) with the smallest ``key``; None if none."""
    found = [r for r in rows if r["method"].startswith(prefixes) and not r.get("error")
             and r.get(key) is not None and not any(e in r["method"] for e in exclude)]
    return min(found, key=lambda r: (r[key], r.get("time_s") or 0)) if found else None


def _w(x):
    return "–" if x is None else f"{x:.6g}"


def _ari(x):
    return "–" if x is None else f"{x:.3f}"


def _ratio(x):
    return f"{x:.0f}x" if x >= 10 else f"{x:.2g}x"


def _summary_cells(workload, ours, peer):
    """One row: workload, kgroups, best peer, peer time / kgroups time, W, ARI."""
    if ours is None:
        return None
    if peer is None:
        return [workload, f"{ours['method']}: {_s(ours['time_s'])}", "none in this run",
                "–", _w(ours.get("W")), _ari(ours.get("ARI"))]
    return [workload, f"{ours['method']}: {_s(ours['time_s'])}",
            f"{peer['method']}: {_s(peer['time_s'])}",
            _ratio(peer["time_s"] / ours["time_s"]),
            f"{_w(ours.get('W'))} / {_w(peer.get('W'))}",
            f"{_ari(ours.get('ARI'))} / {_ari(peer.get('ARI'))}"]


def _summary_engines():
    """Rows from the 20,000- and 100,000-point blobs of bench_engines."""
    out = []
    rows = _load("engines_20k.json") or []
    blobs = "blobs 20,000 x 10, k = 10"
    out.append(_summary_cells(f"{blobs}, the same random start",
                              _best(rows, ("kgroups",), ("k-means++",)),
                              _best(rows, ("R ",))))
    out.append(_summary_cells(f"{blobs}, k-means++ starts",
                              _best(rows, ("kgroups auto k-means++",), key="W"),
                              _best(rows, ("sklearn",))))
    rows = _load("engines_100k.json") or []
    out.append(_summary_cells("blobs 100,000 x 10, k = 10, k-means++ starts",
                              _best(rows, ("kgroups auto k-means++",), key="W"),
                              _best(rows, ("sklearn",))))
    return out


def _summary_realistic():
    """Rows from bench_realistic: R and kgroups from the same starts, to convergence."""
    out = []
    rows = _load("realistic.json") or []
    for ds in dict.fromkeys(r["dataset"] for r in rows):
        rr = [r for r in rows if r["dataset"] == ds]
        mine = [r for r in rr if r["method"].startswith("ours auto") and
                r["method"].endswith("2t") and r.get("start") != "all"]
        theirs = [r for r in rr if r["method"].startswith("R ")]
        if not mine or not theirs:
            continue

        def pooled(group, name):
            return {"method": name, "time_s": sum(r["time"] for r in group),
                    "W": statistics.median(r["W"] for r in group),
                    "ARI": statistics.median(r["ARI"] for r in group)}

        n, d, k = rr[0]["n"], rr[0]["D"], rr[0]["k"]
        out.append(_summary_cells(f"{ds}, {n:,} x {d}, k = {k}, {len(mine)} starts",
                                  pooled(mine, "KernelKGroups"),
                                  pooled(theirs, "R energy::kgroups")))
    return out


def _summary_scaling():
    """A row from the scaling run when it recorded W and ARI: the largest n at which a
    kgroups engine and a peer both ran."""
    path = RESULTS / "scaling.csv"
    if not path.exists():
        return []
    with path.open() as fh:
        rows = [r for r in csv.DictReader(fh) if r.get("time_s") and r.get("ARI")]
    for r in rows:
        for key in ("time_s", "W", "ARI"):
            r[key] = float(r[key]) if r.get(key) else None
    for n in sorted({int(r["n"]) for r in rows}, reverse=True):
        at = [r for r in rows if int(r["n"]) == n]
        ours, peer = _best(at, ("kgroups",)), _best(at, ("R ",)) or _best(at, ("sklearn",))
        if ours and peer:
            return [_summary_cells(f"blobs {n:,} x 10, k = 10, the scaling run", ours, peer)]
    return []


def _summary_graph():
    text = _load("bench_graph_scale.txt")
    if text is None:
        return []
    head = text.split("\n#", 1)[0]
    fit = re.search(r"kernel k-groups \(.*?\): ([\d.]+) s", head)
    qual = re.search(r"overlap: kernel k-groups ([\d.]+)", head)
    if not (fit and qual):
        return []
    return [["SBM, 1,000,000 nodes, 5,000,000 edges, k = 5",
             f"detect_communities: {_s(float(fit.group(1)))}", "none in this run", "–",
             "–", f"overlap {qual.group(1)}"]]


def _summary_gpu():
    """The GPU fit beside the matrix-free engine on the device machine's cores
    (``bench_gpu.md``'s row "fit, GPU vs matrix-free"), or a row saying no device has
    run it."""
    text = _load("bench_gpu.md") or ""
    device = re.match(r"Device: ([^;]+);", text)
    fit = re.search(r"\| fit, GPU vs matrix-free \| n = ([\d,]+), D = (\d+), k = (\d+) \| "
                    r"[^|]*\| ([\d.]+) s [^|]*\| ([\d.]+) s [^|]*identical labels (\w+) "
                    r"\| ([\d.]+)×", text)
    threads = re.search(r"CPU: (\d+) numba threads", text)
    if not (device and fit and threads and "not measured" not in device.group(1)):
        return [["any of the above on a GPU (``engine=\"gpu\"``)", "not measured yet",
                 "–", "–", "–", "–"]]
    n, d, k, gpu, cpu, same, ratio = fit.groups()
    way = re.search(r"\| fit, GPU vs matrix-free \|[^|]*\|[^|]*\| [\d.]+ s \(\d+ sweeps; "
                    r"(sweeps [^:]+):[^|]*?; (sweeps [^:]+): ([\d.]+) s", text)
    other = (f" ({way.group(1)}; {way.group(2)}: {_s(float(way.group(3)))})" if way else "")
    return [[f"blobs {n} x {d}, k = {k}, one start, on an {device.group(1)}",
             f"engine=\"gpu\": {_s(float(gpu))}{other}",
             f"matrix-free, {threads.group(1)} cores: {_s(float(cpu))}", f"{ratio}x",
             "same labels" if same == "True" else "labels differ", "–"]]


def summary():
    out = [".. _performance-summary:", ""] + _heading("Summary", "-")
    out += [
        "Each workload: the fastest kgroups configuration and the fastest peer of the",
        "same run, the peer's time over kgroups' (above 1: kgroups is faster), and the",
        "quality of both: W (lower is better; kgroups minimises it) and the ARI",
        "against the true classes (1 is perfect). Peers that start from the same",
        "labels solve the same problem; scikit-learn's k-means and Gaussian mixture",
        "solve another one and are there for scale.",
        "",
    ]
    body = [r for r in (_summary_engines() + _summary_scaling() + _summary_realistic()
                        + _summary_graph() + _summary_gpu()) if r is not None]
    return out + _table(["workload", "kgroups", "best peer", "peer / kgroups",
                         "W: kgroups / peer", "ARI: kgroups / peer"], body,
                        widths=[30, 22, 22, 8, 18, 12])


def beside_r_20k():
    rows = _load("engines_20k.json")
    # the label is the target of the gallery's "Engines at scale" example
    out = [".. _engines-measured:", ""] + _heading("Beside R and scikit-learn at 20,000 points")
    if rows is None:
        return out + _missing("engines_20k.json")
    out += [
        "``make_blobs(20000, 10, centers=10)``, k = 10. R's ``energy::kgroups`` (its",
        "default ``iter.max=10``), ``kernlab::kkmeans`` and every kgroups engine start",
        "from the same random labels; scikit-learn's ``KMeans`` and ``GaussianMixture``",
        "(their defaults) are there for scale. *Time* is that of the clustering call;",
        "*peak memory* that of its process. The last rows start from k-means++ with one",
        "and ten starts.",
        "",
    ]
    body = []
    for r in rows:
        if r.get("error"):
            continue
        w = r["W"]
        body.append([r["method"], _s(r["time_s"]), _mb(r["peak_MB"]),
                     "–" if w is None else f"{w:.2f}",
                     "–" if r["moves_left"] is None else r["moves_left"],
                     "–" if r["ARI"] is None else f"{r['ARI']:.3f}",
                     "–" if not r["R_over_method"] else f"{r['R_over_method']:.1f}"])
    out += _table(["method", "time", "peak memory", "W", "moves left", "ARI",
                   "R time / this"], body, widths=[34, 10, 12, 14, 10, 8, 12])
    return out + _source(["engines_20k.json", "bench_engines.txt"],
                         "python benchmarks/bench_engines.py --scenario 20k")


def realistic():
    rows = _load("realistic.json")
    out = _heading("Realistic data beside R")
    if rows is None:
        return out + _missing("realistic.json")
    out += [
        "Overlapping blobs (``make_blobs(20000, 10, centers=10, cluster_std=2.5)``), a",
        "stand-in of UCI pendigits' size (``make_blobs(10992, 16, centers=10,",
        "cluster_std=2.5)``), scikit-learn's handwritten digits and the real tables",
        "bundled in ``kgroups.datasets``. R ``energy::kgroups(x, k, iter.max=1000,",
        "cluster=start)`` and ``KernelKGroups(k, init=start)`` (``engine=\"auto\"``, 2",
        "threads) start from the same 3 uniform random labelings and both run to",
        "convergence. *One fit per start* sums the times of the three fits; *one fit* is",
        "``init`` with one start per row, whose restarts share the pass over the pairs",
        "and return the best start. W ratio: the median over the starts of our W over",
        "R's from the same start.",
        "",
    ]
    datasets = list(dict.fromkeys(r["dataset"] for r in rows))
    body = []
    for ds in datasets:
        rr = [r for r in rows if r["dataset"] == ds]
        r_rows = [r for r in rr if r["method"].startswith("R ")]
        ours = [r for r in rr if r["method"].startswith("ours auto") and
                r["method"].endswith("2t")]
        per = [r for r in ours if r.get("start") != "all"]
        together = [r for r in ours if r.get("start") == "all"]
        if not r_rows or not per:
            continue
        n, d, k = rr[0]["n"], rr[0]["D"], rr[0]["k"]
        t_r = sum(r["time"] for r in r_rows)
        t_per = sum(r["time"] for r in per)
        engine = per[0].get("engine", "")
        w_r = {r["start"]: r["W"] for r in r_rows}
        ratio = statistics.median(r["W"] / w_r[r["start"]] for r in per
                                  if r["start"] in w_r)
        cells = [f"{ds} ({n:,} x {d}, k = {k})", _s(t_r),
                 f"{_s(t_per)} ({engine})", f"{t_r / t_per:.0f}x"]
        if together:
            t_all = together[0]["time"]
            cells += [_s(t_all), f"{t_r / t_all:.0f}x"]
        else:
            cells += ["–", "–"]
        cells += [f"{ratio:.5f}",
                  f"{max(r['moves_left'] for r in r_rows)} / "
                  f"{max(r['moves_left'] for r in per)}"]
        body.append(cells)
    out += _table(["data", "R", "ours, one fit per start", "R / ours", "ours, one fit",
                   "R / ours", "W ours / W R", "moves left R / ours"], body,
                  widths=[24, 9, 16, 8, 10, 8, 10, 10])
    return out + _source(["realistic.json", "bench_realistic.txt"],
                         "python benchmarks/bench_realistic.py")


def small_r():
    text = _load("compare_r_kgroups.txt")
    out = _heading("Small problems beside R", "-")
    if text is None:
        return out + _missing("compare_r_kgroups.txt")
    summary = [ln.strip() for ln in text.splitlines()
               if ln.startswith(("median W", "W-lowering", "total time"))]
    out += [
        "20 random Gaussian mixtures (n = 500, D = 5, k = 4, overlapping components),",
        "the same random starting labels for R's ``energy::kgroups`` (run to",
        "convergence) and :class:`kgroups.KernelKGroups`. The script's summary:",
        "",
        "::",
        "",
        *("   " + ln for ln in summary),
        "",
    ]
    return out + _source(["compare_r_kgroups.txt"],
                         "python benchmarks/compare_r_kgroups.py")


def targets():
    text = _load("bench_targets.txt")
    out = _heading("From 20,000 to a million points")
    if text is None:
        return out + _missing("bench_targets.txt")
    out += [
        "``make_blobs(n, 10, centers=10, cluster_std=2.5)`` (overlapping), k = 10,",
        "k-means++ starts, each configuration in its own process, best of 2 fits. The",
        "time is split as ``engine_stats_`` reports it: checks and engine, the starts",
        "and their sums M (where the pass over all pairs is), the Hartigan sweeps. The",
        "last row checks the approximate low-rank engine: the exact W of its labels on",
        "a 20,000-point subsample, over the exact engine's W on that subsample.",
        "",
    ]
    pat = re.compile(r"^(\S.*?)\s{2,}([\d.]+) s \(prepare ([\d.]+), starts\+M ([\d.]+), "
                     r"sweeps ([\d.]+)\)\s+engine=(\S+) sweeps=(\d+) starts=(\d+) "
                     r"peak=([\d.]+) GB")
    body, ratio = [], None
    for ln in text.splitlines():  # the first block is the latest run
        if ln.startswith("#") and body:
            break
        m = pat.match(ln)
        if m:
            name, t, prep, start, sweeps, eng, nsw, nst, peak = m.groups()
            body.append([name, f"{t}{NBSP}s", f"{prep} / {start} / {sweeps}{NBSP}s", eng,
                         nst, nsw, f"{peak}{NBSP}GB"])
        w = re.search(r"exact engine's = ([\d.]+)", ln)
        if w and ratio is None:
            ratio = w.group(1)
    out += _table(["configuration", "time", "checks / starts and M / sweeps",
                   "engine", "starts", "sweeps", "peak memory"], body,
                  widths=[30, 8, 20, 12, 7, 7, 10])
    if ratio:
        out += [f"Low-rank at a million points: exact W of its labels on the subsample "
                f"/ the exact engine's = {ratio}.", ""]
    out += _source(["bench_targets.txt"], "python benchmarks/bench_targets.py")

    e100, e1m = _load("engines_100k.json"), _load("engines_1m.json")
    if e100 or e1m:
        out += [
            "From a random start instead of k-means++ (``make_blobs`` with its default",
            "spread, well-separated clusters): the dense engine refuses 100,000 points",
            "before allocating anything (it would need the n x n kernel), and",
            "``engine=\"auto\"`` runs the exact matrix-free engine.",
            "",
        ]
        body = []
        for label, rows in (("100,000", e100 or []), ("1,000,000", e1m or [])):
            for r in rows:
                if r.get("error"):
                    body.append([label, r["method"], "refused: " + r["error"].split(":")[0],
                                 "–", "–"])
                    continue
                ari = "–" if r["ARI"] is None else f"{r['ARI']:.3f}"
                body.append([label, r["method"], _s(r["time_s"]), _mb(r["peak_MB"]), ari])
        out += _table(["n", "method", "time", "peak memory", "ARI"], body,
                      widths=[12, 40, 16, 14, 8])
        out += _source(["engines_100k.json", "engines_1m.json"],
                       "python benchmarks/bench_engines.py --scenario 100k; "
                       "python benchmarks/bench_engines.py --scenario 1m")
    return out


def scaling():
    path = RESULTS / "scaling.csv"
    out = _heading("How the time grows with n")
    if not path.exists():
        return out + _missing("scaling.csv")
    with path.open() as fh:
        rows = list(csv.DictReader(fh))
    methods = list(dict.fromkeys(r["method"] for r in rows))
    ns = sorted({int(r["n"]) for r in rows})
    t = {(r["method"], int(r["n"])): r for r in rows}
    out += [
        "Blobs (D = 10, k = 10), n from 1,000 to 1,000,000, every method from the same",
        "random labels where it accepts them; a method stops at the first n where it",
        "took more than 60 s or failed (the dense engine: the n x n kernel does not fit",
        "in memory at 50,000 points). Growth exponent b: the slope of log(time) on",
        "log(n) for n >= 5,000. Each point is one fit from one random start, whose",
        "number of sweeps varies from one n to the next, so the curves are not smooth.",
        "",
    ]
    memory = RESULTS / "scaling_memory.png"
    if memory.exists():
        out += [f".. figure:: {_relative(memory)}", "   :width: 80%",
                "   :alt: peak memory against n, log-log", "",
                "   Peak memory of each process against n, in the same run as the figure at "
                "the top.", ""]
    text = _load("bench_scaling.txt") or ""
    expo = dict(re.findall(r"^\s+(.+?)\s+b = ([\d.]+)", text, flags=re.M))
    body = []
    for n in ns:
        cells = [f"{n:,}"]
        for m in methods:
            r = t.get((m, n))
            if r is None:
                cells.append("")
            elif not r["time_s"]:
                cells.append("refused" if "ValueError" in r.get("error", "") else "failed")
            else:
                cells.append(_s(float(r["time_s"])))
        body.append(cells)
    if expo:
        body.append(["b"] + [expo.get(m, "") for m in methods])
    out += _table(["n", *methods], body)
    return out + _source(["scaling.csv", "bench_scaling.txt"],
                         "python benchmarks/bench_scaling.py --cap 60")


def auto_grid():
    rows = _load("auto_grid.json")
    out = _heading('What engine="auto" chooses')
    if rows is None:
        return out + _missing("auto_grid.json")
    out += [
        "The two exact engines and ``engine=\"auto\"`` timed on n x D x ``n_init``,",
        "k = 10, overlapping blobs (``cluster_std=2.5``), k-means++ starts, best of 3",
        "fits per cell. ``auto`` chooses from n, D, ``n_init`` and the semimetric by a",
        "cost model whose constants were fitted to this grid",
        "(``python benchmarks/bench_auto.py --fit``). *auto / best*: the time of the",
        "engine ``auto`` ran over the faster forced engine's, in the same cell.",
        "",
    ]
    body, wins = [], {"dense": 0, "matrix-free": 0}
    worst = 0.0
    for r in rows:
        best = min(r["dense"], r["matrix-free"])
        faster = "dense" if r["dense"] < r["matrix-free"] else "matrix-free"
        wins[faster] += 1
        ran = r["auto_ran"]
        ran_ratio = r[ran] / best if ran in ("dense", "matrix-free") else float("nan")
        worst = max(worst, ran_ratio)
        body.append([r["n"], r["D"], r["n_init"], f"{r['dense']:.4f}",
                     f"{r['matrix-free']:.4f}", ran, f"{ran_ratio:.3f}"])
    link = _grid_csv("auto_grid.csv", ["n", "D", "n_init", "dense_s", "matrix_free_s",
                                       "auto_ran", "auto_over_best"], body)
    out += [f"The matrix-free engine was the faster in {wins['matrix-free']} of "
            f"{len(rows)} cells, the dense engine in {wins['dense']}; the engine "
            f"``auto`` chose was at worst {worst:.2f} times the faster one. By n (all",
            f"the cells of the grid: {link}):", ""]
    short = []
    for n in sorted({r[0] for r in body}):
        cells = [r for r in body if r[0] == n]
        ratios = [float(r[6]) for r in cells]
        short.append([f"{n:,}", len(cells),
                      sum(float(r[4]) < float(r[3]) for r in cells),
                      ", ".join(sorted({r[5] for r in cells})),
                      f"{statistics.median(ratios):.2f}", f"{max(ratios):.2f}"])
    out += _table(["n", "cells (D x n_init)", "matrix-free faster", "auto ran",
                   "auto / best, median", "auto / best, worst"], short,
                  widths=[12, 14, 14, 22, 14, 14])
    return out + _source(["auto_grid.json", "bench_auto.txt"],
                         "python benchmarks/bench_auto.py --repeat 3 --fit")


def defaults():
    text = _load("bench_defaults.txt")
    out = _heading("How many starts the default needs")
    if text is None:
        return out + _missing("bench_defaults.txt")
    out += [
        "For each dataset, the best-known W (the lowest of 300 starts), then 20 seeds of",
        "each candidate default: *hits* counts the seeds whose fit reached that W.",
        "Times are comparable only within a dataset.",
        "",
    ]
    grid, name = [], None
    for ln in text.splitlines():
        if ln.startswith("#") and grid:
            break  # the later blocks are other experiments (explicit init, Laplacian)
        if ln.startswith("== "):
            name = ln[3:].split(";")[0]
            continue
        parts = ln.split()
        if name is not None and len(parts) == 7 and "/" in parts[2]:
            grid.append([name, parts[0], parts[1], parts[2], parts[3], parts[5], parts[6]])
    link = _grid_csv("default_starts.csv", ["data", "init", "n_init", "hits", "ms_per_fit",
                                            "ARI", "accuracy"], grid)
    out += [f"The default (``kernel-k-means++``, ``n_init=\"auto\"``) beside one start; "
            f"every candidate (k-means++ too, 1, 20 and ``auto`` starts): {link}.", ""]
    body = []
    for data in dict.fromkeys(r[0] for r in grid):
        rows = {(r[1], r[2][:2]): r for r in grid if r[0] == data}
        one, auto = rows.get(("kernel-k-means++", "1")), rows.get(("kernel-k-means++", "a:"))
        if one and auto:
            body.append([data.split(":")[0], one[3], one[4], f"{auto[3]} ({auto[2][2:]} starts)",
                         auto[4], auto[6]])
    out += _table(["data", "hits, one start", "ms per fit", "hits, default",
                   "ms per fit", "accuracy, default"], body,
                  widths=[30, 12, 10, 16, 10, 12])
    header = text.splitlines()[1].lstrip("# ").split("   (")[0]
    return out + _source(["bench_defaults.txt"], header)


def dask():
    text = _load("bench_dask.txt")
    out = _heading("Past one machine with Dask")
    if text is None:
        return out + _missing("bench_dask.txt")
    out += [
        "``KernelKGroups(10, engine=\"dask\")`` with its defaults on overlapping blobs",
        "(``cluster_std=2.5``, D = 10, k = 10) generated chunk by chunk on the workers,",
        "a ``LocalCluster`` of single-threaded worker processes with a 4 GiB memory",
        "limit each, on one machine. Phases as ``engine_stats_`` reports them (seconds);",
        "ARI against the generating labels, and of the nearest true centre (the Bayes",
        "rule) in parentheses; peak memory of the driver and the workers together.",
        "",
    ]
    body, commands = [], []
    for block in re.split(r"^## ", text, flags=re.M)[1:]:
        head = block.splitlines()[0].strip()
        if not head.startswith("python"):
            continue
        fit = re.search(r"^fit: ([\d.]+) s\s+\((\d+) sweeps", block, re.M)
        if not fit:
            continue
        commands.append(head)
        n = int(re.search(r"n=(\d+)", block).group(1))
        workers = re.search(r"workers=(\d+)", block).group(1)
        phase = dict(re.findall(r"^\s+([a-z ()]+): ([\d.]+) s", block, re.M))
        ari = re.search(r"labels: ([\d.]+) \(nearest true centre: ([\d.]+)\)", block)
        peak = re.search(r"sum ([\d.]+) GB", block)
        exp = int(math.log10(n))
        n_txt = f"10\\ :sup:`{exp}`" if n == 10 ** exp else f"{n / 10 ** exp:g} x 10\\ :sup:`{exp}`"
        body.append([n_txt, workers, f"{fit.group(1)}{NBSP}s",
                     phase.get("checks", ""), phase.get("setup", ""),
                     phase.get("init (sample fit)", ""), phase.get("start", ""),
                     phase.get("sweeps", ""), phase.get("final sums", ""), fit.group(2),
                     f"{float(ari.group(1)):.3f} ({float(ari.group(2)):.3f})" if ari else "",
                     f"{peak.group(1)}{NBSP}GB" if peak else ""])
    out += _table(["n", "workers", "fit", "checks", "setup", "sample fit", "start",
                   "sweeps", "final sums", "sweeps (count)", "ARI", "peak memory"], body)
    single = re.search(r"single-machine low-rank: ([\d.]+) s, (\d+) sweeps, ARI ([\d.]+), "
                       r"W = ([\d.e+]+), peak RSS of this process ([\d.]+) GB", text)
    if single:
        out += [f"For comparison, the in-memory ``engine=\"low-rank\"`` on the 3 x 10\\ "
                f":sup:`6` points from its single k-means++ start: {single.group(1)} s, "
                f"{single.group(2)} sweeps, ARI {float(single.group(3)):.3f}, "
                f"{single.group(5)} GB (``--single``); the Dask engine starts from the "
                f"best of 10 fits on a sample.", ""]
    energy = re.search(r"energy distance, 2 x (\d+) x (\d+): in memory \S+ \(([\d.]+) s\)"
                       r"(.*?)(?:\n\n|\Z)", text, re.S)
    if energy:
        runs = re.findall(r"dask, (\d+) worker\(s\): \S+\s+\|diff\| / value = (\S+)\s+"
                          r"\(([\d.]+) s\)", energy.group(4))
        parts = "; ".join(f"{w} worker{'s' if w != '1' else ''} {float(t):.0f} s"
                          for w, _, t in runs)
        rel = runs[0][1] if runs else "?"
        out += [f"Exact energy distance of two samples of {int(energy.group(1)):,} x "
                f"{energy.group(2)} (``--energy {energy.group(1)}``): the Dask value "
                f"differs from the in-memory one by {rel} (relative); {parts}; in memory "
                f"{float(energy.group(3)):.0f} s, measured while other jobs shared the "
                f"cores.", ""]
    machine = MACHINE + "; the workers are processes on it"
    out += _source(["bench_dask.txt"], "; ".join(commands) or
                   "python benchmarks/bench_dask.py", machine=machine)
    auto = _load("bench_dask_auto.txt")
    got = auto and re.search(r"dask, n_clusters='auto': k=(\d+) semimetric=(\w+) .*?ARI "
                             r"([\d.]+); ([\d.]+) s to fit .*?, ([\d.]+) s to gather", auto)
    mem = auto and re.search(r"in memory, n_clusters='auto': k=(\d+) semimetric=(\w+) "
                             r"engine=(\S+), ARI ([\d.]+); ([\d.]+) s", auto)
    if not (got and mem):
        return out + _missing("bench_dask_auto.txt")
    out += ["Nothing given on Dask: ``KernelKGroups(n_clusters=\"auto\")`` on 10\\ :sup:`6`",
            "well-separated blobs (D = 10, k = 5) held by 2 workers chooses k and the",
            "semimetric on a uniform sample of 5,000 rows brought to memory, then fits every",
            f"row on the Dask engine: k = {got.group(1)} ({got.group(2)}), ARI "
            f"{float(got.group(3)):.3f}, {got.group(4)} s to fit and {got.group(5)} s to "
            f"gather the labels; the same call on the rows in memory (exact, "
            f"``{mem.group(3)}``): k = {mem.group(1)}, ARI {float(mem.group(4)):.3f}, "
            f"{mem.group(5)} s.", ""]
    return out + _source(["bench_dask_auto.txt"],
                         "python benchmarks/bench_dask.py --auto --n 1000000 --k 5 --std 1.0",
                         machine=machine)


def graphs():
    text = _load("bench_graph_scale.txt")
    out = _heading("Community detection at a million nodes")
    if text is None:
        return out + _missing("bench_graph_scale.txt")
    head = text.split("\n#", 1)[0]
    sbm = re.search(r"SBM n=([\d,]+) edges=([\d,]+) k=(\d+) d=([\d.]+) λ=([\d.]+)", head)
    fit = re.search(r"kernel k-groups \(.*?\): ([\d.]+) s; k estimated = (\d+)", head)
    parts = re.search(r"parts: (.*)", head)
    qual = re.search(r"overlap: kernel k-groups ([\d.]+), Bethe Hessian ([\d.]+); "
                     r"modularity ([\d.]+); peak RSS ([\d.]+) GiB", head)
    out += [
        ":func:`kgroups.graph.detect_communities` on a sparse stochastic block model",
        "(TPAMI eqs. 60-62), from the graph to the labels: estimating k from the Bethe",
        "Hessian, its spectral start and kernel k-groups on :math:`-H_r`.",
        "",
    ]
    if sbm and fit and qual:
        body = [[f"{sbm.group(1)} nodes, {sbm.group(2)} edges, k = {sbm.group(3)}, "
                 f"mean degree {sbm.group(4)}, λ = {sbm.group(5)}",
                 f"{fit.group(1)}{NBSP}s ({parts.group(1) if parts else ''})", fit.group(2),
                 f"{qual.group(1)} (Bethe Hessian alone: {qual.group(2)})",
                 qual.group(3), f"{qual.group(4)}{NBSP}GiB"]]
        out += _table(["graph", "time", "k found", "overlap", "modularity",
                       "peak memory"], body, widths=[30, 24, 8, 18, 10, 10])
    leiden = re.search(r"Leiden \(modularity, igraph build ([\d.]+) s\): ([\d.]+) s, "
                       r"(\d+) communities, modularity ([\d.]+)", text)
    if leiden:
        out += [f"For reference, Leiden (``leidenalg`` defaults, an earlier run of the "
                f"same script) took {float(leiden.group(2)):.0f} s on the same graph "
                f"and found {leiden.group(3)} communities of modularity "
                f"{float(leiden.group(4)):.2f}: modularity optimisation misses the "
                f"planted partition here.", ""]
    return out + _source(["bench_graph_scale.txt"],
                         "python benchmarks/bench_graph_scale.py --no-leiden")


def _md_cells(lines):
    """The cells of a Markdown table's lines, row by row, without its rule line."""
    rows = [[c.strip() for c in ln.strip().strip("|").split("|")] for ln in lines]
    return [r for r in rows if not all(set(c) <= set("-: ") for c in r)]


def _md_table(lines):
    rows = _md_cells(lines)
    clean = []
    for r in rows:
        clean.append([re.sub(r"\s*\(issue\)", "", c).replace("`", "``")
                      .replace("*", "\\*") for c in r])
    return _table(clean[0], clean[1:])


def _markdown(text, skip=()):
    """A results file written in Markdown as reST: its tables (:func:`_md_table`),
    ``## `` headings and paragraphs, leaving out the lines that start (after their
    indentation) with one of ``skip``."""
    out, lines, i = [], text.splitlines(), 0
    while i < len(lines):
        ln = lines[i].strip()
        if ln.startswith("|"):
            block = []
            while i < len(lines) and lines[i].startswith("|"):
                block.append(lines[i])
                i += 1
            out += _md_table(block)
            continue
        if ln.startswith("## "):
            out += _heading(ln[3:].strip(), "-")
        elif ln and not ln.startswith(skip):
            out += [re.sub(r"`([^`]+)`", r"``\1``", ln), ""]
        i += 1
    return out


# The study's columns that are methods of choose_k, as the short table names them;
# the other columns (variants the study compared while choosing the default) are in
# the downloadable grid only.
CHOOSE_K_SHORT = {"auto (default)": "auto (the default)", "gap:firstSEmax": "gap",
                  "ps": "prediction_strength", "silhouette": "silhouette",
                  "eigengap": "eigengap", "KMeans + silhouette": "KMeans + silhouette",
                  "GMM BIC": "GMM BIC"}


def _choose_k_grid(text):
    """The study's grid (its first table) to a CSV download, and a short table of its
    summary rows (those without a k) for the methods of :data:`CHOOSE_K_SHORT`."""
    block = [ln for ln in text.split("\n## ")[0].splitlines() if ln.startswith("|")]
    rows = _md_cells(block)
    head, body = rows[0], rows[1:]
    link = _grid_csv("choose_k_grid.csv", head, body)
    keep = [i for i, h in enumerate(head) if h in CHOOSE_K_SHORT]
    # the seconds of copied columns come from another run: times are compared on the
    # real tables, all in one run (next section)
    short = [[r[0]] + [r[i] for i in keep] for r in body
             if not r[1] and "seconds" not in r[0]]
    table = _table(["summary"] + [CHOOSE_K_SHORT[head[i]] for i in keep], short)
    return table, link


def choose_k():
    text = _load("choose_k.md")
    out = _heading("Choosing k: how often each method finds the true k")
    if text is None:
        return out + _missing("choose_k.md")
    out += [
        "Every method of :func:`kgroups.choose_k` on 35 synthetic settings with a known",
        "k (5 random data sets each, about 300 points), 8 settings without structure",
        "(k = 1), and the bundled real tables z-scored (k = the number of classes,",
        "which need not be what the data show; the real tables are judged by a",
        "usefulness rule in the next section). A setting is right on most draws when 3",
        "of its 5 draws give its k. The default, ``auto``, is the energy rule and,",
        "where the arbiter takes the neighbourhood graph's groups for shapes the energy",
        "fit cuts across, the energy partition that agrees best with them;",
        "scikit-learn's ``KMeans`` with the silhouette and ``GaussianMixture`` with BIC",
        "are beside it.",
        "Times are on the real tables, where every method ran in one run.",
        "",
    ]
    table, link = _choose_k_grid(text)
    out += table
    out += ["The k each method chose on every draw of every setting, with the variants",
            f"the study compared: {link}.", ""]
    rest = text.split("\n## ", 1)
    if len(rest) > 1:
        out += _markdown("## " + rest[1], skip=("# ", "`python"))
    out += _source(["choose_k.md", "choose_k.json"],
                   _command(text, "python benchmarks/bench_choose_k.py"))
    return out + choice()


def choice():
    """The study of the choice of k and of the semimetric on every battery, split into
    a development and an evaluation half (``choice.md``, bench_choice.py)."""
    out = _heading("Choosing k and the semimetric on every battery: development and "
                   "evaluation halves")
    parts = [("choice.md", [
                 "Every labelled set of up to 5,000 points of the ten batteries of",
                 "``benchmarks/_batteries.py`` (31 shape sets, 22 real tables, 14 Gaussian",
                 "settings, 22 hard sets, 9 FCPS sets, 33 UCI and R tables, 8 toy sets, 22",
                 "real tables of 4 to 751 columns, z-scored, 12 real tables of the KEEL",
                 "repository, z-scored, and 72 draws of scikit-learn's ``make_blobs`` at its",
                 "defaults), split into a development half",
                 "and an evaluation half by a fixed hash of each set's name. The rules and",
                 "constants of :func:`kgroups.choose_k` and of the arbiter were decided on",
                 "the development half; the evaluation half only reports. Beside them:",
                 "HDBSCAN with scikit-learn's defaults, ``KMeans`` with the silhouette,",
                 "``GaussianMixture`` with BIC, each candidate alone (the energy rule, the",
                 "graph's rule), the better of the two per set (*better candidate*, which",
                 "uses the labels), the best of every kernel k-groups fit of k = 2..15",
                 "(*oracle*), ``semimetric=\"auto\"`` at the true k,",
                 "and what a user gets from ``KernelKGroups(n_clusters=\"auto\",",
                 "semimetric=\"auto\")``: the fit from the choice's labels in the geometry",
                 "where k was found (*n_clusters='auto' fit*). The last table says on",
                 "how many sets ``choose_k(X)`` and ``n_clusters=\"auto\"`` answer one k",
                 "for each of five values of ``random_state``.",
                 ""], "bench_choice.py"),
             ("choice_rules.md", [
                 "The energy rule's steps 2 and 3 (the silhouette, then the split walk)",
                 "replayed on the rule's own fits of every set above with each of their",
                 "constants moved alone, on both halves, and its answers that are not",
                 "useful by kind, beside ``choose_k(X, range(2, 16))`` (for data known to",
                 "hold clusters: never 1) and KMeans with the silhouette.",
                 ""], "bench_choice_rules.py"),
             ("arbiter.md", [
                 "Energy or the graph, the arbiter against other yardsticks on the same",
                 "sets: its rules replayed from the cuts, the shares and the dips of pairs",
                 "with each constant moved (beside the library's own answer, which also",
                 "reads energy's split test, the groups' dips and energy's tiles), stability",
                 "under resampling",
                 "(Lange et al. 2004), DBCV (Moulavi et al. 2014), the silhouette on the",
                 "graph's geodesic distances, and energy wherever its clusters refine the",
                 "graph's groups (no dip test), each picking one of the two candidates.",
                 ""], "bench_arbiter.py"),
             ("split_level.md", [
                 "The split test's level: the share of single clusters it cuts (no",
                 "sub-clusters) and of two touching Gaussians it finds, at three levels.",
                 ""], "bench_split_level.py"),
             ("null.md", [
                 "Data without clusters, which the labelled batteries cannot score: the",
                 "answers of ``choose_k(X)`` and of the joint choice (*nothing given*) on",
                 "the eight clouds of the synthetic study and on samples on a line and on",
                 "a near-line (a second column 1e-3 or 1e-6 as wide), where the",
                 "neighbourhood graph falls apart at wide gaps, and on rounded data and",
                 "codes; seven settings with clusters; ``GaussianMixture`` with BIC and",
                 "HDBSCAN beside them.",
                 ""], "bench_null.py")]
    for name, intro, script in parts:
        part = _load(name)
        if part is None:
            return out + _missing(name)
        out += intro + _markdown(part, skip=("# ", "`python"))
        out += _source([name], _command(part, f"python benchmarks/{script}"))
    return out


def outside():
    """Nothing given on the development half of Gagolewski's benchmark suite and on the
    project's own batteries, beside each candidate alone and the peers (outside.md,
    bench_outside.py)."""
    return _markdown_section("outside.md", "Nothing given, judged on an outside battery", [
        "The 24 sets of the development half of M. Gagolewski's *Benchmark Suite for",
        "Clustering Algorithms* (k <= 10, n <= 5,000; prepared as the suite's published",
        "results were; the other half is kept apart and judges), and every labelled set of",
        "the project's batteries, in their development and evaluation halves (the curve",
        "draws, random spiral arms, sine waves in a thin background and concentric rings,",
        "apart from the other shapes and sets). Each pipeline",
        "with ``random_state=0``: *nothing given* is ``KernelKGroups(\"auto\",",
        "semimetric=\"auto\")``; *graph alone* and *energy alone* fix the semimetric and",
        "choose k by its own rule; *choose_k(X)* is useful where the energy fit at its k",
        "reaches 0.75 of the best over k = 2..15; *auto at the true k* is",
        "``semimetric=\"auto\"`` given k. Peers: HDBSCAN with scikit-learn's defaults,",
        "Genie given the true k (``genieclust``), KMeans with the silhouette."],
        "python benchmarks/bench_outside.py")


def awkward():
    """Nothing given on data as users hand it over (awkward.md, bench_awkward.py)."""
    return _markdown_section("awkward.md", "Nothing given on awkward inputs", [
        "Small sets with known groups and one awkwardness each: units (huge, tiny, mixed",
        "across columns, far from the origin), copies and weights, rounding, one column or",
        "200, constant and repeated columns, outliers, a far tight group of 5 points, sizes",
        "1000 and 30, 15 rows, binary codes, heavy tails, and data without clusters. Per",
        "case the k found and the ARI with the truth (outliers left out) of nothing given",
        "(``KernelKGroups(\"auto\", semimetric=\"auto\")``), the graph alone and energy",
        "alone (``choose_k(X)``)."],
        "python benchmarks/bench_awkward.py") + _markdown_section(
        "awkward_seeds.md", "Nothing given on awkward inputs, five draws each", [
            "The same cases drawn five times each (seeds 0 to 4): how often each pipeline",
            "finds the true k, and its mean ARI; one draw's answer may be luck."],
        "python benchmarks/bench_awkward.py --seeds 5") + _markdown_section(
        "mixed_units.md", "Nothing given with a column in other units", [
            "Every set of the blobs, simple and draws batteries (two columns or more, at",
            "most 2,000 rows), its first column times 100: nothing given and energy alone",
            "on it, beside nothing given with every column z-scored first and on the data",
            "as drawn (the units equal). Mean ARI with the truth (sets whose true k was",
            "found), per battery and half."],
        "python benchmarks/bench_mixed_units.py")


def _markdown_section(name, title, intro, default_command):
    """A section from a results file a benchmark wrote in Markdown (a header of
    ``kgroups ...``, machine and ``command: ...`` lines, then tables and paragraphs):
    ``intro`` says what was measured; the commands go to the provenance line."""
    text = _load(name)
    out = _heading(title)
    if text is None:
        return out + _missing(name)
    out += [*intro, ""]
    text = _this_version_only(text)
    commands = [ln.strip()[len("command: "):] for ln in text.splitlines()
                if ln.strip().startswith("command: ")]
    out += _markdown(text, skip=("command: ", "kgroups ", "load average"))
    return out + _source([name], "; ".join(commands) or default_command)


# A results file may end with a comparison against an earlier version of kgroups
# (a development check): the page shows this version only.
OTHER_VERSION = re.compile(r"commit [0-9a-f]{7}|worktree|earlier version|kgroups at ")


def _this_version_only(text):
    """``text`` up to its first line about another version, less table rows naming one."""
    kept = []
    for ln in text.splitlines():
        if OTHER_VERSION.search(ln):
            if ln.lstrip().startswith("|"):
                continue  # a row of another version inside a table of this one
            break
        kept.append(ln)
    return "\n".join(kept)


def convergence():
    return _markdown_section(
        "bench_convergence.md", "Convergence at default settings, and the tail of the sweeps",
        ["Ten overlapping blobs in 10-D (``make_blobs(n, 10, centers=10, cluster_std=2.5)``),",
         "k = 10, every parameter at its default, from kernel k-means++ starts (the",
         "default) and from random partitions. Whether a ``ConvergenceWarning`` appeared,",
         "the sweeps of the best run and the seconds per phase; then, for one start at",
         "100,000 points, the share of the sweeps' time spent in their last 80%."],
        "python benchmarks/bench_convergence.py")


def startup():
    return _markdown_section(
        "bench_startup.md", "Start-up: a first fit in a fresh process",
        ["What a new process pays before its first result: ``kgroups --help`` and",
         "``--version``, a tiny fit with its imports,",
         "``KernelKGroups(3).fit(np.random.rand(50, 2))``, beside scikit-learn's",
         "``KMeans(3).fit`` of the same kind of data, and ``kgroups cluster`` on a",
         "2,000-row file of 8 columns beside the goal of a command line: twice",
         "``python -c \"import numpy, numba\"`` (the floor of any command that runs",
         "numba kernels) plus the same fit in a running Python, and beside a process",
         "that runs one trivial numba kernel from numba's disk cache (what any numba",
         "kernel costs in a fresh process: numba's first use of its CPU target, which",
         "imports SciPy's linear algebra). Each runs in a fresh",
         "interpreter with warm caches, the commands alternated round by round. The",
         "phases are timed by the child (*exit* is the interpreter's teardown after its",
         "last line). Last, the first use after an install: the same ``kgroups cluster``",
         "with numba's cache empty, so that every kernel of the fit is compiled for the",
         "machine first."],
        "python benchmarks/bench_startup.py")


def startup_first():
    return _markdown_section(
        "bench_startup_first.md", "Start-up: the first fit after an install",
        ["The first fit of a new install waits for numba to compile the kernels it runs",
         "(later processes load them from numba's disk cache, see the section above). Each",
         "row is a fresh process with numba's cache empty (``NUMBA_CACHE_DIR`` a new",
         "folder), as on a user's first fit: kgroups' default fit ``KernelKGroups(4)`` and",
         "its fit with nothing given (``n_clusters=\"auto\", semimetric=\"auto\"``) on",
         "2,000 points in 8 dimensions, beside scikit-learn's ``KMeans`` and ``HDBSCAN``",
         "(compiled wheels: nothing to compile) and the numba-based UMAP and pynndescent",
         "(whose imports compile too), the rows alternated round by round. The rows marked",
         "*before* run the kernels as they were before the changes that cut what the first",
         "fit compiles (fewer compilations of numba's own functions, one signature per",
         "kernel, no wrapper layers that made LLVM compile a pass twice); both give the same",
         "results bit for bit. *Compiling* is the CPU time numba spent compiling (each",
         "compilation's own time, nested ones subtracted) and the part of it in LLVM. Then",
         "each function numba compiled for kgroups' two fits, from the first round. What",
         "remains is numba's work per kernel (a tenth of a second for the smallest), LLVM",
         "generating a kernel's callees again inside each kernel that calls them (the",
         "workers of the pass over the pairs hold the whole pass), and branches a fit never",
         "takes, compiled all the same (the other semimetrics' loops, eight dimensions at a",
         "time below ten dimensions, the checks of the certified float32 pass)."],
        "python benchmarks/bench_startup.py --rounds 0 --first-uses 0 --first-fits 3")


def roofline():
    return [".. _roofline:", ""] + _markdown_section(
        "bench_roofline.md", "The exact engine against the machine's bound",
        ["One fit of the exact matrix-free engine with its default ``dtype`` (the",
         "certified float32 pass where it pays), phase by phase, beside what the machine",
         "can do in the same process: the rate of square roots and of additions and",
         "multiplications of vectorised loops on the same threads, in float64 and in",
         "float32. Each phase's work is counted (pairs visited, kernel entries of the",
         "moves), and its time set against the time of its square roots alone (*sqrt64*,",
         "*sqrt32*) and of its arithmetic alone (*flop64*, *flop32*). The pass over the",
         "pairs needs one square root and 3 D + 4 operations per pair it sums (the",
         "certified pass leaves out the pairs of clusters whose sums the clusters' means",
         "bound). The float64 pass and the certified float32 pass are then timed alone,",
         "the fit is compared with the same fit in float64, and the last paragraphs take",
         "each pass's inner loop apart on one thread."],
        "python benchmarks/bench_roofline.py")


def stats_cpu():
    return [".. _stats-cpu:", ""] + _markdown_section(
        "bench_stats.md", "The energy statistics on the CPU",
        [":func:`~kgroups.energy_distance` and :func:`~kgroups.within_energy` of two",
         "overlapping samples on every core, beside the same function through the blocks",
         "of semimetric values (its path for small samples, forced here) and beside R's",
         "``energy::edist`` (which holds the distance matrix, so only on the smaller",
         "sizes), with the relative differences of the values. Then the two-sample",
         "permutation test, :func:`~kgroups.energy_test` with 999 permutations and its",
         "phases (the pooled matrix; the relabellings, drawn and sorted; their sums,",
         "the pooled matrix times their one-hot codes), beside R's",
         "``energy::eqdist.etest``."],
        "python benchmarks/bench_stats.py")


def predict_scale():
    return _markdown_section(
        "predict.md", "predict on new rows",
        [":meth:`~kgroups.KernelKGroups.predict` of new rows against a fit of the",
         "matrix-free engine, by its two paths on the same fit and rows: each new row's",
         "sums over the training rows of each cluster taken pair by pair on every core",
         "(direct differences), and the same sums from blocks of semimetric values (a",
         "BLAS product on centred rows) summed by cluster afterwards; the column",
         "*predict takes* is the path it runs at that number of columns, drawn from",
         "this table. Beside them scikit-learn's ``KMeans.predict`` (nearest centroid:",
         "far less work, the floor rather than a peer)."],
        "python benchmarks/bench_predict.py")


def csv_reading():
    return _markdown_section(
        "csv.md", "The command line reading a large CSV file",
        ["The reader of ``kgroups cluster FILE --label-column class`` (it sniffs the",
         "separator, the header and the decimal mark, checks every row's width and",
         "turns the features into float64 a chunk of rows at a time, the rows split",
         "again from the text at each pass) beside ``numpy.loadtxt`` and",
         "``pandas.read_csv`` on the same file, each in a process of its own: the",
         "seconds and the peak memory. For files that do not fit in memory, load",
         "them in a Dask array and call the library."],
        "python benchmarks/bench_csv.py")


def spectral_solver():
    return _markdown_section(
        "spectral.md", "The spectral relaxation's eigensolver",
        [":func:`~kgroups.spectral_kgroups` with the dense solver (the k largest",
         "eigenpairs by ``scipy.linalg.eigh``) and with ARPACK (``eigsh``) on the same",
         "Gram matrix, beside scikit-learn's ``spectral_clustering`` (the normalised",
         "Laplacian's relaxation): the seconds, and the adjusted Rand index of each",
         "against the blobs and between the two solvers. ``eigen_solver=\"auto\"`` draws",
         "its line between them from this table."],
        "python benchmarks/bench_spectral.py")


def dtype_study():
    return [".. _dtype-study:", ""] + _markdown_section(
        "bench_dtype.md", "The certified float32 pass: where it pays",
        ["The matrix-free engine with ``dtype=\"float64\"``, ``dtype=\"float32\"`` (the",
         "certified pass, :ref:`certified-float32`) and the default ``dtype=\"auto\"`` from",
         "the same start, alternated in one process, over n, D, k, alpha, the overlap of",
         "the clusters, the semimetrics and the starts: the seconds, the labels compared,",
         "W's relative difference, the share of the pairs the float32 pass left out, what",
         "the certification made again in float64, and the pass ``dtype=\"auto\"`` took",
         "with its time over float64's."],
        "python benchmarks/bench_dtype.py")


def launch():
    text = _load("bench_launch.txt")
    out = _heading("Starting a kernel on every core")
    if text is None:
        return out + _missing("bench_launch.txt")
    out += ["What starting a parallel kernel costs: kgroups' worker threads, each waiting on",
            "a lock of its own, beside the standard library's ``ThreadPoolExecutor`` (a",
            "future per range), in one process with the same compiled kernels. First a",
            "trivial kernel started over 2 to 16 ranges (the mean of 2,000 calls), then the",
            "matrix-free fit of ten overlapping blobs in 10-D with either, alternated, with",
            "its phases and whether the labels agree.", ""]
    out += ["::", "", *(("   " + ln).rstrip() for ln in text.splitlines()[1:]), ""]
    return out + _source(["bench_launch.txt"], "python benchmarks/bench_launch.py",
                         machine="the machines the file names")


def gpu():
    out = _heading("On a GPU")
    files = sorted(RESULTS.glob("bench_gpu*.txt")) + sorted(RESULTS.glob("bench_gpu*.md"))
    if not files:
        return out + [
            "Not measured yet. ``engine=\"gpu\"`` is tested (on a device and under",
            "numba's CUDA simulator), but no timing of it is recorded here yet.",
            "``make gpu-check`` on a machine with a CUDA device times one exact pass over a",
            "million points, a whole fit beside the matrix-free engine on every CPU core",
            "from the same start, and a fit of a million points to convergence; its output",
            "appears here.",
            "",
        ]
    for f in files:
        text = f.read_text()
        if f.suffix == ".md":  # a Markdown table: its GPU cells say "not measured yet"
            out += _markdown(text, skip=("command: ", "kgroups ")) + gpu_shortfalls(text)
        else:
            out += ["::", "", *("   " + ln for ln in text.splitlines()), ""]
        out += _source([f.name], "python benchmarks/bench_gpu.py",
                       machine="the machine the file's header names")
        if f.name == "bench_gpu.md":
            out += GPU_WHY
    profile = _load("profile_gpu.md")
    if profile is not None:
        out += ["The passes over pairs under Nsight Compute, float64 and float32:", ""]
        out += _markdown(profile, skip=())
        out += _source(["profile_gpu.md"], "python benchmarks/profile_gpu.py",
                       machine="the machine of the table above")
    return out


def gpu_shortfalls(text):
    """The goals of ``bench_gpu.md`` that its run missed, each with the factor it
    missed by: the goal's number over the measured one (a rate, "≥"), or the measured
    seconds over the goal's ("≤"); the measured number is the first of the GPU cell,
    or of the ratio cell for a goal in "×"."""
    rows = [[c.strip() for c in ln.strip().strip("|").split("|")]
            for ln in text.splitlines() if ln.startswith("| ") and "---" not in ln]
    missed = []
    for row in rows[1:]:
        name, goal, gpu, ratio, met = row[0], row[2], row[3], row[5], row[6]
        want = re.match(r"([≥≤]) ([\d.,]+)\s?([^,]*)", goal)
        if met != "no" or not want:
            continue
        got = re.search(r"[\d.]+", ratio if "×" in goal.split(",")[0] else gpu)
        if not got:
            continue
        target, value = float(want.group(2).replace(",", "")), float(got.group())
        factor = target / value if want.group(1) == "≥" else value / target
        unit = want.group(3)
        missed.append(f"* {name}: {got.group()}{'' if unit[0] == '×' else ' '}{unit} "
                      f"against {goal.split(',')[0]}: **{factor:.1f}×** short.")
    if not missed:
        return []
    return ["Goals missed, and by how much:", "", *missed, ""]


# Why the device run above misses its goals, read off its counters and its
# comparisons within the run (the kernels have not been profiled on a device yet).
GPU_WHY = [
    "Why, from the run's own counters, comparisons and profile:",
    "",
    "* **The pass over pairs** is compiled for the number of features, each thread",
    "  holding two points in registers; the energy distance's tiles of one label take",
    "  their columns two at a time, without a label check or the semimetric's dispatch",
    "  per pair. The build over unordered pairs (each :math:`\\rho` once, summed by rows",
    "  and by columns in shared memory, with a synchronisation of the block per step",
    "  and atomic additions) evaluates half the pairs and still runs at a quarter of",
    "  the rate: its shared-memory traffic, not the arithmetic, is its limit.",
    "* **float32 is not twice float64** (the profile below): each float64 instruction",
    "  holds the FP64 pipe two cycles, and the float64 pass's other instructions",
    "  (shared-memory reads, the loop, the square root's estimate) issue in that",
    "  shadow: it is bound by latency, the FP64 pipe 70% busy and the issue slots 55%.",
    "  The float32 pass has fewer instructions a pair, but each arithmetic one takes",
    "  one cycle, so the same other instructions now compete for the issue slots (78%",
    "  busy): its gain over float64 is that of its issue cycles, not of its arithmetic.",
    "  Summing in float32 would save two instructions of about forty, and would leave",
    "  a float32 rounding in a cluster's sums after its points leave it, which the",
    "  certified decisions cannot bound.",
    "* **The fit of 400,000 points** takes 112 sweeps, most moving a few hundred",
    "  points. Swept on the device (one block per run deciding a window of points,",
    "  each correcting its column for every move not yet applied), the corrections",
    "  run on one multiprocessor and dominate: the sweeps' seconds fall with shorter",
    "  pending lists and with more threads a window (the constants row). Swept from",
    "  the host's copy of M, the device applying each list of moves, the same fit",
    "  takes about half as long, which is why host data are swept that way; data on",
    "  the device are swept on the device. Neither reaches ten times the CPU's cores,",
    "  whose certified float32 pass also leaves out the pairs of clusters their means",
    "  bound.",
    "* The **energy test** sums every relabelling's groups against each tile of pairs,",
    "  its :math:`\\rho` computed once in shared memory, and never forms the pooled",
    "  matrix; the host's drawing of the relabellings is a quarter of its seconds.",
    "",
]


def shapes():
    """The semimetric study (``semimetric.md``: summary, cost, every set as a CSV
    download, its figure) and the graph semimetric at scale (``neighbors_scale.md``)."""
    text = _load("semimetric.md")
    out = _heading("Clusters that are not blobs: which semimetric")
    if text is None:
        return out + _missing("semimetric.md")
    out += [
        "Every labelled set of four batteries at its true k, scored by the adjusted Rand",
        "index on its labelled points (noise points are clustered but not scored): 31",
        "shape sets (rings, spirals, stripes, touching shapes, 3-D shells, tori and",
        "helices), 22 real tables, 14 Gaussian settings and 25 hard sets (background",
        "noise, outliers, unequal densities, bridges, up to 10,000 points). Beside the",
        "energy semimetric, ``semimetric=\"nearest_neighbors\"`` and",
        "``semimetric=\"auto\"``: the variants of the graph the study compared before",
        "choosing it, the rule of ``\"auto\"`` at other values of its constant, the",
        "better of the two semimetrics on each set (the *oracle*, which uses the labels),",
        "and scikit-learn's ``KMeans``, ``GaussianMixture`` and ``SpectralClustering``",
        "and Genie (``genieclust``). A cell *wins / ties / losses* counts the sets where a",
        "method is ahead of energy by more than 0.01, within 0.01, and behind.",
        "",
    ]
    png = RESULTS / "semimetric.png"
    if png.exists():
        out += [f".. figure:: {_relative(png)}", "   :width: 100%",
                "   :alt: mean ARI of each semimetric and peer on four batteries", ""]
    parts = text.split("\n## ")
    for part in parts[1:]:
        title, _, body = part.partition("\n")
        rows = [ln for ln in body.splitlines() if ln.startswith("|")]
        cells = _md_cells(rows)
        if title.startswith("Every set"):
            link = _grid_csv("semimetric_grid.csv", cells[0], cells[1:])
            out += [f"The ARI of every method on every set, and what ``auto`` chose: {link}.",
                    ""]
        else:
            out += _heading(title.strip(), "-") + _table(cells[0], cells[1:])
    out += _source(["semimetric.md", "semimetric.json", "semimetric.png"],
                   _command(text, "python benchmarks/bench_semimetric.py"))
    return out + shapes_scale() + shapes_choose_k()


def noise():
    """The detection of planted noise (``noise.md``, bench_noise.py)."""
    return [".. _noise-study:", ""] + _markdown_section(
        "noise.md", "Noise and outliers: finding planted noise",
        ["``KernelKGroups(noise=\"auto\")`` (:doc:`/user_guide/noise`) on every set with",
         "planted noise: the sets of the hard battery of",
         "``benchmarks/_batteries.py`` with label -1 (background noise and far outliers),",
         "reported by the development and evaluation halves of the study of the choice",
         "of k (the same fixed hash of each set's name), the development set of",
         "Gagolewski's suite that carries noise (``graves/zigzag_noisy``), and four",
         "synthetic cases (a blob with far strays, blobs in a uniform background, a far",
         "tight group and clean blobs, the last two without noise). Beside it, in the",
         "same run: ``noise=\"auto\"`` with nothing given (``n_clusters=\"auto\",",
         "semimetric=\"auto\"``), the true share of the noise given as ``noise=s`` at the",
         "true k, scikit-learn's ``HDBSCAN`` at its defaults and ``DBSCAN`` with",
         "``min_samples`` = 2 D and ``eps`` from the knee of the sorted k-distances, and",
         "R's trimmed k-means (``trimcluster::trimkmeans``) at the true k and share.",
         "Then the seconds of ``noise=\"auto\"`` beside ``noise=None`` on the same data."],
        "python benchmarks/bench_noise.py")


def large_data_choice():
    """The choice on large data from one draw to the next (bench_sample_stability.py)."""
    return _markdown_section(
        "sample_stability.md", "Choosing k on large data: one answer from draw to draw",
        ["Past 5,000 rows the choice runs on samples of 5,000 rows: from 15,000 rows on,",
         "on three disjoint ones, keeping the answer most of them give",
         "(:doc:`/user_guide/nothing_given`). Per distribution, five disjoint draws of",
         "15,000 rows; per draw the k, the semimetric (``n``: the graph, ``e``: energy)",
         "and the ARI of nothing given (``choose_k(X, semimetric=\"auto\")``) and of",
         "the graph's candidate alone, and the number of distinct answers (1: the",
         "answer holds from draw to draw)."],
        "python benchmarks/bench_sample_stability.py") + _markdown_section(
        "sample_votes.md", "Choosing k on large data: one sample against a vote of three",
        ["Nothing given on each of 25 disjoint samples of 5,000 rows of the same",
         "distributions: the share of the most common answer for one sample, against",
         "the vote of three samples over every three of them (the answer two give, or",
         "the first's)."],
        "python benchmarks/bench_sample_stability.py --votes 25")


def shapes_choose_k():
    text = _load("choose_k_graph.md")
    if text is None:
        return []
    out = _heading("Choosing k with the graph semimetric", "-")
    out += [
        "``choose_k(X, semimetric=\"nearest_neighbors\")`` on the same four batteries, k in",
        "1..15, beside the plain eigengap of the same eigenvalues, the silhouette of the",
        "graph semimetric's fits, and the point rule of the energy semimetric. A cell is",
        "*right / useful*: the k is the number of labelled groups / a graph fit at that",
        "k reaches 0.75 of the best ARI of the graph fits at k = 2..15.",
        "",
    ]
    head = text.split("\n## ")[0]
    out += _markdown(head, skip=("# ", "`python", "92 sets"))
    body = text.split("\n## ", 1)[1] if "\n## " in text else ""
    rows = [ln for ln in body.splitlines() if ln.startswith("|")]
    cells = _md_cells(rows)
    if cells:
        out += [f"The k of every rule on every set: "
                f"{_grid_csv('choose_k_graph.csv', cells[0], cells[1:])}.", ""]
    return out + _source(["choose_k_graph.md"],
                         _command(text, "python benchmarks/bench_choose_k_graph.py"))


def shapes_scale():
    text = _load("neighbors_scale.md")
    if text is None:
        return []
    out = _heading("The graph semimetric from 10,000 to 1,000,000 points", "-")
    out += [
        "``KernelKGroups(k, semimetric=\"nearest_neighbors\")`` on two moons with 5%",
        "background noise (scored on the moons) and on three Gaussian blobs of sizes",
        "1 : 2 : 4 and unequal spreads, each size in a fresh process after a warm-up fit,",
        "beside scikit-learn's ``SpectralClustering(affinity=\"nearest_neighbors\")``:",
        "seconds of the fit and of its phases (the neighbourhood graph, its",
        "eigenvectors, placing the points, the starts, the sweeps), the process's peak",
        "memory, and the ARI.",
        "",
    ]
    out += _markdown(text, skip=("# ", "`python"))
    return out + _source(["neighbors_scale.md"],
                         _command(text, "python benchmarks/bench_neighbors_scale.py"))


SECTIONS = [intro, beside_r_20k, realistic, small_r, targets, roofline, stats_cpu,
            predict_scale, csv_reading, spectral_solver, dtype_study, scaling,
            auto_grid,
            defaults, dask, graphs, shapes, noise, choose_k, outside, awkward,
            large_data_choice,
            convergence, startup,
            startup_first, launch, gpu]


def render() -> str:
    lines = []
    for section in SECTIONS:
        lines += section()
    text = "\n".join(lines).rstrip() + "\n"
    return re.sub(r"\n{3,}", "\n\n", text)


def main(argv=None) -> int:
    """``--check``; ``--results DIR`` (default ``benchmarks/results``) and ``--out FILE``
    (default ``docs/performance.rst``) to render another run, e.g. a quick one."""
    global RESULTS, OUT, GRIDS
    argv = sys.argv[1:] if argv is None else list(argv)
    for flag in ("--results", "--out"):
        if flag in argv:
            value = Path(argv[argv.index(flag) + 1]).resolve()
            if flag == "--results":
                RESULTS = value
            else:
                OUT = value
                GRIDS = value.parent / "_static" / "performance"
    text = render()
    old = OUT.read_text() if OUT.exists() else None
    if "--check" in argv:
        if old != text:
            print(f"{OUT} is out of date: run python docs/make_performance.py")
            return 1
        return 0
    if old != text:  # rewrite only on change, so Sphinx does not rebuild it needlessly
        OUT.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
