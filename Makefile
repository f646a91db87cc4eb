# cardgate: `make demo` replays the stale-card incident through a real Envoy; `make test` runs everything.
SHELL := bash
export PATH := $(HOME)/.cargo/bin:$(PATH)
CARGO ?= cargo
PY := .tools/py/bin/python
# Each area adds its test target here (see envoy/envoy.mk, js/js.mk).
TEST_TARGETS := test-core

.PHONY: all setup setup-core test test-core lint build bench
all: build

setup:
	.ci/setup.sh

setup-core:
	.ci/setup.sh core

build:
	$(CARGO) build --release --bin cardgate

lint: setup-core
	$(CARGO) fmt --check
	$(CARGO) clippy --all-targets -- -D warnings
	RUSTDOCFLAGS='-D warnings' $(CARGO) doc --no-deps --quiet

# Core: unit tests, doctests, the shared vectors natively, CLI tests, the RFC 8785 differential
# test against PyPI rfc8785, and the policy schema check with PyPI jsonschema.
test-core: lint
	$(PY) tests/vectors/oracle.py --check
	$(PY) tests/vectors/gen_watermark_headers.py --check
	$(CARGO) test
	$(CARGO) build --release --bin cardgate
	$(PY) tests/jcs_differential.py --cardgate target/release/cardgate --count 10000
	$(PY) tests/vectors/freshness_reference.py --cardgate target/release/cardgate --count 2000
	$(PY) -m pytest -q tests/policy_schema_test.py

# Benchmarks, informative (not part of `make test`): native core vs the Python and JS peers and
# the floor, the npm package vs the JS peer, Envoy pass-through vs a buffer-only filter vs
# cardgate, and the .wasm sizes, interleaved in one run; one table, printed and written to
# bench/results.md (see bench/README.md). About 6 minutes on 2 cores once everything is built.
# BENCH_ARGS go to bench/run.py (e.g. "--rounds 5 --skip-envoy"). cargo builds benches with
# panic=unwind: the same for the library keeps one build of it.
BENCH_ARGS ?=
bench: setup-bench filter pkg buffer-only
	CARGO_PROFILE_BENCH_PANIC=unwind $(CARGO) bench --no-run -q --bench gate
	$(PY) bench/run.py $(BENCH_ARGS)

# Mutation testing (informative, not part of `make test`): cargo-mutants changes the core's code
# one small edit at a time (an operator, a condition, a return value) and runs the native tests
# on each; a mutant they do not catch ("MISSED", listed in target/mutants/mutants.out/missed.txt)
# is code no test checks. The Envoy and JS glue (src/envoy, src/js.rs) and the CLI are left out
# here. Roughly 3 s per mutant on 2 cores, about 2 500 mutants in all (two hours): name files
# with MUTANTS_ARGS="-f src/time.rs". The parser and canonical writer want the robustness test
# too, the Envoy glue's own unit tests run under its feature (the proxy-wasm callbacks in
# filter.rs are tested only in Envoy), and the CLI (src/bin, 290 mutants, 9 min) is tested by
# its own suites; the fortieth and forty-first sessions' runs:
#   cargo mutants -j 2 -f src/json.rs -f src/document.rs -f src/jcs.rs -f src/jcs/serializer.rs \
#     -- --lib --test vectors --test cli --test resolution_vectors --test robustness
#   cargo mutants -j 2 --features envoy -f 'src/envoy/*.rs' -e src/envoy/filter.rs -- --lib
#   cargo mutants -j 2 -f 'src/bin/**' -- --bins --test cli --test vectors --test resolution_vectors --test robustness
# The JS glue's tests are the Node suite on a built package, and the proxy-wasm callbacks'
# (src/envoy/filter.rs) the e2e suite in a real Envoy: `tests/mutants.py js` and
# `tests/mutants.py envoy` build one per mutant (fast profile, 30 to 40 s a mutant with the tests);
# `tests/mutants.py api` runs Stryker on the package's hand-written JavaScript (js/api.js).
MUTANTS_ARGS ?= -e 'src/envoy/**' -e src/js.rs -e 'src/bin/**'
.PHONY: mutants
mutants:
	.ci/setup.sh mutants
	$(CARGO) mutants -j 2 --output target/mutants $(MUTANTS_ARGS) -- --lib --test vectors --test cli --test resolution_vectors

-include envoy/envoy.mk
-include bench/bench.mk
-include js/js.mk
-include www/www.mk
-include tests/sdk_parity/sdk_parity.mk
-include fuzz/fuzz.mk

test: $(TEST_TARGETS)
	@echo "make test: all suites passed ($(TEST_TARGETS))"
