# The npm package `cardgate` (feature `js`): `make pkg` builds it into pkg/, `make test-js` tests it.
# Included by the top Makefile (SHELL=bash, CARGO, TEST_TARGETS).

TEST_TARGETS += test-js

JS_TARGET_DIR := target/js
JS_WASM := $(JS_TARGET_DIR)/wasm32-unknown-unknown/release/cardgate.wasm
JS_WASM_OPT := .tools/node/node_modules/.bin/wasm-opt
# Rust 1.95 emits these proposals; wasm-opt must be told (npm binaryen only: Debian's corrupts
# wasm-bindgen output).
# The producers and target_features sections are metadata no host reads (260 bytes).
JS_WASM_OPT_FLAGS := -Oz --strip-producers --strip-target-features --enable-simd \
	--enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
	--enable-mutable-globals --enable-multivalue --enable-reference-types
# The declarations are type-checked with the newest TypeScript 5 and with TypeScript 7 (the
# native compiler), each by its own path: both packages install a `tsc` in node_modules/.bin.
JS_TSCS := node_modules/typescript/bin/tsc node_modules/typescript-7/bin/tsc

.PHONY: setup-js pkg test-js js-size bench-js

# Toolchain (wasm targets, wasm-bindgen CLI, npm binaryen, the lowest supported @a2a-js/sdk in
# .tools/a2a-sdk-<version>) and the dev dependencies.
# `npm ci` runs only when node_modules does not hold what package-lock.json pins, compared by
# content (js/npm-ci.mjs), never by mtimes: a fresh worktree's lock always looks newer, and a
# worktree whose node_modules is a symlink to a shared install must not wipe it.
setup-js:
	.ci/setup.sh js
	node js/npm-ci.mjs

# The package is rebuilt only when the wasm or a hand-written file changed, in a staging
# directory swapped in at the end, so a reader of pkg/ (the inspector tests) never sees half of it.
# The package is built at opt-level 3 (the crate's release profile, as the Envoy filter):
# measured 2026-12-01 on the three bench cards, best of 9 batches, bytes
# in 22-24 -> 17-19 us (minimal), 73-90 -> 61-62 us (typical), 765-875 -> 595-818 us (large),
# objects in 41-48 -> 32-33 us (minimal), for +12 % raw size (400 -> 447 kB) and +5 % gzip.
# ("z" measured earlier: 6 % smaller gzip but 2x slower.)
JS_SOURCES := js/api.js js/build.mjs js/cardgate.d.ts js/README.md LICENSE Cargo.toml js/js.mk
JS_OPT_LEVEL := 3
# Wasm SIMD (`simd128`) for every crate, as the Envoy filter (envoy/envoy.mk): LLVM vectorizes
# loops with it and sha2 takes its simd128 backend. Measured 2026-12-05 (`node benches/node.mjs
# --against` the package without, 15 interleaved rounds, Node 20): 495 605 -> 485 542 B raw
# (200 208 -> 197 916 B gzip -9); CPU per call, median of the per-round ratios, bytes in 1.06x
# (typical) and 1.03x (large) faster, string in 1.04x and 1.01x, objects in 1.03x and 1.02x.
# Every runtime the package supports runs it: Node 20+, Chrome and Edge 91+, Firefox 89+, Safari
# 16.4+ (one without Wasm SIMD refuses to compile the module).
JS_RUSTFLAGS := -C target-feature=+simd128

# `--crate-type cdylib,rlib`: `cdylib` alone made the module 5 % larger (495 605 -> 521 233 B raw,
# +2.8 % gzip) for 1-5 % less CPU per call (`node benches/node.mjs --against`, 15 rounds), the
# speed targets being met and the size budget not: kept. The Envoy filter is built alone
# (envoy/envoy.mk says why).
pkg: setup-js
	RUSTFLAGS="$(JS_RUSTFLAGS)" CARGO_PROFILE_RELEASE_OPT_LEVEL=$(JS_OPT_LEVEL) $(CARGO) rustc --release --lib --crate-type cdylib,rlib --target wasm32-unknown-unknown --features js --target-dir $(JS_TARGET_DIR)
	@$(MAKE) --no-print-directory pkg/package.json

pkg/package.json: $(JS_WASM) $(JS_SOURCES)
	@set -e; stage=$(JS_TARGET_DIR)/pkg-stage.$$$$; old=$(JS_TARGET_DIR)/pkg-old.$$$$; \
	rm -rf $$stage; mkdir -p $$stage/node $$stage/web; \
	echo "wasm-bindgen --target nodejs / --target web"; \
	wasm-bindgen --target nodejs --out-dir $$stage/node --out-name cardgate $(JS_WASM); \
	wasm-bindgen --target web --out-dir $$stage/web --out-name cardgate $(JS_WASM); \
	echo "wasm-opt $(JS_WASM_OPT_FLAGS)"; \
	$(JS_WASM_OPT) $(JS_WASM_OPT_FLAGS) $$stage/node/cardgate_bg.wasm -o $$stage/node/cardgate_bg.wasm; \
	$(JS_WASM_OPT) $(JS_WASM_OPT_FLAGS) $$stage/web/cardgate_bg.wasm -o $$stage/web/cardgate_bg.wasm; \
	node js/build.mjs $$stage; \
	if [ -d pkg ]; then mv pkg $$old; fi; mv $$stage pkg; rm -rf $$old
	@$(MAKE) --no-print-directory js-size

js-size:
	@for f in pkg/web/cardgate_bg.wasm; do \
		echo "$$f (web and Node builds share it): $$(wc -c < $$f) bytes raw, $$(gzip -9 -c $$f | wc -c) bytes gzip -9"; \
	done

# Lint the glue for its target, type-check the declarations as a consumer sees them (installed
# from the packed tarball; node16 and bundler resolution, the bundler ones with `lib: es2020`
# only), check the package packs, then the Node tests (vectors against the native CLI, errors,
# resolveAgentCard, the @a2a-js/sdk integration with the lowest and the newest supported SDK).
test-js: pkg
	$(CARGO) clippy --lib --target wasm32-unknown-unknown --features js --target-dir $(JS_TARGET_DIR) -- -D warnings
	RUSTDOCFLAGS='-D warnings' $(CARGO) doc --no-deps --quiet --features js --target wasm32-unknown-unknown --target-dir $(JS_TARGET_DIR)
	$(CARGO) build --release --bin cardgate
	cd pkg && npm pack --dry-run --json > /dev/null
	node tests/node/consumer.mjs $(JS_TARGET_DIR)/consumer
	set -e; for tsc in $(JS_TSCS); do node $$tsc --version; \
	  for config in tsconfig tsconfig.node-decl tsconfig.web-decl tsconfig.bundler tsconfig.bundler-node; do \
	    node $$tsc --noEmit --strict -p $(JS_TARGET_DIR)/consumer/$$config.json; \
	  done; \
	done
	# The files, not the folder: from Node 22 on `node --test DIR` loads DIR as a module.
	node --test tests/node/*.test.mjs

# Per-evaluation cost through the package (informative, not a test); `make bench` has the native side.
bench-js: pkg
	$(CARGO) build --release --bin cardgate
	node benches/node.mjs
