# Two commands do all the set-up on a fresh machine with Python 3.11+:
#   make demo   - create .venv, install Gavel with its embedded default model, run every tool over stdio
#   make test   - install the test dependencies and run ruff and the whole test suite
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip --disable-pip-version-check -q

.PHONY: demo test lint bench bench-smoke clean

$(VENV)/.created:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install -U pip
	touch $@

$(VENV)/.installed: $(VENV)/.created pyproject.toml
	$(PIP) install -e '.[embedded,test]'
	touch $@

demo: $(VENV)/.installed
	$(VENV)/bin/gavel demo

lint: $(VENV)/.installed
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

test: lint
	$(PY) -m pytest -q

bench: $(VENV)/.installed
	$(PY) -m bench.run

bench-smoke: $(VENV)/.installed
	$(PY) -m bench.run --smoke

clean:
	rm -rf $(VENV) build *.egg-info
