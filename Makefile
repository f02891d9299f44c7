# Two entry points: `make app` (set up, then start the app on the bundled demo) and
# `make test` (set up, then run the whole suite). Both create .venv on first use.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin

.PHONY: app test lint setup bench bytecode

setup: $(VENV)/.installed

# the project's modules compiled once: where PYTHONDONTWRITEBYTECODE is set (as on the machines
# here), every process would otherwise compile them from source again (about 0.5 s each: the MCP
# server's start, each app server and subprocess of the suite)
bytecode: setup
	$(BIN)/python -m compileall -q -j 0 app.py app_pages workbench store bench tests >/dev/null

$(VENV)/.installed: requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet -r requirements.txt
	$(BIN)/pip install --quiet --no-deps --no-build-isolation -e .
	touch $@

# `make app` serves this machine only (127.0.0.1); `make app SHARE=1` (or SHARE=readonly) binds every
# interface behind a token (see docs/SECURITY.md)
app: bytecode
	$(if $(SHARE),WORKBENCH_SHARE=$(SHARE) ,)$(BIN)/python -m workbench.ui.serve

# ruff (rules and formatting), mypy (strict on retrieval, evaluation, golden), the layering contracts
lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet --site-dir site

# three workers (the browser tests wait on a server and Chromium as much as they compute, so two
# cores keep three busy), a whole file at a time (its module fixtures, an app server or a built
# home, are made once), in the order tests/conftest.py gives: the slow files first
test: bytecode
	HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 $(BIN)/python -m pytest -n 3 --dist loadfile --no-loadscope-reorder --durations=20

bench: setup
	for script in bench/bench_*.py; do $(BIN)/python $$script || exit 1; done
