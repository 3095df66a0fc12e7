#!/usr/bin/env python3
"""Tables of the eighth session's router runs (calls 6 and 7, same binary, two samples):
python3 summarize_s8.py call6_ call7_  (each prefix names rn1/vae/pad/rn32 JSON files here).
Per row the mean of the samples; ratios are per layer, geomeans over layers, sums weighted by mult."""
import collections, json, math, os, re, sys

here = os.path.dirname(os.path.abspath(__file__))
prefixes = sys.argv[1:] or ["call6_", "call7_"]


def load(name):
    rows = collections.defaultdict(lambda: collections.defaultdict(list))
    models = collections.defaultdict(list)
    for pre in prefixes:
        p = os.path.join(here, pre + name + ".json")
        if not os.path.exists(p):
            continue
        for b in json.load(open(p))["benchmarks"]:
            if b.get("error_occurred"):
                continue
            m = re.match(r"layer/([^/]+)/N(\d+)/([^/]+)/([^/]+)/([^/]+)/([^/]+)/", b["name"])
            if m:
                rows[m.group(1, 2, 3, 4, 5)][m.group(6)].append((b["real_time"], b.get("mult", 1), b.get("label", "")))
                continue
            m = re.match(r"model/([^/]+)/N(\d+)/([^/]+)/([^/]+)/([^/]+)/([^/]+)", b["name"])
            if m:
                models[m.group(1, 2, 3, 4, 5, 6)].append(b["real_time"])
    return rows, models


def mean(xs):
    return sum(xs) / len(xs)


def gm(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")


def table(name, cols, base, group=lambda k: k[3]):
    rows, models = load(name)
    if not rows:
        return
    print(f"== {name}: {len(rows)} layer rows, samples per row {max(len(v) for r in rows.values() for v in r.values())}")
    ratios = collections.defaultdict(lambda: collections.defaultdict(list))
    sums = collections.defaultdict(lambda: collections.defaultdict(float))
    for k, v in sorted(rows.items()):
        line = f"{'/'.join(k)[:58]:58s}"
        for c in cols:
            if c in v:
                line += f" {c}={mean([x[0] for x in v[c]]):.1f}"
        lab = v.get("router", [(0, 1, "")])[0][2]
        print(line + f"  [{lab}]")
        if base in v:
            b = mean([x[0] for x in v[base]])
            for c in cols:
                if c in v and c != base:
                    ratios[group(k)][c].append(b / mean([x[0] for x in v[c]]))
        if all(c in v for c in cols):
            for c in cols:
                sums[group(k)][c] += mean([x[0] for x in v[c]]) * v[c][0][1]
    for g in ratios:
        for c, xs in ratios[g].items():
            print(f"  {g}: {base}/{c} geomean {gm(xs):.3f} min {min(xs):.3f} max {max(xs):.3f} n={len(xs)}")
        print(f"  {g}: sums x mult (layers with every column):", {c: round(s, 1) for c, s in sums[g].items()})
    for k, xs in sorted(models.items()):
        print("  model", "/".join(k), [round(x, 1) for x in xs], "mean", round(mean(xs), 1))


table("rn1", ["router+main", "router", "cudnn"], "router+main")
table("vae", ["hopper_tma+main", "hopper_tma+tall", "router", "cudnn"], "hopper_tma+main", group=lambda k: k[0])
table("pad", ["router", "pad_zeros", "pad_reflect", "pad_replicate", "pad_circular"], "pad_zeros")
table("rn32", ["router", "cudnn"], "router")
