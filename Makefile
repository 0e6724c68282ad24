# The two commands of the README. Each creates .venv on first use.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python

.PHONY: demo test bench clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e ".[test]"
	touch $@

demo: $(VENV)/.installed
	$(VENV)/bin/kgroups demo

test: $(VENV)/.installed
	$(PY) -m pytest -q

bench: $(VENV)/.installed
	$(PY) benchmarks/run_all.py

clean:
	rm -rf $(VENV) build *.egg-info src/*.egg-info .pytest_cache
