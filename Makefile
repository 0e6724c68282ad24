# The commands of the README. Each creates .venv on first use.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
# The release tools (pyproject's dependency group "dist": build, twine, setuptools) in a
# venv of their own, so that the test venv holds what a user's does.
DIST_VENV := $(VENV)/dist-tools
DIST_PY   := $(DIST_VENV)/bin/python

# pip installs without byte-compiling every module of every dependency (most are never
# imported here): Python compiles a module the first time a run imports it and keeps
# the bytecode, which these targets let it write even where PYTHONDONTWRITEBYTECODE is set.
PIP := -m pip install -q --no-compile
unexport PYTHONDONTWRITEBYTECODE

.PHONY: demo test test-oldest bench docs dist clean

# Both venvs' recipes may run at once (make -j2) and the release tools' venv lies within
# .venv: each makes the folder with mkdir -p first, so that neither venv races the other
# to create it.
$(VENV)/.installed: pyproject.toml
	mkdir -p $(VENV)
	$(PYTHON) -m venv $(VENV)
	$(PY) $(PIP) --upgrade pip
	$(PY) $(PIP) -e ".[test,plot,dask]"
	touch $@

$(DIST_VENV)/.installed: pyproject.toml
	mkdir -p $(DIST_VENV)
	$(PYTHON) -m venv $(DIST_VENV)
	$(DIST_PY) $(PIP) --upgrade pip
	$(DIST_PY) $(PIP) --group dist
	touch $@

demo: $(VENV)/.installed
	$(VENV)/bin/kgroups demo

# The numba kernels also run as plain Python (NUMBA_DISABLE_JIT=1) on a subset.
# tests/test_packaging.py builds the sdist and wheel with the release tools, checks
# them with twine and installs the wheel in a new venv.
# The two venvs install side by side. The main suite (all but the tests that read the
# papers' quick reproduction: test-reproduction) runs on two pytest-xdist workers
# (tests/conftest.py keeps the tests that share a costly fixture on one worker), the
# plain-Python subset beside it; its output follows the suite's, and either failing
# fails. Each process keeps one BLAS thread, and the threads of a BLAS built with
# OpenMP sleep instead of spinning while they wait. The GPU engine's tests under the
# simulator are test-gpu's (CI runs them beside the documentation's build).
test: export OPENBLAS_NUM_THREADS = 1
test: export OMP_WAIT_POLICY = passive
test:
	@$(MAKE) --no-print-directory -j2 $(VENV)/.installed $(DIST_VENV)/.installed
	@$(TEST_PYTHON) > .test-python.log 2>&1 & plain=$$!; \
	KGROUPS_DIST_PYTHON=$(DIST_PY) $(PY) -m pytest -q -n 2 -m "not reproduction"; main=$$?; \
	wait $$plain; python=$$?; echo "--- every numba kernel as plain Python (beside the suite):"; \
	cat .test-python.log; rm -f .test-python.log; test $$main -eq 0 && test $$python -eq 0

# The papers' quick reproduction, `kgroups reproduce all --quick` as a user types it
# (every item of the harness end to end), and the tests that read its reports and
# figures (marked `reproduction`: tests/experiments/conftest.py).
# It runs in one process apart from `make test`, whose tests of each item's parts
# (checks, data, plans) do not need it; CI runs it beside the documentation's build.
.PHONY: test-reproduction
test-reproduction: export OPENBLAS_NUM_THREADS = 1
test-reproduction: $(VENV)/.installed
	$(PY) -m pytest -q -p no:cacheprovider -m reproduction tests/experiments

# The GPU engine and the device pair sums under numba's CUDA simulator (no GPU needed;
# on a machine with a device, `pytest tests/gpu` runs them on it), on two workers
# (gpu-sim). Then the smoke run of benchmarks/bench_gpu.py, which checks the script's
# rows and table (its numbers mean nothing under the simulator; gpu-smoke).
GPU_SIM := NUMBA_ENABLE_CUDASIM=1 $(PY) -m pytest -q -n 2 -p no:cacheprovider tests/gpu
GPU_SMOKE := NUMBA_ENABLE_CUDASIM=1 $(PY) benchmarks/bench_gpu.py --smoke > /dev/null
.PHONY: test-gpu gpu-sim gpu-smoke
test-gpu: gpu-sim gpu-smoke
gpu-sim: export OPENBLAS_NUM_THREADS = 1
gpu-sim: $(VENV)/.installed
	$(GPU_SIM)
gpu-smoke: $(VENV)/.installed
	$(GPU_SMOKE)

# On a machine with a CUDA device, numba-cuda, NumPy, SciPy and scikit-learn (no venv
# and no network needed: the source tree on PYTHONPATH), in under 10 minutes: the GPU
# tests on the device, then every target of benchmarks/bench_gpu.py beside the CPU
# (every core), written to the table the Performance page shows. The benchmark runs
# even when a test fails; the target fails then, after it.
# Then the passes profiled by Nsight Compute (benchmarks/profile_gpu.py: occupancy,
# bandwidth, the pipes' use of the float64 and float32 builds), written beside it; a
# machine without ncu says so in that table.
GPU_PY ?= python3
GPU_BUDGET ?= 300
GPU_OUT ?= benchmarks/results/bench_gpu.md
GPU_PROFILE_OUT ?= benchmarks/results/profile_gpu.md
.PHONY: gpu-check
gpu-check:
	PYTHONPATH=src $(GPU_PY) -c "from kgroups._kernels.device import cuda_usable; \
	    assert cuda_usable(), 'gpu-check needs a CUDA device and numba-cuda'"
	status=0; \
	PYTHONPATH=src:. NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS=0 NUMBA_CUDA_WARN_ON_IMPLICIT_COPY=0 \
	    timeout 180 $(GPU_PY) -m pytest -q -p no:cacheprovider --durations=8 tests/gpu \
	    || status=$$?; \
	PYTHONPATH=src timeout $$(( $(GPU_BUDGET) + 120 )) $(GPU_PY) benchmarks/bench_gpu.py \
	    --budget $(GPU_BUDGET) \
	    --out $(GPU_OUT) || status=$$?; \
	PYTHONPATH=src timeout 150 $(GPU_PY) benchmarks/profile_gpu.py \
	    --out $(GPU_PROFILE_OUT) || status=$$?; \
	exit $$status

# The suite at the oldest versions pyproject.toml allows (.ci/oldest.txt: its minimum
# pins as == constraints), in a venv of its own with numba's cache apart from the main
# venv's (another numba version), so that the minimum pins stay true. Two groups never
# run here, even with OLDEST_TESTS empty: the packaging tests (`make test` builds with
# the release tools) and the tests that read the one quick reproduction of the papers
# (`make test-reproduction`).
# The kernels compile at LLVM's -O1 here (NUMBA_OPT=1): most of this suite's time is
# numba compiling them cold, and without fast-math the level changes no result, which
# the suite's pinned bits check.
# The venv is made in two steps. First the requirements of kgroups[test,plot,dask]
# (read from pyproject.toml by .ci/requirements.py), which can download beside the
# main venv's install (make -j2); then kgroups itself, editable and without its
# dependencies, after the main venv's: each editable install writes
# src/kgroups.egg-info, so two must not run at once.
OLD_VENV := .venv-oldest
$(OLD_VENV)/.requirements: pyproject.toml .ci/oldest.txt .ci/requirements.py
	$(PYTHON) -m venv $(OLD_VENV)
	$(OLD_VENV)/bin/python $(PIP) --upgrade pip
	$(PYTHON) .ci/requirements.py test plot dask > $(OLD_VENV)/requirements.txt
	$(OLD_VENV)/bin/python $(PIP) -c .ci/oldest.txt -r $(OLD_VENV)/requirements.txt
	touch $@

$(OLD_VENV)/.installed: $(OLD_VENV)/.requirements | $(VENV)/.installed
	$(OLD_VENV)/bin/python $(PIP) --no-deps -e .
	touch $@

# CI runs the tests that call the dependencies' APIs (OLDEST_TESTS): scikit-learn's
# estimator checks, the pinned bits of every engine (each kernel compiled by the oldest
# numba), the kernels' worker threads, the statistics, the graphs, Dask, the progress
# bars, the figures, the hostile inputs, and the choice of k on each of its paths
# (energy's rule, the graph's, the arbiter, a sample of large data, rounded data,
# weights, its figure; CHOICE_OLDEST). The tests of the kernels and engines against their own twins,
# the choice's battery of shapes, the papers' items and the project's files run at the
# main venv's versions only. `make test-oldest OLDEST_TESTS=` runs the whole suite there.
OLDEST_TESTS ?= tests/test_base.py tests/test_pinned_runs.py tests/graph tests/hostile \
    tests/test_energy.py tests/test_disco.py tests/test_dip.py tests/test_pairsum.py \
    tests/test_dask.py tests/test_progress.py tests/test_performance_page.py \
    tests/test_hierarchical.py tests/test_spectral.py tests/test_onedim.py \
    tests/test_semimetrics.py tests/test_semimetric_neighbors.py tests/test_metrics.py \
    tests/test_validation.py tests/datasets tests/test_pins.py tests/kernels/test_parallel.py \
    $(CHOICE_OLDEST)
CHOICE_OLDEST := $(addprefix tests/test_choose_k_default.py::test_, blobs_are_four_and_the_trace_says_why \
    two_sine_waves_are_the_graph_s_two_not_energy_s_arches the_far_small_group_is_found \
    a_real_table_and_its_trace large_data_are_chosen_on_a_sample plot_draws_the_default_s_curves \
    rounded_data_are_read_to_their_precision integer_weights_are_repeated_rows)
test-oldest: export OPENBLAS_NUM_THREADS = 1
test-oldest: export OMP_WAIT_POLICY = passive
test-oldest: $(OLD_VENV)/.installed
	NUMBA_OPT=1 NUMBA_CACHE_DIR=$(OLD_VENV)/numba-cache $(OLD_VENV)/bin/python -m pytest -q -n 2 \
	    -p no:cacheprovider -m "not packaging and not reproduction" \
	    -W error::scipy.sparse.SparseEfficiencyWarning $(OLDEST_TESTS)

# Every numba kernel as plain Python, in one run: the twins of the sweeps, and a tiny
# case of each kernel (dense, sparse, matrix-free tiles/build/decide/apply, low-rank,
# scatter, pairwise; not the imports of a fresh process, which the suite checks with the
# JIT on). `make test` runs the command itself, not through $(MAKE), so that
# `make -n test` only prints it.
PYTHON_TESTS := tests/test_kgroups.py tests/kernels tests/hostile/test_engines.py
PYTHON_SELECT := (test_kgroups or test_dense) and (twin or rises or brute) \
    or tiny and not test_kgroups and not fresh_process
TEST_PYTHON := NUMBA_DISABLE_JIT=1 $(PY) -m pytest -q -p no:cacheprovider $(PYTHON_TESTS) \
    -k "$(PYTHON_SELECT)"
.PHONY: test-python
test-python: $(VENV)/.installed
	$(TEST_PYTHON)

# The documentation site: API reference, user guide, example gallery (runs the
# examples) into docs/_build/html; warnings are errors. Then the code of the
# getting-started and user-guide pages runs as doctests.
$(VENV)/.docs-installed: pyproject.toml $(VENV)/.installed
	$(PY) $(PIP) -e ".[docs]"
	touch $@

docs: $(VENV)/.docs-installed
	$(PY) -m sphinx -b html -W --keep-going -q docs docs/_build/html
	$(PY) docs/check_links.py docs/_build/html
	$(PY) -m pytest -q -p no:cacheprovider --doctest-glob="*.rst" docs/getting_started.rst docs/user_guide

# The sdist and wheel into dist/, checked as a package index would render them.
dist: $(DIST_VENV)/.installed
	rm -rf dist
	$(DIST_PY) -m build --no-isolation --outdir dist .
	$(DIST_PY) -m twine check --strict dist/*

bench: $(VENV)/.installed
	$(PY) benchmarks/run_all.py

# A small run of the Performance page's figure and summary table, written to a
# temporary folder (the committed results are left alone), and the GPU benchmark's
# smoke run under the simulator: CI runs them, two recipes that make -j2 can run beside
# each other or beside the documentation's build.
.PHONY: bench-quick bench-scaling-quick
bench-quick: bench-scaling-quick gpu-smoke
bench-scaling-quick: $(VENV)/.installed
	$(PY) benchmarks/run_all.py --quick

clean:
	rm -rf $(VENV) $(OLD_VENV) build dist *.egg-info src/*.egg-info .pytest_cache
	rm -rf docs/_build docs/api/generated docs/auto_examples docs/sg_execution_times.rst
