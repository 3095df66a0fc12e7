#!/usr/bin/env python3
"""Eleventh session: c03f167's benchmark binary (a1.json: hopper_tma per tile and persistent,
before the epilogue by shifts) against this session's (b1.json, c1.json for cuDNN: the same rows after it, version 8's
ping-pong row, the router's row and cuDNN), bf16 NHWC layers of the VAEs. Per layer the times (us)
and ratios; per model the sums with multiplicities and the geomeans of the ratios."""
import json, re, sys, collections, math

def load(path):
    rows = collections.OrderedDict()
    for b in json.load(open(path))["benchmarks"]:
        m = re.match(r"layer/([^/]+)/N(\d+)/(\w+)/(\w+)/([^/]+)/([^/]+)/", b["name"])
        if not m or b.get("error_occurred"):
            continue
        r = rows.setdefault((m.group(1), int(m.group(2)), m.group(5)), {})
        r[m.group(6)] = b["real_time"]
        for f in ("C", "K", "P", "R", "mult"):
            if f in b:
                r[f] = int(b[f])
    models = {}
    for b in json.load(open(path))["benchmarks"]:
        m = re.match(r"model/([^/]+)/N(\d+)/(\w+)/(\w+)/([^/]+)/graph", b["name"])
        if m and not b.get("error_occurred"):
            models[(m.group(1), m.group(5))] = b["real_time"]
    return rows, models

b_rows, b_models = load(sys.argv[2] if len(sys.argv) > 2 else "b1.json")
a_rows, a_models = load(sys.argv[1] if len(sys.argv) > 1 else "a1.json")
try:  # cuDNN's rows, same call, same binary as b1 (c1.json)
    c_rows, c_models = load(sys.argv[3] if len(sys.argv) > 3 else "c1.json")
    for k, r in c_rows.items():
        if "cudnn" in r and k in b_rows:
            b_rows[k]["cudnn"] = r["cudnn"]
    b_models.update(c_models)
except FileNotFoundError:
    pass
PT, PS, PP = "hopper_tma+per_tile", "hopper_tma+persist", "hopper_tma+pingpong"
f = lambda x: f"{x:.1f}" if x else "-"
q = lambda x, y: f"{x / y:.2f}x" if x and y else "-"
print("| model | layer | C | K | P | R | router | per_tile before | per_tile after | persist before | persist after | pingpong | cuDNN | per_tile before/after | per_tile / pingpong | cuDNN / pingpong |")
print("|---|---|---:|---:|---:|---:|" + "---:|" * 10)
sums = collections.defaultdict(lambda: collections.defaultdict(float))
ratios = collections.defaultdict(list)
for key, r in b_rows.items():
    if PT not in r:
        continue
    a = a_rows.get(key, {})
    model = key[0]
    print(f"| {model} | {key[2]} | {r.get('C')} | {r.get('K')} | {r.get('P')} | {r.get('R')} | {f(r.get('router'))} | {f(a.get(PT))} | {f(r[PT])} | "
          f"{f(a.get(PS))} | {f(r.get(PS))} | {f(r.get(PP))} | {f(r.get('cudnn'))} | {q(a.get(PT), r[PT])} | {q(r[PT], r.get(PP))} | {q(r.get('cudnn'), r.get(PP))} |")
    mult = r.get("mult", 1)
    s = sums[model]
    for c, v in (("router", r.get("router")), ("pt", r[PT]), ("pp", r.get(PP)), ("cudnn", r.get("cudnn")), ("pt_before", a.get(PT))):
        if v:
            s[c] += v * mult
    if r.get(PP) and r.get("router"):
        s["best"] += min(r["router"], r[PP]) * mult
    if a.get(PT):
        ratios[(model, "shift")].append(a[PT] / r[PT])
    if r.get(PP):
        ratios[(model, "pp")].append(r[PT] / r[PP])
        if r.get("cudnn"):
            ratios[(model, "cudnn_pp")].append(r["cudnn"] / r[PP])
gm = lambda v: f"{math.exp(sum(map(math.log, v)) / len(v)):.3f} ({min(v):.2f}-{max(v):.2f}, {len(v)})" if v else "-"
print()
print("| model | sum router | per_tile before | per_tile after | pingpong | min(router, pingpong) | cuDNN | per_tile before/after geomean | per_tile/pingpong geomean | cuDNN/pingpong geomean |")
print("|---|---:|---:|---:|---:|---:|---:|---|---|---|")
for model, s in sums.items():
    print(f"| {model} | {s['router']:.1f} | {s['pt_before']:.1f} | {s['pt']:.1f} | {s['pp']:.1f} | {s['best']:.1f} | {s['cudnn']:.1f} | "
          f"{gm(ratios[(model, 'shift')])} | {gm(ratios[(model, 'pp')])} | {gm(ratios[(model, 'cudnn_pp')])} |")
print()
print("model rows (graph replay, us): " + ", ".join(f"{k[0]} {k[1]}: after {v:.1f}" + (f" / before {a_models[k]:.1f}" if k in a_models else "") for k, v in b_models.items()))
