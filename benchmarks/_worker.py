"""Child process for one Python method: ``_worker.py X.npy start.txt out.txt SPEC_JSON``.

Prints one JSON line with the time of the clustering call alone. kgroups
engines first fit 200 points once so that numba's cached machine code is
loaded before the clock starts (the wall time reported by the parent includes
it, the interpreter start and the imports).
"""

import json
import sys
import time

import numpy as np


def main():
    x_path, start_path, out_path, spec = sys.argv[1:5]
    spec = json.loads(spec)
    X = np.load(x_path)
    start = np.loadtxt(start_path, dtype=np.int64)
    k = spec["k"]
    method = spec["method"]
    extra = {}
    if method == "kgroups":
        from kgroups import KernelKGroups

        opts = {key: spec[key] for key in ("engine", "n_components", "landmarks", "dtype")
                if key in spec}
        init = start if spec.get("init", "start") == "start" else spec["init"]
        warm = dict(opts, n_components=min(opts.get("n_components", 256), 100))
        KernelKGroups(k, random_state=0, **warm).fit(X[:200])  # load numba code
        est = KernelKGroups(k, init=init, n_init=spec.get("n_init", 1), max_iter=1000,
                            random_state=spec.get("seed", 0), **opts)
        t0 = time.perf_counter()
        est.fit(X)
        elapsed = time.perf_counter() - t0
        labels = est.labels_
        extra = {"W_own": float(est.within_energy_), "sweeps": int(est.n_iter_)}
    elif method == "sklearn-kmeans":
        from sklearn.cluster import KMeans

        t0 = time.perf_counter()
        labels = KMeans(k, n_init=1, random_state=0).fit_predict(X)
        elapsed = time.perf_counter() - t0
    elif method == "sklearn-gmm":
        from sklearn.mixture import GaussianMixture

        t0 = time.perf_counter()
        labels = GaussianMixture(k, random_state=0).fit_predict(X)
        elapsed = time.perf_counter() - t0
    else:
        raise SystemExit(f"unknown method {method!r}")
    np.savetxt(out_path, labels, fmt="%d")
    print(json.dumps({"time": elapsed, **extra}))


if __name__ == "__main__":
    main()
