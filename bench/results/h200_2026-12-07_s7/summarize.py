#!/usr/bin/env python3
"""Per-layer tables of the seventh session's JSON: python3 summarize.py DIR [PREFIX] (PREFIX: call1_ or call2_)."""
import json, re, sys, os, math, collections
d = sys.argv[1]
prefix = sys.argv[2] if len(sys.argv) > 2 else ""
def load(name):
    p = os.path.join(d, prefix + name + ".json")
    if not os.path.exists(p): return []
    try: return json.load(open(p))["benchmarks"]
    except Exception as e:
        print(name, "unreadable", e); return []
def rows(bs):
    out = collections.defaultdict(dict)
    for b in bs:
        m = re.match(r"layer/([^/]+)/N(\d+)/([^/]+)/([^/]+)/([^/]+)/([^/]+)/", b["name"])
        if not m: continue
        key = m.group(1, 2, 3, 4, 5)
        if b.get("error_occurred"):
            out[key][m.group(6)] = ("ERR", b.get("error_message", "")[:80]); continue
        out[key][m.group(6)] = (b["real_time"], b.get("label", ""), b.get("mult", 1), b.get("GBps", 0), b.get("TFLOPS", 0))
    return out
def gm(xs):
    xs = [x for x in xs if x > 0]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")
def table(name, cols, base):
    r = rows(load(name))
    if not r: return
    print(f"== {name}: {len(r)} layers")
    ratios = collections.defaultdict(list); sums = collections.defaultdict(float)
    for k, v in sorted(r.items()):
        line = f"{'/'.join(k)[:60]:60s}"
        for c in cols:
            x = v.get(c)
            line += f" {c}={x[0]:.1f}" if x and x[0] != "ERR" else (f" {c}=ERR({x[1]})" if x else "")
        b = v.get(base)
        for c in cols:
            x = v.get(c)
            if b and x and b[0] != "ERR" and x[0] != "ERR" and c != base:
                ratios[c].append(b[0] / x[0]); 
        for c in cols:
            x = v.get(c)
            if x and x[0] != "ERR": sums[c] += x[0] * x[2]
        print(line)
    for c, xs in ratios.items(): print(f"  {base}/{c}: geomean {gm(xs):.3f} min {min(xs):.3f} max {max(xs):.3f} n={len(xs)}")
    print("  sums x mult:", {c: round(s, 1) for c, s in sums.items()})
table("tall", ["router", "hopper_tma", "hopper_tma+tall", "cudnn"], "hopper_tma")
table("resnet_small", ["router", "router+small", "cudnn"], "router")
table("padmodes", ["router", "pad_zeros", "pad_reflect", "pad_replicate", "pad_circular"], "pad_zeros")
table("grouped", ["router", "cudnn"], "cudnn")
