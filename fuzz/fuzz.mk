# Coverage-guided fuzzing of the core with cargo-fuzz (libFuzzer) on the stable toolchain.
# Included by the top Makefile (SHELL, CARGO, PY and TEST_TARGETS come from there); every
# variable here is prefixed FUZZ_. The fuzz crate (fuzz/Cargo.toml) is its own workspace.
#
#   make fuzz                       each target for FUZZ_SECONDS (default 120 s)
#   make fuzz FUZZ_SECONDS=600 FUZZ_TARGETS=evaluate
#   make fuzz-smoke                 each target for 10 s (part of `make test`)
#
# Corpora grow in fuzz/corpus/<target> and are seeded at every run from tests/vectors,
# policies/ and envoy/*.yaml into fuzz/seeds/ (both gitignored). A crash stops the run; its input
# is in fuzz/artifacts/<target>/: replay it with
#   RUSTC_BOOTSTRAP=1 cargo fuzz run -s none -a <target> fuzz/artifacts/<target>/crash-...
# and turn it into a vector in tests/vectors/.

TEST_TARGETS += fuzz-smoke

FUZZ_TARGETS ?= card_parse canonical version_order watermark readers interface_choice url_form evaluate envoy_request
FUZZ_SECONDS ?= 120
FUZZ_SMOKE_SECONDS ?= 10
# No sanitizer (stable toolchain; the core has no unsafe code), debug assertions and overflow
# checks on. cargo-fuzz needs nightly flags: RUSTC_BOOTSTRAP lets stable accept them.
FUZZ_FLAGS := -s none -a
FUZZ_CARGO := cd fuzz && RUSTC_BOOTSTRAP=1 $(CARGO) fuzz
# libFuzzer: a single input running 10 s is a hang; stats at the end.
FUZZ_LIBFUZZER := -timeout=10 -print_final_stats=1

.PHONY: setup-fuzz fuzz-build fuzz fuzz-smoke

setup-fuzz:
	.ci/setup.sh fuzz

fuzz-build: setup-fuzz
	$(FUZZ_CARGO) build $(FUZZ_FLAGS)
	@rm -rf fuzz/seeds && python3 fuzz/seed.py fuzz/seeds

# Runs every target for $(1) seconds (built once by fuzz-build, which cargo then finds fresh),
# prints a line per target and fails on the first crash, leak or hang.
define FUZZ_RUN
	@set -o pipefail; summary=""; for t in $(FUZZ_TARGETS); do \
	  mkdir -p fuzz/corpus/$$t fuzz/artifacts/$$t; \
	  log=fuzz/artifacts/$$t/last-run.log; \
	  echo "fuzz: $$t for $(1) s"; \
	  if ! ($(FUZZ_CARGO) run $(FUZZ_FLAGS) $$t corpus/$$t seeds/$$t -- \
	        -max_total_time=$(1) $(FUZZ_LIBFUZZER) >../$$log 2>&1); then \
	    grep -E -A2 "^thread .*panicked at" $$log | head -6; \
	    grep -E "^(==[0-9]+== ERROR|SUMMARY|artifact_prefix)" $$log | cut -c1-300; \
	    echo "fuzz: $$t FAILED (log: $$log, input in fuzz/artifacts/$$t/)"; exit 1; \
	  fi; \
	  line=$$(grep -E "^#[0-9]+[[:space:]]+DONE" $$log | tail -1); \
	  runs=$$(sed -n 's/^stat::number_of_executed_units: *//p' $$log | tail -1); \
	  cov=$$(echo "$$line" | sed -n 's/.*cov: \([0-9]*\).*/\1/p'); \
	  ft=$$(echo "$$line" | sed -n 's/.*ft: \([0-9]*\).*/\1/p'); \
	  corp=$$(echo "$$line" | sed -n 's/.*corp: \([^ ]*\).*/\1/p'); \
	  rate=$$(echo "$$line" | sed -n 's/.*exec\/s: \([0-9]*\).*/\1/p'); \
	  summary="$$summary$$(printf '\n  %-14s %10s execs %8s exec/s  cov %5s  ft %6s  corpus %s' $$t $$runs $$rate $$cov $$ft $$corp)"; \
	done; \
	echo "fuzz: $(1) s per target, no crash:$$summary"
endef

fuzz: fuzz-build
	$(call FUZZ_RUN,$(FUZZ_SECONDS))

fuzz-smoke: fuzz-build
	cd fuzz && $(CARGO) fmt --check
	$(call FUZZ_RUN,$(FUZZ_SMOKE_SECONDS))
