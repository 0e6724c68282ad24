"""
Engines at scale
================

``engine=`` says how the kernel :math:`B = \\mathrm{diag}(w) K \\mathrm{diag}(w)` is held.
``"dense"`` stores the n x n matrix (:math:`8 n^2` bytes); ``"matrix-free"`` stores
only the data and the k x n matrix :math:`M_{li} = \\sum_{y \\in C_l} B_{iy}` and
computes kernel entries when needed; both are exact and give the same labels from
the same start. ``"low-rank"`` replaces K by m Nyström features (approximate,
O(nm) memory). ``engine="auto"`` takes matrix-free for raw data with a named
semimetric from n = 2000 on (at most 32 columns), where it is the faster of the two.
This small timing plot (one k-means++ start, k = 5, D = 2, on the machine that built
these pages) shows the growth; :ref:`engines-measured` gives the measurements up to a
million points.
"""

import time

import matplotlib.pyplot as plt
import numpy as np

from kgroups import KernelKGroups

rng = np.random.default_rng(0)
centres = rng.normal(scale=4.0, size=(5, 2))


def sample(n):
    return centres[rng.integers(0, 5, n)] + rng.normal(size=(n, 2))


engines = {"dense": dict(engine="dense"), "matrix-free": dict(engine="matrix-free"),
           "low-rank (m=64)": dict(engine="low-rank", n_components=64)}
for params in engines.values():  # compile the numba kernels first
    KernelKGroups(5, random_state=0, **params).fit(sample(300))

sizes = [500, 1000, 2000, 4000, 8000]
times = {name: [] for name in engines}
for n in sizes:
    X = sample(n)
    for name, params in engines.items():
        if name == "dense" and n > 4000:
            times[name].append(np.nan)  # 8000^2 doubles = 512 MB: leave it out here
            continue
        t0 = time.perf_counter()
        est = KernelKGroups(5, random_state=0, **params).fit(X)
        times[name].append(time.perf_counter() - t0)
    auto = KernelKGroups(5, random_state=0).fit(X).engine_
    print(f"n={n:5d}: " + ", ".join(f"{k} {v[-1]:.3f} s" for k, v in times.items()),
          f"(engine='auto' picks {auto})")

fig, ax = plt.subplots(figsize=(6.5, 4))
for name, t in times.items():
    ax.loglog(sizes, t, "o-", label=name)
ax.axvline(2000, color="gray", ls=":", lw=1)
ax.text(2050, ax.get_ylim()[0] * 1.5, "auto: matrix-free from here", fontsize=8)
ax.set(xlabel="n", ylabel="seconds per fit", title="KernelKGroups(5), D = 2")
ax.legend()
fig.tight_layout()
plt.show()
