#!/usr/bin/env python3
"""Seeds the fuzz corpora from the shared vectors, at run time (nothing is duplicated in git).

    seed.py OUT_DIR   writes OUT_DIR/<target>/<sha1 of the bytes> for every fuzz target

card_parse, canonical and evaluate get every vector's card bytes (rebuilt exactly as the
runners send them, DESIGN.md "Vectors"); readers gets each requirement, observation, policy and
Envoy plugin configuration behind its selector byte (0 requirement, 1 observation, 2 policy,
3 filter configuration); version_order and watermark get the version strings, durations and
watermark values the vectors use; interface_choice the bindings and protocol versions of each
card's interfaces, as unstructured bytes; url_form each interface url; envoy_request each card
behind its five selector bytes and an empty free value (fuzz_targets/envoy_request.rs: the path
and lag vary with the card's place in the vectors). Standard library only.
"""

import base64
import glob
import hashlib
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def case_bytes(case):
    if "card" in case:
        return json.dumps(case["card"], separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    if "card_text" in case:
        return case["card_text"].encode("utf-8")
    return base64.b64decode(case["card_base64"])


def plugin_configs():
    """The JSON plugin configurations embedded in envoy/*.yaml (`value: |` blocks)."""
    for path in sorted(glob.glob(os.path.join(ROOT, "envoy", "*.yaml"))):
        lines = open(path, encoding="utf-8").read().split("\n")
        for i, line in enumerate(lines):
            if line.strip() != "value: |":
                continue
            indent = len(line) - len(line.lstrip())
            block = []
            for nxt in lines[i + 1:]:
                if nxt.strip() and len(nxt) - len(nxt.lstrip()) <= indent:
                    break
                block.append(nxt)
            yield "\n".join(block).encode("utf-8")


def main(out):
    targets = ("card_parse", "canonical", "evaluate", "readers", "version_order", "watermark", "interface_choice",
               "url_form", "envoy_request")
    seeds = {t: set() for t in targets}
    for path in sorted(glob.glob(os.path.join(ROOT, "tests", "vectors", "*.json"))):
        for case in json.load(open(path, encoding="utf-8"))["cases"]:
            card = case_bytes(case)
            for t in ("card_parse", "canonical", "evaluate"):
                seeds[t].add(card)
            n = len(seeds["envoy_request"])
            # path, caller headers A (none) and B (max-stale=5, task.execute.v3), the lag, the clock.
            seeds["envoy_request"].add(bytes([n % 13, 0, 0x09, n % 4, 0, 0]) + card)
            req, obs = case.get("requirement", {}), case.get("observation", {})
            seeds["readers"].add(b"\x00" + json.dumps(req).encode())
            seeds["readers"].add(b"\x01" + json.dumps(obs).encode())
            for text in [req.get("min_version"), req.get("max_stale")] + list(obs.values()):
                if isinstance(text, str):
                    seeds["version_order"].add(text.encode())
                    seeds["watermark"].add(text.encode())
            if isinstance(case.get("card"), dict) and isinstance(case["card"].get("version"), str):
                seeds["version_order"].add(case["card"]["version"].encode())
            interfaces = case.get("card", {}).get("supportedInterfaces") if isinstance(case.get("card"), dict) else None
            if isinstance(interfaces, list):
                # Unstructured bytes for the target's `arbitrary` input: the bindings and versions.
                seeds["interface_choice"].add("".join(
                    str(i.get(k, "")) for i in interfaces if isinstance(i, dict)
                    for k in ("protocolBinding", "protocolVersion")).encode())
                for i in interfaces:
                    if isinstance(i, dict) and isinstance(i.get("url"), str):
                        seeds["url_form"].add(i["url"].encode("utf-8", "surrogatepass"))
    for path in sorted(glob.glob(os.path.join(ROOT, "policies", "*.json")) + glob.glob(os.path.join(ROOT, "tests", "policies_invalid", "*.json"))):
        seeds["readers"].add(b"\x02" + open(path, "rb").read())
    for config in plugin_configs():
        seeds["readers"].add(b"\x03" + config)
    total = 0
    for target, items in seeds.items():
        d = os.path.join(out, target)
        os.makedirs(d, exist_ok=True)
        for data in items:
            with open(os.path.join(d, hashlib.sha1(data).hexdigest()), "wb") as f:
                f.write(data)
        total += len(items)
    print("fuzz seeds: %d files from tests/vectors, policies and envoy/*.yaml into %s" % (total, out))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
