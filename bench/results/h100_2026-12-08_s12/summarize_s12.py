#!/usr/bin/env python3
"""Twelfth session (H100): the tables of docs/BENCHMARKS.md's twelfth section.
usage: python3 summarize_s12.py   (reads call1_b1.json, call1_a1_c03f167.json, call1_w1.json here)
"""
import collections
import json
import math
import os

here = os.path.dirname(os.path.abspath(__file__))


def load(name):
    rows = collections.defaultdict(dict)
    models = {}
    for b in json.load(open(os.path.join(here, name)))["benchmarks"]:
        parts = b["name"].split("/iterations")[0].split("/")
        if parts[0] == "model":
            models["/".join(parts[1:5])] = b["real_time"]
        else:
            rows["/".join(parts[1:6])][parts[6]] = (b["real_time"], b.get("label", ""))
    return rows, models


def geomean(v):
    return math.exp(sum(map(math.log, v)) / len(v)) if v else float("nan")


b1, mb = load("call1_b1.json")
_, ma = load("call1_a1_c03f167.json")
print("## ping-pong walk (version 8) against the landed per-tile kernel, bf16 NHWC N1, us")
print("| layer | hopper_tma per tile (forced; its plan label) | persistent | ping-pong | per tile / ping-pong | router, rule on |")
print("|---|---|---|---|---|---|")
sums = collections.Counter()
ratios = collections.defaultdict(list)
for k, v in b1.items():
    if "hopper_tma+pingpong" not in v:
        continue
    m = k.split("/")[0]
    pt, pp = v["hopper_tma+per_tile"][0], v["hopper_tma+pingpong"][0]
    ps = v["hopper_tma+persist"][0]
    r, rl = v["router"]
    print(f"| {k.replace('/N1/bf16/nhwc', '')} | {pt:.1f} ({v['hopper_tma+per_tile'][1]}) | "
          f"{ps:.1f} | {pp:.1f} | {pt / pp:.2f} | {r:.1f} ({rl}) |")
    ratios[m].append(pt / pp)
    if "pingpong" in rl:
        sums[m + " routed: before (per tile)"] += pt
        sums[m + " routed: after (router)"] += r
for m, v in ratios.items():
    print(f"{m}: per tile / ping-pong geomean {geomean(v):.3f} over {len(v)} layers, "
          f"min {min(v):.2f}, max {max(v):.2f}")
for k in sorted(sums):
    print(k, round(sums[k], 1))
print("\n## end to end (graph replay, all layers): c03f167's router vs this tree with the rule on")
for k in sorted(mb):
    print(f"{k}: before {ma[k]:.1f} us, after {mb[k]:.1f} us, {ma[k] / mb[k]:.3f}x")

w1, _ = load("call1_w1.json")
print("\n## depthwise row window against the plain kernel (router), bf16 NHWC, us")
print("| layer | router (plain) | grouped+window | plain / window |")
print("|---|---|---|---|")
wr = collections.defaultdict(list)
for k, v in w1.items():
    if "grouped+window" not in v:
        continue
    r, w = v["router"][0], v["grouped+window"][0]
    print(f"| {k} | {r:.2f} | {w:.2f} | {r / w:.2f} |")
    wr["/".join(k.split("/")[:2])].append(r / w)
for k, v in wr.items():
    print(f"{k}: geomean {geomean(v):.3f} over {len(v)} layers ({min(v):.2f}-{max(v):.2f})")
