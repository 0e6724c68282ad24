"""One first fit in this process, with what numba compiled for it (bench_startup.py's child).

    python benchmarks/_first_fit.py WHAT CSV

``WHAT`` is one of :data:`FITS` (kgroups' default fit and its fit with nothing given,
scikit-learn's KMeans and HDBSCAN, UMAP, pynndescent); ``CSV`` the points. Run it with
``NUMBA_CACHE_DIR`` a new empty folder to time a first use after an install. Prints one
JSON line: the fit's wall and CPU seconds (the imports of the estimator's package
before it, timed apart), and, for each function numba compiled, the compilations
(one per signature), their signatures and their own CPU seconds: the time from
numba's compile event to its end less the compilations nested in it (a kernel's
callees compile inside it; UMAP's and pynndescent's imports compile too, and are
counted), with the part spent in LLVM (its optimisation passes
and code generation: the time in llvmlite's calls into LLVM). numba's own
functions (NumPy's and Python's built-ins compiled for the kernels) are summed on one
row. Needs nothing but NumPy, and numba where the fit uses it; kgroups only for its
fits.
"""

from __future__ import annotations

import json
import sys
import time
import warnings

# what -> (import line, fit line): the fit reads X (n x 8, four blobs)
FITS = {
    "kgroups default": ("from kgroups import KernelKGroups",
                        "KernelKGroups(4, random_state=0).fit(X)"),
    "kgroups nothing given": ("from kgroups import KernelKGroups",
                              "KernelKGroups(n_clusters='auto', semimetric='auto', "
                              "random_state=0).fit(X)"),
    "sklearn KMeans": ("from sklearn.cluster import KMeans",
                       "KMeans(4, random_state=0).fit(X)"),
    "sklearn HDBSCAN": ("from sklearn.cluster import HDBSCAN", "HDBSCAN().fit(X)"),
    "UMAP": ("import umap", "umap.UMAP().fit(X)"),
    "pynndescent": ("import pynndescent", "pynndescent.NNDescent(X).neighbor_graph"),
}
NUMBA_ITSELF = "(numba's own functions)"


class CompileLog:
    """Each numba compilation's own CPU seconds, and the part of them in LLVM."""

    def __init__(self):
        self.rows = {}  # name -> [compilations, own seconds, own LLVM seconds, signatures]
        self.stack = []  # per open compilation: [cpu at start, llvm at start, nested cpu, nested llvm]
        self.llvm = 0.0

    def listen(self):
        import llvmlite.binding.ffi as ffi
        from numba.core import event

        call = ffi._lib_fn_wrapper.__call__
        log = self

        def timed(fn, *args, **kwargs):
            t0 = time.thread_time()
            try:
                return call(fn, *args, **kwargs)
            finally:
                log.llvm += time.thread_time() - t0

        ffi._lib_fn_wrapper.__call__ = timed

        class Listener(event.Listener):
            def on_start(self, ev):
                log.stack.append([time.thread_time(), log.llvm, 0.0, 0.0])

            def on_end(self, ev):
                log.ended(ev.data)

        event.register("numba:compile", Listener())

    def ended(self, data):
        t0, l0, nested, nested_llvm = self.stack.pop()
        spent, llvm = time.thread_time() - t0, self.llvm - l0
        if self.stack:
            self.stack[-1][2] += spent
            self.stack[-1][3] += llvm
        fn = data["dispatcher"].py_func
        name = (f"{fn.__module__}.{fn.__qualname__}"
                if not fn.__module__.startswith("numba.") else NUMBA_ITSELF)
        row = self.rows.setdefault(name, [0, 0.0, 0.0, []])
        row[0] += 1
        row[1] += spent - nested
        row[2] += llvm - nested_llvm
        sig = ", ".join(str(a) for a in data["args"])
        if sig not in row[3]:
            row[3].append(sig)


def main():
    what, csv_path = sys.argv[1], sys.argv[2]
    import numpy as np

    warnings.simplefilter("ignore")  # scikit-learn's notes on future defaults
    X = np.loadtxt(csv_path, delimiter=",")
    imp, fit = FITS[what]
    log = CompileLog()
    if what in ("UMAP", "pynndescent"):  # they compile kernels as they are imported
        log.listen()
    t0 = time.perf_counter()
    exec(imp, globals())
    t1, c1 = time.perf_counter(), time.process_time()
    if what.startswith("kgroups"):  # numba is imported by the fit
        log.listen()
    exec(fit, {**globals(), "X": X})
    t2, c2 = time.perf_counter(), time.process_time()
    print(json.dumps({"import": t1 - t0, "fit": t2 - t1, "fit_cpu": c2 - c1,
                      "llvm": log.llvm, "kernels": log.rows}))


if __name__ == "__main__":
    main()
