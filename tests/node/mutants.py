#!/usr/bin/env python3
"""Mutation testing of the JS glue (src/js.rs) against the Node tests (informative, not in `make test`).

cargo-mutants runs `cargo test` per mutant, and src/js.rs has no native tests: its tests are the
Node suite, run on the built package. So this script takes cargo-mutants' list of mutants (one
small edit each: an operator, a condition, a return value) and, for each one, applies it in a
git worktree of HEAD, builds the package there with a fast profile (opt-level 1, no LTO,
incremental: about 4 s a build instead of a minute; no wasm-opt), and runs the Node tests:
first every file but the long differentials, then those if the mutant survived. A mutant the
tests pass ("MISSED") is glue no test checks.

    .tools/py/bin/python tests/node/mutants.py [--only N ...] [--out DIR]

About 30 s a mutant on 2 cores (114 mutants in src/js.rs in the forty-first session). Needs
`make setup` (node_modules, .tools) and runs on the committed HEAD, not the working tree.
"""
import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FAST = {
    "RUSTFLAGS": "-C target-feature=+simd128",
    "CARGO_PROFILE_RELEASE_OPT_LEVEL": "1",
    "CARGO_PROFILE_RELEASE_LTO": "false",
    "CARGO_PROFILE_RELEASE_CODEGEN_UNITS": "16",
    "CARGO_PROFILE_RELEASE_INCREMENTAL": "true",
}
# js/js.mk's features without the optimisation.
WASM_OPT_FLAGS = ("-O0 --enable-simd --enable-bulk-memory --enable-nontrapping-float-to-int "
                  "--enable-sign-ext --enable-mutable-globals --enable-multivalue --enable-reference-types")
BUILD = ["cargo", "rustc", "-q", "--release", "--lib", "--crate-type", "cdylib,rlib",
         "--target", "wasm32-unknown-unknown", "--features", "js", "--target-dir", "target/js"]


def run(cmd, cwd, env, timeout):
    """The exit code, or 'timeout'."""
    try:
        return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, timeout=timeout).returncode
    except subprocess.TimeoutExpired:
        return "timeout"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", type=int, nargs="*", help="mutant indices (in cargo-mutants' list order)")
    ap.add_argument("--out", default=str(ROOT / "target" / "mutants-js"), help="results and worktree")
    args = ap.parse_args()
    out = Path(args.out)
    tree = out / "tree"
    out.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, PATH=f"{ROOT / '.tools' / 'node' / 'bin'}:{os.environ['PATH']}")
    listed = subprocess.run(
        ["cargo", "mutants", "--list", "--json", "--diff", "-f", "src/js.rs", "--features", "js"],
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
    # The Node tests compare with the native CLI (target/release/cardgate).
    subprocess.run(["cargo", "build", "-q", "--release", "--bin", "cardgate"], cwd=tree, env=env, check=True)
    tests = sorted(f"tests/node/{f}" for f in os.listdir(tree / "tests" / "node") if f.endswith(".test.mjs"))
    slow = [t for t in tests if "differential" in t or "url-" in t]
    tiers = [[t for t in tests if t not in slow], slow]
    build_env = dict(env, **FAST)
    diff = out / "mutant.diff"
    counts = {}
    with open(out / "results.txt", "a") as results:
        for i, m in enumerate(mutants):
            if args.only and i not in args.only:
                continue
            subprocess.run(["git", "checkout", "-q", "src/js.rs"], cwd=tree, check=True)
            diff.write_text(m["diff"])
            started = time.time()
            if subprocess.run(["patch", "-s", "src/js.rs", str(diff)], cwd=tree).returncode != 0:
                verdict = "NOT APPLIED"
            elif run(BUILD, tree, build_env, 600) != 0:
                verdict = "UNVIABLE"
            elif run(["make", "-s", "pkg/package.json", f"JS_WASM_OPT_FLAGS={WASM_OPT_FLAGS}"], tree, env, 600) != 0:
                verdict = "NO PACKAGE"
            else:
                verdict = "MISSED"
                for tier in tiers:
                    rc = run(["node", "--test", *tier], tree, env, 300)
                    if rc != 0:
                        verdict = "TIMEOUT" if rc == "timeout" else "CAUGHT"
                        break
            counts[verdict] = counts.get(verdict, 0) + 1
            line = f"{i}\t{verdict}\t{m['name']}\t{time.time() - started:.0f} s"
            results.write(line + "\n")
            results.flush()
            print(line, flush=True)
    subprocess.run(["git", "checkout", "-q", "src/js.rs"], cwd=tree, check=True)
    print(", ".join(f"{n} {v.lower()}" for v, n in sorted(counts.items())), f"({out / 'results.txt'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
