#!/usr/bin/env python3
"""Tenth session: hopper_tma per tile (hopper_tma+per_tile) against version 6, the persistent walk
(hopper_tma+persist), and version 7 (hopper_halo) where it applies, with the router's row and
cuDNN, bf16 NHWC layers (rdnaconv_bench --set=full --schedule=persistent). Per layer the times
(us) and ratios; per (model, N) the sums with multiplicities over the layers that have each row."""
import json, re, sys, collections, math

path = sys.argv[1] if len(sys.argv) > 1 else "pers.json"
rows = collections.OrderedDict()
for b in json.load(open(path))["benchmarks"]:
    m = re.match(r"layer/([^/]+)/N(\d+)/(\w+)/(\w+)/([^/]+)/([^/]+)/", b["name"])
    if not m or b.get("error_occurred"):
        continue
    key = (m.group(1), int(m.group(2)), m.group(5))
    r = rows.setdefault(key, {})
    r[m.group(6)] = b["real_time"]
    for f in ("C", "K", "P", "R", "mult"):
        if f in b:
            r[f] = int(b[f])
    if m.group(6) == "router":
        r["router_label"] = b.get("label", "")

cols = ["router", "hopper_tma+per_tile", "hopper_tma+persist", "hopper_halo", "cudnn"]
print("| model | N | layer | C | K | P | " + " | ".join(cols) + " | persist / per_tile | halo / per_tile | cuDNN / best |")
print("|---|---:|---|---:|---:|---:|" + "---:|" * (len(cols) + 3))
sums = collections.defaultdict(lambda: collections.defaultdict(float))
ratios = collections.defaultdict(list)
for (model, n, layer), r in rows.items():
    if "hopper_tma+per_tile" not in r:
        continue
    t = [r.get(c) for c in cols]
    pt, ps, ha, cu = r["hopper_tma+per_tile"], r.get("hopper_tma+persist"), r.get("hopper_halo"), r.get("cudnn")
    best = min(x for x in (r.get("router"), pt, ps, ha) if x)
    f = lambda x: f"{x:.1f}" if x else "-"
    print(f"| {model} | {n} | {layer} | {r.get('C')} | {r.get('K')} | {r.get('P')} | " +
          " | ".join(f(x) for x in t) +
          f" | {pt / ps:.2f}x | " + (f"{pt / ha:.2f}x" if ha else "-") + " | " +
          (f"{cu / best:.2f}x" if cu else "-") + " |")
    mult = r.get("mult", 1)
    s = sums[(model, n)]
    for c in cols:
        if r.get(c):
            s[c] += r[c] * mult
    if ps:
        ratios[(model, n, "persist")].append(pt / ps)
    if ha:
        ratios[(model, n, "halo")].append(pt / ha)
        s["halo_layers_per_tile"] += pt * mult
        s["halo_layers_halo"] += ha * mult
        if cu:
            s["halo_layers_cudnn"] += cu * mult
print()
print("| model | N | sum router | per_tile | persist | cuDNN | persist / per_tile (geomean, range) | halo layers: per_tile -> halo (cuDNN) | halo / per_tile (geomean, range) |")
print("|---|---:|---:|---:|---:|---:|---|---|---|")
gm = lambda v: math.exp(sum(map(math.log, v)) / len(v)) if v else float("nan")
for (model, n), s in sums.items():
    p, h = ratios[(model, n, "persist")], ratios[(model, n, "halo")]
    print(f"| {model} | {n} | {s['router']:.1f} | {s['hopper_tma+per_tile']:.1f} | {s['hopper_tma+persist']:.1f} | {s['cudnn']:.1f} | "
          f"{gm(p):.3f} ({min(p):.2f}-{max(p):.2f}) | " +
          (f"{s['halo_layers_per_tile']:.1f} -> {s['halo_layers_halo']:.1f} ({s['halo_layers_cudnn']:.1f}) | {gm(h):.3f} ({min(h):.2f}-{max(h):.2f})" if h else "- | -") + " |")
