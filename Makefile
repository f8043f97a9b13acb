# Two commands (README quick start):  make demo  |  make test   (the inner loop: make test-quick)
# Both create .venv, install the package, and install the system packages they need
# (bubblewrap for the sandbox, Debian's python3 as the interpreter inside it) when running
# as root with apt-get; otherwise they say what to install and continue where possible.

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# The suite starts a few hundred interpreters (the CLI as a user runs it, sweep workers); with
# PYTHONDONTWRITEBYTECODE set each would compile every module it imports again. Our runs
# write bytecode (__pycache__/ is git-ignored) whatever the caller's environment says.
RUN_PY := env -u PYTHONDONTWRITEBYTECODE

.PHONY: demo test test-quick lint setup sysdeps testdeps bench clean help test-rl-nemo-gym

help:
	@echo "make demo   - set up, build the embedded datasets, run the built-in agents, print results + leaderboard"
	@echo "make test   - set up and run the whole test suite"
	@echo "make test-quick - the suite without its slow tests (the inner loop; docs/testing.md)"
	@echo "make bench  - run the benchmarks in bench/"
	@echo "make test-rl-nemo-gym - the NeMo Gym adapter's test, in its own Python 3.12 venv (docs/rl.md)"

$(STAMP): pyproject.toml Makefile scripts/install.py
	@test -n "$(PYTHON)" || { echo "error: Python 3.11+ not found (install python3.11)"; exit 1; }
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' || \
	  { echo "error: $(PYTHON) is older than 3.11"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	@# scripts/install.py installs with uv (a PyPI package; ~10 s) given pip's own settings, and
	@# falls back to pip (~75 s: its resolver reads each package's whole index page) when uv
	@# cannot be had or pip is set up in a way uv cannot be told (docs/testing.md, "Setup time").
	@# Neither byte-compiles up front (~30 s for ~16 000 modules): a module is compiled when
	@# first imported, and `make test`/`make demo` write that bytecode (RUN_PY below).
	$(BIN)/python scripts/install.py -e '.[test]'
	@# Only for one file: the synthesis demo's real CT volume ships in this wheel
	@# (resources/ct_brain_atlas_1mm.nii.gz). Never imported, so none of its dependencies
	@# (torch, nnU-Net) are needed: --no-deps keeps the venv small.
	$(BIN)/python scripts/install.py --no-deps 'totalsegmentator==2.18.0'
	@# mini-swe-agent (agents of kind mini-swe-agent, docs/agents.md) without its dependencies: they
	@# would pull litellm (~100 packages; not used here). What it imports is in the test extra.
	$(BIN)/python scripts/install.py --no-deps 'mini-swe-agent==2.4.6'
	@touch $@

# System packages: bubblewrap (the sandbox), slirp4netns + iproute2 (network on: the
# sandbox's own network namespace), Debian's python3 (the interpreter inside). apt waits at
# most 120 s for a held dpkg lock, and a failure prints apt's own last lines, not a guess.
SYSDEPS_LOG := /tmp/automedbench-apt.log
sysdeps:
	@missing=""; \
	command -v bwrap >/dev/null 2>&1 || missing="$$missing bubblewrap"; \
	command -v slirp4netns >/dev/null 2>&1 || missing="$$missing slirp4netns"; \
	command -v ip >/dev/null 2>&1 || missing="$$missing iproute2"; \
	[ -x /usr/bin/python3 ] || missing="$$missing python3"; \
	[ -f /usr/share/wordnet/data.noun ] || missing="$$missing wordnet-base"; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing system packages:$$missing"; \
	    APT="apt-get -o DPkg::Lock::Timeout=120 -q"; \
	    if ! (DEBIAN_FRONTEND=noninteractive $$APT install -y $$missing || \
	          ($$APT update && DEBIAN_FRONTEND=noninteractive $$APT install -y $$missing)) >$(SYSDEPS_LOG) 2>&1; then \
	      echo "warning: could not install$$missing; apt-get said:"; tail -n 3 $(SYSDEPS_LOG) | sed 's/^/  /'; \
	      echo "  (full log: $(SYSDEPS_LOG)); tests needing these packages skip and say why"; \
	    fi; \
	  else \
	    echo "warning: missing system packages:$$missing. Install them with: sudo apt-get install$$missing"; \
	    echo "         (without bubblewrap the demo falls back to the 'local' backend, which isolates nothing;"; \
	    echo "          without wordnet-base the report-generation METEOR component is reported as null)"; \
	  fi; \
	fi

# For `make test` as root: docker.io (the tests start a private dockerd when no engine
# answers, and stop it), mmdebstrap (builds the docker agent image offline, cached) and chromium
# (the static site is tested in a real headless browser), default-jre-headless (METEOR 1.5 and the
# PTB tokeniser cross-checks run pycocoevalcap's jars).
testdeps:
	@missing=""; \
	command -v dockerd >/dev/null 2>&1 || missing="$$missing docker.io"; \
	command -v mmdebstrap >/dev/null 2>&1 || missing="$$missing mmdebstrap"; \
	command -v chromium >/dev/null 2>&1 || missing="$$missing chromium"; \
	command -v java >/dev/null 2>&1 || missing="$$missing default-jre-headless"; \
	if [ -n "$$missing" ] && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "installing test packages:$$missing"; \
	  APT="apt-get -o DPkg::Lock::Timeout=120 -q"; \
	  if ! (DEBIAN_FRONTEND=noninteractive $$APT install -y $$missing || \
	        ($$APT update && DEBIAN_FRONTEND=noninteractive $$APT install -y $$missing)) >$(SYSDEPS_LOG) 2>&1; then \
	    echo "warning: could not install$$missing; apt-get said:"; tail -n 3 $(SYSDEPS_LOG) | sed 's/^/  /'; \
	    echo "  the docker backend / browser / Java-backed metric tests will skip and say why"; \
	  fi; \
	elif [ -n "$$missing" ]; then \
	  echo "note: missing$$missing (root + apt-get installs them); the docker backend / browser tests will skip"; \
	fi

setup: sysdeps $(STAMP)

demo: setup
	$(RUN_PY) $(BIN)/automedbench demo

# The whole suite on one worker more than there are cores (pytest-xdist): a quarter of the
# suite's time is spent waiting on sandboxes, containers, a browser and subprocesses, and a
# third worker on 2 cores fills it (270 s against 287 s for 2 workers, same run; docs/testing.md).
# A file's tests stay on one worker, so its
# module fixtures (a built dataset, a set of whole runs) are built once; files are handed out
# in collection order, files with `slow` tests first (tests/conftest.py), not xdist's default
# most-tests-first, which leaves the long one-test files for last (docs/testing.md).
# `make test PYTEST_WORKERS=0` runs it in one process.
# mypy and import-linter (~25 s, one core) run beside pytest, which leaves a quarter of the CPU
# idle waiting on sandboxes and subprocesses; their output follows pytest's, and either
# failing fails `make test`. ruff (under a second) runs first, so a syntax slip stops at once.
PYTEST_WORKERS ?= $(shell echo $$(( $$(nproc 2>/dev/null || echo 1) + 1 )))
TYPECHECK_LOG := /tmp/automedbench-typecheck.log
test: setup testdeps
	$(BIN)/ruff check src tests bench calibration scripts
	@( $(BIN)/mypy && PYTHONPATH=src $(BIN)/lint-imports --no-cache ) > $(TYPECHECK_LOG) 2>&1 & checks=$$!; \
	status=0; \
	$(RUN_PY) $(BIN)/python -m pytest -q -p no:cacheprovider -n $(PYTEST_WORKERS) --dist loadfile --no-loadscope-reorder || status=$$?; \
	if wait $$checks; then tail -n 3 $(TYPECHECK_LOG); echo "mypy + import-linter: passed"; \
	else cat $(TYPECHECK_LOG); echo "mypy + import-linter: FAILED (above)"; status=1; fi; \
	exit $$status

# The inner loop (README, docs/testing.md "How to run"): ruff, then the suite without the tests
# marked `slow` (whole runs of every track, the judge's held-out and metamorphic sets, the RL
# adapters' episodes, the crash-safety sweep, the real-library cross-checks), in parallel as
# `make test` runs it: goal 4 min warm on 2 cores, measured 245-331 s (docs/testing.md). mypy and import-linter are
# `make lint`; `make test` runs everything.
test-quick: setup testdeps
	$(BIN)/ruff check src tests bench calibration scripts
	$(RUN_PY) $(BIN)/python -m pytest -q -p no:cacheprovider -n $(PYTEST_WORKERS) --dist loadfile --no-loadscope-reorder \
	  -m "not slow"

# static checks, part of `make test` (so CI fails on them): ruff (pyflakes, pycodestyle, bugbear),
# mypy, which also checks that every built-in track and judge satisfies its protocol, and
# import-linter, which keeps the layers of docs/architecture.md
lint: setup
	$(BIN)/ruff check src tests bench calibration scripts
	$(BIN)/mypy
	PYTHONPATH=src $(BIN)/lint-imports --no-cache

bench: setup
	$(BIN)/python bench/score_segmentation.py
	$(BIN)/python bench/score_text.py
	$(BIN)/python bench/score_vqa.py
	$(BIN)/python bench/score_detection.py
	$(BIN)/python bench/score_enhancement.py
	$(BIN)/python bench/sandbox_overhead.py
	$(BIN)/python bench/effects_overhead.py
	$(BIN)/python bench/held_opens.py
	$(BIN)/python bench/input_copy.py
	$(BIN)/python bench/judge_digest.py
	$(BIN)/python bench/yaml_parse.py
	$(BIN)/python bench/runtime_build.py
	$(BIN)/python bench/cli_help.py

clean:
	rm -rf $(VENV) demo_out .pytest_cache

# The NeMo Gym adapter's test (docs/rl.md "Frameworks"): nemo-gym 0.4.0 needs Python >= 3.12 and
# an openai that verifiers' pin (in .[test]) excludes, so it runs in a venv of its own (about
# 1.4 GB: Ray, MLflow, W&B...). `make test` runs the verifiers adapter's test; this one is apart.
# (an interpreter that runs: a pyenv shim of a version not selected does not; NG_PYTHON=... names one)
NG_PYTHON ?= $(shell for p in python3.12 python3.13; do $$p -c 'import sys; sys.exit(sys.version_info < (3, 12))' \
  2>/dev/null && command -v $$p && break; done)
NG_VENV   := .venv-nemo-gym
$(NG_VENV)/.installed: pyproject.toml Makefile scripts/install.py
	@test -n "$(NG_PYTHON)" || { echo "error: the NeMo Gym test needs Python 3.12+: none found; name one with NG_PYTHON=/path/to/python3.12"; exit 1; }
	$(NG_PYTHON) -m venv $(NG_VENV)
	$(NG_VENV)/bin/python scripts/install.py -e '.[rl-nemo-gym]'
	@touch $@

test-rl-nemo-gym: $(NG_VENV)/.installed sysdeps
	$(RUN_PY) $(NG_VENV)/bin/python -m pytest tests/rl/test_adapter_nemo_gym.py -p no:cacheprovider -q
