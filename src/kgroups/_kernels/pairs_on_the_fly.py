"""Kernels of the matrix-free engine: the kernel is never stored; its entries are
computed on the fly.

With ``B[i, y] = -w_i w_y rho(x_i, x_y) / 2`` (``K = -rho/2``, so ``B[i, i] = 0``)
the engine keeps only the data (n x D, twice: row-major and transposed) and
``M`` (k x n), memory O(n (k + D)).

* :func:`build_m_sym` forms ``M[l, i] = sum_{y in C_l} B[i, y]`` in one
  multi-threaded pass over the n (n - 1) / 2 unordered pairs, O(n^2 D)
  (:mod:`kgroups._kernels.pairs_sym`); every worker owns a k x n accumulator.
  :func:`build_m_multi` does the same for the R starting partitions of ``n_init``
  restarts in one pass (each pair's rho once, fed to R sets of sums).
* :func:`decide_mf` runs the sequential Hartigan decisions (paper Algorithm 2,
  steps 4-15) from a given point on, skipping the points whose bounds
  (:mod:`kgroups._kernels.bounds`) prove they cannot move. Moves are not
  applied to ``M`` at once: they are *pending*, and the column ``M[:, i]`` a
  decision needs is corrected by the pending movers' entries ``B[t, i]`` (O(D)
  each), which gives exactly the column the one-move-at-a-time algorithm would
  see (a row of ``B`` does not depend on the labels). It returns when the list
  is full or its corrections have cost a budget of kernel entries.
* :func:`apply_moves` then applies the pending moves to ``M`` as one blocked,
  multi-threaded pass: O(n D) per move, all movers sharing each column tile;
  for several runs swept in lockstep, each kernel row once for all the runs in
  which that point moves.
* :func:`cross_cluster_sums` gives ``predict`` each new row's sums over the training
  points of each cluster, ``sum_{y in C_l} w_y rho(x, y)``, the same way: pair by
  pair, on every core, no block of values held.
"""

import numpy as np

from .jit import njit, num_threads
from .bounds import add_drift, fresh_bounds, proven_still, smallest, upper
from .gain import best_move, certain, update_stats
from .pairs_sym import build_m_sym, finish_sums, last_dims, leading_dims
from .pairs_sym import accumulators  # noqa: F401  (the engine's, with the passes here)
from .parallel import spread, workers
from .semimetric import exact_sq, rho, rho_inplace

# Columns per tile: D x TILE float64 stays in L1/L2.
TILE = 512


@njit(cache=True)
def rho_tile(XT, x, lo, hi, code, alpha, sigma, theta, buf):
    """``buf[t] = rho(x, XT[:, lo + t])`` for ``t < hi - lo`` (vectorised loops).

    Squared distances by direct differences (exact), then
    :func:`~kgroups._kernels.semimetric.rho_inplace`.
    """
    m = hi - lo
    for t in range(m):
        buf[t] = 0.0
    for d in range(XT.shape[0]):
        xd = x[d]
        row = XT[d, lo:hi]  # a view indexed from 0: keeps the loop vectorised
        for t in range(m):
            u = row[t] - xd
            buf[t] += u * u
    rho_inplace(buf, m, code, alpha, sigma, theta)


@njit(cache=True)
def _multi_tile(XT, ws, labs, k, a0, c0, c1, S, out, idx, code, alpha, sigma, theta):
    """Rows ``a0 .. a0 + 3`` against columns ``c0 .. c1 - 1``, feeding the cluster sums
    of ``R = labs.shape[0]`` labelings (labeling ``g``'s cluster ``l`` is row
    ``g k + l`` of ``S``): ``S[g k + lab_g(a), c] += w_a rho(a, c)``."""
    n = XT.shape[1]
    R = labs.shape[0]
    nr = min(4, n - a0)
    m = c1 - c0
    for r in range(4):
        idx[r] = a0 + min(r, nr - 1)
    pre = leading_dims(XT, idx, c0, c1, out)  # rho of the four rows
    last_dims(XT, idx, c0, c1, XT.shape[0], pre == 0, out, code, alpha, sigma, theta)
    for r in range(nr):
        wr = ws[a0 + r]
        o = out[r, :m]
        for g in range(R):
            dst = S[g * k + labs[g, a0 + r], c0:c1]
            for t in range(m):
                dst[t] += wr * o[t]


# Rows per block of the multi-start build: the R k x TILE accumulator tile they all
# add into stays in cache while the block's rows stream past it.
MULTI_ROWS = 256


def build_m_multi(XT, ws, labs, k, acc, code, alpha, sigma, theta):
    """``M`` of ``R`` starting partitions from one pass over the pairs (shared restarts).

    ``Ms[g k + l, c] = -w_c / 2 sum_{a in C^g_l} w_a rho(a, c)`` for every labeling
    ``g`` of ``labs`` (int64[R, n]). Each ordered pair's ``rho`` is computed once
    (O(D); twice per unordered pair, so that every update is a vectorised row
    update, with no scattered row-side sums) and added to the R partitions' sums
    (O(R)): for R starts this costs one pass of distances plus R cheap
    accumulations, instead of R full builds. Blocks of ``MULTI_ROWS`` rows go
    round-robin to the workers, all at once (:func:`~kgroups._kernels.parallel.
    spread`), each with its own R k x n accumulator ``acc[th]`` (zeroed by the
    caller, see :func:`accumulators`); within a block, column tile by column tile.
    The result ends in ``acc[0]``. Same sums as :func:`build_m_sym` up to the order
    of additions.
    """
    spread(m_multi_workers, acc.shape[0], acc.shape[0], XT, ws, labs, k, acc, code, alpha,
           sigma, theta)
    return finish_sums(acc, ws)


@njit(cache=True, nogil=True)
def m_multi_workers(XT, ws, labs, k, acc, code, alpha, sigma, theta, th_lo, th_hi):
    """:func:`build_m_multi`'s workers ``th_lo .. th_hi - 1``: worker ``th`` takes the
    blocks ``th, th + t, th + 2 t, ...`` into ``acc[th]``."""
    n = XT.shape[1]
    n_threads = acc.shape[0]
    n_blocks = (n + MULTI_ROWS - 1) // MULTI_ROWS
    out = np.empty((4, TILE), np.float64)
    idx = np.empty(4, dtype=np.int64)
    for th in range(th_lo, th_hi):
        for b in range(th, n_blocks, n_threads):
            r1 = min(n, (b + 1) * MULTI_ROWS)
            for c0 in range(0, n, TILE):
                c1 = min(n, c0 + TILE)
                for a0 in range(b * MULTI_ROWS, r1, 4):
                    _multi_tile(XT, ws, labs, k, a0, c0, c1, acc[th], out, idx,
                                code, alpha, sigma, theta)


@njit(cache=True)
def pending_column(M, i, xi, w_i, w, pend, old, new, PX, n_pend, col, code, alpha, sigma,
                   theta):
    """``col = M[:, i]`` corrected for the ``n_pend`` pending moves (their kernel
    entries with point ``i`` at ``xi``, O(D) each): the column the move-at-a-time
    algorithm would read."""
    for l in range(M.shape[0]):
        col[l] = M[l, i]
    for t in range(n_pend):
        b = -0.5 * w_i * w[pend[t]] * rho(exact_sq(xi, PX[t]), code, alpha, sigma, theta)
        col[old[t]] -= b
        col[new[t]] += b


@njit(cache=True)
def record_move(i, j, l, col, w_i, xi, s, q, cnt, labels, up, pend, old, new, PX, n_pend):
    """Point ``i``'s move from ``j`` to ``l`` made in ``s, q, cnt`` and the labels, its
    bound reset, and the move added to the pending lists; returns their new length."""
    update_stats(j, l, col[j], col[l], w_i, 0.0, s, q, cnt)
    labels[i] = l
    up[i] = np.inf
    pend[n_pend] = i
    old[n_pend] = j
    new[n_pend] = l
    for d in range(xi.shape[0]):  # not PX[n_pend, :] = xi: its shape check compiles a message
        PX[n_pend, d] = xi[d]
    return n_pend + 1


@njit(cache=True)
def decide_mf(X, x0, w, labels, M, s, q, cnt, start, stop, pend, old, new, PX, n_pend,
              budget, bounded, up, lo, snap_own, snap_all, drift, eps, qerr, code, alpha,
              sigma, theta):
    """Sequential Hartigan decisions for the points ``start, start + 1, ...`` before
    ``stop`` (paper Algorithm 2, steps 4-15).

    ``X`` holds the rows of the points from ``x0`` on (point ``i``'s row is
    ``X[i - x0]``, through ``stop - 1`` at least): all of the data (``x0 = 0``), or
    the block of rows a caller holds of data kept elsewhere (the GPU engine's).
    ``PX[t]`` holds the row of pending mover ``t``, written here when the move
    joins the list (the caller keeps it with the list), so the corrections never
    read rows outside ``X``.

    With ``bounded`` (a semimetric of negative type), a point whose bounds
    (:mod:`kgroups._kernels.bounds`) prove it cannot move is skipped at O(1).
    For the others the column ``M[:, i]`` is corrected for the ``n_pend``
    pending moves (``pend[t]`` from ``old[t]`` to ``new[t]``), so each
    decision is the one the move-at-a-time algorithm makes; the point's squared
    distances to the means, ``d_l^2 = (q_l / s_l - 2 M[l, i] / w_i) / s_l``
    (``B[i, i] = 0``), give its fresh bounds, or, when it moves, how far the two
    means moved. A move updates ``labels, s, q, cnt`` at once and joins the
    pending list. Stops at ``stop``, when the list is full, or when the
    corrections made since the list began (one kernel entry, O(D), per pending
    move per decision) reach ``budget``: then applying the list (parallel) costs
    less than carrying it on (serial).

    ``eps > 0``: the entries of ``M`` come from kernel values within ``eps`` of the
    exact ones, and ``q_l`` is within ``qerr[l]`` (the GPU engine's float32
    passes); each decision is checked (:func:`~kgroups._kernels.gain.certified`),
    ``qerr`` grows with each move (``q_l`` changes by twice a column entry, within
    ``w_i s_l eps``), and the first decision the bounds cannot certify stops the
    loop before its point, flagged, for the caller to make again from exact values.

    Returns
    -------
    (next_point, n_pend, moves, uncertain)
    """
    k = M.shape[0]
    cap = pend.shape[0]
    col = np.empty(k, np.float64)
    err = np.empty(k, np.float64)
    d2 = np.empty(k, np.float64)
    moves = 0
    work = 0
    s_min = smallest(s)
    i = start
    while i < stop and n_pend < cap and work < budget:
        j = labels[i]
        w_i = w[i]
        if cnt[j] <= 1 or (bounded and proven_still(
                w_i, s[j], s_min, up[i] + (drift[j] - snap_own[i]),
                lo[i] - (drift[k] - snap_all[i]))):
            i += 1
            continue
        xi = X[i - x0]
        pending_column(M, i, xi, w_i, w, pend, old, new, PX, n_pend, col, code, alpha, sigma,
                       theta)
        work += n_pend
        l, gain = best_move(col, j, s, q, cnt, w_i, 0.0)
        if eps > 0.0:
            for t in range(k):
                err[t] = s[t] * w_i * eps  # M[t, i] within w_i s_t eps
            if not certain(col, err, j, s, q, cnt, w_i, l, qerr):
                return i, n_pend, moves, True
            if l >= 0:
                qerr[j] += 2.0 * w_i * s[j] * eps
                qerr[l] += 2.0 * w_i * s[l] * eps
        if bounded:  # distances to the means: fresh bounds, or how far the means move
            scale = 0.0
            for t in range(k):
                if s[t] > 0.0:
                    d2[t] = (q[t] / s[t] - 2.0 * col[t] / w_i) / s[t]
                    scale = max(scale, (abs(q[t]) / s[t] + 2.0 * abs(col[t]) / w_i) / s[t])
                else:
                    d2[t] = np.inf
            if l < 0:
                up[i], lo[i] = fresh_bounds(d2, j, scale)
                snap_own[i], snap_all[i] = drift[j], drift[k]
            else:
                add_drift(j, l, w_i * upper(d2[j], scale) / (s[j] - w_i),
                          w_i * upper(d2[l], scale) / (s[l] + w_i), drift)
        if l >= 0:
            n_pend = record_move(i, j, l, col, w_i, xi, s, q, cnt, labels, up, pend, old,
                                 new, PX, n_pend)
            s_min = smallest(s)
            moves += 1
        i += 1
    return i, n_pend, moves, False


@njit(cache=True)
def union_movers(pend, n_pend):
    """The pending lists of R runs (``pend[r, :n_pend[r]]``, each increasing) merged:
    ``(pts, ptr, who)``, the distinct points in increasing order, and for point
    ``pts[u]`` the entries ``who[ptr[u]:ptr[u + 1]]`` (``r * cap + t``: run ``r``'s
    ``t``-th pending move, runs in increasing order)."""
    R, cap = pend.shape
    total = 0
    for r in range(R):
        total += n_pend[r]
    pts = np.empty(total, dtype=np.int64)
    ptr = np.empty(total + 1, dtype=np.int64)
    who = np.empty(total, dtype=np.int64)
    head = np.zeros(R, dtype=np.int64)
    u, c = 0, 0
    while c < total:
        p = -1
        for r in range(R):
            if head[r] < n_pend[r] and (p < 0 or pend[r, head[r]] < p):
                p = pend[r, head[r]]
        pts[u] = p
        ptr[u] = c
        for r in range(R):
            if head[r] < n_pend[r] and pend[r, head[r]] == p:
                who[c] = r * cap + head[r]
                head[r] += 1
                c += 1
        u += 1
    ptr[u] = c
    return pts[:u], ptr[:u + 1], who


@njit(cache=True, nogil=True)
def apply_tiles(XT, w, pts, ptr, who, cap, old, new, Ms, labels, need, part, code, alpha,
                sigma, theta, step, t_lo, t_hi):
    """The pending moves (merged by :func:`union_movers`) added to the column tiles
    ``t_lo, t_lo + step, ...`` before ``t_hi`` of ``Ms`` (:func:`apply_moves`); where
    ``need`` (R x cap, or R x 0 for none) marks a move, its point's exact column for its
    run's ``labels`` (R x n) is added from the same entries into ``part[e]`` (four
    interleaved partial sums of k, ``e = r * cap + t`` the move's entry)."""
    n = XT.shape[1]
    out = np.empty((4, TILE), np.float64)
    idx = np.empty(4, dtype=np.int64)
    cols = need.shape[1] > 0
    for tile in range(t_lo, t_hi, step):
        c0, c1 = tile * TILE, min(n, tile * TILE + TILE)
        m = c1 - c0
        wt = w[c0:c1]
        for g in range(0, pts.shape[0], 4):
            nr = min(4, pts.shape[0] - g)
            for r in range(4):
                idx[r] = pts[g + min(r, nr - 1)]
            pre = leading_dims(XT, idx, c0, c1, out)
            last_dims(XT, idx, c0, c1, XT.shape[0], pre == 0, out, code, alpha, sigma, theta)
            for r in range(nr):
                o = out[r, :m]
                f = -0.5 * w[idx[r]]
                e0, e1 = ptr[g + r], ptr[g + r + 1]
                if e1 - e0 == 1 and not cols:  # one run: the entries formed where added
                    run, t = who[e0] // cap, who[e0] % cap
                    mo = Ms[run, old[run, t], c0:c1]
                    mn = Ms[run, new[run, t], c0:c1]
                    for y in range(m):
                        b = f * wt[y] * o[y]
                        mo[y] -= b
                        mn[y] += b
                    continue
                for y in range(m):
                    o[y] = f * wt[y] * o[y]
                for e in range(e0, e1):
                    run, t = who[e] // cap, who[e] % cap
                    mo = Ms[run, old[run, t], c0:c1]
                    mn = Ms[run, new[run, t], c0:c1]
                    for y in range(m):
                        mo[y] -= o[y]
                        mn[y] += o[y]
                    if cols and need[run, t]:
                        add_by_cluster(o, labels[run, c0:c1], part[who[e]])


@njit(cache=True)
def add_by_cluster(o, lab, acc):
    """``acc[j, lab[y]] += o[y]`` with ``j = y % 4`` (four interleaved partial sums)."""
    m = o.shape[0]
    y = 0
    while y + 4 <= m:
        acc[0, lab[y]] += o[y]
        acc[1, lab[y + 1]] += o[y + 1]
        acc[2, lab[y + 2]] += o[y + 2]
        acc[3, lab[y + 3]] += o[y + 3]
        y += 4
    while y < m:
        acc[0, lab[y]] += o[y]
        y += 1


# No exact columns (apply_moves): of the types apply_exact_workers' arguments have.
_NO_LABELS = np.empty((1, 0), dtype=np.int64)
_NO_NEED = np.empty((1, 0), dtype=np.bool_)
_NO_PARTS = np.empty((0, 4, 1), np.float64)


def apply_moves(XT, w, pend, old, new, n_pend, Ms, code, alpha, sigma, theta, n_workers):
    """``Ms[r, old[r, t], :] -= B[pend[r, t], :]`` and ``Ms[r, new[r, t], :] +=
    B[pend[r, t], :]`` for ``t < n_pend[r]``: the pending moves of R runs (R = 1 for
    a lone run; several for restarts in lockstep, see
    :meth:`kgroups._engines.matrix_free.MatrixFreeEngine.sweep`), each run's list
    increasing.

    Column tiles in ``n_workers`` ranges at once (:func:`~kgroups._kernels.parallel.
    spread`); within a tile the movers' kernel rows are computed on the fly four at
    a time (:func:`~kgroups._kernels.pairs_sym.leading_dims`, then ``last_dims``,
    O(D) per entry), so the
    cost is O(n D) per move and nothing of size n x n exists. A mover's entry ``b =
    -w_p w_y rho / 2`` is formed once however many runs it moves in
    (:func:`union_movers`) and added to each: a run's sums receive the same values
    in the same order (the merged list keeps each run's order), so runs in lockstep
    stay bit-identical to runs swept alone.
    """
    n = XT.shape[1]
    pts, ptr, who = union_movers(pend, n_pend)
    spread(apply_tiles, (n + TILE - 1) // TILE, n_workers, XT, w, pts, ptr, who, pend.shape[1],
           old, new, Ms, _NO_LABELS, _NO_NEED, _NO_PARTS, code, alpha, sigma, theta, 1)


def kernel_column_mf(X, XT, w, c, code, alpha, sigma, theta, n_workers):
    """Column ``c`` of the unweighted kernel, ``-rho(x_y, x_c) / 2`` for all y, its
    column tiles in ``n_workers`` ranges at once."""
    n = XT.shape[1]
    out = np.empty(n, np.float64)
    spread(column_tiles, (n + TILE - 1) // TILE, n_workers, X, XT, c, code, alpha, sigma,
           theta, out)
    return out


@njit(cache=True, nogil=True)
def column_tiles(X, XT, c, code, alpha, sigma, theta, out, t_lo, t_hi):
    """:func:`kernel_column_mf` in the column tiles ``t_lo .. t_hi - 1``, into ``out``."""
    n = XT.shape[1]
    buf = np.empty(TILE, np.float64)
    for tile in range(t_lo, t_hi):
        c0 = tile * TILE
        c1 = min(n, c0 + TILE)
        rho_tile(XT, X[c], c0, c1, code, alpha, sigma, theta, buf)
        seg = out[c0:c1]
        for y in range(c1 - c0):
            seg[y] = -0.5 * buf[y]


def sorted_class_sums(XT, w, labels, k, args):
    """``(Ms, order)``: ``Ms[l, c] = sum_{y in C_l} B[order[c], y]`` for the classes
    ``labels`` (k of them) from one visit of each unordered pair (:func:`build_m_sym`,
    on every worker from :data:`~kgroups._kernels.parallel.PARALLEL_MIN_WORK` pairs),
    the columns in the order ``order`` that sorts the points by class; ``args`` the
    semimetric's ``(code, alpha, sigma, theta)``. Its accumulators take
    ``8 k n`` bytes per worker (:func:`sorted_sums_bytes`)."""
    labels = np.asarray(labels, dtype=np.int64)
    order = np.argsort(labels, kind="stable")
    labs = np.ascontiguousarray(labels[order])
    bounds = np.searchsorted(labs, np.arange(k + 1)).astype(np.int64)
    XTs = np.ascontiguousarray(XT[:, order])
    n = labels.shape[0]
    acc = accumulators(workers(n * n // 2), k, n)
    return build_m_sym(XTs, np.ascontiguousarray(w[order]), labs, bounds, acc, *args), order


def sorted_sums_bytes(n, k):
    """Bytes of :func:`sorted_class_sums`'s accumulators: a k x n float64 per worker."""
    return 8 * k * n * num_threads()


def cross_cluster_sums(Xn, XT, ws, bounds, code, alpha, sigma, theta, n_workers):
    """``out[i, l] = sum_{y in C_l} w_y rho(Xn[i], y)``, shape (b, k), for new rows ``Xn``
    (b x D) against the clustered training points, never holding a b x n block
    (``predict``): the training points' columns ``XT`` (D x n) and weights ``ws`` sorted
    by cluster, cluster ``l`` the columns ``bounds[l] .. bounds[l + 1] - 1``. The new rows
    in ``n_workers`` ranges at once; each row's sums in one fixed order, whatever the
    ranges."""
    out = np.empty((Xn.shape[0], bounds.shape[0] - 1), np.float64)
    spread(cross_rows, Xn.shape[0], n_workers, Xn, XT, ws, bounds, code, alpha, sigma,
           theta, out)
    return out


@njit(cache=True)
def cross_tile(XT, x, lo, hi, code, alpha, sigma, theta, buf):
    """``buf[t] = rho(x, XT[:, lo + t])`` as :func:`rho_tile`, the squared differences
    of four dimensions added in one vectorised loop (one pass over ``buf`` for four)."""
    m, D = hi - lo, XT.shape[0]
    d = D % 4
    for t in range(m):
        buf[t] = 0.0
    for e in range(d):  # the first D mod 4 dimensions one at a time, then four at a time
        xe, row = x[e], XT[e, lo:hi]
        for t in range(m):
            u = row[t] - xe
            buf[t] += u * u
    while d < D:
        x0, x1, x2, x3 = x[d], x[d + 1], x[d + 2], x[d + 3]
        r0, r1, r2, r3 = XT[d, lo:hi], XT[d + 1, lo:hi], XT[d + 2, lo:hi], XT[d + 3, lo:hi]
        for t in range(m):
            u0, u1, u2, u3 = r0[t] - x0, r1[t] - x1, r2[t] - x2, r3[t] - x3
            buf[t] += (u0 * u0 + u1 * u1) + (u2 * u2 + u3 * u3)
        d += 4
    rho_inplace(buf, m, code, alpha, sigma, theta)


# predict's pass: new rows sharing each tile of training columns, and the tile's width
# (CROSS_TILE_BYTES of D x width float64 at most, stays in L2 while they use it).
CROSS_ROWS, CROSS_TILE_BYTES = 16, 2**17


@njit(cache=True)
def cross_width(D):
    """Columns of :func:`cross_rows`'s tiles: ``D`` x width float64 in
    ``CROSS_TILE_BYTES``, between 64 and ``TILE``."""
    return max(64, min(TILE, CROSS_TILE_BYTES // (8 * max(D, 1))))


@njit(cache=True, nogil=True)
def cross_rows(Xn, XT, ws, bounds, code, alpha, sigma, theta, out, lo, hi):
    """:func:`cross_cluster_sums`'s rows ``lo .. hi - 1``, ``CROSS_ROWS`` at a time: for
    each cluster, tile by tile of its columns, each of those rows' values on the tile
    (:func:`cross_tile`, the tile read from cache by all but the first: the training
    rows stream from memory once per ``CROSS_ROWS`` new rows, not once per row), the
    weighted values added per column position (a vectorised loop), the positions
    added at the cluster's end. A row's sums are added in the same order whatever
    rows share its tiles."""
    width = cross_width(XT.shape[0])
    buf = np.empty(width, np.float64)
    part = np.empty((CROSS_ROWS, width), np.float64)
    for i0 in range(lo, hi, CROSS_ROWS):
        nb = min(CROSS_ROWS, hi - i0)
        for l in range(bounds.shape[0] - 1):
            part[:nb] = 0.0
            for c0 in range(bounds[l], bounds[l + 1], width):
                c1 = min(bounds[l + 1], c0 + width)
                wseg = ws[c0:c1]
                for r in range(nb):
                    cross_tile(XT, Xn[i0 + r], c0, c1, code, alpha, sigma, theta, buf)
                    pr = part[r]
                    for t in range(c1 - c0):
                        pr[t] += wseg[t] * buf[t]
            for r in range(nb):
                acc = 0.0
                for t in range(width):
                    acc += part[r, t]
                out[i0 + r, l] = acc
