# The commands of the README. Each creates .venv on first use.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python

.PHONY: demo test bench docs clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e ".[test,plot,dask]"
	touch $@

demo: $(VENV)/.installed
	$(VENV)/bin/kgroups demo

# The numba kernels also run as plain Python (NUMBA_DISABLE_JIT=1) on a subset.
test: $(VENV)/.installed
	$(MAKE) --no-print-directory test-python
	$(PY) -m pytest -q

# Every numba kernel as plain Python: the twins, and a tiny case of each kernel
# (dense, sparse, matrix-free tiles/build/decide/apply, low-rank, scatter, pairwise).
.PHONY: test-python
test-python: $(VENV)/.installed
	NUMBA_DISABLE_JIT=1 $(PY) -m pytest -q -p no:cacheprovider tests/test_kgroups.py tests/engine/test_dense.py -k "twin or rises or brute"
	NUMBA_DISABLE_JIT=1 $(PY) -m pytest -q -p no:cacheprovider tests/engine tests/hostile/test_engines.py -k tiny

# The documentation site: API reference, user guide, example gallery (runs the
# examples) into docs/_build/html; warnings are errors.
$(VENV)/.docs-installed: pyproject.toml $(VENV)/.installed
	$(PY) -m pip install -q -e ".[docs]"
	touch $@

docs: $(VENV)/.docs-installed
	$(PY) -m sphinx -b html -W --keep-going -q docs docs/_build/html
	$(PY) docs/check_links.py docs/_build/html

bench: $(VENV)/.installed
	$(PY) benchmarks/run_all.py

clean:
	rm -rf $(VENV) build *.egg-info src/*.egg-info .pytest_cache
	rm -rf docs/_build docs/api/generated docs/auto_examples docs/sg_execution_times.rst
