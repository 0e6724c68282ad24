"""CUDA kernels of the GPU engine's Hartigan sweeps on the device.

A sweep of kernel k-groups (paper Algorithm 2) visits the points in order and moves
each to the cluster of best gain (eq. 50, :func:`kgroups._kernels.gain.best_move`)
before the next is decided, so every decision reads ``M`` after all the moves made
before it. Here the decisions and the moves both happen on the device, in two
kernels launched in turn, and the host learns the state of a sweep only when it
asks (once per sweep, or once per few batches early in a fit):

* :func:`decide_pass` (one block per run): the block takes ``T`` points at a time
  (a window), one per thread. Each thread reads its column ``M[:, y]`` and corrects
  it for the moves this launch already made (the pending list, not yet in ``M``:
  ``M[old, y] -= B[p, y]``, ``M[new, y] += B[p, y]`` with ``B[p, y] = -w_p w_y
  rho(x_p, x_y) / 2`` computed on the fly, O(D) each), then computes its best move
  from the cluster weights ``s``, sums ``q`` and sizes ``cnt`` the block holds in
  shared memory. The block then walks the window in order: the first point with an
  improving move moves (``s``, ``q``, ``cnt`` and its label updated, the move
  appended to the pending list), every later point of the window corrects its
  column for that one move and decides again from the new sums, and the walk goes
  on from the point after the mover. So each point is decided from exactly the
  column and sums the move-at-a-time algorithm reads. The launch ends at the end of
  the data, when the pending list is full, or when the corrections made for it
  reach a budget (:data:`PENDING_WORK`), its position kept on the device.
* :func:`apply_pass_pending` (a thread per column, a grid row per run): the pending
  moves applied to every column of ``M`` in their order, the movers' rows read
  through shared memory in tiles.

The next :func:`decide_pass` starts from an empty list, the previous one applied.
Nothing of size n x n exists; the state of a sweep (labels, ``s``, ``q``, ``cnt``,
the pending list and its position, ``ctl``) stays on the device between launches.
Each kernel runs under numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``), where
the tests compare the sweeps with the CPU engines'.
"""

from __future__ import annotations

from . import gain as _gain
from .cuda import ROWS_MAX_FEATURES, THREADS, blocks, cuda, numba, per_features, rho  # noqa: F401

# The columns of ``ctl`` (R x CTL_WIDTH, int64): the next point to decide, the moves in
# the pending list (written by decide_pass, read by apply_pass_pending), the moves of
# this sweep.
POS, PENDING, MOVES = 0, 1, 2
CTL_WIDTH = 4
# Moves the pending list of a run holds: each later decision of the launch corrects
# its column for every one of them (O(D) each, one thread per point of a window, on
# the run's one multiprocessor), and each full list costs one apply over every column
# (all of the device). benchmarks/bench_gpu.py times lists of 64 to 4,096 in one run.
PENDING_CAP = 256
# Corrections (pending moves per point, summed over a launch's windows) after which a
# launch of decide_pass stops for its list to be applied (0: only a full list
# stops it). A window's corrections run on one multiprocessor, the apply over every
# column on all of them. benchmarks/bench_gpu.py times budgets beside lists.
PENDING_WORK = 0
# Whether a decide_pass block keeps the rows, weights and clusters of the moves it
# adds to the pending list in its shared memory (as many as the columns leave room
# for): each later correction then reads them there, not through a chain of loads
# from the data. benchmarks/bench_gpu.py times the sweeps without it beside.
STAGE_MOVERS = True
# Threads of a decide_pass block: a window of points decided at once. Each holds its
# column of M (k numbers) in dynamic shared memory, so fewer threads for many
# clusters (:func:`decide_threads`). The simulator runs each thread as a Python
# thread: a few suffice there.
DECIDE_THREADS = 8 if numba.config.ENABLE_CUDASIM else 512
# Dynamic shared memory a decide_pass block may take: the windows' columns and the
# block's s, q, cnt (48 KiB is what a block gets without asking for more).
DECIDE_SHARED = 44 * 1024
# Movers of apply_pass_pending read into shared memory at a time.
APPLY_TILE = 4 if numba.config.ENABLE_CUDASIM else 128
# Clusters whose sums a thread of apply_pass_pending keeps in local memory (its
# column read once and written once); beyond, it updates M in global memory.
APPLY_K = 64

# The number of features a kernel is compiled for (0: read from the data's shape) and
# the length of a thread's row: the compiled twins (:func:`decide_pass`,
# :func:`apply_pass_pending`) rebind both.
DIM = 0
LOCAL_DIM = 1

_best = cuda.jit(device=True)(_gain.best_move.py_func)


def decide_threads(k, registers=None):
    """Threads of a :func:`decide_pass` block for ``k`` clusters: :data:`DECIDE_THREADS`
    where the compiled kernel's ``registers`` a thread allow them (a block's threads
    share a multiprocessor's 65,536 registers, allocated 8 at a time; unknown before
    the first launch: at most 256 threads, which any kernel can launch), halved
    until the window's columns and the block's sums fit in :data:`DECIDE_SHARED` (0
    where not even 32 of them fit: the sweeps stay on the host). The decisions are
    the same for any number of threads."""
    t = DECIDE_THREADS
    regs = -(-int(registers) // 8) * 8 if registers else 0
    while t > 256 and (not regs or regs * t > 65536):
        t //= 2
    while t > 1 and 8 * k * (t + 3) > DECIDE_SHARED:
        t //= 2
    least = 1 if numba.config.ENABLE_CUDASIM else 32
    return t if t >= least and 8 * k * (t + 3) <= DECIDE_SHARED else 0


def registers(kernel):
    """Registers a thread of the compiled ``kernel`` uses (the most over its
    compilations), or None (not compiled yet, or the simulator)."""
    try:
        regs = kernel.get_regs_per_thread()
    except Exception:  # noqa: BLE001 - the simulator has no registers to tell
        return None
    if isinstance(regs, dict):
        return max(regs.values()) if regs else None
    return int(regs) if regs else None


def decide_shared_bytes(k, threads, staged=0, n_features=0):
    """Dynamic shared memory of a :func:`decide_pass` block: the columns and s, q, cnt,
    and ``staged`` movers' rows of ``n_features`` with their weights and clusters."""
    return int(8 * (k * (threads + 3) + staged * (n_features + 3)))


def decide_staged(k, threads, n_features, cap):
    """Pending movers whose rows a :func:`decide_pass` block keeps in the shared memory
    its columns leave free (:data:`DECIDE_SHARED`), at most ``cap``; 0 without
    :data:`STAGE_MOVERS`. The others' rows are read from the data."""
    if not STAGE_MOVERS:
        return 0
    free = DECIDE_SHARED - decide_shared_bytes(k, threads)
    return int(max(0, min(cap, free // (8 * (int(n_features) + 3)))))


def decide_src(XT, w, labels, M, s, q, cnt, pend, pold, pnew, ctl, budget, staged, code,
               alpha, sigma, theta):
    """Hartigan's decisions of run ``blockIdx.x`` from ``ctl[r, POS]`` on (module
    docstring), until the end of the data, a full pending list, or (``budget > 0``)
    the end of the window after which the corrections made for the list, counted as
    pending moves per point of each window, reach ``budget``: applying the list
    then costs less than carrying it on. The list (``pend``, ``pold``, ``pnew``:
    point, old and new cluster) is left for :func:`apply_pass_pending`, its length
    in ``ctl[r, PENDING]``. The first ``staged`` moves of the list also keep the
    mover's row, weight and clusters in the block's shared memory, where the
    corrections read them (:func:`decide_staged`; the same values as in the data).
    ``DIM`` (when compiled): the number of features, the thread's point then in
    registers."""
    r = cuda.blockIdx.x
    tid = cuda.threadIdx.x
    T = cuda.blockDim.x
    D, n = XT.shape
    k = M.shape[1]
    cap = pend.shape[1]
    sh = cuda.shared.array(0, dtype=numba.float64)
    ss = sh[:k]
    qs = sh[k:2 * k]
    cs = sh[2 * k:3 * k]  # the sizes, as float64 (exact below 2^53)
    col = sh[3 * k + tid * k:3 * k + (tid + 1) * k]
    dn = DIM if DIM else D
    mx0 = 3 * k + T * k  # the staged movers: rows (dn each), weights, old, new clusters
    mw0 = mx0 + staged * dn
    mo0 = mw0 + staged
    mn0 = mo0 + staged
    info = cuda.shared.array(4, dtype=numba.int64)
    xy = cuda.local.array(LOCAL_DIM, dtype=numba.float64)
    for lab in range(tid, k, T):
        ss[lab] = s[r, lab]
        qs[lab] = q[r, lab]
        cs[lab] = cnt[r, lab]
    pos = ctl[r, POS]
    n_pend = 0
    added = 0
    work = 0
    cuda.syncthreads()
    going = pos < n
    while going:
        y = pos + tid
        active = y < n
        j = -1
        best = -1
        wy = 0.0
        held = False  # the point's row in registers: read when a correction needs it
        if active:
            j = labels[r, y]
            wy = w[y]
            for lab in range(k):
                col[lab] = M[r, lab, y]
            if DIM and n_pend > 0:
                for d in range(DIM):
                    xy[d] = XT[d, y]
                held = True
            for t in range(n_pend):
                d2 = 0.0
                if t < staged:
                    for d in range(dn):
                        u = (xy[d] if DIM else XT[d, y]) - sh[mx0 + t * dn + d]
                        d2 += u * u
                    wp, a, c = sh[mw0 + t], int(sh[mo0 + t]), int(sh[mn0 + t])
                else:
                    p = pend[r, t]
                    for d in range(dn):
                        u = (xy[d] if DIM else XT[d, y]) - XT[d, p]
                        d2 += u * u
                    wp, a, c = w[p], pold[r, t], pnew[r, t]
                b = -0.5 * wy * wp * rho(d2, code, alpha, sigma, theta)
                col[a] -= b
                col[c] += b
            best, _ = _best(col, j, ss, qs, cs, wy, 0.0)
        cursor = 0
        full = False
        while True:
            if tid == 0:
                info[0] = T
            cuda.syncthreads()
            if active and tid >= cursor and best >= 0:
                cuda.atomic.min(info, 0, numba.int64(tid))
            cuda.syncthreads()
            first = info[0]
            if first >= T:
                break
            if tid == first:  # the move, as gain.update_stats makes it (B_yy = 0)
                qs[j] += -2.0 * col[j]
                qs[best] += 2.0 * col[best]
                ss[j] -= wy
                ss[best] += wy
                cs[j] -= 1.0
                cs[best] += 1.0
                labels[r, y] = best
                pend[r, n_pend] = y
                pold[r, n_pend] = j
                pnew[r, n_pend] = best
                if n_pend < staged:
                    for d in range(dn):
                        sh[mx0 + n_pend * dn + d] = XT[d, y]
                    sh[mw0 + n_pend] = wy
                    sh[mo0 + n_pend] = j
                    sh[mn0 + n_pend] = best
                info[1] = j
                info[2] = best
                j = best
                best = -1
            cuda.syncthreads()
            a = info[1]
            c = info[2]
            p = pos + first
            n_pend += 1
            added += 1
            if active and tid > first:
                if DIM and not held:
                    for d in range(DIM):
                        xy[d] = XT[d, y]
                    held = True
                d2 = 0.0
                t = n_pend - 1  # the move just added
                for d in range(dn):
                    u = (xy[d] if DIM else XT[d, y]) - (
                        sh[mx0 + t * dn + d] if t < staged else XT[d, p])
                    d2 += u * u
                b = -0.5 * wy * w[p] * rho(d2, code, alpha, sigma, theta)
                col[a] -= b
                col[c] += b
                best, _ = _best(col, j, ss, qs, cs, wy, 0.0)
            cursor = first + 1
            if n_pend >= cap:
                full = True
                pos = p + 1
                break
        work += n_pend
        if full:
            going = False
        else:
            pos += T
            going = pos < n and not (budget > 0 and work >= budget)
    cuda.syncthreads()
    for lab in range(tid, k, T):
        s[r, lab] = ss[lab]
        q[r, lab] = qs[lab]
        cnt[r, lab] = int(cs[lab])
    if tid == 0:
        ctl[r, POS] = pos if pos < n else n
        ctl[r, PENDING] = n_pend
        ctl[r, MOVES] += added


def apply_src(XT, w, pend, pold, pnew, ctl, M, code, alpha, sigma, theta):
    """Run ``blockIdx.y``'s pending list (``ctl[r, PENDING]`` moves) applied to column
    ``y`` of its ``M``, one thread per column, in the list's order: ``M[old, y] -=
    B[p, y]``, ``M[new, y] += B[p, y]``. The movers' rows, weights and clusters come
    through shared memory, ``APPLY_TILE`` at a time; with ``k <= APPLY_K`` the column's
    sums stay in local memory for the whole list."""
    r = cuda.blockIdx.y
    tid = cuda.threadIdx.x
    T = cuda.blockDim.x
    y = cuda.blockIdx.x * T + tid
    D, n = XT.shape
    k = M.shape[1]
    m = ctl[r, PENDING]
    sx = cuda.shared.array((LOCAL_DIM, APPLY_TILE), dtype=numba.float64)
    sw = cuda.shared.array(APPLY_TILE, dtype=numba.float64)
    so = cuda.shared.array(APPLY_TILE, dtype=numba.int64)
    sn = cuda.shared.array(APPLY_TILE, dtype=numba.int64)
    sp = cuda.shared.array(APPLY_TILE, dtype=numba.int64)
    xy = cuda.local.array(LOCAL_DIM, dtype=numba.float64)
    acc = cuda.local.array(APPLY_K, dtype=numba.float64)
    held = k <= APPLY_K
    live = y < n
    wy = 0.0
    if live:
        wy = w[y]
        if DIM:
            for d in range(DIM):
                xy[d] = XT[d, y]
        if held:
            for lab in range(k):
                acc[lab] = M[r, lab, y]
    for t0 in range(0, m, APPLY_TILE):
        mt = m - t0 if m - t0 < APPLY_TILE else APPLY_TILE
        cuda.syncthreads()
        for e in range(tid, mt, T):
            p = pend[r, t0 + e]
            sp[e] = p
            sw[e] = w[p]
            so[e] = pold[r, t0 + e]
            sn[e] = pnew[r, t0 + e]
            if DIM:
                for d in range(DIM):
                    sx[d, e] = XT[d, p]
        cuda.syncthreads()
        if live:
            for e in range(mt):
                d2 = 0.0
                for d in range(DIM if DIM else D):
                    u = (xy[d] - sx[d, e]) if DIM else (XT[d, y] - XT[d, sp[e]])
                    d2 += u * u
                b = -0.5 * wy * sw[e] * rho(d2, code, alpha, sigma, theta)
                if held:
                    acc[so[e]] -= b
                    acc[sn[e]] += b
                else:
                    M[r, so[e], y] -= b
                    M[r, sn[e], y] += b
    if live and held:
        for lab in range(k):
            M[r, lab, y] = acc[lab]


def decide_pass(n_features):
    """:func:`decide_src` for data of ``n_features`` features (compiled for that number
    up to :data:`~kgroups._kernels.cuda.ROWS_MAX_FEATURES`, once per process), launched
    ``[R, decide_threads(k), 0, decide_shared_bytes(k, threads)]``."""
    return per_features(decide_src, "decide_pass", n_features)


def apply_pass_pending(n_features):
    """:func:`apply_src` for data of ``n_features`` features, launched ``[(blocks(n),
    R), THREADS]``."""
    return per_features(apply_src, "apply_pending", n_features)


@cuda.jit
def start_sweep(ctl, active, n):
    """``ctl`` of a new sweep: position 0 for the active runs (``n`` for the others, which
    decide nothing), no pending move, no move yet (one thread per run)."""
    r = cuda.grid(1)
    if r < ctl.shape[0]:
        ctl[r, POS] = 0 if active[r] else n
        ctl[r, PENDING] = 0
        ctl[r, MOVES] = 0
