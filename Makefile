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

# Core: unit tests, doctests, the shared vectors natively, CLI tests, the RFC 8785 differential
# test against PyPI rfc8785, and the policy schema check with PyPI jsonschema.
test-core: lint
	$(PY) tests/vectors/oracle.py --check
	$(CARGO) test
	$(CARGO) build --release --bin cardgate
	$(PY) tests/jcs_differential.py --cardgate target/release/cardgate --count 10000
	$(PY) -m pytest -q tests/policy_schema_test.py

bench: build
	$(CARGO) bench --bench gate

-include envoy/envoy.mk
-include js/js.mk
-include www/www.mk
-include tests/sdk_parity/sdk_parity.mk
-include fuzz/fuzz.mk

test: $(TEST_TARGETS)
	@echo "make test: all suites passed ($(TEST_TARGETS))"
