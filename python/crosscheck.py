#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Cross-check of the vendor row: PyTorch's F.conv2d (python/bench_layers.py's JSON) against the
C++ benchmark's cudnn row (rdnaconv_bench's Google Benchmark JSON), layer by layer.

    python3 python/crosscheck.py --cpp bench.json --torch torch_layers.json [more.json ...] \\
        [--markdown crosscheck.md] [--out crosscheck.json] [--tolerance 0.15] [--cpp-row cudnn]

Rows are joined on (model, batch, dtype, layout, layer): the C++ row name is
layer/<model>/N<batch>/<dtype>/<layout>/<layer>/<label> (Google Benchmark appends
/iterations:1/manual_time), its time is real_time in the JSON's time_unit. Per layer:
ratio = PyTorch cuDNN / C++ cudnn (> 1: PyTorch slower). Two times "differ by more than 15%"
when the slower over the faster exceeds 1.15 (the same whichever side is the numerator). The
rdnaconv columns are compared the same way (rdnaconv op in PyTorch / C++ router row): the two
harnesses measure the same kernels, so that ratio says how far the harnesses themselves agree.
Engines: the C++ row's label (the engine and knobs it picked), and the CUDA kernels PyTorch's
call ran (bench_layers.py --kernels; PyTorch does not expose cuDNN's engine id), else n/a.
Exit status: 0, or 2 when the two files have no layer in common.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Dict, List, Optional, Sequence, Tuple

UNIT_US = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}


def load_text(path: str) -> dict:
    with open(path) as f:
        text = f.read()
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        # a run cut short (time limit): keep the rows written so far (as bench/summarize.py)
        cut = text.rfind("\n    }")
        return json.loads(text[:cut + 6] + "\n  ]\n}\n") if cut > 0 else {"benchmarks": []}


def parse_cpp(doc: dict) -> Tuple[Dict[tuple, Dict[str, dict]], List[Tuple[str, str]]]:
    """{(model, batch, dtype, layout, layer): {row label: {us, label}}} from Google Benchmark
    JSON, and the errored rows [(name, message)]."""
    rows: Dict[tuple, Dict[str, dict]] = {}
    errors: List[Tuple[str, str]] = []
    for b in doc.get("benchmarks", []):
        name = b.get("name", "")
        parts = [p for p in name.split("/")
                 if not p.startswith("iterations:") and p not in ("manual_time", "real_time")]
        if len(parts) != 7 or parts[0] != "layer" or not parts[2].startswith("N"):
            continue
        if b.get("error_occurred") or b.get("skipped"):
            errors.append((name, b.get("error_message", b.get("skip_message", "?"))))
            continue
        if b.get("run_type", "iteration") != "iteration":
            continue  # aggregates (mean, median, ...) of repetitions
        unit = b.get("time_unit", "ns")  # Google Benchmark's default unit is ns
        if unit not in UNIT_US:
            raise ValueError(f"{name}: unknown time_unit {unit!r}")
        key = (parts[1], int(parts[2][1:]), parts[3], parts[4], parts[5])
        rows.setdefault(key, {})[parts[6]] = dict(us=float(b["real_time"]) * UNIT_US[unit],
                                                  label=b.get("label", ""))
    return rows, errors


def parse_torch(doc: dict) -> Dict[tuple, dict]:
    return {(r["model"], int(r["batch"]), r["dtype"], r["layout"], r["layer"]): r
            for r in doc.get("records", [])}


def differs(a: float, b: float, tol: float) -> bool:
    """True when the slower of a and b is more than (1 + tol) times the faster."""
    return max(a, b) / min(a, b) > 1.0 + tol


def engine_of(label: str, row: str) -> str:
    """The C++ row's label without the row name it starts with ("cudnn eng=..." -> "eng=...")."""
    label = label.strip()
    base = row.split("+")[0]
    for prefix in (row + " ", base + " "):
        if label.startswith(prefix):
            return label[len(prefix):]
    return label or "n/a"


def torch_engine(rec: dict) -> str:
    ks = rec.get("cudnn_kernels")
    return " + ".join(ks) if ks else "n/a"


def geomean(xs: Sequence[float]) -> float:
    xs = [x for x in xs if x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def crosscheck(cpp: Dict[tuple, Dict[str, dict]], torch_recs: Dict[tuple, dict], tol: float = 0.15,
               cpp_row: str = "cudnn") -> dict:
    """Per-layer ratios and the summary. Layers are the keys both files have a time for."""
    layers = []
    only_cpp = sorted(k for k, v in cpp.items() if cpp_row in v and k not in torch_recs)
    only_torch = sorted(k for k in torch_recs if k not in cpp or cpp_row not in cpp[k])
    for key, rec in torch_recs.items():
        rows = cpp.get(key, {})
        c = rows.get(cpp_row)
        if c is None or not rec.get("cudnn_us"):
            continue
        ent = dict(model=key[0], batch=key[1], dtype=key[2], layout=key[3], layer=key[4],
                   mult=rec.get("mult", 1), shape=rec.get("shape_str", ""),
                   torch_cudnn_us=rec["cudnn_us"], cpp_cudnn_us=c["us"],
                   ratio=rec["cudnn_us"] / c["us"],
                   within=not differs(rec["cudnn_us"], c["us"], tol),
                   cpp_engine=engine_of(c["label"], cpp_row), torch_engine=torch_engine(rec))
        legacy = rows.get("cudnn-legacy")
        if legacy:
            ent["cpp_legacy_us"] = legacy["us"]
            ent["cpp_legacy_engine"] = engine_of(legacy["label"], "cudnn-legacy")
        router = rows.get("router")
        if router and rec.get("rdnaconv_us"):
            ent["torch_rdnaconv_us"] = rec["rdnaconv_us"]
            ent["cpp_router_us"] = router["us"]
            ent["rdnaconv_ratio"] = rec["rdnaconv_us"] / router["us"]
            ent["rdnaconv_within"] = not differs(rec["rdnaconv_us"], router["us"], tol)
            ent["cpp_router_method"] = router["label"]
            ent["torch_rdnaconv_method"] = rec.get("rdnaconv_method")
        layers.append(ent)
    sets: Dict[tuple, List[dict]] = {}
    for e in layers:
        sets.setdefault((e["model"], e["batch"], e["dtype"], e["layout"]), []).append(e)
    per_set = []
    for k, es in sets.items():
        rd = [e["rdnaconv_ratio"] for e in es if "rdnaconv_ratio" in e]
        per_set.append(dict(model=k[0], batch=k[1], dtype=k[2], layout=k[3], layers=len(es),
                            within=sum(e["within"] for e in es),
                            ratio_geo=geomean([e["ratio"] for e in es]),
                            torch_cudnn_ms=sum(e["torch_cudnn_us"] * e["mult"] for e in es) / 1e3,
                            cpp_cudnn_ms=sum(e["cpp_cudnn_us"] * e["mult"] for e in es) / 1e3,
                            rdnaconv_ratio_geo=geomean(rd)))
    n = len(layers)
    within = sum(e["within"] for e in layers)
    rd = [e for e in layers if "rdnaconv_ratio" in e]
    return dict(tolerance=tol, cpp_row=cpp_row, layers=layers, per_set=per_set,
                summary=dict(joined=n, within=within, fraction_within=within / n if n else float("nan"),
                             outside=n - within, ratio_geo=geomean([e["ratio"] for e in layers]),
                             rdnaconv_joined=len(rd),
                             rdnaconv_within=sum(e["rdnaconv_within"] for e in rd),
                             rdnaconv_ratio_geo=geomean([e["rdnaconv_ratio"] for e in rd]),
                             only_cpp=len(only_cpp), only_torch=len(only_torch)),
                only_cpp=["/".join(map(str, k)) for k in only_cpp],
                only_torch=["/".join(map(str, k)) for k in only_torch])


def _f(v: Optional[float], fmt: str) -> str:
    return "-" if v is None or (isinstance(v, float) and math.isnan(v)) else format(v, fmt)


def markdown(res: dict, cpp_meta: str = "", torch_meta: str = "") -> str:
    s = res["summary"]
    tol = res["tolerance"]
    out: List[str] = []
    w = out.append
    w(f"## Cross-check: PyTorch F.conv2d against the C++ `{res['cpp_row']}` row\n")
    if cpp_meta:
        w(f"- C++: {cpp_meta}")
    if torch_meta:
        w(f"- PyTorch: {torch_meta}")
    w(f"- {s['joined']} layers in both; **{s['within']} ({_f(100 * s['fraction_within'], '.1f')}%) "
      f"within {tol:.0%}** (slower / faster <= {1 + tol:.2f}); geomean PyTorch / C++ "
      f"{_f(s['ratio_geo'], '.3f')}")
    w(f"- rdnaconv (same kernels, both harnesses): {s['rdnaconv_within']} of {s['rdnaconv_joined']} "
      f"within {tol:.0%}, geomean PyTorch op / C++ router {_f(s['rdnaconv_ratio_geo'], '.3f')}")
    if s["only_cpp"] or s["only_torch"]:
        w(f"- not joined: {s['only_cpp']} C++ layers without a PyTorch row, {s['only_torch']} "
          f"PyTorch rows without a C++ `{res['cpp_row']}` row")
    w("\n| model | N | dtype | layout | layers | within | geomean PyTorch / C++ | PyTorch cuDNN ms "
      "(sum) | C++ cudnn ms (sum) | geomean rdnaconv PyTorch / C++ |")
    w("|---|---:|---|---|---:|---:|---:|---:|---:|---:|")
    for p in res["per_set"]:
        w(f"| {p['model']} | {p['batch']} | {p['dtype']} | {p['layout']} | {p['layers']} | "
          f"{p['within']} | {_f(p['ratio_geo'], '.3f')} | {p['torch_cudnn_ms']:.3f} | "
          f"{p['cpp_cudnn_ms']:.3f} | {_f(p['rdnaconv_ratio_geo'], '.3f')} |")
    bad = [e for e in res["layers"] if not e["within"]]
    w(f"\n### Layers whose two cuDNN times differ by more than {tol:.0%} ({len(bad)})\n")
    if bad:
        has_legacy = any("cpp_legacy_us" in e for e in bad)
        head = "| set | layer | shape | PyTorch µs | C++ µs | PyTorch / C++ | C++ engine | PyTorch kernels |"
        if has_legacy:
            head += " C++ legacy µs |"
        w(head)
        w("|---|---|---|---:|---:|---:|---|---|" + ("---:|" if has_legacy else ""))
        for e in sorted(bad, key=lambda e: -abs(math.log(e["ratio"]))):
            row = (f"| {e['model']} N{e['batch']} {e['dtype']} {e['layout']} | {e['layer']} | "
                   f"{e['shape']} | {e['torch_cudnn_us']:.1f} | {e['cpp_cudnn_us']:.1f} | "
                   f"{e['ratio']:.2f} | {e['cpp_engine']} | {e['torch_engine']} |")
            if has_legacy:
                row += f" {_f(e.get('cpp_legacy_us'), '.1f')} |"
            w(row)
    else:
        w("none")
    rbad = [e for e in res["layers"] if "rdnaconv_within" in e and not e["rdnaconv_within"]]
    if rbad:
        w(f"\n### Layers whose two rdnaconv times differ by more than {tol:.0%} ({len(rbad)})\n")
        w("| set | layer | PyTorch op µs | C++ router µs | ratio | method (PyTorch / C++) |")
        w("|---|---|---:|---:|---:|---|")
        for e in rbad:
            w(f"| {e['model']} N{e['batch']} {e['dtype']} {e['layout']} | {e['layer']} | "
              f"{e['torch_rdnaconv_us']:.1f} | {e['cpp_router_us']:.1f} | {e['rdnaconv_ratio']:.2f} | "
              f"{e.get('torch_rdnaconv_method')} / {e.get('cpp_router_method')} |")
    return "\n".join(out) + "\n"


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cpp", required=True, help="rdnaconv_bench's --benchmark_out JSON")
    ap.add_argument("--torch", required=True, nargs="+",
                    help="python/bench_layers.py's --out JSON (several: their records merged)")
    ap.add_argument("--tolerance", type=float, default=0.15)
    ap.add_argument("--cpp-row", default="cudnn", help="the C++ row to compare with (cudnn, cudnn-legacy)")
    ap.add_argument("--markdown")
    ap.add_argument("--out", help="JSON of every joined layer and the summary")
    a = ap.parse_args(argv)
    cdoc = load_text(a.cpp)
    tdoc: dict = {"records": []}
    for path in a.torch:
        with open(path) as f:
            d = json.load(f)
        tdoc.setdefault("meta", d.get("meta", {}))
        tdoc["records"] += d.get("records", [])
    cpp, cpp_errors = parse_cpp(cdoc)
    res = crosscheck(cpp, parse_torch(tdoc), a.tolerance, a.cpp_row)
    res["cpp_errors"] = [f"{n}: {m}" for n, m in cpp_errors]
    ctx = cdoc.get("context", {})
    tm = tdoc.get("meta", {})
    text = markdown(res, f"`{a.cpp}` ({ctx.get('date', '?')}, {len(cdoc.get('benchmarks', []))} rows, "
                         f"{len(cpp_errors)} errored)",
                    f"{', '.join(f'`{p}`' for p in a.torch)} ({tm.get('date', '?')}, {tm.get('gpu', '?')}, torch {tm.get('torch', '?')}, "
                    f"cuDNN {tm.get('cudnn', '?')}, commit {tm.get('commit', '?')})")
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write(text)
    if a.out:
        with open(a.out, "w") as f:
            json.dump(res, f, indent=1)
    sys.stdout.write(text)
    return 0 if res["summary"]["joined"] else 2


if __name__ == "__main__":
    sys.exit(main())
