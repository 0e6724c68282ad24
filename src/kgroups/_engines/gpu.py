"""GPU engine: exact kernel k-groups with the pair passes on a CUDA device.

The matrix-free engine's algorithm (:mod:`kgroups._engines.matrix_free`), with its
O(n^2 D) and O(n D)-per-move passes on the device (:mod:`kgroups._kernels.cuda`):
building ``M`` (the points sorted by label; each pair's ``rho`` evaluated in both
orders by a pass compiled for the number of features, or once past 32) and applying
batches of moves to ``M`` (each mover's kernel row computed on the fly). The device
holds the data, the weights and the runs' ``M``, O(n (k + D)) float64, never an
n x n matrix; each device allocation is checked against the free memory first.

The data are on the device once: host data copied there, data already on a CUDA
device (:class:`~kgroups._input_device.DeviceRows`: CuPy, PyTorch, numba arrays)
transposed there from the caller's array, never copied to the host. The host
holds the weights, the labels and ``M`` (O(n k)) and, of the data, only the rows of
the points it is deciding: each window of columns of ``M`` comes with those points'
rows (:func:`~kgroups._kernels.cuda.gather_window`), and a pending move keeps its
mover's row.

The Hartigan decisions stay sequential and exact (paper Algorithm 2, eq. 50), made in
one of three ways. **On the device** (:data:`DEVICE_SWEEPS`: data on the device, in
float64): the decisions and the moves are both made there, the host told once per
sweep (:mod:`kgroups._engines.gpu_sweeps`). **From the host's M** (host data,
float64 passes): the matrix-free engine's sweep
(:meth:`~kgroups._engines.matrix_free.MatrixFreeEngine.sweep`), its decisions read the
host's copy of ``M`` corrected for the pending moves and skip the points their bounds
prove still, and the device applies each list of moves (one upload, one launch) and
sends ``M`` back; a list is applied when its corrections cost that round trip
(:func:`pending_budget`). Late in a fit, when few points are not proven still but they
lie in every window, a sweep is one round trip, where the windows below cost one per
``WINDOW`` points. **In windows** (the float32 passes, and data on a device whose clusters are too many
for a block of the device's decisions): the host
decides the points in order from the columns of ``M``, corrects each column for the
moves it decided but did not yet apply (their entries ``B[i, p]``, O(D) each,
:func:`kgroups._kernels.pairs_on_the_fly.decide_mf`), skips the points its bounds
prove still, and sends a batch of decided moves to the device. One launch applies
the batch to every column and copies out the window of columns the host decides
next; the host does not wait for it, but decides on from the columns it holds,
correcting them for the moves in flight as for any pending move, and collects the
batch before it sends the next one. While the host decides a window in which
nothing moved, the next window is already on its way (a stream). Each decision
therefore sees exactly the column the move-at-a-time algorithm sees: for the same
start the engine makes the matrix-free engine's moves (up to floating-point ties),
and at the end no single move lowers W. Kernel k-means (Lloyd's rule) assigns on
the host from ``M`` and applies its changes on the device.

Restarts run as a group: their ``M`` come from one pass over the pairs
(:meth:`GpuEngine._build_runs`) and their Hartigan sweeps advance in lockstep, one
launch applying the pending moves of every run.

Per sweep in windows the device is asked for: one upload of each batch (4 integers a
move, 2 a run), one launch and one synchronisation per batch or window, one window of
``(k + D) x WINDOW`` numbers per run back for each (the columns of ``M`` and the
points' rows), and ``M`` back once at the end of a sweep that moved; from the host's
M: per list of moves the same upload and launch and ``M`` back, nothing in a sweep
in which no point moves. A sweep allocates nothing. ``engine_stats_["device_calls"]`` counts them per
phase (:class:`kgroups._kernels.device.DeviceTally`).

Here: the tunables, the memory of a fit, the builds of ``M``, the runs and the
device's side of the host's sweeps; the data on the device and the kernel computed
there outside the sweeps are in :mod:`kgroups._engines.gpu_device`, the host's side
of its sweeps (its decisions, the windows it takes in) in
:mod:`kgroups._engines.gpu_host`, the sweeps on the device in
:mod:`kgroups._engines.gpu_sweeps`.

Needs numba-cuda and a CUDA device (``pip install 'kgroups[gpu]'``); under numba's
CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``) it runs anywhere, slowly, which is how
the tests check it without a GPU.
"""

from __future__ import annotations

import numpy as np

from .._kernels.device import (DeviceTally, check_device_fits, cuda_kernels as _cuda,
                               cuda_usable, device_free_memory)
from .._kernels.gain import class_signatures, cluster_stats, lloyd_assign
from .._kernels.jit import kernel_array
from .._kernels.semimetric import NAMES, float32_kernel_error, kernel_args
from .._semimetrics import check_semimetric_range, rho_max
from .._validation import InvalidParameterError
from . import calibration as _calibration
from .engine import Capabilities
from .gpu_device import DeviceArrays
from .gpu_host import HostSweeps, Sweep
from .gpu_sweeps import DeviceSweeps, sweep_state_bytes
from .matrix_free import MULTI_STARTS, SIGNATURES_PER_CLUSTER, MatrixFreeEngine, Pending

# Columns of M in a window the host decides from.
WINDOW = 4096
# Moves a batch holds at most (the pinned and device buffers of a fit).
BATCH = 4096
# The cost model of a batch: a round trip to the device (the batch up, one launch,
# the next window back, one synchronisation) costs about ROUND_TRIP_SECONDS, and the
# host's correction of one column for one pending move about
# CORRECTION_SECONDS_PER_FEATURE per feature. A batch is sent when the corrections
# carried since its first move cost one round trip: carrying it further costs more
# than applying it. Both are assumptions until `benchmarks/bench_gpu.py` measures them.
ROUND_TRIP_SECONDS = 40e-6
CORRECTION_SECONDS_PER_FEATURE = 1.0e-9

# Whether the Hartigan sweeps in float64 that the host does not make from its own copy
# of M (data on the device; host data with HOST_M_SWEEPS off) are decided and applied
# on the device (:mod:`kgroups._engines.gpu_sweeps`: the host told once per sweep)
# rather than from windows of M sent to the host. benchmarks/bench_gpu.py times the
# sweeps on the device beside those from the host's M in one run.
DEVICE_SWEEPS = True

# Whether the Hartigan sweeps of host data in float64 decide from the host's copy of M,
# the device applying each list of moves and sending M back (the matrix-free engine's
# sweep with the device's apply: a sweep in which few points move costs one round
# trip, where the windows cost one per WINDOW points whether they move or not), or
# stream M through the host in windows (the sweeps below). benchmarks/bench_gpu.py
# times both in one run.
HOST_M_SWEEPS = True
# Whether the runs' M on the host lives in page-locked (pinned) memory, which the
# device copies to and from directly, where pageable memory goes through a staging
# buffer: the sweeps from the host's M copy M back after every list of moves
# (benchmarks/bench_gpu.py times both in one run). Where the pinned allocation
# fails, M is ordinary memory.
PINNED_M = False

# Bytes per second of a copy of M from the device into the host's (pageable) memory:
# with ROUND_TRIP_SECONDS, the cost of applying a list of moves in the sweeps from the
# host's M; an assumption until benchmarks/bench_gpu.py measures it.
HOST_BANDWIDTH = 10e9

# Features a point may have: one point of the data fills the 48 KiB of shared memory
# that a block of the passes over the pairs gets without asking for more.
MAX_FEATURES = 48 * 1024 // 8

# Whether M is built from the unordered pairs (each rho once for both orders, through
# shared memory, atomic additions: build_sym) or from the ordered pairs (twice the
# rho, the thread's row in registers, no atomics: the pass compiled for the number of
# features, up to ROWS_MAX_FEATURES of them; past it, always build_sym where its tile
# fits). benchmarks/bench_gpu.py times both in one run.
SYMMETRIC_BUILD = False


def pending_budget(n_features, m_bytes=0):
    """Corrections (pending move x decided point) after which a batch is applied: those
    that cost one device round trip (:data:`ROUND_TRIP_SECONDS`) and a copy of
    ``m_bytes`` of M back (:data:`HOST_BANDWIDTH`), at least 256."""
    per = CORRECTION_SECONDS_PER_FEATURE * max(1, int(n_features) + 2)
    return max(256, int((ROUND_TRIP_SECONDS + m_bytes / HOST_BANDWIDTH) / per))


class GpuEngine(DeviceArrays, DeviceSweeps, HostSweeps, MatrixFreeEngine):
    """Exact engine with its pair passes on a CUDA device (named semimetrics on raw data).

    Same decisions as :class:`~kgroups._engines.matrix_free.MatrixFreeEngine` from
    the same start (up to floating-point ties); see the module docstring.
    """

    name = "gpu"
    capabilities = Capabilities(
        exact=True, inputs=("raw data",), semimetrics="named", device="a CUDA GPU",
        array_kinds=("numpy", "cuda"),
        memory="on the device: the data and the cluster sums, O(n (k + D)); the kernel "
               "computed on the fly")
    # Without a calibration (kgroups._engines.calibration), engine="auto" takes the GPU
    # engine from MIN_N points when a CUDA device (not the simulator) is usable; from
    # MIN_N points on, it measures the device's calibration when it has none yet
    # (kgroups._cli_options.GPU_MIN_N is the same number). benchmarks/bench_gpu.py's
    # row "engine='auto' on a grid" times the engines on either side of it.
    MIN_N = 20_000

    @classmethod
    def available(cls):
        """A CUDA device and numba-cuda (never the simulator)."""
        return cuda_usable(real_device=True)

    @classmethod
    def predicted_seconds(cls, n_samples, n_features, *, n_clusters, n_init):
        """The matrix-free engine's cost model with its passes over the pairs at the
        device's measured rate, plus the device's fixed cost of a fit
        (:func:`~kgroups._engines.calibration.gpu_seconds`), from this machine's and
        device's calibration (:func:`~kgroups._engines.calibration.current`). Without
        one (no usable device, or a fit predicted under ``PROBE_SECONDS`` on the CPU
        and below :attr:`MIN_N` points, where looking for a device is not worth its
        cost): ``inf`` below :attr:`MIN_N` points, else 0."""
        cpu = super().predicted_seconds(n_samples, n_features, n_clusters=n_clusters,
                                        n_init=n_init)
        probe = n_samples >= cls.MIN_N or _calibration.PROBE_SECONDS <= cpu < float("inf")
        cal = _calibration.current(cls, probe=probe)
        if cal is None:
            return float("inf") if n_samples < cls.MIN_N else 0.0
        return _calibration.gpu_seconds(cal, MatrixFreeEngine, n_samples, n_features, n_init)

    def __init__(self, X, w, semimetric, params, float32=False):
        if semimetric not in NAMES:
            raise ValueError(
                f"engine='gpu' needs a named semimetric (one of {NAMES}), got "
                f"semimetric={semimetric!r}; use engine='dense' or engine='low-rank'")
        self._k = _cuda()
        from .._kernels import cuda_sweep

        self._ks = cuda_sweep
        cuda = self._k.cuda
        self.tally = DeviceTally(cuda, cuda.stream())
        self.w = kernel_array(w, np.float64)
        n, d = X.shape
        self.n_features = int(d)
        self.semimetric, self.params = semimetric, dict(params)
        self._args = kernel_args(semimetric, params)
        self.diag = np.zeros(n)
        # the spectral start needs each row's distance to the origin on the host
        self.on_device = not isinstance(X, np.ndarray)
        self.unavailable_inits = ("spectral",) if self.on_device else ()
        # host data: the rows the sweeps from the host's M decide from (no copy of a
        # C-contiguous float64 array)
        self._rows = None if self.on_device else kernel_array(X, np.float64)
        self.dXT = self._load(X)
        self.dw = self._put(self.w, "the weights")
        # the entries of B, and the sums of up to n^2 of them in M and q, stay finite:
        # every squared distance is at most the squared diagonal of the data's box
        lo, hi = self._ranges()
        with np.errstate(over="ignore", invalid="ignore"):
            d2 = float(np.dot(hi - lo, hi - lo))
        d2 = d2 if np.isfinite(d2) else np.inf
        check_semimetric_range(d2 / 4.0, semimetric, params,
                               float(n) * n * np.max(self.w, initial=0.0) ** 2,
                               owner="engine='gpu'")
        self.kernel_max = 0.5 * rho_max(semimetric, params, d2)
        self.eps32 = 0.0  # the float32 passes' bound of |K~ - K| (0: float64 passes)
        if float32:
            self._float32_data(lo, hi)
        self._eps = 0.0  # eps32 while a Hartigan group runs on float32 passes
        self._qerr = None  # the runs' bounds of the errors of q (float32 passes)
        self.fallbacks = 0  # groups that went on in float64 (an uncertain decision)
        # the build's label-sorted copies (data, weights, labels, order)
        self.dXTs = self.tally.alloc((d, n), what="the sorted data")
        self.dws = self.tally.alloc((n,), what="the sorted weights")
        self.dlabs = self.tally.alloc((n,), np.int64, what="the sorted labels")
        self.dorder = self.tally.alloc((n,), np.int64, what="the sort order")
        self.tally.sync()
        self._dS = None   # sorted sums of a build (rows x n), grown when needed
        self._dM = None   # the runs' M (R x k x n), grown when needed
        self._dcol = None  # a column of the kernel (n), made when first needed
        self._owner = None  # the RunState whose M the device holds
        self._buffers = None  # per k: batch and window buffers
        self._sweeping = None  # the sweeps' state on the device (DeviceSweeps)
        self._stale = None  # the RunState whose labels and M only the device has

    def _float32_data(self, lo, hi):
        """The float32 mode: the data centred on their box's midpoint in float32 (and a
        sorted copy for the builds), the kernel's parameters in float32 and the bound
        ``eps32`` of ``|K~ - K|`` (:func:`~kgroups._kernels.semimetric.
        float32_kernel_error`); a clear error where the data's spread is beyond what
        float32 holds."""
        t, kk = self.tally, self._k
        d, n = self.n_features, self.n_samples
        with np.errstate(over="ignore", invalid="ignore"):
            centre, half = 0.5 * lo + 0.5 * hi, 0.5 * hi - 0.5 * lo
        self.eps32 = float32_kernel_error(self.semimetric, self.params, half)
        if not np.isfinite(self.eps32):
            raise InvalidParameterError(
                f"engine='gpu' with dtype='float32': the data's half-spread "
                f"{float(np.sqrt(np.sum(half * half))):.3g} is outside what float32 passes "
                "evaluate with a certified error ([1e-15, 1e15]); use dtype='float64'")
        dc = self._put(np.ascontiguousarray(centre), "the data's centre")
        self.dXT32 = t.alloc((d, n), np.float32, what="the data in float32")
        t.launch(kk.centred_float32, kk.blocks(n), kk.THREADS, self.dXT, dc, self.dXT32)
        self.dXTs32 = t.alloc((d, n), np.float32, what="the sorted data in float32")
        code, alpha, sigma, theta = self._args
        self._args32 = (code, np.float32(alpha), np.float32(sigma), np.float32(theta))
        t.sync()

    @staticmethod
    def device_bytes(n_samples, n_features, n_clusters, n_runs=1, sum_rows=None,
                     float32=False):
        """Device memory of a fit: the data twice (as given and sorted by label),
        weights, sorted weights, sorted labels, the sort and the rows read (n each),
        the build's sorted sums (``sum_rows`` x n, k by default), the runs' ``M``
        (``n_runs`` x k x n), three windows of columns per run (with their points'
        rows), a batch of moves, the state of the sweeps on the device
        (:func:`~kgroups._engines.gpu_sweeps.sweep_state_bytes`), and with
        ``float32`` the data twice more in float32."""
        n, d, k = int(n_samples), int(n_features), int(n_clusters)
        rows = k if sum_rows is None else int(sum_rows)
        R = int(n_runs)
        return (8 * (2 * n * d + 5 * n + rows * n + R * k * n
                     + 3 * R * (k + d) * WINDOW + 2 * R + 4 * R * BATCH)
                + (8 * n * d if float32 else 0) + sweep_state_bytes(n, k, R))

    @classmethod
    def memory_bytes(cls, n_samples, n_features, *, n_clusters, n_init=1, dtype=np.float64,
                     options=None):
        """Host bytes of a fit (the device's: :meth:`device_bytes`): the host copy of
        host data transposed for the upload and its rows as the sweeps read them (2 n
        D at most, none for device data); weights,
        labels, the sort, the best restart's labels, the diagonal and the four
        bounds (n each); ``M`` of each run swept at once and its window
        buffers; per restart run together, its labels and bounds."""
        n, d, k = int(n_samples), int(n_features), int(n_clusters)
        r = min(int(n_init), MULTI_STARTS) if n_init > 1 else 1
        return 8 * (2 * n * d + n * (9 + r * k + 5 * r) + 3 * r * (k + 2 * d) * WINDOW)

    @classmethod
    def from_semimetric(cls, X, w, semimetric, params, *, dtype=np.float64, n_clusters,
                        n_init=1, options=None):
        """From raw data. ``dtype="float32"``: kernel k-groups evaluates its passes over
        the pairs in float32 with exact decisions (the float32 mode, see
        :meth:`start`); float64 otherwise, and for kernel k-means. Refuses, before
        allocating, a machine without a usable device or a fit whose host or device
        memory does not fit."""
        n, d = X.shape
        if d > MAX_FEATURES:
            raise InvalidParameterError(
                f"engine='gpu' takes at most {MAX_FEATURES} features (a point in the "
                f"shared memory of a block), got n_features={d}; use "
                "engine='matrix-free', or reduce the features first")
        if not cuda_usable(real_device=False):
            raise InvalidParameterError(
                f"{(options or {}).get('owner', 'KernelKGroups')}: engine='gpu' needs a "
                "CUDA device and numba-cuda (the gpu extra: pip install '.[gpu]' from a "
                "checkout); none is usable here: use engine='matrix-free' (exact, every CPU "
                "core) or engine='auto'")
        cls.check_memory(n, d, n_clusters=n_clusters, n_init=n_init,
                         alternative="engine='low-rank' (approximate) or fewer clusters")
        float32 = np.dtype(dtype) == np.float32
        check_device_fits(cls.device_bytes(n, d, n_clusters, float32=float32),
                          f"engine='gpu' for n_samples={n}, n_features={d}, "
                          f"n_clusters={n_clusters}", free=device_free_memory())
        return cls(X, w, semimetric, params, float32=float32)

    # -- buffers ----------------------------------------------------------------------
    def _batch_buffers(self, k, R=1):
        """Pinned host and device buffers of a batch of R runs' moves, of two windows
        per run (the one read and the next, prefetched) and of the window per run a
        batch returns (k rows of ``M`` and the D rows of the data,
        :func:`~kgroups._kernels.cuda.gather_window`'s layout); on the host,
        each run's rows of the points of its window (``rows``, from ``first``) and of
        its pending movers (``moved``). Made once per k and R."""
        b = self._buffers
        if b is None or b["k"] != k or b["R"] < R:
            cuda, t, d = self._k.cuda, self.tally, self.n_features
            size = 2 * R + 4 * R * BATCH
            self._buffers = b = {
                "k": k, "R": R,
                "hbatch": cuda.pinned_array(size, dtype=np.int64),
                "dbatch": t.alloc((size,), np.int64, what="a batch of moves"),
                "hwin": cuda.pinned_array((R, 2, k + d, WINDOW)),
                "dwin": t.alloc((R, 2, k + d, WINDOW), what="the runs' windows of M"),
                "hruns": cuda.pinned_array((R, k + d, WINDOW)),
                "druns": t.alloc((R, k + d, WINDOW), what="the runs' windows of M"),
                "pend": np.empty((R, 3, BATCH), dtype=np.int64),
                "rows": np.empty((R, WINDOW, d)),
                "first": np.zeros(R, dtype=np.int64),
                "moved": np.empty((R, BATCH, d)),
            }
        return b

    # -- builds of M on the device -----------------------------------------------------
    def _sorted_sums(self, labels, rows, f32=False):
        """The sums ``S[l, c] = sum_{y in C_l} B[order[c], y]`` (rows x n, on the device)
        with the columns sorted by label (``order`` left in ``self.dorder``): one pass
        over the ordered pairs compiled for the number of features
        (:func:`~kgroups._kernels.cuda.rows_pass`), or over the unordered pairs
        (:func:`~kgroups._kernels.cuda.build_sym`; :data:`SYMMETRIC_BUILD`, and past
        :data:`~kgroups._kernels.cuda.ROWS_MAX_FEATURES` features where its tile fits in
        shared memory). ``f32``: each ``rho`` in float32 (the float32 twins), the sums
        in float64."""
        n, d = self.n_samples, self.n_features
        t, kk = self.tally, self._k
        _, dS = self._sort_points(labels, rows)
        symmetric = SYMMETRIC_BUILD or d > kk.ROWS_MAX_FEATURES
        tile = kk.sym_tile_for(d) if symmetric else 0
        f32 = f32 and (tile > 0 or d <= kk.ROWS_MAX_FEATURES)  # build_sorted: float64
        if f32:
            t.launch(kk.take_columns, kk.blocks(n), kk.THREADS, self.dXT32, self.dw,
                     self.dorder, self.dXTs32, self.dws)
        XTs, args = (self.dXTs32, self._args32) if f32 else (self.dXTs, self._args)
        if tile:
            t.launch(kk.build_sym32 if f32 else kk.build_sym, kk.sym_blocks(n, tile),
                     tile * kk.SYM_SPLIT, XTs, self.dws, self.dlabs, dS, tile, *args,
                     shared=(4 if f32 else 8) * (2 * d * tile + tile * (tile + 1)))
        else:
            kern, grid, threads, tile, shared = kk.rows_pass(d, n, f32)
            t.launch(kern, grid, threads, XTs, self.dws, XTs, self.dws, self.dlabs, dS,
                     tile, *args, shared=shared)
        return dS

    def _build_runs(self, labs, k, f32=False):
        """The runs' ``M`` (R x k x n) on the device, from one pass over the pairs.

        One start: :meth:`_sorted_sums`, its columns put back in order. Several: the
        points with one label in every start form G classes; when G is at most
        :data:`SIGNATURES_PER_CLUSTER` k and their G x n sums fit in the device's
        free memory, one pass sums the classes and each start's ``M[l]`` adds the
        rows of its classes of label ``l`` (:func:`~kgroups._kernels.cuda.
        sum_classes`); otherwise one pass evaluates each pair once for all the
        starts (:func:`~kgroups._kernels.cuda.build_multi`, up to
        ``STARTS_LOCAL / k`` starts a pass; one pass per start beyond
        ``STARTS_LOCAL`` clusters). Exact: only the order of the additions differs
        from one build per start. ``f32``: the passes of one start in float32
        (:meth:`_sorted_sums`); the pass for several starts stays float64.
        """
        R, n = labs.shape
        t, kk = self.tally, self._k
        if self._stale is not None:  # the runs swept on the device keep their M
            self.sync(self._stale)
        dM = self._grow("_dM", (R, k, n), "the runs' M")
        if R == 1:
            dS = self._sorted_sums(labs[0], k, f32)
            t.launch(kk.unsort_columns, kk.blocks(n), kk.THREADS, dS, self.dorder, dM[0])
            return dM
        sig, classes = class_signatures(labs, k)
        G = classes.shape[0]
        grow = 0 if self._dS is not None and self._dS.shape[0] >= G else 8 * G * n
        if G <= SIGNATURES_PER_CLUSTER * k and grow <= 0.9 * device_free_memory():
            dS = self._sorted_sums(sig, G, f32)
            dcls = self._upload_temp(np.ascontiguousarray(classes.T))
            for r in range(R):
                t.launch(kk.sum_classes, kk.blocks(n), kk.THREADS, dS, dcls[r],
                         self.dorder, dM[r])
            t.sync()  # before the class labels' device array is released
            return dM
        if k > kk.STARTS_LOCAL:  # more sums than a thread holds: one pass per start
            for r in range(R):
                dS = self._sorted_sums(labs[r], k, f32)
                t.launch(kk.unsort_columns, kk.blocks(n), kk.THREADS, dS, self.dorder, dM[r])
            return dM
        per = kk.STARTS_LOCAL // k
        tile = kk.tile_for(self.n_features)
        for r0 in range(0, R, per):
            dl = self._upload_temp(np.ascontiguousarray(labs[r0:r0 + per]))
            t.launch(kk.build_multi, kk.blocks(n), kk.THREADS, self.dXT, self.dw, dl, k,
                     dM[r0:r0 + per], tile, *self._args, shared=8 * tile * self.n_features)
            t.sync()
        return dM

    def build_m(self, labels, k):
        """``M`` (k x n, host) from one device pass over the pairs."""
        return self.build_ms(np.asarray(labels, dtype=np.int64)[None], k)[0]

    def build_ms(self, starts, k):
        """``M`` of each start (R x k x n, host) from one device pass (:meth:`_build_runs`)."""
        labs = np.ascontiguousarray(starts, dtype=np.int64)
        dM = self._build_runs(labs, k)
        M = np.empty((labs.shape[0], k, labs.shape[1]))
        self.tally.to_host(dM, M)
        self.tally.sync()
        self._owner = None
        return M

    def group_size(self, starts, k):
        """Restarts run at once: up to :data:`MULTI_STARTS`, fewer when their ``M`` do
        not fit on the host or the device."""
        group = super().group_size(starts, k)
        n, d = self.n_samples, self.n_features
        free = device_free_memory()
        while group > 1 and self.device_bytes(n, d, k, group,
                                              float32=self.eps32 > 0) > 0.9 * free:
            group //= 2
        return group

    # -- runs --------------------------------------------------------------------------
    def start(self, starts, k, rule):
        """The runs from ``starts``: their ``M`` built on the device in one pass
        (:meth:`_build_runs`), fetched once, every empty cluster filled (on the host,
        then sent back), ``s``, ``q``, ``cnt``.

        The float32 mode (``dtype="float32"``, Hartigan's rule, starts without an
        empty cluster): the passes evaluate each ``rho`` in float32 and sum in
        float64, so every kernel value behind ``M`` is within ``eps32`` of the exact
        one and each ``q_l`` within ``s_l^2 eps32``; every decision is certified
        against those bounds (:func:`~kgroups._kernels.gain.certified`) and the
        first one that is not makes the group go on in float64 from then on
        (:meth:`_to_float64`). So the labels are those of the float64 passes (up to
        their own floating-point ties), and :meth:`final_sums` gives the exact W.
        """
        self.tally.phase = "start"
        labels = np.array(starts, dtype=np.int64)
        R, n = labels.shape
        self._batch_buffers(k, R)
        full = all(np.bincount(lab, minlength=k).min() > 0 for lab in labels)
        self._eps = self.eps32 if rule == "hartigan" and full else 0.0
        dM = self._build_runs(labels, k, f32=self._eps > 0)
        M = self._host_m((R, k, n))
        self.tally.to_host(dM, M)
        self.tally.sync()
        s, q, cnt = np.empty((R, k)), np.empty((R, k)), np.empty((R, k), dtype=np.int64)
        for r in range(R):
            before = labels[r].copy()
            self.fill_empty(labels[r], M[r])
            if not np.array_equal(before, labels[r]):
                self.tally.to_device(M[r], dM[r])
            s[r], q[r], cnt[r] = cluster_stats(M[r], labels[r], self.w)
        self.tally.sync()
        self._qerr = s * s * self._eps  # q_l: a sum of s_l^2 weighted kernel values
        state = self.state_class(labels, M, s, q, cnt, rule)
        self._owner = state
        self.begin(state)
        return state

    def _host_m(self, shape):
        """The runs' M on the host: pinned where :data:`PINNED_M` asks for it and the
        allocation succeeds (its size is within the fit's checked host memory), else
        ordinary memory."""
        if PINNED_M:
            try:
                return self._k.cuda.pinned_array(shape)
            except Exception:  # noqa: BLE001 - page-locked memory refused: ordinary memory
                pass
        return np.empty(shape)

    def _device_m(self, state):
        """The device's ``M`` of ``state``'s runs (sent again if another state used it)."""
        if self._owner is not state:
            R, k, n = state.M.shape
            self._batch_buffers(k, R)
            dM = self._grow("_dM", (R, k, n), "the runs' M")
            self.tally.to_device(np.ascontiguousarray(state.M), dM)
            self._owner = state
        return self._dM

    def sweep(self, state):
        """One sweep of every active run; each run's moves. Hartigan's rule, the runs in
        lockstep: in float64, from the host's M (host data, :data:`HOST_M_SWEEPS`) or
        decided on the device (:data:`DEVICE_SWEEPS`, where a window of its decisions
        fits a block), else from windows of M (:meth:`_hartigan_runs`); Lloyd's rule,
        run after run (:meth:`_lloyd_run`)."""
        self.tally.phase = "sweeps"
        hartigan64 = state.rule == "hartigan" and not self._eps
        if hartigan64 and HOST_M_SWEEPS and self._rows is not None:
            R, k, n = state.M.shape
            self._device_m(state)
            work = pending_budget(self.n_features, 8 * R * k * n)
            return self._sweep_lockstep(state, Pending.empty(R, self.n_features, BATCH), work)
        if hartigan64 and DEVICE_SWEEPS and self.device_sweeps_for(state.M.shape[1]):
            return self._sweep_on_device(state)
        dM = self._device_m(state)
        runs = [int(r) for r in np.flatnonzero(state.active)]
        if state.rule == "hartigan":
            return self._hartigan_runs(state, runs, dM)
        moves = np.zeros(state.n_runs, dtype=np.int64)
        for r in runs:
            moves[r] = self._lloyd_run(state, r, dM)
        return moves

    def _hartigan_runs(self, state, runs, dM):
        """One Hartigan sweep of the runs ``runs`` (paper Algorithm 2), in lockstep as
        on the matrix-free engine (:meth:`MatrixFreeEngine.sweep`): the run furthest
        behind decides until its corrections cost a device round trip
        (:func:`pending_budget`), the others catch up with it, and one launch applies
        every run's new moves (:meth:`_send`), each mover's kernel row computed once
        for all the runs that moved it, and returns each run's next window.

        The host does not wait for that launch: while the device applies a batch,
        the runs go on deciding the columns they hold, which the moves in flight
        correct like any pending move; the batch is collected (:meth:`_collect`)
        before the next one is sent or when a run needs columns past those it holds.
        So every column a decision reads is ``M`` after all the moves decided before
        it, applied on the device or corrected on the host. A run holds no column at
        the start of the sweep (the points' rows come with the windows); the whole
        ``M`` comes back at its end.
        """
        n, R = self.n_samples, state.n_runs
        self._batch_buffers(state.M.shape[1], R)
        budget = pending_budget(self.n_features)
        for r in runs:
            self._refresh_bounds(state, r)
        sw = Sweep(R, runs, n)
        while runs and min(sw.pos.values()) < n:
            lead = min(runs, key=sw.pos.get)
            target = n
            for r in [lead] + [r for r in runs if r != lead]:
                if sw.pos[r] >= target:
                    continue
                if sw.fresh[r] <= sw.pos[r] or sw.n_pend[r] >= BATCH:
                    self._collect(sw, state.M)  # columns, or room in the list, needed
                if sw.n_pend[r] >= BATCH:
                    continue  # a full list of moves not sent: sent after this round
                if sw.fresh[r] <= sw.pos[r]:
                    sw.fresh[r], sw.ahead[r] = self._window(r, dM[r], state.M[r], sw.pos[r],
                                                            sw.ahead[r])
                with self.tally.host_decisions():
                    sw.pos[r], sw.n_pend[r], m, uncertain = self._decide_from(
                        state, r, sw.pos[r], min(target, sw.fresh[r]), sw.n_pend[r],
                        budget if r == lead else 4 * budget)
                sw.moves[r] += m
                if uncertain:  # decided again, with every run, from float64 sums
                    self._to_float64(state, sw)
                    break
                if r == lead:
                    target = sw.pos[r]
            if (sw.n_pend > sw.flying).any():
                self._collect(sw, state.M)
                self._send(dM, sw)
        self._collect(sw, state.M)
        if sw.sent:
            self.tally.to_host(dM[:R], state.M)
            self.tally.sync()
        return sw.moves

    def decision_rows(self):
        """The host data's rows (the sweeps from the host's M)."""
        return self._rows

    def _decide_run(self, state, r, start, stop, P, budget):
        """The matrix-free engine's decisions (:data:`HOST_M_SWEEPS`), timed as the
        host's."""
        with self.tally.host_decisions():
            return super()._decide_run(state, r, start, stop, P, budget)

    def _apply_pending(self, P, state):
        """The sweeps from the host's M (:data:`HOST_M_SWEEPS`): every run's pending moves
        applied on the device in one upload and one launch (:meth:`_send`), and the
        runs' M sent back to the host; the lists emptied."""
        if not P.n_pend.any():
            return
        R = state.n_runs
        dM = self._device_m(state)
        buf = self._batch_buffers(state.M.shape[1], R)
        for r in np.flatnonzero(P.n_pend):
            m = int(P.n_pend[r])
            buf["pend"][r][:, :m] = P.pend[r, :m], P.old[r, :m], P.new[r, :m]
        self._apply(dM, state.M, P.n_pend.copy(), {})  # no window back
        self.tally.to_host(dM[:R], state.M)
        self.tally.sync()
        P.n_pend[:] = 0

    def _prefetch(self, r, dM, lo, slot):
        """Enqueue columns ``lo:lo + WINDOW`` of the device's ``M``, with those points'
        rows, into pinned buffer ``slot``; ``(lo, hi, slot)``."""
        kk, t, buf = self._k, self.tally, self._buffers
        hi = min(self.n_samples, lo + WINDOW)
        out = buf["dwin"][r, slot]
        t.launch(kk.gather_window, (kk.blocks(hi - lo, 32), out.shape[0]), (32, 1), dM,
                 self.dXT, lo, out[:, :hi - lo])
        t.to_host(out, buf["hwin"][r, slot])
        return lo, hi, slot

    def _send(self, dM, sw):
        """Every run's moves not yet sent (the entries of its list past ``sw.flying``,
        none in flight: :meth:`_collect` ran) to the device in one upload and one
        launch, which applies them to every column and copies each run's next window
        (from ``sw.pos``) out; no wait. Prefetched windows are dropped."""
        kk, t, buf = self._k, self.tally, self._buffers
        n, R = self.n_samples, sw.n_pend.shape[0]
        runs = np.flatnonzero(sw.n_pend)
        ent = np.concatenate([np.vstack([np.full(sw.n_pend[r], r),
                                         buf["pend"][r][:, :sw.n_pend[r]]])
                              for r in runs], axis=1)  # (4, m): run, point, old, new
        ent = ent[:, np.argsort(ent[1], kind="stable")]
        m = ent.shape[1]
        lo = np.full(R, n, dtype=np.int64)
        for r, p in sw.pos.items():
            lo[r] = p
        hi = np.minimum(n, lo + WINDOW)
        hb = buf["hbatch"]
        hb[:R], hb[R:2 * R] = lo, hi
        hb[2 * R:2 * R + 4 * m].reshape(m, 4)[:] = ent.T
        t.to_device(hb[:2 * R + 4 * m], buf["dbatch"][:2 * R + 4 * m])
        # float32: the moves' kernel rows as the float32 build evaluated them
        f32 = bool(self._eps)
        t.launch(kk.apply_pass(self.n_features, f32), kk.blocks(n), kk.THREADS,
                 self.dXT32 if f32 else self.dXT, self.dXT, self.dw, buf["dbatch"], R, m,
                 dM, buf["druns"], *(self._args32 if f32 else self._args))
        if (hi > lo).any():
            t.to_host(buf["druns"], buf["hruns"])
        sw.flying[:] = sw.n_pend
        sw.window = (lo, hi)
        sw.sent = True
        for r in sw.ahead:
            sw.ahead[r] = None

    def _lloyd_run(self, state, r, dM):
        """One kernel k-means iteration of run ``r`` (paper Algorithm 1, batch form):
        the assignment on the host from ``M``, the changes applied on the device in
        batches, ``M`` fetched once, an emptied cluster refilled on the host."""
        labels, M = state.labels[r], state.M[r]
        new = labels.copy()
        with self.tally.host_decisions():
            if not lloyd_assign(M, state.s[r], state.q[r], self.w, new):
                return 0
        pts = np.flatnonzero(new != labels)
        pend = self._buffers["pend"][r]
        n_pend = np.zeros(state.n_runs, dtype=np.int64)
        for c0 in range(0, pts.shape[0], BATCH):
            p = pts[c0:c0 + BATCH]
            pend[:, :p.shape[0]] = p, labels[p], new[p]
            n_pend[r] = p.shape[0]
            self._apply(dM, state.M, n_pend, {})  # no window back
        self.tally.to_host(dM[r], M)
        self.tally.sync()
        assigned = new.copy()
        self.fill_empty(new, M)
        if not np.array_equal(assigned, new):
            self.tally.to_device(M, dM[r])
        changed = int(np.count_nonzero(new != labels))
        labels[:] = new
        state.s[r], state.q[r], state.cnt[r] = cluster_stats(M, labels, self.w)
        return changed

    def final_sums(self, state, r):
        """``(s, q)`` of run ``r``: from ``M``, or, after float32 passes, ``q`` summed
        exactly in float64 within each cluster on the device (:meth:`_exact_q`)."""
        if not self._eps:
            return super().final_sums(state, r)
        labels = state.labels[r]
        return (np.bincount(labels, weights=self.w, minlength=state.M.shape[1]),
                self._exact_q(labels, state.M.shape[1]))

    def finish(self, state):
        """The runs' results (from the host's ``M``, current after every sweep; ``q``
        exact after float32 passes, :meth:`final_sums`)."""
        self.tally.phase = "finish"
        return super().finish(state)

