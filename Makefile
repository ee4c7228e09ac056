# Every target bootstraps what it needs: a .venv with the pinned requirements.lock,
# and (for contract tests) a pinned Prism under the ignored .tools/ folder.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
SHARED ?= $(abspath ../shared)

export PYTHONDONTWRITEBYTECODE := 1

.PHONY: generate check lint test test-fast bench drift snapshot clean-venv

$(STAMP): requirements.lock pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.lock
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation --config-settings editable_mode=compat -e .
	@touch $(STAMP)

generate: $(STAMP)
	$(BIN)/cube-codegen generate

check: $(STAMP)
	$(BIN)/cube-codegen check

PKG := generated/cube_client

lint: $(STAMP)
	$(BIN)/ruff check generator tests
	$(BIN)/ruff format --check generator tests
	$(BIN)/mypy generator
	cd $(PKG) && $(CURDIR)/$(BIN)/ruff check . && $(CURDIR)/$(BIN)/ruff format --check .
	cd $(PKG) && $(CURDIR)/$(BIN)/mypy cube_client tests

# Pinned Prism (tools/package*.json) for the contract tests, installed once into the ignored .tools/.
TOOLS       := .tools
TOOLS_STAMP := $(TOOLS)/.installed

$(TOOLS_STAMP): tools/package.json tools/package-lock.json
	@mkdir -p $(TOOLS)
	cp tools/package.json tools/package-lock.json $(TOOLS)/
	npm ci --prefix $(TOOLS) --no-audit --no-fund --ignore-scripts
	@touch $(TOOLS_STAMP)

# The whole suite: generated/ in sync, lint, then every test (shared inputs when ../shared exists).
test: check lint $(TOOLS_STAMP)
	$(BIN)/python -m pytest -q -p no:cacheprovider tests $(PKG)/tests $(if $(wildcard $(SHARED)),--shared=$(SHARED),)

# Re-take spec/'s snapshots from the published documents in $(SHARED)/specs/cube, served on a
# loopback HTTPS server and fetched with `cube-codegen fetch`, as from a tenant.
snapshot: $(STAMP)
	$(BIN)/python tools/published.py --shared "$(SHARED)"

# Compare the live document with spec/ when the service is configured; otherwise say so.
drift: $(STAMP)
	@if [ -n "$$CUBE_BASE_URL" ] && [ -n "$$CUBE_API_KEY" ]; then \
	  $(BIN)/cube-codegen drift spec/platform-api.yaml live --format markdown; \
	else \
	  echo "make drift: CUBE_BASE_URL and CUBE_API_KEY are not set; nothing was compared"; \
	fi

test-fast: $(STAMP)
	$(BIN)/python -m pytest -q -p no:cacheprovider -x -m "not slow"

# A report, not a test: medians and ratios against peers, PASS/FAIL per target, exit 0 either way
# (table also in bench/last-run.md). Peers live in their own ignored venv, pinned here.
BENCH_VENV ?= .bench-venv
BENCH_OPC  := openapi-python-client==0.29.1

bench: $(STAMP)
	@$(BENCH_VENV)/bin/python -m pip show openapi-python-client 2>/dev/null | grep -qx 'Version: $(lastword $(subst ==, ,$(BENCH_OPC)))' || \
	  { { test -x $(BENCH_VENV)/bin/python || $(PYTHON) -m venv $(BENCH_VENV); } && \
	    $(BENCH_VENV)/bin/python -m pip install --quiet --disable-pip-version-check $(BENCH_OPC); } || \
	  echo "bench: could not install $(BENCH_OPC); its rows will say so"
	-$(BIN)/python bench/run.py --shared "$(or $(CUBE_CODEGEN_SHARED),$(SHARED))" --peer-venv $(BENCH_VENV)

clean-venv:
	rm -rf $(VENV)
