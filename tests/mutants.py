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
    .tools/py/bin/python tests/mutants.py api [--mutate js/api.js:FROM-TO ...] [--tests FILE ...] [--out DIR]

`www` is the inspector's `www/app.js`, mutated the same way and tested in Chromium (by default the
inspector's own files: inspector, inspector-redirect, compare; one mutant at a time, since the page
is told its mutant by a line written in front of the file; `--mutate www/app.js:FROM-TO`).

    .tools/py/bin/python tests/mutants.py www [--mutate www/app.js:FROM-TO ...] [--tests FILE ...] [--out DIR]

`api` is the package's hand-written JavaScript (`js/api.js`), which cargo-mutants does not read:
Stryker (`.ci/setup.sh mutants` installs it in .tools/stryker) mutates it (by default every line
before createApi's export list, whose text js/build.mjs reads) in a sandbox of the worktree's js/
and tests/, and for each mutant the sandbox wraps the same wasm-bindgen output
(built once from HEAD with the fast profile) with the mutated file (js/build.mjs) and runs the
Node tests (by default the short ones; `--tests` names others, Chromium's `tests/browser/` files
among them for the browser build's own paths, run one mutant at a time). Stryker runs every
runner in one sandbox, so the package is wrapped there once, before the first mutant, and never
while a test reads it. Stryker's report goes to
DIR/mutation.json, its surviving mutants one per line to DIR/survived.txt. About 6 s a mutant
with the seven files the forty-third session named (1 036 mutants of lines 100-795 in 52 min;
1 115 of lines 976-1857 in 63 min with nine files and three runners). Name every short Node file
that reaches the lines: a survivor may be one a file left out kills.

30 to 40 s a mutant on 2 cores (114 mutants in src/js.rs in the forty-first session,
132 in src/envoy/filter.rs in the forty-second). Needs `make setup` (node_modules, .tools) and
runs on the committed HEAD, not the working tree.
"""
import argparse
import json
import os
import shutil
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


def worktree(out):
    """A git worktree of HEAD under `out` (node_modules and .tools shared with this checkout)."""
    tree = out / "tree"
    if not tree.exists():
        subprocess.run(["git", "worktree", "add", "-q", "--detach", str(tree), "HEAD"], cwd=ROOT, check=True)
        for shared in ("node_modules", ".tools"):
            (tree / shared).symlink_to(ROOT / shared)
    else:
        # A tree left by an earlier run is moved to today's HEAD.
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True)
        subprocess.run(["git", "checkout", "-q", "--detach", head.stdout.strip()], cwd=tree, check=True)
    return tree


# What Stryker's sandbox holds of the worktree: the package's sources and the Node tests with the
# files they read (gitignore syntax; everything else stays out of the copy).
STRYKER_KEEP = ["/*", "!/js", "!/tests", "/tests/*", "!/tests/node", "!/tests/vectors",
                "!/Cargo.toml", "!/LICENSE", "!/package.json", "!/policies"]
# With Chromium tests named (`--tests tests/browser/...`): those tests, and the inspector's site,
# whose server they start themselves when CARDGATE_WWW_URL is unset.
STRYKER_KEEP_BROWSER = ["!/tests/browser", "!/www", "/www/pkg"]


# The inspector's tests (`www`): the Chromium files that open its page.
WWW_TESTS = ["tests/browser/inspector.test.mjs", "tests/browser/inspector-form.test.mjs",
             "tests/browser/inspector-redirect.test.mjs", "tests/browser/compare.test.mjs"]


def mutated_lines(tree, pattern, glue):
    """Stryker's mutate pattern: `pattern`, or every line of js/api.js before createApi's export
    list; None (with the reason printed) when `pattern` reaches that list. js/build.mjs reads the
    list's text, which Stryker's instrumentation rewrites, so every test run would fail the build.
    For `www`, `pattern` (www/app.js:FROM-TO) or the whole of www/app.js."""
    if glue == "www":
        if pattern is None:
            return "www/app.js"
        if not pattern.startswith("www/app.js:"):
            print("--mutate must be www/app.js:FROM-TO")
            return None
        return pattern
    lines = (tree / "js" / "api.js").read_text().split("\n")
    exports = max(i for i, line in enumerate(lines, 1) if line == "  return {")
    if pattern is None:
        return f"js/api.js:1-{exports - 1}"
    to = pattern.rpartition("-")[2]
    if not pattern.startswith("js/api.js:") or not to.isdigit() or int(to) >= exports:
        print(f"--mutate must be js/api.js:FROM-TO with TO before line {exports}, createApi's export list "
              "(js/build.mjs reads its text)")
        return None
    return pattern


def api(args, out, env):
    """js/api.js or www/app.js under Stryker (see the module's docstring)."""
    tree = worktree(out)
    mutated = "www/app.js" if args.glue == "www" else "js/api.js"
    mutate = [mutated_lines(tree, pattern, args.glue) for pattern in args.mutate or [None]]
    if None in mutate:
        return 1
    subprocess.run(["cargo", "build", "-q", "--release", "--bin", "cardgate"], cwd=tree, env=env, check=True)
    if run(GLUES["js"]["build"], tree, dict(env, **FAST), 900) != 0:
        print("the package does not build on HEAD with the fast profile")
        return 1
    # wasm-bindgen's output, before js/build.mjs wraps it: each mutant's sandbox wraps a copy.
    stage = out / "stage"
    shutil.rmtree(stage, ignore_errors=True)
    wasm = tree / "target" / "js" / "wasm32-unknown-unknown" / "release" / "cardgate.wasm"
    for target, folder in (("nodejs", "node"), ("web", "web")):
        subprocess.run(["wasm-bindgen", "--target", target, "--out-dir", str(stage / folder),
                        "--out-name", "cardgate", str(wasm)], env=env, check=True)
    tests = args.tests or (WWW_TESTS if args.glue == "www" else GLUES["js"]["tiers"](tree)[0])
    # Chromium tests (the browser build's own paths: hiddenWatermark, browserRedirect; the
    # inspector) load the web build from pkg/web and www/pkg/web, as `make test-browser` serves it.
    browser = any(t.startswith("tests/browser/") for t in tests)
    # The file Stryker instruments in the sandbox, kept aside once, and the one a page loads: the
    # web build's index.js (js/api.js is wrapped into it) or the inspector's app.js.
    served = "www/app.js" if args.glue == "www" else "pkg/web/index.js"
    script = out / "run-tests.sh"
    script.write_text("\n".join([
        "set -e",
        # Stryker runs every runner in one sandbox and switches mutants by an env variable, so
        # what the tests read is made once, by the dry run (which runs alone), under a lock: a
        # runner that rebuilt pkg/ while another runner's tests read it failed those tests, and
        # so counted that runner's mutant as killed.
        "exec 9> .cardgate-setup.lock",
        "flock 9",
        "if [ ! -e .cardgate-setup.done ]; then",
        f"  ln -sfn {ROOT / 'node_modules'} node_modules",
        f"  ln -sfn {ROOT / '.tools'} .tools",
        f"  mkdir -p target/release && ln -sf {tree / 'target' / 'release' / 'cardgate'} target/release/cardgate",
        f"  rm -rf pkg && cp -r {stage} pkg && node js/build.mjs pkg > /dev/null",
        f"  cp {served} .cardgate-served.js",
        "  touch .cardgate-setup.done",
        "fi",
        "flock -u 9",
        *([
            # Stryker's instrumented code reads the active mutant from `process.env`, which a
            # page has none of: the web build is told it (its `__stryker__.activeMutant`, which
            # that code reads first). Each run rewrites the build, hence one runner.
            '{ if [ -n "${__STRYKER_ACTIVE_MUTANT__:-}" ]; then',
            '    printf \'globalThis.__stryker__ = globalThis.__stryker__ || {}; '
            'globalThis.__stryker__.activeMutant = "%s";\\n\' "$__STRYKER_ACTIVE_MUTANT__"; fi;',
            f'  cat .cardgate-served.js; }} > {served}',
            "rm -rf www/pkg && mkdir -p www/pkg && cp -r pkg/web www/pkg/web",
            "unset CARDGATE_WWW_URL",
        ] if browser else []),
        "exec node --test " + ("--test-concurrency=1 " if browser else "") + " ".join(tests) + " > /dev/null 2>&1",
        ""]))
    config = out / "stryker.config.json"
    config.write_text(json.dumps({
        "testRunner": "command",
        "commandRunner": {"command": f"sh {script}"},
        "mutate": mutate,
        # A third runner: a mutant that stops a timer or a stream leaves its run idle until the
        # timeout (the dry run's time x 1.5 + timeoutMS), which is why that slack stays short.
        # One with Chromium tests (each run rewrites the web build in the shared sandbox).
        "concurrency": 1 if browser else 3,
        "coverageAnalysis": "off",
        "timeoutMS": 15000,
        "ignorePatterns": STRYKER_KEEP + (STRYKER_KEEP_BROWSER if browser else []),
        "reporters": ["clear-text", "json", "progress-append-only"],
        "jsonReporter": {"fileName": str(out / "mutation.json")},
        "tempDirName": str(out / "stryker-tmp"),
    }, indent=2))
    stryker = ROOT / ".tools" / "stryker" / "node_modules" / ".bin" / "stryker"
    if subprocess.run([str(stryker), "run", str(config)], cwd=tree, env=env).returncode != 0:
        return 1
    report = json.loads((out / "mutation.json").read_text())
    lines = (tree / mutated).read_text().split("\n")
    with open(out / "survived.txt", "w") as survived:
        for m in sorted(report["files"][mutated]["mutants"], key=lambda m: m["location"]["start"]["line"]):
            if m["status"] in ("Survived", "NoCoverage"):
                at = m["location"]["start"]
                survived.write(f"{at['line']}:{at['column']}\t{m['mutatorName']}\t{m.get('replacement', '')!r}"
                               f"\t{lines[at['line'] - 1].strip()}\n")
    print(f"surviving mutants: {out / 'survived.txt'}")
    return 0


def run(cmd, cwd, env, timeout):
    """The exit code, or 'timeout'."""
    try:
        return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, timeout=timeout).returncode
    except subprocess.TimeoutExpired:
        return "timeout"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("glue", choices=sorted(GLUES) + ["api", "www"])
    ap.add_argument("--only", type=int, nargs="*", help="mutant indices (in cargo-mutants' list order)")
    ap.add_argument("--out", help="results and worktree (default target/mutants-GLUE)")
    # `extend`: `--mutate A --mutate B` adds B to A (with plain nargs the last flag alone counted).
    ap.add_argument("--mutate", nargs="+", action="extend",
                    help="api: js/api.js:FROM-TO ..., those lines (default: all before the export list); "
                         "www: www/app.js:FROM-TO ... (default: all of it)")
    ap.add_argument("--tests", nargs="*", action="extend", help="api: the Node test files (default: the short ones); www: the Chromium files "
                         "(default: the inspector's)")
    args = ap.parse_args()
    # Absolute: Stryker and the glues run in the worktree, where a relative path would not lead.
    out = Path(args.out or ROOT / "target" / f"mutants-{args.glue}").resolve()
    out.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, PATH=f"{ROOT / '.tools' / 'node' / 'bin'}:{os.environ['PATH']}",
               CARDGATE_ENVOY=str(ROOT / ".tools" / "envoy-1.40.0" / "bin" / "envoy"))
    if args.glue in ("api", "www"):
        return api(args, out, env)
    glue = GLUES[args.glue]
    listed = subprocess.run(
        ["cargo", "mutants", "--list", "--json", "--diff", "-f", glue["file"], "--features", args.glue],
        cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    mutants = json.loads(listed.stdout)
    tree = worktree(out)
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
