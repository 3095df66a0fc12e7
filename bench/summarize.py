#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Turns rdnaconv_bench's Google Benchmark JSON into tables (and charts).

    bench/summarize.py bench.json                      # short summary to stdout
    bench/summarize.py bench.json --markdown out.md    # full tables (docs/BENCHMARKS.md body)
    bench/summarize.py bench.json --charts docs/img    # PNG charts (python3-matplotlib)

Aggregates per model x batch x dtype x layout: total time of all layers with multiplicities,
effective TFLOPS (direct-convolution FLOPs / total time), speedup vs the vendor library as the
ratio of total times and as the geometric mean of per-layer ratios.
Where the run has ceiling rows (ceiling/mma_sync/fp16, ceiling/copy, ...: the GPU's matrix
instruction peaks and copy bandwidth, measured by the same binary), they are printed in a short
block, and the per-layer Markdown tables get the router row's fractions of them (of_mma, of_copy).
"""
import argparse
import json
import math
import sys
from collections import defaultdict


# The vendor rows: "cudnn" (NVIDIA: cuDNN's graph API, every plan timed) or "miopen" (AMD),
# whichever the JSON holds. "cudnn-legacy" (cudnnFind, the vendor row before 2026-12-06) is
# compared with "cudnn" by vendor_check().
VENDOR, VNAME = "cudnn", "cuDNN"
LEGACY = "cudnn-legacy"
# The ceiling rows of the last load(): [{what, us, tflops, gbps, label}] in the JSON's order.
CEILINGS = []


def set_vendor(layers):
    global VENDOR, VNAME
    if any(r["row"] == "miopen" for r in layers):
        VENDOR, VNAME = "miopen", "MIOpen"


def load(path):
    with open(path) as f:
        text = f.read()
    try:
        doc = json.loads(text)
    except json.JSONDecodeError:
        # a run stopped early (time limit): keep the rows written so far
        cut = text.rfind("\n    }")
        doc = json.loads(text[:cut + 6] + "\n  ]\n}\n") if cut > 0 else {"benchmarks": []}
    layers, models, errors = [], [], []
    del CEILINGS[:]
    for b in doc.get("benchmarks", []):
        name = b["name"]
        parts = [p for p in name.split("/") if not p.startswith("iterations:") and p not in ("manual_time", "real_time")]
        if b.get("error_occurred") or b.get("skipped"):
            errors.append((name, b.get("error_message", b.get("skip_message", "?"))))
            continue
        t_us = b["real_time"] * {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}[b.get("time_unit", "us")]
        if parts[0] == "layer" and len(parts) == 7:
            layers.append(dict(model=parts[1], batch=int(parts[2][1:]), dtype=parts[3], layout=parts[4],
                               layer=parts[5], row=parts[6], us=t_us, tflops=b.get("TFLOPS", 0.0),
                               gbps=b.get("GBps", 0.0), mult=int(b.get("mult", 1)), label=b.get("label", ""),
                               C=int(b.get("C", 0)), K=int(b.get("K", 0)), H=int(b.get("H", 0)),
                               R=int(b.get("R", 0)), stride=int(b.get("str", 1)), P=int(b.get("P", 0))))
            for c in ("of_mma", "of_copy"):
                if c in b:
                    layers[-1][c] = b[c]
        elif parts[0] == "ceiling" and len(parts) >= 2:
            CEILINGS.append(dict(what="/".join(parts[1:]), us=t_us, tflops=b.get("TFLOPS"), gbps=b.get("GBps"),
                                 label=b.get("label", "")))
        elif parts[0] == "model" and len(parts) == 7:
            models.append(dict(model=parts[1], batch=int(parts[2][1:]), dtype=parts[3], layout=parts[4],
                               impl=parts[5], how=parts[6], us=t_us, tflops=b.get("TFLOPS", 0.0)))
    set_vendor(layers)
    return doc.get("context", {}), layers, models, errors


def geomean(xs):
    xs = [x for x in xs if x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def group_layers(layers):
    """(model, batch, dtype, layout) -> layer -> row -> record (sweep rows excluded)"""
    g = defaultdict(lambda: defaultdict(dict))
    for r in layers:
        if r["model"] == "sweep3x3":
            continue
        g[(r["model"], r["batch"], r["dtype"], r["layout"])][r["layer"]][r["row"]] = r
    return g


def aggregates(g):
    out = []
    for key, ls in g.items():
        t_ours = t_vendor = flops = 0.0
        ratios = []
        complete = True
        for name, rows in ls.items():
            if "router" not in rows:
                complete = False
                continue
            r = rows["router"]
            t_ours += r["us"] * r["mult"]
            flops += r["tflops"] * 1e12 * r["us"] * 1e-6 * r["mult"]
            if VENDOR in rows:
                t_vendor += rows[VENDOR]["us"] * r["mult"]
                ratios.append(rows[VENDOR]["us"] / r["us"])
            else:
                complete = False
        out.append(dict(key=key, layers=sum(r["router"]["mult"] for r in ls.values() if "router" in r),
                        t_ours=t_ours, t_vendor=t_vendor if ratios else float("nan"),
                        tflops=flops / (t_ours * 1e-6) * 1e-12 if t_ours else 0.0,
                        speedup_sum=(t_vendor / t_ours) if ratios and t_ours else float("nan"),
                        speedup_geo=geomean(ratios), complete=complete))
    return sorted(out, key=lambda a: a["key"])


def is_method_row(row):
    """A row of one of rdnaconv's methods (not the router, the prepack, a fused or a vendor row)."""
    return row not in ("router", "prepack", VENDOR, LEGACY, "miopen") and "+" not in row


def vendor_check(layers, noise=0.03):
    """The graph-API vendor row against the legacy one, per layer: how many are at least as fast
    (and within `noise`), the geomean legacy / graph, the worst layers. None without both rows."""
    g = group_layers(layers)
    pairs = []
    for key, ls in g.items():
        for name, rows in ls.items():
            if VENDOR in rows and LEGACY in rows:
                pairs.append((key, name, rows[VENDOR], rows[LEGACY]))
    if not pairs:
        return None
    faster = sum(1 for *_, c, l in pairs if c["us"] <= l["us"])
    within = sum(1 for *_, c, l in pairs if c["us"] <= l["us"] * (1 + noise))
    worst = sorted(pairs, key=lambda p: p[3]["us"] / p[2]["us"])[:10]
    return dict(n=len(pairs), faster=faster, within=within, noise=noise,
                geo=geomean([l["us"] / c["us"] for *_, c, l in pairs]), worst=worst)


def vendor_check_text(vc, md=False):
    if not vc:
        return ""
    out = [f"cudnn (graph API) vs cudnn-legacy (cudnnFind) on {vc['n']} layers: at least as fast on "
           f"{vc['faster']} ({100 * vc['faster'] / vc['n']:.1f}%), within {100 * vc['noise']:.0f}% on "
           f"{vc['within']} ({100 * vc['within'] / vc['n']:.1f}%); geomean legacy / graph "
           f"{vc['geo']:.2f}x"]
    if md:
        out.append("\n| set | layer | cudnn µs (engine) | cudnn-legacy µs (algo) | legacy / graph |")
        out.append("|---|---|---:|---:|---:|")
        for key, name, c, l in vc["worst"]:
            out.append(f"| {key[0]} N{key[1]} {key[2]} {key[3]} | {name} | {c['us']:.1f} "
                       f"({c['label'].replace(VENDOR + ' ', '')}) | {l['us']:.1f} "
                       f"({l['label'].replace(LEGACY + ' ', '')}) | {l['us'] / c['us']:.2f} |")
    return "\n".join(out) + "\n"


def shape(r):
    return f"C{r['C']} K{r['K']} {r['H']}² {r['R']}x{r['R']}" + (f" s{r['stride']}" if r["stride"] > 1 else "")


def ceiling_lines():
    """One line per ceiling row: what, TFLOPS or GB/s, what ran."""
    out = []
    for c in CEILINGS:
        v = f"{c['tflops']:.1f} TFLOPS" if c["tflops"] is not None else f"{c['gbps']:.0f} GB/s"
        out.append(f"{'ceiling/' + c['what']:<24}{v:>14}  {c['label']}")
    return out


def print_summary(ctx, layers, models, errors):
    g = group_layers(layers)
    print(f"GPU run: {ctx.get('date', '?')}  host {ctx.get('host_name', '?')}")
    print(f"{'model':<16}{'N':>3} {'dtype':<5}{'layout':<6}{'layers':>7}{'rdnaconv ms':>13}{'TFLOPS':>8}"
          f"{'vendor ms':>11}{'x sum':>7}{'x geo':>7}")
    for a in aggregates(g):
        m, b, t, l = a["key"]
        print(f"{m:<16}{b:>3} {t:<5}{l:<6}{a['layers']:>7}{a['t_ours'] / 1e3:>13.3f}{a['tflops']:>8.1f}"
              f"{a['t_vendor'] / 1e3:>11.3f}{a['speedup_sum']:>7.2f}{a['speedup_geo']:>7.2f}")
    if CEILINGS:
        print("\nceilings (this GPU, this process; layer rows: of_mma, of_copy = their fraction)")
        for line in ceiling_lines():
            print(line)
    if models:
        print(f"\n{'end to end':<36}{'ms':>10}{'TFLOPS':>9}")
        for r in sorted(models, key=lambda r: (r["model"], r["batch"], r["dtype"], r["layout"], r["impl"], r["how"])):
            k = f"{r['model']} N{r['batch']} {r['dtype']} {r['layout']} {r['impl']} {r['how']}"
            print(f"{k:<36}{r['us'] / 1e3:>10.3f}{r['tflops']:>9.1f}")
    vc = vendor_check(layers)
    if vc:
        print("\n" + vendor_check_text(vc), end="")
    if errors:
        print(f"\n{len(errors)} rows skipped with an error, e.g. {errors[0][0]}: {errors[0][1]}")


def markdown(ctx, layers, models, errors):
    g = group_layers(layers)
    out = []
    w = out.append
    if CEILINGS:
        w("### Ceilings (matrix instruction peaks and copy bandwidth of this GPU, same process)\n")
        w("| row | TFLOPS | GB/s | what ran |")
        w("|---|---:|---:|---|")
        for c in CEILINGS:
            tf = f"{c['tflops']:.1f}" if c["tflops"] is not None else "-"
            gb = f"{c['gbps']:.0f}" if c["gbps"] is not None else "-"
            w(f"| ceiling/{c['what']} | {tf} | {gb} | {c['label']} |")
        w("")
    w("### Aggregates (router; sum over all layers with multiplicities)\n")
    w(f"| model | N | dtype | layout | layers | rdnaconv ms | eff. TFLOPS | {VNAME} ms | speedup (sum) | speedup (geomean) |")
    w("|---|---:|---|---|---:|---:|---:|---:|---:|---:|")
    for a in aggregates(g):
        m, b, t, l = a["key"]
        w(f"| {m} | {b} | {t} | {l} | {a['layers']} | {a['t_ours'] / 1e3:.3f} | {a['tflops']:.1f} | "
          f"{a['t_vendor'] / 1e3:.3f} | {a['speedup_sum']:.2f} | {a['speedup_geo']:.2f} |")
    if models:
        w("\n### End to end (every layer back to back on one stream; and replayed as a captured graph)\n")
        w(f"| model | N | dtype | layout | rdnaconv stream ms | rdnaconv graph ms | {VNAME} stream ms | {VNAME} graph ms |")
        w("|---|---:|---|---|---:|---:|---:|---:|")
        e = defaultdict(dict)
        for r in models:
            e[(r["model"], r["batch"], r["dtype"], r["layout"])][(r["impl"], r["how"])] = r["us"] / 1e3
        for k in sorted(e):
            v = e[k]
            cell = lambda i, h: f"{v[(i, h)]:.3f}" if (i, h) in v else "-"
            w(f"| {k[0]} | {k[1]} | {k[2]} | {k[3]} | {cell('rdnaconv', 'stream')} | {cell('rdnaconv', 'graph')} | "
              f"{cell(VENDOR, 'stream')} | {cell(VENDOR, 'graph')} |")
    for key in sorted(g):
        m, b, t, l = key
        w(f"\n### {m}, N = {b}, {t}, {l}\n")
        methods = sorted({row for rows in g[key].values() for row in rows if is_method_row(row)})
        legacy = any(LEGACY in rows for rows in g[key].values())
        frac = any("of_mma" in rows["router"] or "of_copy" in rows["router"]
                   for rows in g[key].values() if "router" in rows)
        head = "| layer | shape | x | router picks | µs | TFLOPS |"
        head += " of mma peak | of copy |" if frac else ""
        head += f" {VNAME} algo | {VNAME} µs | {VNAME} TFLOPS | vs {VNAME} |"
        head += " cudnn-legacy µs (algo) |" if legacy else ""
        head += "".join(f" {mm} µs |" for mm in methods) + " prepack µs |"
        w(head)
        w("|" + "---|" * (10 + 2 * int(frac) + int(legacy) + len(methods) + 1))
        for name, rows in g[key].items():
            r = rows.get("router")
            c = rows.get(VENDOR)
            if not r:
                continue
            best = min((rows[mm]["us"] for mm in methods if mm in rows), default=None)
            cells = [name, shape(r), str(r["mult"]), r["label"], f"{r['us']:.1f}", f"{r['tflops']:.1f}"]
            if frac:
                cells += [f"{r['of_mma']:.2f}" if "of_mma" in r else "-",
                          f"{r['of_copy']:.2f}" if "of_copy" in r else "-"]
            cells += [c["label"].replace(VENDOR + " ", "") if c else "-", f"{c['us']:.1f}" if c else "-",
                      f"{c['tflops']:.1f}" if c else "-", f"{c['us'] / r['us']:.2f}" if c else "-"]
            if legacy:
                lg = rows.get(LEGACY)
                cells.append(f"{lg['us']:.1f} ({lg['label'].replace(LEGACY + ' ', '')})" if lg else "-")
            for mm in methods:
                if mm in rows:
                    v = f"{rows[mm]['us']:.1f}"
                    cells.append(f"**{v}**" if best is not None and rows[mm]["us"] == best else v)
                else:
                    cells.append("-")
            cells.append(f"{rows['prepack']['us']:.1f}" if "prepack" in rows else "-")
            w("| " + " | ".join(cells) + " |")
    vc = vendor_check(layers)
    if vc:
        w("\n### The vendor rows: graph API (cudnn) against cudnnFind (cudnn-legacy)\n")
        w(vendor_check_text(vc, md=True))
    if errors:
        w(f"\n{len(errors)} rows did not run:\n")
        for n, e in errors[:40]:
            w(f"- `{n}`: {e}")
    return "\n".join(out) + "\n"


def bars(layers):
    """The issues' numbers: geomean over layers of vendor time / rdnaconv time (>= bar passes)."""
    g = group_layers(layers)
    out = [f"| bar | set | dtype | layout | method row | layers | geomean speed vs {VNAME} | min | max | bar | met |",
           "|---|---|---|---|---|---:|---:|---:|---:|---:|---|"]

    def add(name, key, row, pick, bar):
        """row: a method row, or a tuple of rows of which each layer takes the fastest present"""
        if key not in g:
            return
        alts = row if isinstance(row, tuple) else (row,)
        rs, cs = [], []
        for n, rows in g[key].items():
            have = [a for a in alts if a in rows and pick(rows[a])]
            if have and VENDOR in rows:
                rs.append(min(rows[a]["us"] for a in have))
                cs.append(rows[VENDOR]["us"])
        if not rs:
            return
        row = " or ".join(alts) + (" (best)" if len(alts) > 1 else "")
        ratios = [c / r for c, r in zip(cs, rs)]
        gm = geomean(ratios)
        out.append(f"| {name} | {key[0]} N{key[1]} | {key[2]} | {key[3]} | {row} | {len(ratios)} | {gm:.2f} | "
                   f"{min(ratios):.2f} | {max(ratios):.2f} | {bar} | {'yes' if gm >= bar else 'no'} |")

    for t in ("fp16", "bf16"):
        add("1x1 (issue 3)", ("resnet50_224", 32, t, "nhwc"), "gemm1x1", lambda r: r["R"] == 1, 0.8)
    for t in ("fp16", "bf16"):
        add("3x3 NHWC (issue 3)", ("sd35_vae_512", 1, t, "nhwc"), "router", lambda r: r["R"] == 3, 0.7)
        add("3x3 NCHW (issue 3)", ("sd35_vae_512", 1, t, "nchw"), "router", lambda r: r["R"] == 3, 1.0)
    big = lambda r: r["R"] == 3 and r["C"] >= 256 and r["K"] >= 256 and r["P"] >= 128 and r["stride"] == 1
    for m, b in (("sd35_vae_512", 1), ("flux2_vae_1024", 1)):
        for t in ("fp16", "bf16"):
            add("Winograd NHWC (issue 4)", (m, b, t, "nhwc"), ("winograd", "winograd_fused"), big, 1.0)
            add("Winograd NCHW (issue 4)", (m, b, t, "nchw"), ("winograd", "winograd_fused"), big, 1.3)
    return "\n".join(out) + "\n"


def sweep(layers):
    """The router sweep (model 'sweep3x3'): per layout and shape, each method's time, the best."""
    rows = [r for r in layers if r["model"] == "sweep3x3"]
    if not rows:
        return ""
    g = defaultdict(dict)
    for r in rows:
        g[(r["layout"], r["H"], r["C"], r["K"])][r["row"]] = r
    methods = sorted({r["row"] for r in rows if is_method_row(r["row"])})
    out = ["| layout | H=W | C | K | " + " | ".join(f"{m} µs" for m in methods) + f" | best | router picks | {VNAME} µs |",
           "|---|---:|---:|---:|" + "---:|" * len(methods) + "---|---|---:|"]
    for key in sorted(g):
        v = g[key]
        ts = {m: v[m]["us"] for m in methods if m in v}
        best = min(ts, key=ts.get) if ts else "-"
        cells = [f"**{ts[m]:.1f}**" if m == best else (f"{ts[m]:.1f}" if m in ts else "-") for m in methods]
        pick = v["router"]["label"].split(" ")[0] if "router" in v else "-"
        cd = f"{v[VENDOR]['us']:.1f}" if VENDOR in v else "-"
        out.append(f"| {key[0]} | {key[1]} | {key[2]} | {key[3]} | " + " | ".join(cells) + f" | {best} | {pick} | {cd} |")
    return "\n".join(out) + "\n"


def charts(layers, models, outdir):
    import os
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    os.makedirs(outdir, exist_ok=True)
    g = group_layers(layers)
    ag = [a for a in aggregates(g) if not math.isnan(a["t_vendor"])]
    if ag:
        labels = [f"{k[0]}\nN{k[1]} {k[2]} {k[3]}" for k in (a["key"] for a in ag)]
        ours = [a["tflops"] for a in ag]
        flops = [a["tflops"] * a["t_ours"] for a in ag]
        vendor = [f / a["t_vendor"] for f, a in zip(flops, ag)]
        fig, ax = plt.subplots(figsize=(max(8, len(ag) * 0.9), 5))
        xs = range(len(ag))
        ax.bar([x - 0.2 for x in xs], ours, 0.4, label="rdnaconv (router)")
        ax.bar([x + 0.2 for x in xs], vendor, 0.4, label=f"{VNAME} ({'graph API, every plan timed' if VENDOR == 'cudnn' else 'miopenFind'})")
        ax.set_xticks(list(xs))
        ax.set_xticklabels(labels, rotation=60, ha="right", fontsize=7)
        ax.set_ylabel("effective TFLOPS (direct-conv FLOPs / total layer time)")
        ax.set_title("Per-model aggregate, H200")
        ax.legend()
        fig.tight_layout()
        fig.savefig(f"{outdir}/aggregate_tflops.png", dpi=110)
        plt.close(fig)
    for key in sorted(g):
        rows = [(n, r[VENDOR]["us"] / r["router"]["us"]) for n, r in g[key].items() if "router" in r and VENDOR in r]
        if not rows:
            continue
        fig, ax = plt.subplots(figsize=(max(6, len(rows) * 0.35), 4))
        ax.bar(range(len(rows)), [v for _, v in rows], color=["tab:green" if v >= 1 else "tab:red" for _, v in rows])
        ax.axhline(1.0, color="k", lw=0.8)
        ax.set_xticks(range(len(rows)))
        ax.set_xticklabels([n for n, _ in rows], rotation=75, ha="right", fontsize=6)
        ax.set_ylabel(f"{VNAME} time / rdnaconv time")
        ax.set_title(f"{key[0]} N{key[1]} {key[2]} {key[3]}")
        fig.tight_layout()
        fig.savefig(f"{outdir}/speedup_{key[0]}_N{key[1]}_{key[2]}_{key[3]}.png", dpi=110)
        plt.close(fig)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("json")
    ap.add_argument("--markdown")
    ap.add_argument("--charts")
    ap.add_argument("--sweep", help="write the router sweep table (markdown) here")
    ap.add_argument("--bars", help="write the issues' bar table (markdown) here")
    a = ap.parse_args()
    ctx, layers, models, errors = load(a.json)
    print_summary(ctx, layers, models, errors)
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write(markdown(ctx, layers, models, errors))
    if a.charts:
        charts(layers, models, a.charts)
    if a.sweep:
        with open(a.sweep, "w") as f:
            f.write(sweep(layers))
    if a.bars:
        with open(a.bars, "w") as f:
            f.write(bars(layers))
    return 0


if __name__ == "__main__":
    sys.exit(main())
