"""A first fit compiles each kernel it runs once, and none of numba's string functions:
a second signature is a second compilation of the kernel and of every kernel that
calls it; string functions come with an error message numba formats (a slice
assignment's shape check), dozens of compilations for a line never taken."""

import os
import subprocess
import sys
import tempfile
import textwrap

# A fresh process with numba's cache empty, so that every kernel compiles: a matrix-free
# fit (the default engine's kernels: seeding, the pass over the pairs, the sweeps'
# decisions and moves, the bounds), each compilation's function and signature printed.
FIT = textwrap.dedent("""
    import numpy as np
    from numba.core import event
    from kgroups import KernelKGroups, config_context

    class Log(event.Listener):
        def on_start(self, ev):
            fn = ev.data["dispatcher"].py_func
            print(fn.__module__, fn.__qualname__, ev.data["args"], sep="|")

        def on_end(self, ev):
            pass

    event.register("numba:compile", Log())
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 8)) + 6.0 * rng.integers(0, 4, size=(300, 1))
    with config_context(kernels="compiled"):
        KernelKGroups(4, engine="matrix-free", n_init=2, random_state=0).fit(X)
""")


def test_a_first_matrix_free_fit_compiles_each_kernel_once():
    with tempfile.TemporaryDirectory() as cache:
        done = subprocess.run([sys.executable, "-c", FIT], capture_output=True, text=True,
                              timeout=600, env={**os.environ, "NUMBA_CACHE_DIR": cache})
    assert done.returncode == 0, done.stderr
    rows = [ln.split("|") for ln in done.stdout.splitlines() if ln.count("|") == 2]
    ours = [(mod, name) for mod, name, _ in rows if mod.startswith("kgroups.")]
    assert len(set(ours)) > 20  # seeding, the pass over the pairs, decisions, moves, bounds
    twice = sorted({f"{mod}.{name}" for mod, name in ours if ours.count((mod, name)) > 1})
    assert twice == []
    strings = sorted({f"{mod}.{name}" for mod, name, _ in rows if "unicode" in mod})
    assert strings == []
