# Two commands do all the set-up on a fresh machine with Python 3.11+:
#   make demo   - create .venv, install Gavel with its embedded default model, run every tool over stdio
#   make test   - install the test dependencies (PostgreSQL and chromium too, when missing and root may apt-get
#                 them) and run ruff, the import contracts (lint-imports) and the whole test suite
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
BENCH_VENV := .venv-bench
PIP := $(PY) -m pip --disable-pip-version-check -q

.PHONY: demo test lint bench bench-smoke clean

$(VENV)/.created:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install -U pip
	touch $@

# A distribution named `gavel` left in the venv would bring a second editable finder for the gavel.* packages:
# uninstall it so one finder serves them.
$(VENV)/.installed: $(VENV)/.created pyproject.toml
	$(PIP) uninstall -y gavel 2>/dev/null || true
	$(PIP) install -e '.[embedded,test]'
	touch $@

# The peers (RAGAS, DeepEval) for `make bench`, in a venv of their own: their pins must not touch Gavel's.
$(BENCH_VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(BENCH_VENV)
	$(BENCH_VENV)/bin/python -m pip --disable-pip-version-check -q install -e '.[bench]'
	touch $@

demo: $(VENV)/.installed
	$(VENV)/bin/gavel demo

lint: $(VENV)/.installed
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports

# The PostgreSQL ledger's tests start a throw-away server from Debian's binaries, and the HTML report's tests open
# it in Debian's headless chromium: install each first if absent.
test: lint
	$(PY) -m tests.support.postgres --install
	$(PY) -m tests.support.chromium --install
	$(PY) -m pytest -q -n 2 -m "not real_model"
	$(PY) -m pytest -q -m real_model

bench: $(VENV)/.installed $(BENCH_VENV)/.installed
	$(PY) -m bench.run

bench-smoke: $(VENV)/.installed
	$(PY) -m bench.run --smoke

clean:
	rm -rf $(VENV) $(BENCH_VENV) build *.egg-info
