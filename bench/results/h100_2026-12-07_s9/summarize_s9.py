#!/usr/bin/env python3
"""Ninth session: NCHW 1x1 layers, gemm1x1 against cblocked1x1 (call1_cb.json, --set=nchw1x1).
Prints per layer the router's row (gemm1x1 when the run was made), both forced methods, cuDNN,
and which method the sm90 rule now picks (router.hpp: K >= 512, C >= 1024, or N*P*Q <= 3136 with
C >= 256); then per model the layer sums with multiplicities: before (the router's row), after
(the rule's method, its forced row: the same plan the router now makes) and cuDNN."""
import json, re, sys, collections

path = sys.argv[1] if len(sys.argv) > 1 else "call1_cb.json"
rows = collections.OrderedDict()
for b in json.load(open(path))["benchmarks"]:
    m = re.match(r"layer/([^/]+)/N(\d+)/(\w+)/(\w+)/([^/]+)/([^/]+)/", b["name"])
    if not m:
        continue
    key = (m.group(1), int(m.group(2)), m.group(5))
    r = rows.setdefault(key, {})
    r[m.group(6)] = b["real_time"]
    for f in ("C", "K", "P", "mult"):
        if f in b:
            r[f] = int(b[f])


def rule(n, c, k, p):
    return k >= 512 or c >= 1024 or (n * p * p <= 56 * 56 and c >= 256)


sums = collections.defaultdict(lambda: [0.0, 0.0, 0.0])
print("| model | N | layer | C | K | P | gemm1x1 | cblocked1x1 | cuDNN | cb / g | rule |")
print("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---|")
for (model, n, layer), r in rows.items():
    g, cb, cu = r["gemm1x1"], r["cblocked1x1"], r["cudnn"]
    pick = rule(n, r["C"], r["K"], r["P"])
    print(f"| {model} | {n} | {layer} | {r['C']} | {r['K']} | {r['P']} | {g:.1f} | {cb:.1f} | "
          f"{cu:.1f} | {g / cb:.2f} | {'cblocked1x1' if pick else 'gemm1x1'} |")
    s = sums[(model, n)]
    mult = r.get("mult", 1)
    s[0] += r["router"] * mult
    s[1] += (cb if pick else r["router"]) * mult
    s[2] += cu * mult
print()
print("| model | N | 1x1 layers, sum before (us) | after | cuDNN | after / before | cuDNN / after |")
print("|---|---:|---:|---:|---:|---:|---:|")
for (model, n), (b, a, c) in sums.items():
    print(f"| {model} | {n} | {b:.1f} | {a:.1f} | {c:.1f} | {b / a:.2f}x | {c / a:.2f}x |")
