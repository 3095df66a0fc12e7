#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Before/after table of two rdnaconv_bench JSON files from the same run (tools/bench_pair.sh).

    bench/compare.py --before b1.json [b2.json ...] --after a1.json [a2.json ...]
                     [--markdown out.md] [--limit 1.03]

Rows are matched by name; with several files per side (alternating rounds of one run), a row's
time is its median over that side's files. The compared time is the stream time of R back-to-back calls over R:
the counter stream_us where a file has it, else the row's time (binaries from before the graph
timing measured exactly that as their row time). The after file's graph time is shown beside it.
Exits 1 when an rdnaconv row (not a vendor row, not a prepack row) is slower than --limit times
its before time, or when a row of the before file is missing after.
"""
import argparse
import json
import sys

VENDOR_ROWS = ("cudnn", "miopen")


def rows(path):
    with open(path) as f:
        doc = json.load(f)
    out = {}
    for b in doc.get("benchmarks", []):
        if b.get("error_occurred"):
            continue
        out[b["name"]] = b
    return out


def stream_time(b):
    return b["stream_us"] if "stream_us" in b else b["real_time"]


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else 0.5 * (xs[n // 2 - 1] + xs[n // 2])


def merged(paths):
    """name -> (row of the first file, median stream time, median row time) over the files."""
    runs = [rows(p) for p in paths]
    out = {}
    for name, b in runs[0].items():
        got = [r[name] for r in runs if name in r]
        out[name] = (b, median([stream_time(g) for g in got]), median([g["real_time"] for g in got]))
    return out


def kind(name):
    parts = name.split("/")
    return parts[6] if parts[0] == "layer" and len(parts) > 6 else parts[0]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", nargs="+", required=True)
    ap.add_argument("--after", nargs="+", required=True)
    ap.add_argument("--markdown")
    ap.add_argument("--limit", type=float, default=1.03)
    a = ap.parse_args()
    old, new = merged(a.before), merged(a.after)
    lines = [f"{len(a.before)} before and {len(a.after)} after runs; times are medians over them.", "",
             "| row | before label | after label | before µs | after µs | after/before | after graph µs |",
             "| --- | --- | --- | ---: | ---: | ---: | ---: |"]
    slower, missing, ratios = [], [], []
    for name, (b, t0, _) in old.items():
        short = name.replace("/iterations:1/manual_time", "")
        if name not in new:
            missing.append(short)
            continue
        n, t1, g1 = new[name]
        r = t1 / t0
        ours = kind(name) not in VENDOR_ROWS + ("prepack",)
        changed = b.get("label", "") != n.get("label", "")
        if ours:
            ratios.append(r)
            if r > a.limit:
                slower.append((short + (f" (method {b.get('label')} -> {n.get('label')})" if changed else ""), r))
        lines.append(f"| {short} | {b.get('label', '')} | {n.get('label', '')} | {t0:.1f} | {t1:.1f} | {r:.3f} | {g1:.1f} |")
    geo = 1.0
    for r in ratios:
        geo *= r
    geo = geo ** (1 / len(ratios)) if ratios else float("nan")
    summary = (f"{len(ratios)} rdnaconv rows compared, geometric mean after/before {geo:.3f}, "
               f"{len(slower)} slower than x{a.limit}, {len(missing)} missing after")
    lines.append("")
    lines.append(summary)
    for s, r in slower:
        lines.append(f"- slower: {s} x{r:.3f}")
    for s in missing:
        lines.append(f"- missing after: {s}")
    text = "\n".join(lines) + "\n"
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write(text)
    print(summary)
    for s, r in slower:
        print(f"slower: {s} x{r:.3f}")
    return 1 if slower or missing else 0


if __name__ == "__main__":
    sys.exit(main())
