# `make bench` (not part of `make test`): one run, one table (bench/README.md). Included by the
# top Makefile (SHELL, CARGO, PY come from there); every variable here is prefixed BENCH_.

BENCH_BUFFER_DIR := bench/buffer_only
BENCH_BUFFER_TARGET := target/buffer_only
BENCH_BUFFER_RAW := $(BENCH_BUFFER_TARGET)/wasm32-wasip1/release/buffer_only.wasm
BENCH_BUFFER := $(BENCH_BUFFER_TARGET)/buffer_only.wasm

.PHONY: setup-bench buffer-only

# The Python venv (PyPI rfc8785 for the Python peer), wrk, and npm canonicalize for the JS peer.
setup-bench:
	.ci/setup.sh core bench

# The buffer-only proxy-wasm filter: the floor for any filter that checks the body. Same target,
# release profile, target features and wasm-opt pass as dist/cardgate.wasm (ENVOY_RUSTFLAGS and
# ENVOY_WASM_OPT* from envoy/envoy.mk).
buffer-only: setup-envoy
	RUSTFLAGS="$(ENVOY_RUSTFLAGS)" $(CARGO) build -q --release --target wasm32-wasip1 --manifest-path $(BENCH_BUFFER_DIR)/Cargo.toml --target-dir $(BENCH_BUFFER_TARGET)
	@if [ ! -f $(BENCH_BUFFER) ] || [ $(BENCH_BUFFER_RAW) -nt $(BENCH_BUFFER) ]; then \
	  $(ENVOY_WASM_OPT) $(ENVOY_WASM_OPT_FLAGS) $(BENCH_BUFFER_RAW) -o $(BENCH_BUFFER); \
	fi
