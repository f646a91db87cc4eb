#!/usr/bin/env python3
"""Mutation testing of the glue whose tests run outside cargo (informative, not in `make test`).

cargo-mutants runs `cargo test` per mutant, but two parts of the crate are tested only on a
built artefact: the JS glue (`src/js.rs`) by the Node suite on the npm package, and the
proxy-wasm callbacks (`src/envoy/filter.rs`) by the end-to-end suite in a real Envoy. So this
script takes cargo-mutants' list of mutants for one of them (one small edit each: an operator, a
condition, a return value) and, for each one, applies it in a git worktree of HEAD, builds the
artefact there with a fast profile (opt-level 1, no LTO, incremental; no wasm-opt -Oz), and
runs that glue's tests, the short ones first, the long ones only if the mutant survived them.
A mutant the tests pass ("MISSED") is glue no test checks.

    .tools/py/bin/python tests/mutants.py js|envoy [--only N ...] [--out DIR]

30 to 40 s a mutant on 2 cores (114 mutants in src/js.rs in the forty-first session,
132 in src/envoy/filter.rs in the forty-second). Needs `make setup` (node_modules, .tools) and
runs on the committed HEAD, not the working tree.
"""
import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# The release profile made fast to build (the makefiles set the opt-level and RUSTFLAGS).
FAST = {
    "CARGO_PROFILE_RELEASE_LTO": "false",
    "CARGO_PROFILE_RELEASE_CODEGEN_UNITS": "16",
    "CARGO_PROFILE_RELEASE_INCREMENTAL": "true",
}
# The Wasm features js/js.mk and envoy/envoy.mk build with, without the optimisation.
WASM_OPT_FLAGS = ("-O0 --enable-simd --enable-bulk-memory --enable-nontrapping-float-to-int "
                  "--enable-sign-ext --enable-mutable-globals --enable-multivalue --enable-reference-types")


def tiers(tree, folder, long_names):
    """The folder's test files, the long ones (any name containing one of long_names) last."""
    found = sorted(str(p.relative_to(tree)) for p in (tree / folder).iterdir()
                   if p.name.endswith(".test.mjs") or (p.name.startswith("test_") and p.suffix == ".py"))
    long = [t for t in found if any(n in t for n in long_names)]
    return [[t for t in found if t not in long], long]


# Each glue by its cargo feature: its file, build (the makefile's own target at opt-level 1,
# wasm-opt without optimising) and tests.
GLUES = {
    "js": {
        "file": "src/js.rs",
        "build": ["make", "-s", "pkg", "JS_OPT_LEVEL=1", f"JS_WASM_OPT_FLAGS={WASM_OPT_FLAGS}"],
        "tiers": lambda tree: tiers(tree, "tests/node", ("differential", "url-")),
        "test": lambda files: ["node", "--test", *files],
    },
    "envoy": {
        "file": "src/envoy/filter.rs",
        "build": ["make", "-s", "filter", "ENVOY_OPT_LEVEL=1", f"ENVOY_WASM_OPT_FLAGS={WASM_OPT_FLAGS}"],
        "tiers": lambda tree: tiers(tree, "tests/envoy", ("http2", "indep_corpus")),
        "test": lambda files: [".tools/py/bin/python", "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *files],
    },
}


def run(cmd, cwd, env, timeout):
    """The exit code, or 'timeout'."""
    try:
        return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, timeout=timeout).returncode
    except subprocess.TimeoutExpired:
        return "timeout"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("glue", choices=sorted(GLUES))
    ap.add_argument("--only", type=int, nargs="*", help="mutant indices (in cargo-mutants' list order)")
    ap.add_argument("--out", help="results and worktree (default target/mutants-GLUE)")
    args = ap.parse_args()
    glue = GLUES[args.glue]
    out = Path(args.out or ROOT / "target" / f"mutants-{args.glue}")
    tree = out / "tree"
    out.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, PATH=f"{ROOT / '.tools' / 'node' / 'bin'}:{os.environ['PATH']}",
               CARDGATE_ENVOY=str(ROOT / ".tools" / "envoy-1.40.0" / "bin" / "envoy"))
    listed = subprocess.run(
        ["cargo", "mutants", "--list", "--json", "--diff", "-f", glue["file"], "--features", args.glue],
        cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    mutants = json.loads(listed.stdout)
    if not tree.exists():
        subprocess.run(["git", "worktree", "add", "-q", "--detach", str(tree), "HEAD"], cwd=ROOT, check=True)
        for shared in ("node_modules", ".tools"):
            (tree / shared).symlink_to(ROOT / shared)
    else:
        # A tree left by an earlier run is moved to today's HEAD.
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True)
        subprocess.run(["git", "checkout", "-q", "--detach", head.stdout.strip()], cwd=tree, check=True)
    # Both suites compare with the native CLI (target/release/cardgate).
    subprocess.run(["cargo", "build", "-q", "--release", "--bin", "cardgate"], cwd=tree, env=env, check=True)
    test_tiers = glue["tiers"](tree)
    build_env = dict(env, **FAST)
    diff = out / "mutant.diff"
    # As cargo-mutants does: the tests must pass on the unmutated glue built this way, or every
    # mutant would look caught.
    subprocess.run(["git", "checkout", "-q", glue["file"]], cwd=tree, check=True)
    if run(glue["build"], tree, build_env, 900) != 0 or \
            any(run(glue["test"](tier), tree, env, 600) != 0 for tier in test_tiers):
        print(f"baseline failed: the {args.glue} tests do not pass on HEAD built with the fast profile")
        return 1
    print("baseline passed", flush=True)
    counts = {}
    with open(out / "results.txt", "a") as results:
        for i, m in enumerate(mutants):
            if args.only and i not in args.only:
                continue
            subprocess.run(["git", "checkout", "-q", glue["file"]], cwd=tree, check=True)
            diff.write_text(m["diff"])
            started = time.time()
            if subprocess.run(["patch", "-s", glue["file"], str(diff)], cwd=tree).returncode != 0:
                verdict = "NOT APPLIED"
            elif run(glue["build"], tree, build_env, 600) != 0:
                verdict = "UNVIABLE"
            else:
                verdict = "MISSED"
                for tier in test_tiers:
                    rc = run(glue["test"](tier), tree, env, 600)
                    if rc != 0:
                        verdict = "TIMEOUT" if rc == "timeout" else "CAUGHT"
                        break
            counts[verdict] = counts.get(verdict, 0) + 1
            line = f"{i}\t{verdict}\t{m['name']}\t{time.time() - started:.0f} s"
            results.write(line + "\n")
            results.flush()
            print(line, flush=True)
    subprocess.run(["git", "checkout", "-q", glue["file"]], cwd=tree, check=True)
    print(", ".join(f"{n} {v.lower()}" for v, n in sorted(counts.items())), f"({out / 'results.txt'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
