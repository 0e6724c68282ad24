"""How far does ``semimetric="nearest_neighbors"`` go? Time, peak memory and ARI from
10,000 to 1,000,000 points in 2-D, beside scikit-learn's ``SpectralClustering``
(issue 41).

The data: ``make_moons(n, noise=0.05)`` with 5 % uniform background noise (scored on
the moons only) and, to see clusters of unequal size and density, three Gaussian
blobs of sizes 1 : 2 : 4 (``make_blobs``, ``cluster_std`` 1, 2, 0.5). Each
configuration runs in a fresh Python process (its peak resident memory is that
process's, read from ``resource.getrusage``), after a warm-up fit on 2,000 points in
the same process (compiled kernels loaded, imports done). Reported: seconds of the
whole fit and of its phases (the neighbourhood graph, its eigenvectors, placing the
rows, then the engine's starts and sweeps), peak memory, ARI, and the ratio to
scikit-learn's time where it finishes within ``--peer-timeout`` seconds
(``SpectralClustering(k, affinity="nearest_neighbors", n_neighbors=10,
assign_labels="kmeans")``; its default ARPACK eigensolver).

With ``--auto``, the table is instead ``semimetric="auto"`` beside
``"nearest_neighbors"`` (issue 47): ``make_moons(n, noise=0.05)`` at k = 2, where the
graph wins, and ``make_blobs(n, centers=3)`` at k = 3, where the energy semimetric
wins (its exact fit is quadratic: up to ``AUTO_ENERGY_MAX`` rows, each with
``semimetric="energy"`` timed too); seconds of each, ``auto`` / ``nearest_neighbors``,
``auto`` / the candidate it chose fitted alone, and ``auto``'s phases
(``engine_stats_["auto seconds"]``).

Usage: python benchmarks/bench_neighbors_scale.py [--sizes 10000 100000 1000000]
       [--peer-timeout 600] [--auto] [--out FILE.md]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _report import publish  # noqa: E402

DATA = ("moons + 5% noise", "blobs 1:2:4")
# --auto: the moons (the graph wins) and touching blobs (the energy semimetric
# wins), and the largest n at which the blobs are fitted (the exact energy fit that
# "auto" keeps there is quadratic in n)
AUTO_DATA = ("moons", "blobs 3")
AUTO_ENERGY_MAX = 100_000
SEMIMETRIC = {"kgroups": "nearest_neighbors", "auto": "auto", "energy": "energy"}


def make(name, n, seed=0):
    import numpy as np
    from sklearn.datasets import make_blobs, make_moons

    rng = np.random.default_rng(seed)
    if name == AUTO_DATA[0]:
        X, y = make_moons(n, noise=0.05, random_state=seed)
        return X, y, 2
    if name == AUTO_DATA[1]:
        X, y = make_blobs(n, centers=3, random_state=seed)
        return X, y, 3
    if name == DATA[0]:
        m = n - n // 20
        X, y = make_moons(m, noise=0.05, random_state=seed)
        lo, hi = X.min(0) - 0.2, X.max(0) + 0.2
        noise = lo + rng.random((n - m, 2)) * (hi - lo)
        return np.vstack([X, noise]), np.r_[y, -np.ones(n - m, int)], 2
    sizes = [n // 7, 2 * n // 7, n - 3 * (n // 7)]
    X, y = make_blobs(sizes, centers=[[0, 0], [8, 0], [4, 6]], cluster_std=[1, 2, 0.5],
                      random_state=seed)
    return X, y, 3


def child(method, name, n):
    """One configuration, in this process: a JSON line on stdout."""
    import resource

    import numpy as np
    from sklearn.metrics import adjusted_rand_score

    X, y, k = make(name, n)
    Xw, _, _ = make(name, 2000, seed=1)
    chose = None
    if method in SEMIMETRIC:
        from kgroups import KernelKGroups

        semimetric = SEMIMETRIC[method]
        KernelKGroups(k, semimetric=semimetric, random_state=0).fit(Xw)
        t0 = time.perf_counter()
        est = KernelKGroups(k, semimetric=semimetric, random_state=0).fit(X)
        seconds = time.perf_counter() - t0
        labels, chose = est.labels_, est.semimetric_
        phases = (est.engine_stats_["auto seconds"] if method == "auto" else
                  {**est.engine_stats_.get("semimetric seconds", {}),
                   **{p: est.engine_stats_["seconds"][p] for p in ("init", "start", "sweeps")}})
    else:
        from sklearn.cluster import SpectralClustering

        def sc():
            return SpectralClustering(k, affinity="nearest_neighbors", n_neighbors=10,
                                      random_state=0)
        sc().fit(Xw)
        t0 = time.perf_counter()
        labels = sc().fit_predict(X)
        seconds = time.perf_counter() - t0
        phases = {}
    mask = y >= 0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(json.dumps({"method": method, "data": name, "n": n, "seconds": seconds,
                      "phases": phases, "peak_bytes": peak, "chose": chose,
                      "ari": float(adjusted_rand_score(y[mask], labels[mask]))}))


def run(method, name, n, timeout):
    cmd = [sys.executable, __file__, "--child", method, name, str(n)]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"method": method, "data": name, "n": n, "timeout": timeout}
    if out.returncode != 0:
        return {"method": method, "data": name, "n": n,
                "error": out.stderr.strip().splitlines()[-1]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", nargs="+", type=int, default=[10_000, 100_000, 1_000_000])
    p.add_argument("--peer-timeout", type=float, default=600.0)
    p.add_argument("--auto", action="store_true",
                   help='semimetric="auto" beside "nearest_neighbors" instead (issue 47)')
    p.add_argument("--out")
    p.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child:
        return child(args.child[0], args.child[1], int(args.child[2]))
    cmd = "python " + " ".join(shlex.quote(a) for a in ["benchmarks/bench_neighbors_scale.py"]
                                + (argv if argv is not None else sys.argv[1:]))
    if args.auto:
        return publish(auto_table(args.sizes, cmd), args.out)
    lines = ["# semimetric=\"nearest_neighbors\" at scale\n", f"`{cmd}`\n",
             f"{platform.machine()}, {os.cpu_count()} cores; each row a fresh process.\n",
             "| data | n | kgroups (s) | graph | eigenvectors | placement | starts | "
             "sweeps | peak memory (GiB) | ARI | SpectralClustering (s) | its peak (GiB) | "
             "its ARI | kgroups / sklearn time |", "|" + "---|" * 14]
    for name in DATA:
        peer_alive = True
        for n in args.sizes:
            r = run("kgroups", name, n, 3600)
            s = (run("sklearn", name, n, args.peer_timeout) if peer_alive
                 else {"timeout": args.peer_timeout, "skipped": True})
            if "seconds" not in s:
                peer_alive = False
            ph = r.get("phases", {})
            cells = [name, f"{n:,}", f"{r.get('seconds', float('nan')):.2f}"]
            cells += [f"{ph.get(q, float('nan')):.2f}" for q in
                      ("graph", "eigenvectors", "placement", "init", "sweeps")]
            cells += [f"{r.get('peak_bytes', 0) / 2**30:.2f}", f"{r.get('ari', float('nan')):.3f}"]
            if "seconds" in s:
                cells += [f"{s['seconds']:.2f}", f"{s['peak_bytes'] / 2**30:.2f}",
                          f"{s['ari']:.3f}", f"{r['seconds'] / s['seconds']:.2f}"]
            else:
                why = ("not run (did not finish a smaller n)" if s.get("skipped") else
                       f"over {s.get('timeout', 0):.0f} s" if "timeout" in s else
                       f"failed: {s.get('error', '')}")
                cells += [why, "", "", ""]
            lines.append("| " + " | ".join(cells) + " |")
            print(lines[-1], flush=True)
    text = "\n".join(lines) + "\n"
    publish(text, args.out)


def auto_table(sizes, cmd):
    """The ``--auto`` report: per data set and n, ``"nearest_neighbors"``, ``"energy"``
    (up to ``AUTO_ENERGY_MAX``) and ``"auto"``, each in a fresh process."""
    nan = float("nan")
    lines = ["# semimetric=\"auto\" beside \"nearest_neighbors\" at scale\n", f"`{cmd}`\n",
             f"{platform.machine()}, {os.cpu_count()} cores; each row a fresh process.\n",
             "| data | n | nearest_neighbors (s) | energy (s) | auto (s) | auto / "
             "nearest_neighbors | auto chose | auto / its choice alone | auto's phases (s) "
             "| ARI auto |", "|" + "---|" * 10]
    for name in AUTO_DATA:
        for n in sizes:
            if name == AUTO_DATA[1] and n > AUTO_ENERGY_MAX:
                continue
            r = {m: run(m, name, n, 3600) for m in ("kgroups", "auto")}
            if n <= AUTO_ENERGY_MAX:
                r["energy"] = run("energy", name, n, 3600)
            sec = {m: r[m].get("seconds", nan) for m in ("kgroups", "energy", "auto")
                   if m in r}
            alone = {"nearest_neighbors": "kgroups", "energy": "energy"}.get(
                r["auto"].get("chose"))
            phases = ", ".join(f"{p} {v:.2f}" for p, v in r["auto"].get("phases", {}).items())
            cells = [name, f"{n:,}", f"{sec['kgroups']:.2f}",
                     f"{sec['energy']:.2f}" if "energy" in sec else "not run",
                     f"{sec['auto']:.2f}", f"{sec['auto'] / sec['kgroups']:.2f}",
                     str(r["auto"].get("chose", r["auto"].get("error", "timeout"))),
                     f"{sec['auto'] / sec[alone]:.2f}" if alone in sec else "",
                     phases, f"{r['auto'].get('ari', nan):.3f}"]
            lines.append("| " + " | ".join(cells) + " |")
            print(lines[-1], flush=True)
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
