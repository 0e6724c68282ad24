"""The GPU engine's builds of M, float64 and float32, under NVIDIA Nsight Compute.

    PYTHONPATH=src python3 benchmarks/profile_gpu.py --out benchmarks/results/profile_gpu.md
    PYTHONPATH=src python3 benchmarks/profile_gpu.py --dry-run       # the ncu command only
    PYTHONPATH=src python3 benchmarks/profile_gpu.py --driver        # the builds alone

One process (the ``--driver``) builds ``M`` of ``make_blobs(n, D, centers=k,
cluster_std=2.5, random_state=0)`` from a start of ``k`` labels (each point's nearest
of ``k`` points drawn with a fixed seed), the energy distance, unit weights, with the
GPU engine's pass over ordered pairs (:func:`kgroups._kernels.cuda.rows_pass`):
first a build of ``--warm`` points in each precision (compiled, and skipped by the
profiler), then the float64 build and the float32 one at ``--n`` points, each timed.
``ncu`` runs that process and reads, for the two kernels named ``build_rows``:

* the duration, the pairs per second and the instructions executed per pair (warp
  instructions times 32 over n^2: a thread's, against the counts of their sm_90 code
  in ``bench_gpu.CYCLE_FLOORS``);
* registers, theoretical and achieved occupancy;
* the issue slots used, the FP64 pipe, the FMA (FP32) pipe, the XU pipe (square-root
  estimates, conversions) and the LSU pipe (shared-memory reads);
* DRAM throughput (of its peak, and bytes per second);
* the three largest warp stall reasons, in cycles per issued instruction.

The table (Markdown) is printed and written to ``--out``, with a last line on what
bounds each build, read from those counters, and so why the float32 pass is not twice
the float64 one. Without ``ncu``, or
when it fails (no permission for the counters, a metric this version lacks, a time
out), the table says so, with the driver's own timings where it could run, and the
script still exits 0: it never breaks ``make gpu-check``. The whole run stays under
``--budget`` seconds (90).
"""

from __future__ import annotations

import argparse
import csv
import io
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

# Nsight Compute's metrics for each build (sm_90 names), by the table's column.
METRICS = {
    "duration": "gpu__time_duration.sum",
    "instructions": "smsp__inst_executed.sum",
    "registers": "launch__registers_per_thread",
    "theoretical occupancy": "sm__maximum_warps_per_active_cycle_pct",
    "achieved occupancy": "sm__warps_active.avg.pct_of_peak_sustained_active",
    "issue slots": "sm__inst_issued.avg.pct_of_peak_sustained_active",
    "FP64 pipe": "sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active",
    "FMA pipe": "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active",
    "XU pipe": "sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active",
    "LSU pipe": "sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active",
    "DRAM": "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    "DRAM bytes/s": "dram__bytes.sum.per_second",
}
# The warp stall reasons, each in cycles per issued instruction.
STALLS = ("barrier", "branch_resolving", "dispatch_stall", "drain", "imc_miss",
          "lg_throttle", "long_scoreboard", "math_pipe_throttle", "membar", "mio_throttle",
          "misc", "no_instruction", "not_selected", "selected", "short_scoreboard",
          "sleeping", "tex_throttle", "wait")
STALL_METRIC = "smsp__average_warps_issue_stalled_{}_per_issue_active.ratio"


def data(n, d, k):
    """The points (n x d), a start (each point's nearest of k points drawn with seed 1)
    and unit weights."""
    import numpy as np
    from sklearn.datasets import make_blobs

    X = make_blobs(n, d, centers=k, cluster_std=2.5, random_state=0)[0]
    centres = X[np.random.default_rng(1).choice(n, k, replace=False)]
    labels = np.argmin(((X[:, None, :] - centres[None]) ** 2).sum(-1), axis=1)
    return X, labels.astype(np.int64), np.ones(n)


def build(n, d, k, f32):
    """Seconds of one build of M (the engine's pass over ordered pairs) at n points."""
    from kgroups._engines.gpu import GpuEngine
    from kgroups._kernels.numba_cuda import numba_cuda

    cuda = numba_cuda()
    X, labels, w = data(n, d, k)
    eng = GpuEngine(X, w, "energy", {"alpha": 1.0}, float32=f32)
    cuda.synchronize()
    t0 = time.perf_counter()
    eng._build_runs(labels[None], k, f32=f32)
    cuda.synchronize()
    return time.perf_counter() - t0


def drive(args):
    """The driver: a small build in each precision (compiled), then the two timed."""
    for f32 in (False, True):
        build(args.warm, args.d, args.k, f32)
    for f32 in (False, True):
        sec = build(args.n, args.d, args.k, f32)
        print(f"DRIVER {'float32' if f32 else 'float64'} {sec:.6f}", flush=True)


def all_metrics():
    """Every metric the table reads."""
    return list(METRICS.values()) + [STALL_METRIC.format(s) for s in STALLS]


def known(metrics, timeout):
    """The metrics whose base name this ncu lists for the device (``ncu
    --query-metrics``; one it lacks would stop the whole run); all of them when the
    list cannot be read or matches too few (another format)."""
    rc, out = run(["ncu", "--query-metrics", "--csv"], timeout)
    names = set()
    for row in csv.reader(io.StringIO(out)):
        if row and row[0] and not row[0].startswith("=="):
            names.add(row[0].strip().strip('"'))
    keep = [m for m in metrics
            if m.split(".")[0] in names or m.startswith(("launch__", "gpu__time"))]
    return keep if rc == 0 and len(keep) >= len(metrics) // 2 else list(metrics)


def ncu_command(args, csv_path, metrics=None):
    """The ncu command line: the driver's two large builds (its two small ones
    skipped), the metrics (default: every one of :data:`METRICS` and
    :data:`STALLS`)."""
    metrics = all_metrics() if metrics is None else metrics
    return ["ncu", "--csv", "--page", "details", "--log-file", csv_path,
            "--kernel-name", "regex:build_rows", "--launch-skip", "2", "--launch-count", "2",
            "--metrics", ",".join(metrics),
            sys.executable, os.path.abspath(__file__), "--driver", "--n", str(args.n),
            "--d", str(args.d), "--k", str(args.k), "--warm", str(args.warm)]


def number(text):
    """A metric's value as a float (thousands separators dropped), None if not one."""
    try:
        return float(str(text).replace(",", ""))
    except ValueError:
        return None


def parse(text):
    """``{kernel name: {metric: (value, unit)}}`` from ncu's CSV (the details page:
    one row per kernel and metric), in the kernels' order."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith('"ID"')), None)
    if start is None:
        return {}
    out = {}
    for row in csv.DictReader(io.StringIO("\n".join(lines[start:]))):
        name = row.get("Kernel Name", "")
        key = f"{row.get('ID', '')}:{name}"
        out.setdefault(key, {})[row.get("Metric Name", "")] = (
            number(row.get("Metric Value")), row.get("Metric Unit", ""))
    return out


def precision(kernel):
    """``float32`` for the twin (its name ends in ``_32``), else ``float64``."""
    return "float32" if "build_rows" in kernel and "_32" in kernel.split("build_rows")[1][:8] \
        else "float64"


# ncu's unit prefixes (it scales its units to the values: nsecond, Gbyte/second, ...)
PREFIX = {"n": 1e-9, "u": 1e-6, "m": 1e-3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}


def short_unit(unit):
    """ncu's unit in short form: ``nsecond`` or ``ns`` -> ``ns``, ``Gbyte/second`` or
    ``GB/s`` -> ``GB/s``."""
    return (unit or "").strip().replace("second", "s").replace("byte", "B")


def base(value, unit, base_unit):
    """``value`` in ``unit`` (``base_unit`` with an SI prefix, or none; ncu writes them
    long, ``nsecond``, or short, ``ns``) in base units (``base_unit`` in either form)."""
    if value is None:
        return None
    unit, want = short_unit(unit), short_unit(base_unit)
    if unit == want or not unit:
        return value
    if unit[0] in PREFIX and unit[1:] == want:
        return value * PREFIX[unit[0]]
    return None  # a unit this script does not know: n/a in the table


def rows_of(kernels, n):
    """The table's cells per precision from the parsed metrics."""
    cells = {}
    for key, m in kernels.items():
        prec = precision(key)
        get = {col: m.get(name, (None, ""))[0] for col, name in METRICS.items()}
        get["DRAM bytes/s"] = base(*m.get(METRICS["DRAM bytes/s"], (None, "")), "byte/second")
        dur = base(*m.get(METRICS["duration"], (None, "")), "second")
        stalls = sorted(((m.get(STALL_METRIC.format(s), (None, ""))[0] or 0.0, s)
                         for s in STALLS), reverse=True)
        inst = get["instructions"]
        cells[prec] = {
            **get, "seconds": dur,
            "rate": n * n / dur / 1e9 if dur else None,
            "per pair": 32 * inst / (n * n) if inst else None,
            "stalls": ", ".join(f"{s} {v:.2f}" for v, s in stalls[:3] if v > 0) or "n/a"}
    return cells


def fmt(value, spec="{:.0f}%"):
    return "n/a" if value is None else spec.format(value)


def table(args, cells, note, timings):
    """The Markdown table (and the lines before and after it)."""
    head = [f"Nsight Compute on the GPU engine's builds of M: n = {args.n:,}, D = {args.d}, "
            f"k = {args.k}, the energy distance (the pass over ordered pairs compiled for D, "
            f"kernels `build_rows{args.d}` and `build_rows{args.d}_32`); "
            f"{time.strftime('%Y-%m-%d', time.gmtime())}; "
            "`python3 benchmarks/profile_gpu.py " + " ".join(sys.argv[1:]) + "`", ""]
    cols = ["build", "ms", "G pairs/s", "instructions a pair", "registers",
            "occupancy (theoretical / achieved)", "issue slots", "FP64 pipe", "FMA pipe",
            "XU pipe", "LSU pipe", "DRAM (of peak, GB/s)", "top stalls (cycles an issue)"]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for prec in ("float64", "float32"):
        c = cells.get(prec)
        if c is None:
            sec = timings.get(prec)
            rate = f"{args.n ** 2 / sec / 1e9:.0f} (driver)" if sec else "n/a"
            ms = f"{1e3 * sec:.1f} (driver)" if sec else "n/a"
            lines.append(f"| {prec} | {ms} | {rate} |" + " n/a |" * (len(cols) - 3))
            continue
        dram = "n/a" if c["DRAM"] is None else (
            f"{c['DRAM']:.1f}%, {(c['DRAM bytes/s'] or 0) / 1e9:.1f}")
        lines.append(
            f"| {prec} | {fmt(c['seconds'] and 1e3 * c['seconds'], '{:.1f}')} "
            f"| {fmt(c['rate'], '{:.0f}')} | {fmt(c['per pair'], '{:.1f}')} "
            f"| {fmt(c['registers'], '{:.0f}')} "
            f"| {fmt(c['theoretical occupancy'])} / {fmt(c['achieved occupancy'])} "
            f"| {fmt(c['issue slots'])} | {fmt(c['FP64 pipe'])} | {fmt(c['FMA pipe'])} "
            f"| {fmt(c['XU pipe'])} | {fmt(c['LSU pipe'])} | {dram} | {c['stalls']} |")
    return head + lines + ["", note]


def bound(c, prec):
    """What the counters say bounds a build: its busiest resource, or its largest stall."""
    pipe = c["FP64 pipe"] if prec == "float64" else c["FMA pipe"]
    issue = c["issue slots"]
    if pipe is not None and pipe >= 70 and (issue is None or pipe >= issue):
        return f"its {'FP64' if prec == 'float64' else 'FMA'} pipe ({fmt(pipe)} busy)"
    if issue is not None and issue >= 70:
        return f"the issue of its instructions ({fmt(issue)} of the cycles)"
    return f"latency (issue slots {fmt(issue)}; stalls: {c['stalls']})"


def why(cells, timings):
    """The last line: the ratio of the two builds and what bounds each, read from the
    counters."""
    a, b = cells.get("float64"), cells.get("float32")
    if a and b and a["seconds"] and b["seconds"]:
        return (f"float32 / float64: {a['seconds'] / b['seconds']:.2f}×. float64: "
                f"{fmt(a['per pair'], '{:.1f}')} instructions a pair, bound by "
                f"{bound(a, 'float64')}; float32: {fmt(b['per pair'], '{:.1f}')} "
                f"instructions a pair, bound by {bound(b, 'float32')}. Each FP64 "
                "instruction holds the FP64 pipe two cycles, in whose shadow the other "
                "instructions (shared-memory reads, conversions, the loop) issue; the "
                "float32 arithmetic takes one, so the float32 pass gains 2× only on its "
                "arithmetic and at most the ratio of its issue cycles to the float64 "
                "pass's FP64 cycles in all.")
    if timings.get("float64") and timings.get("float32"):
        return (f"float32 / float64 (the driver's timings, no counters): "
                f"{timings['float64'] / timings['float32']:.2f}×.")
    return "No timings."


def run(cmd, timeout, env=None):
    """``(returncode, output)`` of a command, 124 when it ran past ``timeout`` (then it
    and the processes it started, its session, are killed)."""
    try:
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True, env=env, start_new_session=True)
    except OSError as e:
        return 127, str(e)
    try:
        out, _ = p.communicate(timeout=timeout)
        return p.returncode, out or ""
    except subprocess.TimeoutExpired:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except OSError:
            p.kill()
        out, _ = p.communicate()
        return 124, out or ""


def timings_of(output):
    """The driver's ``DRIVER <precision> <seconds>`` lines."""
    out = {}
    for line in output.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[0] == "DRIVER" and number(parts[2]):
            out[parts[1]] = number(parts[2])
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=200_000)
    parser.add_argument("--d", type=int, default=10)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--warm", type=int, default=2_000,
                        help="points of the builds that compile the kernels (not profiled)")
    parser.add_argument("--out", default=None, help="write the table here (Markdown)")
    parser.add_argument("--budget", type=float, default=85.0, help="seconds, in all")
    parser.add_argument("--driver", action="store_true", help="only run the builds")
    parser.add_argument("--dry-run", action="store_true", help="print the ncu command only")
    args = parser.parse_args(argv)
    if args.driver:
        drive(args)
        return 0
    t0 = time.perf_counter()
    csv_path = os.path.join(tempfile.mkdtemp(prefix="profile_gpu_"), "ncu.csv")
    if args.dry_run:
        print(" ".join(ncu_command(args, csv_path)))
        return 0
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        p for p in (os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                 "src"), os.environ.get("PYTHONPATH")) if p)}
    cells, timings = {}, {}
    if shutil.which("ncu") is None:
        note = "ncu (Nsight Compute) was not found on PATH: no counters."
    else:
        cmd = ncu_command(args, csv_path, known(all_metrics(), 15.0))
        rc, output = run(cmd, max(10.0, args.budget - 5.0 - (time.perf_counter() - t0)), env)
        timings = timings_of(output)
        text = open(csv_path, encoding="utf-8", errors="replace").read() \
            if os.path.exists(csv_path) else ""
        cells = rows_of(parse(text), args.n)
        if rc == 124:
            note = f"ncu ran past its {args.budget - 5.0:.0f} s and was stopped."
        elif not cells:
            tail = " ".join((text + "\n" + output).strip().splitlines()[-3:])[-400:]
            note = f"ncu gave no metrics (exit status {rc}): {tail}"
        else:
            note = ""
    left = args.budget - (time.perf_counter() - t0)
    if not cells and not timings and left > 30:  # no counters: the driver's timings at least
        _, output = run([sys.executable, os.path.abspath(__file__), "--driver", "--n",
                         str(args.n), "--d", str(args.d), "--k", str(args.k), "--warm",
                         str(args.warm)], left - 2.0, env)
        timings = timings_of(output)
    if cells:
        note = why(cells, timings)
    else:
        note = note + " " + why(cells, timings)
    lines = table(args, cells, note, timings)
    text = "\n".join(lines)
    print(text)
    if args.out:
        try:
            os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
            with open(args.out, "w", encoding="utf-8") as fh:
                fh.write(text + "\n")
        except OSError as e:
            print(f"could not write {args.out}: {e}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception as e:  # noqa: BLE001 - the profile never breaks the run
        print(f"profile_gpu: {type(e).__name__}: {e}")
        sys.exit(0)
