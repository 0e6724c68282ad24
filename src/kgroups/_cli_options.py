"""The options of the ``kgroups`` command as plain data: names, defaults, choices, help.

The command builds its argument parser from these tables alone, so ``kgroups
--help`` and ``kgroups --version`` start without importing NumPy, SciPy,
scikit-learn or numba. The values are copies of the library's own:
``ESTIMATOR_DEFAULTS`` of the signature of :class:`kgroups.KernelKGroups`, the
choices of ``kgroups._validation.PARAMETER_CONSTRAINTS["KernelKGroups"]``, the
constants of ``engine="auto"`` (:mod:`kgroups._engines`) and of ``n_init="auto"``
(:mod:`kgroups._init`) quoted in the help, and the ``DEMO`` and
``REPRODUCE`` defaults of the experiments' ``run`` functions; the tests of the
command check that each copy equals its source. The engine names are read from the
engines' registry (:mod:`kgroups._engines.registry`, which imports nothing); this
module imports nothing else.
"""

from ._engines import registry as _registry  # the engine names (imports nothing more)

SEMIMETRIC_NAMES = ("energy", "laplacian", "gaussian", "localized", "sinusoidal")
# The semimetric built from the data and "auto" (kgroups._semimetrics), estimators only.
DATA_SEMIMETRIC_NAMES = ("nearest_neighbors", "auto")
INIT_NAMES = ("k-means++", "kernel-k-means++", "random", "spectral")
ENGINE_NAMES = (_registry.AUTO,) + _registry.names()
DTYPE_NAMES = ("auto", "float64", "float32")
LANDMARK_NAMES = ("k-means++", "uniform", "fourier")

# engine="auto" on raw data (kgroups._engines.select): the GPU engine when a CUDA
# device is usable and its calibrated cost model predicts it faster (without a
# calibration, from GPU_MIN_N points); else the dense engine below MATRIX_FREE_MIN_N
# points, never when DENSE_HEADROOM times its memory exceeds MEMORY_FRACTION of the
# machine's (GpuEngine.MIN_N, MatrixFreeEngine.MIN_N_MODELLED, select.HEADROOM).
GPU_MIN_N = 20_000
MATRIX_FREE_MIN_N = 5000
DENSE_HEADROOM = 1.5
MEMORY_FRACTION = 0.8
# n_init="auto": min(AUTO_MAX_STARTS, AUTO_START_BUDGET // n_samples) starts, at least 1.
AUTO_MAX_STARTS = 30
AUTO_START_BUDGET = 40_000

# The defaults of KernelKGroups(...).
ESTIMATOR_DEFAULTS = {
    "n_clusters": 8, "semimetric": "energy", "alpha": 1.0, "sigma": 1.0, "theta": 1.0,
    "init": "kernel-k-means++", "n_init": "auto", "max_iter": 300, "tol": 0.0,
    "engine": "auto", "dtype": "auto", "n_components": 256, "landmarks": "k-means++",
    "n_neighbors": 10, "noise": None, "random_state": None, "verbose": 0,
}

# The string values KernelKGroups accepts, as the command offers them: a CSV file holds
# raw data, so the semimetric "precomputed" (an n x n matrix) is left out.
ESTIMATOR_CHOICES = {
    "semimetric": SEMIMETRIC_NAMES + DATA_SEMIMETRIC_NAMES, "init": INIT_NAMES,
    "engine": ENGINE_NAMES,
    "dtype": DTYPE_NAMES, "landmarks": LANDMARK_NAMES,
}

ENGINE_HELP = (
    "how the kernel is held; auto: gpu when a CUDA device is usable and predicted "
    f"faster from its measured rates (kgroups calibrate; without them, from {GPU_MIN_N} "
    f"rows), else dense below {MATRIX_FREE_MIN_N} rows, else the faster of dense and "
    "matrix-free by a cost model of the rows, the columns and --n-init; matrix-free when "
    f"{DENSE_HEADROOM:g} times the n x n kernel exceeds {MEMORY_FRACTION:.0%} of the "
    "machine's memory. low-rank and dask are approximate (--n-components features); dask "
    "needs kgroups[dask], gpu kgroups[gpu] and a device")
N_INIT_HELP = (
    "runs from different starts, the best objective is kept: an integer >= 1, or auto "
    f"(min({AUTO_MAX_STARTS}, {AUTO_START_BUDGET} // rows) runs, at least 1; 1 with "
    "--engine dask)")

# The options of ``kgroups cluster`` that are parameters of KernelKGroups:
# (flags, attribute of the parsed arguments, parameter, value kind, metavar, help).
# Defaults come from ESTIMATOR_DEFAULTS and choices from ESTIMATOR_CHOICES;
# --n-clusters (short -k) defaults to auto, and --semimetric then to auto. Kinds: "int",
# "float", "int_or_auto", "float_or_auto", "choice", "count".
CLUSTER_OPTIONS = (
    (("-k", "--n-clusters"), "n_clusters", "n_clusters", "int_or_auto", "K",
     ("number of clusters, 1 <= K <= number of rows, or auto: chosen from the data with "
      "the semimetric's own rule, and with --semimetric auto (then its default) the "
      "semimetric too; the choice and why are printed to standard error "
      f"(default: auto; kgroups.KernelKGroups' default is {ESTIMATOR_DEFAULTS['n_clusters']})")),
    (("--semimetric",), "semimetric", "semimetric", "choice", None,
     ("semimetric rho of negative type: energy |x - y|^alpha; laplacian and gaussian "
      "(scale --sigma); localized; sinusoidal (scale --theta); nearest_neighbors: "
      "built from the graph of the --n-neighbors nearest neighbours, for clusters of "
      "any shape (rings, spirals, touching shapes); auto: energy or nearest_neighbors, "
      "whichever the data's neighbourhood graph says (the summary prints why) "
      "(default: energy, as in kgroups.KernelKGroups; auto with --n-clusters auto)")),
    (("--alpha",), "alpha", "alpha", "float", None,
     "exponent of the energy semimetric |x - y|^alpha, in (0, 2]"),
    (("--sigma",), "sigma", "sigma", "float", None,
     "scale of the laplacian and gaussian semimetrics, > 0"),
    (("--theta",), "theta", "theta", "float", None,
     "scale of the sinusoidal semimetric, > 0"),
    (("--n-neighbors",), "n_neighbors", "n_neighbors", "int", "N",
     "semimetric nearest_neighbors and auto: neighbours of each point in the graph, >= 1"),
    (("--noise",), "noise", "noise", "float_or_auto", "auto|SHARE",
     ("points that belong to no cluster, labelled -1 in the labels written and counted "
      "apart in the summary: a SHARE in [0, 0.5) sets aside whole points of at most that "
      "share of the total weight, those whose removal lowers the within energy most "
      "(trimmed kernel k-groups); auto: the points beyond the far-out fence (Q3 + 3 IQR) "
      "of their cluster's costs of belonging; how many and why go to standard error; "
      "none: every point gets a cluster (default: none)")),
    (("--init",), "init", "init", "choice", None,
     ("starting partition of each run: kernel-k-means++ seeds in the kernel's feature "
      "space, k-means++ in the input space (as the papers do)")),
    (("--n-init",), "n_init", "n_init", "int_or_auto", "N", N_INIT_HELP),
    (("--max-iter",), "max_iter", "max_iter", "int", "N",
     "most sweeps over the data per run, >= 1"),
    (("--tol",), "tol", "tol", "float", None,
     "stop a run when a sweep moves fewer than tol x rows points, in [0, 1)"),
    (("--engine",), "engine", "engine", "choice", None, ENGINE_HELP),
    (("--dtype",), "dtype", "dtype", "choice", None,
     "storage of the dense kernel; float32 halves its memory"),
    (("--n-components",), "n_components", "n_components", "int", "M",
     "engines low-rank and dask: number of kernel features, 1 <= M <= number of rows"),
    (("--landmarks",), "landmarks", "landmarks", "choice", None,
     "engine low-rank: how the features are made (fourier: laplacian and gaussian only)"),
    (("--seed",), "seed", "random_state", "int", None,
     ("random seed, in [0, 2**32 - 1] (default: None, a different start at each run; "
      "give one to repeat a run)")),
    (("-v", "--verbose"), "verbose", "verbose", "count", None,
     ("print the engine and why, the memory estimate, each restart and sweep (repeat "
      "for more) (default: quiet)")),
)

# ``kgroups demo`` runs the experiment tpami-table2; ``kgroups reproduce`` any
# experiment: the defaults of their ``run`` functions (``out`` is the command's own).
DEMO_DEFAULTS = {"n_init": 5, "seed": 0, "out": "kgroups_demo"}
REPRODUCE_DEFAULTS = {"trials": None, "quick": False, "seed": 0, "out": "reproduction"}

# ``kgroups choose-k``: the methods and defaults of kgroups.choose_k (its signature and
# PARAMETER_CONSTRAINTS["choose_k"]); k_max None: the top of its default k_range (1..15,
# cut to what X allows).
CHOOSE_K_METHODS = ("auto", "gap", "prediction_strength", "silhouette", "eigengap")
CHOOSE_K_DEFAULTS = {"method": "auto", "k_min": 1, "k_max": None, "n_refs": 10,
                     "n_splits": 20, "n_init": 5, "semimetric": "energy", "alpha": 1.0,
                     "n_neighbors": 10}
# kgroups choose-k's semimetrics: the closed-form ones, the graph's (with its own rule)
# and "auto" (both rules and the arbiter)
CHOOSE_K_SEMIMETRICS = SEMIMETRIC_NAMES + ("nearest_neighbors", "auto")

# ``--delimiter`` names -> the separator (auto: sniffed from the first lines).
DELIMITERS = {"auto": None, "comma": ",", "semicolon": ";", "tab": "\t",
              "whitespace": "whitespace"}
HEADER_CHOICES = ("auto", "yes", "no")
# ``--decimal`` names -> the decimal mark (auto: found from the data rows).
DECIMALS = {"auto": None, "point": ".", "comma": ","}

# What an option's value should be, in the words of the command line where its parser
# reads less than the parameter takes (the rest: the constraint table's words).
OPTION_WORDS = {"--seed": "an integer in [0, 2**32 - 1]",
                "--noise": "'auto', 'none' or a share in [0, 0.5)"}
