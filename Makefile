# Set-up and everyday tasks. `make test` and `make demo` work on a fresh clone with Python 3.11+,
# Node and make: they create .venv and install what they need.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: venv test lint demo bench completions clean

venv: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[test]'
	touch $(STAMP)

lint: venv
	$(BIN)/ruff check .

test: venv lint
	$(BIN)/python -m pytest

demo: venv
	./examples/quickstart/run-demo.sh $(abspath $(BIN))/ctl

bench: venv
	$(BIN)/python bench/parse_scale.py

completions: venv
	_CTL_COMPLETE=source_bash $(BIN)/ctl > completions/ctl.bash
	_CTL_COMPLETE=source_zsh $(BIN)/ctl > completions/_ctl
	_CTL_COMPLETE=source_fish $(BIN)/ctl > completions/ctl.fish

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
