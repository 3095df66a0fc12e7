#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Per-layer PyTorch harness: for every layer of the model sets of bench/bench_layers.cpp (same
models, batches, types, layouts and unique layers, from tests/data/model_layers.json), the time of
`F.conv2d` (cuDNN, torch.backends.cudnn.benchmark on, TF32 off) and of rdnaconv's op through its
public API (rdnaconv.torch.prepack: weights packed once, outside the timing), in one process,
and the relative error of both against an fp32 reference. JSON (one record per layer) and
Markdown (per-set sums with multiplicities, geomeans, every layer).

    cd python && TORCH_CUDA_ARCH_LIST=9.0a python3 setup.py build_ext --inplace
    python3 python/bench_layers.py --set=quick --out torch_layers.json --markdown torch_layers.md
    python3 python/bench_layers.py --set=full --models=resnet50_224 --dtype=fp16 --layout=nhwc
    python3 python/bench_layers.py --set=full --list         # the selection, no GPU needed
    python3 python/bench_layers.py --report a.json [b.json ...] --markdown out.md   # re-render

Measurement, as the C++ rows (bench/bench_layers.cpp): inputs rotate over `copies` buffers, one
allocation, each copy 256-byte aligned, copies = max(2, 256 MiB / (x + y bytes) + 1), so that
the working set exceeds 256 MiB (past the H100's 50 MB and the H200's 60 MB L2); the outputs
rotate too (the graph keeps one output per copy alive; each call writes a different one). At
least 15 ms of untimed back-to-back calls warm the clocks (cuDNN's benchmark search runs at the
first of them); then n = max(R, min(copies, 2048)) calls (R: about 1 ms of calls) are captured
into one CUDA graph on one stream, replayed once untimed, warmed for 15 ms, and timed: the median
of 7 samples (each about 1 ms of replays, CUDA events), divided by the calls. The asymmetric
padding of the VAE downsample ((0,1,0,1)): cuDNN gets the pre-padded input with pad 0, as the
model does with F.pad and as the C++ vendor row does (bench/vendor_common.hpp; the pad copy is
not timed); rdnaconv takes the per-side padding. NHWC: cuDNN gets channels_last weights (what
model.to(memory_format=torch.channels_last) gives; OIHW weights would add a copy per call).
Reference: F.conv2d in float32 with TF32 off (cudnn.benchmark off for it) on the upcast inputs;
rel err = ||y - ref|| / ||ref|| on copy 0.

--kernels (default on): the CUDA kernels of one eager F.conv2d call per layer, from
torch.profiler, as the cuDNN engine's name (PyTorch does not expose the engine id).
"""
from __future__ import annotations

import argparse
import dataclasses
import datetime
import json
import math
import os
import re
import statistics
import subprocess
import sys
import time
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
LAYERS_JSON = os.path.join(ROOT, "tests", "data", "model_layers.json")

WORKING_SET = 256 << 20  # bytes of x + y copies, per layer (bench_layers.cpp: layer_data)
MAX_CALLS = 2048  # calls per graph at most, as bench_layers.cpp
WARM_MS = 15.0  # untimed back-to-back work before any timing
SAMPLE_MS = 1.0  # one sample's length
SAMPLES = 7

# ---------------------------------------------------------------------------------------------
# Problems and layer tables (no GPU, no torch)


@dataclasses.dataclass(frozen=True)
class Problem:
    """A convolution as rdnaconv takes it: padding per side (top, bottom, left, right)."""
    n: int
    c: int
    h: int
    w: int
    k: int
    r: int
    s: int
    stride: int
    pad: Tuple[int, int, int, int]
    dil: int = 1
    groups: int = 1  # the JSON's groups (absent: 1); no set here runs a grouped layer

    def p(self) -> int:
        return (self.h + self.pad[0] + self.pad[1] - self.dil * (self.r - 1) - 1) // self.stride + 1

    def q(self) -> int:
        return (self.w + self.pad[2] + self.pad[3] - self.dil * (self.s - 1) - 1) // self.stride + 1

    def flops(self) -> int:
        return 2 * self.n * self.k * (self.c // self.groups) * self.r * self.s * self.p() * self.q()

    def asymmetric(self) -> bool:
        return self.pad[0] != self.pad[1] or self.pad[2] != self.pad[3]

    def vendor(self) -> "Problem":
        """What cuDNN gets (bench/vendor_common.hpp, vendor_problem): asymmetric padding as the
        pre-padded input with pad 0."""
        if not self.asymmetric():
            return self
        t, b, l, r = self.pad
        return dataclasses.replace(self, h=self.h + t + b, w=self.w + l + r, pad=(0, 0, 0, 0))

    def key(self) -> tuple:
        """bench's grouping key (tests/common/model_layers.hpp, unique_layers)."""
        return (self.c, self.h, self.w, self.k, self.r, self.s, self.stride, self.pad[0],
                self.pad[1], self.dil, self.groups)

    def x_elems(self) -> int:
        return self.n * self.c * self.h * self.w

    def y_elems(self) -> int:
        return self.n * self.k * self.p() * self.q()

    def shape_str(self) -> str:
        s = f"C{self.c} K{self.k} {self.h}x{self.w} {self.r}x{self.s}"
        if self.stride > 1:
            s += f" s{self.stride}"
        if self.asymmetric():
            s += " pad " + ",".join(map(str, self.pad))
        return s

    def as_dict(self) -> dict:
        return {"N": self.n, "C": self.c, "H": self.h, "W": self.w, "K": self.k, "R": self.r,
                "S": self.s, "stride": self.stride, "pad": list(self.pad), "dil": self.dil,
                "P": self.p(), "Q": self.q()}


_DOWNSAMPLE = re.compile(r"^enc\.down\d+\.downsample$")


def problem_of(layer: dict) -> Problem:
    """A model_layers.json entry as the model runs it. The JSON lists the VAE encoder's
    downsample with its pre-padded input ((H+1)x(W+1), pad 0); the model pads (0,1,0,1) and so
    does the C++ table: here it is H x W with that padding (same output, same window)."""
    d = layer
    if _DOWNSAMPLE.match(d["name"]):
        if d["pad"] != 0 or d["stride"] != 2:
            raise ValueError(f"{d['name']}: a pre-padded downsample has pad 0 and stride 2")
        return Problem(1, d["C"], d["H"] - 1, d["W"] - 1, d["K"], d["R"], d["S"], d["stride"],
                       (0, 1, 0, 1), d["dil"])
    p = d["pad"]
    return Problem(1, d["C"], d["H"], d["W"], d["K"], d["R"], d["S"], d["stride"], (p, p, p, p),
                   d["dil"], d.get("groups", 1))


def load_models(path: str = LAYERS_JSON) -> Dict[str, List[Tuple[str, Problem]]]:
    with open(path) as f:
        doc = json.load(f)
    return {m: [(l["name"], problem_of(l)) for l in v["layers"]] for m, v in doc["models"].items()}


@dataclasses.dataclass
class UniqueLayer:
    problem: Problem
    names: List[str]

    @property
    def name(self) -> str:
        return self.names[0]

    @property
    def mult(self) -> int:
        return len(self.names)


def unique_layers(layers: Sequence[Tuple[str, Problem]]) -> List[UniqueLayer]:
    """Identical problems grouped, in order of first appearance (model_layers.hpp)."""
    out: List[UniqueLayer] = []
    where: Dict[tuple, int] = {}
    for name, p in layers:
        i = where.get(p.key())
        if i is None:
            where[p.key()] = len(out)
            out.append(UniqueLayer(p, [name]))
        else:
            out[i].names.append(name)
    return out


FILTERS: Dict[str, Callable[[Problem], bool]] = {
    "all": lambda p: True,
    "1x1": lambda p: p.r == 1 and p.s == 1,
    "3x3": lambda p: p.r == 3 and p.s == 3,
}


@dataclasses.dataclass(frozen=True)
class BenchSet:
    model: str
    batch: int
    dtypes: Tuple[str, ...]
    layouts: Tuple[str, ...]
    filter: str = "all"


BOTH_T = ("fp16", "bf16")
BOTH_L = ("nhwc", "nchw")  # bench_layers.cpp's order
# bench/bench_layers.cpp, sets(): the plain-convolution sets (sweep, residual and epilogue rows
# are not here)
SETS: Dict[str, List[BenchSet]] = {
    "quick": [BenchSet("resnet50_224", 32, ("fp16",), ("nhwc",), "1x1"),
              BenchSet("sd35_vae_512", 1, ("bf16",), BOTH_L, "3x3")],
    "full": [BenchSet("resnet50_224", 1, BOTH_T, BOTH_L),
             BenchSet("resnet50_224", 8, BOTH_T, BOTH_L),
             BenchSet("resnet50_224", 32, BOTH_T, BOTH_L),
             BenchSet("sd35_vae_512", 1, BOTH_T, BOTH_L),
             BenchSet("sd35_vae_512", 4, BOTH_T, BOTH_L),
             BenchSet("flux2_vae_1024", 1, BOTH_T, BOTH_L)],
    "smoke": [BenchSet("resnet50_224", 1, ("fp16",), ("nhwc",)),
              BenchSet("sd35_vae_512", 1, ("bf16",), ("nchw",), "1x1")],
}


@dataclasses.dataclass
class Case:
    """One row: a unique layer of a model at a batch, in a type and a layout."""
    model: str
    batch: int
    dtype: str
    layout: str
    layer: str
    names: List[str]
    problem: Problem

    @property
    def mult(self) -> int:
        return len(self.names)

    def key(self) -> tuple:
        return (self.model, self.batch, self.dtype, self.layout, self.layer)


def _csv(v: Optional[str]) -> Optional[List[str]]:
    return None if not v else [s.strip() for s in v.split(",") if s.strip()]


def select(set_name: str, models: Optional[Sequence[str]] = None,
           batches: Optional[Sequence[int]] = None, dtypes: Optional[Sequence[str]] = None,
           layouts: Optional[Sequence[str]] = None, layer_re: Optional[str] = None,
           path: str = LAYERS_JSON) -> List[Case]:
    """The rows of a set, in bench_layers.cpp's order (set, type, layout, first appearance),
    narrowed by the filters (None: no filter)."""
    if set_name not in SETS:
        raise ValueError(f"--set: one of {', '.join(SETS)}")
    table = load_models(path)
    pat = re.compile(layer_re) if layer_re else None
    out: List[Case] = []
    for s in SETS[set_name]:
        if models and s.model not in models or batches and s.batch not in batches:
            continue
        layers = [(n, dataclasses.replace(p, n=s.batch)) for n, p in table[s.model]]
        uniq = [u for u in unique_layers(layers) if FILTERS[s.filter](u.problem)]
        for t in s.dtypes:
            if dtypes and t not in dtypes:
                continue
            for lay in s.layouts:
                if layouts and lay not in layouts:
                    continue
                for u in uniq:
                    if pat and not any(pat.search(n) for n in u.names):
                        continue
                    out.append(Case(s.model, s.batch, t, lay, u.name, list(u.names), u.problem))
    return out


def copies_for(x_bytes: int, y_bytes: int) -> int:
    """bench_layers.cpp, layer_data: copies of x and y, each rounded to 256 bytes, so that they
    exceed WORKING_SET together."""
    xa, ya = -(-x_bytes // 256) * 256, -(-y_bytes // 256) * 256
    return max(2, WORKING_SET // (xa + ya) + 1)


# ---------------------------------------------------------------------------------------------
# Records, aggregates, Markdown (no GPU)


def geomean(xs: Iterable[float]) -> float:
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def group_key(r: dict) -> tuple:
    return (r["model"], r["batch"], r["dtype"], r["layout"])


def aggregates(records: Sequence[dict]) -> List[dict]:
    """Per (model, batch, dtype, layout), in first-appearance order: sums of per-call times
    times multiplicity, speed = cuDNN / rdnaconv (sum, and geomean of per-layer ratios), the
    largest relative errors. A set with a missing or errored time sums what it has and says
    complete = False."""
    groups: Dict[tuple, List[dict]] = {}
    for r in records:
        groups.setdefault(group_key(r), []).append(r)
    out = []
    for key, rs in groups.items():
        both = [r for r in rs if r.get("cudnn_us") and r.get("rdnaconv_us")]
        cud = sum(r["cudnn_us"] * r["mult"] for r in both)
        rdn = sum(r["rdnaconv_us"] * r["mult"] for r in both)
        errs = lambda f: [r[f] for r in rs if r.get(f) is not None]
        out.append(dict(model=key[0], batch=key[1], dtype=key[2], layout=key[3],
                        unique=len(rs), layers=sum(r["mult"] for r in rs),
                        cudnn_ms=cud / 1e3, rdnaconv_ms=rdn / 1e3,
                        speed_sum=cud / rdn if rdn else float("nan"),
                        speed_geo=geomean(r["cudnn_us"] / r["rdnaconv_us"] for r in both),
                        cudnn_max_err=max(errs("cudnn_rel_err"), default=float("nan")),
                        rdnaconv_max_err=max(errs("rdnaconv_rel_err"), default=float("nan")),
                        complete=len(both) == len(rs)))
    return out


def _f(v: Optional[float], fmt: str) -> str:
    return "-" if v is None or (isinstance(v, float) and math.isnan(v)) else format(v, fmt)


def short_kernels(names: Optional[Sequence[str]], width: int = 90) -> str:
    if not names:
        return "n/a"
    s = " + ".join(names)
    return s if len(s) <= width else s[:width - 1] + "…"


def markdown(meta: dict, records: Sequence[dict]) -> str:
    out: List[str] = []
    w = out.append
    w("## PyTorch per-layer harness: F.conv2d (cuDNN) and rdnaconv\n")
    w(f"- {meta.get('date', '?')}, {meta.get('gpu', '?')}, torch {meta.get('torch', '?')}, "
      f"CUDA {meta.get('cuda', '?')}, cuDNN {meta.get('cudnn', '?')}, commit {meta.get('commit', '?')}")
    w(f"- command: `{meta.get('command', '?')}`")
    w(f"- cudnn.benchmark on (benchmark_limit {meta.get('cudnn_benchmark_limit', '?')}), TF32 off "
      f"(fp32 reference vs float64 on a probe: rel err {_f(meta.get('fp32_probe_rel_err'), '.1e')}); "
      f"CUDA-graph replay, inputs and outputs "
      f"rotating over > {WORKING_SET >> 20} MiB; median of {SAMPLES} samples per call")
    tiles = meta.get("rdnaconv_tiles")
    if tiles:
        w("- rdnaconv plans by tile table: " + ", ".join(f"{k} {v}" for k, v in tiles.items()))
    if meta.get("not_run"):
        w(f"- **{meta['not_run']} of {meta.get('cases', '?')} layers not run** "
          f"({meta.get('stopped', 'stopped')})")
    errors = [r for r in records if r.get("error")]
    if errors:
        w(f"- **{len(errors)} layers with an error** (listed at the end)")
    w("\n### Per set (sum over the model's layers with multiplicities)\n")
    w("| model | N | dtype | layout | layers (unique) | cuDNN ms | rdnaconv ms | speed (sum) "
      "| speed (geomean) | max rel err cuDNN | max rel err rdnaconv |")
    w("|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for a in aggregates(records):
        inc = "" if a["complete"] else " (incomplete)"
        w(f"| {a['model']} | {a['batch']} | {a['dtype']} | {a['layout']} | {a['layers']} "
          f"({a['unique']}){inc} | {a['cudnn_ms']:.3f} | {a['rdnaconv_ms']:.3f} | "
          f"{_f(a['speed_sum'], '.2f')} | {_f(a['speed_geo'], '.2f')} | "
          f"{_f(a['cudnn_max_err'], '.1e')} | {_f(a['rdnaconv_max_err'], '.1e')} |")
    w("\nspeed = cuDNN time / rdnaconv time (> 1: rdnaconv faster).")
    groups: Dict[tuple, List[dict]] = {}
    for r in records:
        groups.setdefault(group_key(r), []).append(r)
    for key, rs in groups.items():
        w(f"\n### {key[0]}, N = {key[1]}, {key[2]}, {key[3]}\n")
        w("| layer | shape | x | cuDNN µs | rdnaconv µs | speed | rdnaconv method (tiles) | "
          "rel err cuDNN | rel err rdnaconv | cuDNN kernels |")
        w("|---|---|---:|---:|---:|---:|---|---:|---:|---|")
        for r in rs:
            sp = r["cudnn_us"] / r["rdnaconv_us"] if r.get("cudnn_us") and r.get("rdnaconv_us") else None
            meth = r.get("rdnaconv_method") or "-"
            if r.get("rdnaconv_tiles"):
                meth += f" ({r['rdnaconv_tiles']})"
            w(f"| {r['layer']} | {r['shape_str']} | {r['mult']} | {_f(r.get('cudnn_us'), '.1f')} | "
              f"{_f(r.get('rdnaconv_us'), '.1f')} | {_f(sp, '.2f')} | {meth} | "
              f"{_f(r.get('cudnn_rel_err'), '.1e')} | {_f(r.get('rdnaconv_rel_err'), '.1e')} | "
              f"{short_kernels(r.get('cudnn_kernels'))} |")
    if errors:
        w("\n### Errors\n")
        for r in errors:
            for eng, msg in r["error"].items():
                w(f"- {'/'.join(map(str, group_key(r)))}/{r['layer']} {eng}: {msg}")
    return "\n".join(out) + "\n"


def parse_describe(text: str) -> Tuple[Optional[str], Optional[str]]:
    """(method, tiles) from Plan::describe() ("method=gemm1x1 kernels=[...] ... tiles=sm90 ...")."""
    m = re.search(r"\bmethod=(\S+)", text or "")
    t = re.search(r"\btiles=(\S+)", text or "")
    return (m.group(1) if m else None, t.group(1) if t else None)


def save(path: str, meta: dict, records: Sequence[dict]) -> None:
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump({"meta": meta, "records": list(records)}, f, indent=1)
    os.replace(tmp, path)


def load(path: str) -> Tuple[dict, List[dict]]:
    with open(path) as f:
        doc = json.load(f)
    return doc.get("meta", {}), doc.get("records", [])


# ---------------------------------------------------------------------------------------------
# Measurement (GPU; the timer and the rdnaconv backend are injected so that the CPU tests can
# run a case end to end with stand-ins)

TORCH_DTYPES = {"fp16": "float16", "bf16": "bfloat16"}


def make_pool(torch, shape_nchw: Sequence[int], dtype, nhwc: bool, copies: int, device,
              gen=None):
    """One allocation of `copies` tensors of shape_nchw (NCHW sizes), each 256-byte aligned and
    NCHW- or channels_last-contiguous, filled with uniform [-1, 1). Returns (pool, views)."""
    n, c, h, w = shape_nchw
    numel = n * c * h * w
    esize = torch.empty((), dtype=dtype).element_size()
    step = -(-numel * esize // 256) * 256 // esize
    pool = torch.empty(copies * step, dtype=dtype, device=device)
    pool.uniform_(-1.0, 1.0, generator=gen)
    views = []
    for i in range(copies):
        flat = pool[i * step:i * step + numel]
        views.append(flat.view(n, h, w, c).permute(0, 3, 1, 2) if nhwc else flat.view(n, c, h, w))
    return pool, views


def rel_err(y, ref) -> float:
    """||y - ref|| / ||ref|| (float32 norms: the errors measured are ~1e-3)."""
    d = (y.float() - ref).norm().item()
    return d / max(ref.norm().item(), 1e-30)


class CpuTimer:
    """A stand-in for the CPU tests: times eager calls with perf_counter, no graph."""
    name = "cpu-eager"

    def time(self, call: Callable[[int], object], copies: int) -> dict:
        t0 = time.perf_counter()
        ys = [call(i % copies) for i in range(2)]
        return dict(us=(time.perf_counter() - t0) / 2 * 1e6, calls=2, stream_us=None,
                    last=ys[0], graph=None)


class GraphTimer:
    """bench_layers.cpp's time_calls in PyTorch: warm-up and a stream estimate, then n calls
    captured into one CUDA graph on one long-lived stream, replayed and timed with events."""
    name = "cuda-graph"

    def __init__(self, torch) -> None:
        self.torch = torch
        self.stream = torch.cuda.Stream()  # every engine, every row: one stream (as the C++ bench)

    def _batch_ms(self, fn: Callable[[], object], n: int) -> float:
        cuda = self.torch.cuda
        a, b = cuda.Event(enable_timing=True), cuda.Event(enable_timing=True)
        a.record(self.stream)
        for _ in range(n):
            fn()
        b.record(self.stream)
        b.synchronize()
        return a.elapsed_time(b)

    def _warm(self, fn: Callable[[], object]) -> float:
        """At least WARM_MS of back-to-back calls; returns the last per-call estimate (ms)."""
        one = self._batch_ms(fn, 1)
        warm = one
        while warm < WARM_MS:
            n = min(max(math.ceil((WARM_MS - warm) / max(one, 1e-3)), 1), 4000)
            ms = self._batch_ms(fn, n)
            warm += ms
            one = ms / n
        return one

    def time(self, call: Callable[[int], object], copies: int) -> dict:
        torch = self.torch
        i = [0]

        def step():
            y = call(i[0] % copies)
            i[0] += 1
            return y

        torch.cuda.synchronize()  # the inputs and packed weights were made on the default stream
        with torch.cuda.stream(self.stream):
            step()  # cuDNN's benchmark search runs here, untimed and outside the estimate
            self.stream.synchronize()
            one = self._warm(step)
        reps = min(max(math.ceil(SAMPLE_MS / max(one, 1e-4)), 1), 400)
        n = max(reps, min(copies, MAX_CALLS))
        ring: List[object] = [None] * min(copies, n)  # one live output per copy
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g, stream=self.stream):
            for j in range(n):
                ring[j % len(ring)] = call(j % copies)
        with torch.cuda.stream(self.stream):
            g.replay()  # the first launch uploads the graph
            self.stream.synchronize()
            replay = self._warm(g.replay)
            b = min(max(math.ceil(SAMPLE_MS / max(replay, 1e-4)), 1), 400)
            samples = [self._batch_ms(g.replay, b) / b for _ in range(SAMPLES)]
            self.stream.synchronize()
        return dict(us=statistics.median(samples) / n * 1e3, calls=n, stream_us=one * 1e3,
                    last=ring[0], graph=(g, ring))


def run_case(torch, F, rt, case: Case, timer, device, seed: int = 1,
             engines: Sequence[str] = ("rdnaconv", "cudnn")) -> dict:
    """Times one row on both engines and measures their errors; returns its record. An engine
    that raises gets its message in record["error"][engine] and no time."""
    p = case.problem
    q = p.vendor()
    nhwc = case.layout == "nhwc"
    dtype = getattr(torch, TORCH_DTYPES[case.dtype])
    copies = max(copies_for(p.x_elems() * 2, p.y_elems() * 2),
                 copies_for(q.x_elems() * 2, q.y_elems() * 2))
    rec = dict(model=case.model, batch=case.batch, dtype=case.dtype, layout=case.layout,
               layer=case.layer, names=case.names, mult=case.mult, shape=p.as_dict(),
               shape_str=p.shape_str(), flops=p.flops(), copies=copies,
               cudnn_input="pre-padded, pad 0" if p.asymmetric() else "padding=(%d, %d)" % (p.pad[0], p.pad[2]),
               timer=timer.name)
    if p.groups != 1:  # this script's sets are dense; rdnaconv_bench --set=grouped times them
        raise NotImplementedError(f"{case.layer}: groups={p.groups} (not run by this script)")
    errors: Dict[str, str] = {}
    gen = torch.Generator(device=device)
    gen.manual_seed(seed)
    _, xs = make_pool(torch, (p.n, p.c, p.h, p.w), dtype, nhwc, copies, device, gen)
    if p.asymmetric():
        _, xq = make_pool(torch, (q.n, q.c, q.h, q.w), dtype, nhwc, copies, device, gen)
        t, b, l, r = p.pad
        for a, v in zip(xq, xs):
            a.copy_(F.pad(v, (l, r, t, b)))
    else:
        xq = xs
    w = torch.empty(p.k, p.c, p.r, p.s, dtype=torch.float32, device=device)
    w.uniform_(-1.0, 1.0, generator=gen)
    w = (w / math.sqrt(p.c * p.r * p.s)).to(dtype)
    w_cudnn = w.contiguous(memory_format=torch.channels_last) if nhwc else w
    pad_cudnn = (q.pad[0], q.pad[2])
    with torch.no_grad():
        bench = torch.backends.cudnn.benchmark
        torch.backends.cudnn.benchmark = False  # no search for the reference's shapes
        try:
            ref = F.conv2d(xq[0].float(), w.float(), None, p.stride, pad_cudnn, p.dil)
        finally:
            torch.backends.cudnn.benchmark = bench

        def cudnn_call(i: int):
            return F.conv2d(xq[i], w_cudnn, None, p.stride, pad_cudnn, p.dil)

        calls: Dict[str, Callable[[int], object]] = {"cudnn": cudnn_call}
        if "rdnaconv" in engines:
            try:
                plan = rt.prepack(xs[0], w, None, p.stride, p.pad, p.dil)
                rec["rdnaconv_describe"] = plan.describe()
                rec["rdnaconv_method"], rec["rdnaconv_tiles"] = parse_describe(rec["rdnaconv_describe"])
                calls["rdnaconv"] = lambda i: plan(xs[i])
            except Exception as e:  # noqa: BLE001 (the row records it)
                errors["rdnaconv"] = f"{type(e).__name__}: {e}"[:600]
        for eng in engines:
            if eng not in calls:
                continue
            try:
                y0 = calls[eng](0)
                if tuple(y0.shape) != (p.n, p.k, p.p(), p.q()):
                    raise RuntimeError(f"output of shape {tuple(y0.shape)}")
                rec[f"{eng}_rel_err"] = rel_err(y0, ref)
                t = timer.time(calls[eng], copies)
                rec[f"{eng}_us"] = t["us"]
                rec[f"{eng}_calls"] = t["calls"]
                rec[f"{eng}_stream_us"] = t["stream_us"]
                # the graph's output for copy 0 against the eager one (0 unless capture broke it)
                rec[f"{eng}_graph_diff"] = (t["last"].float() - y0.float()).abs().max().item()
                del t
            except Exception as e:  # noqa: BLE001
                errors[eng] = f"{type(e).__name__}: {e}"[:600]
    if errors:
        rec["error"] = errors
    return rec


def cudnn_kernels(torch, F, cases: Sequence[Case], device, prefix: str = "rdnaconv_bench#"
                  ) -> Dict[int, List[str]]:
    """The CUDA kernels one eager F.conv2d call of each case runs (after the timed calls, so
    cudnn.benchmark's choice is made), from one torch.profiler session: each call inside its own
    record_function range with a synchronize, each kernel given to the range its start lies in.
    {case index: kernel names}; empty where the profiler gives no CUDA events."""
    from torch.profiler import ProfilerActivity, profile, record_function

    ranges: Dict[str, int] = {}
    acts = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device != "cpu" else [])
    with profile(activities=acts) as prof:
        for idx, case in enumerate(cases):
            p, q = case.problem, case.problem.vendor()
            nhwc = case.layout == "nhwc"
            dtype = getattr(torch, TORCH_DTYPES[case.dtype])
            fmt = torch.channels_last if nhwc else torch.contiguous_format
            x = torch.zeros(q.n, q.c, q.h, q.w, dtype=dtype, device=device).contiguous(memory_format=fmt)
            w = torch.zeros(p.k, p.c, p.r, p.s, dtype=dtype, device=device).contiguous(memory_format=fmt)
            if device != "cpu":
                torch.cuda.synchronize()
            name = f"{prefix}{idx}"
            ranges[name] = idx
            with torch.no_grad(), record_function(name):
                F.conv2d(x, w, None, p.stride, (q.pad[0], q.pad[2]), p.dil)
                if device != "cpu":
                    torch.cuda.synchronize()
            del x, w
    return attribute_kernels(prof.events(), ranges, prefix)


def attribute_kernels(events, ranges: Dict[str, int], prefix: str) -> Dict[int, List[str]]:
    """Kernel events (device type CUDA, not a range's own GPU annotation) given to the CPU range
    (name in `ranges`) whose [start, end] holds their start."""
    spans = []
    kernels = []
    for e in events:
        dev = str(getattr(e, "device_type", "")).split(".")[-1]
        start, end = e.time_range.start, e.time_range.end
        if e.name in ranges and dev == "CPU":
            spans.append((start, end, ranges[e.name]))
        elif dev == "CUDA" and not e.name.startswith(prefix):
            kernels.append((start, e.name))
    out: Dict[int, List[str]] = {}
    for start, name in sorted(kernels):
        for s, e, idx in spans:
            if s <= start <= e:
                out.setdefault(idx, []).append(name)
                break
    return out


def run_cases(torch, F, rt, cases: Sequence[Case], timer, device, out: str, meta: dict,
              records: List[dict], *, deadline: float = 0.0, t_start: Optional[float] = None,
              kernels: bool = True, log: Optional[Callable[[str], None]] = None) -> int:
    """Runs every case whose key `records` does not have yet, appending its record and
    rewriting `out` after each; the profiler pass per (model, batch, dtype, layout). Starts no
    case after `deadline` seconds from t_start (0: none). Returns how many were not run."""
    t_start = time.monotonic() if t_start is None else t_start
    log = log or (lambda m: print(m, flush=True))
    done = {(r["model"], r["batch"], r["dtype"], r["layout"], r["layer"]) for r in records}
    todo = [c for c in cases if c.key() not in done]
    past = lambda: deadline and time.monotonic() - t_start > deadline
    not_run = 0
    group: List[Tuple[Case, dict]] = []

    def flush_group() -> None:
        if kernels and group and not past():
            try:
                ks = cudnn_kernels(torch, F, [c for c, _ in group], device)
                for i, (_, rec) in enumerate(group):
                    rec["cudnn_kernels"] = ks.get(i)
            except Exception as e:  # noqa: BLE001 (optional information)
                log(f"bench_layers: profiler pass failed: {e}")
        group.clear()

    for n, case in enumerate(todo):
        if past():
            not_run = len(todo) - n
            meta["stopped"] = f"--deadline {deadline:g} s reached"
            break
        if group and group_key(group[0][1]) != (case.model, case.batch, case.dtype, case.layout):
            flush_group()
        t0 = time.monotonic()
        try:
            rec = run_case(torch, F, rt, case, timer, device, seed=17 + n)
        except Exception as e:  # noqa: BLE001 (the buffers, the reference: the row records it)
            p = case.problem
            rec = dict(model=case.model, batch=case.batch, dtype=case.dtype, layout=case.layout,
                       layer=case.layer, names=case.names, mult=case.mult, shape=p.as_dict(),
                       shape_str=p.shape_str(), flops=p.flops(),
                       error={"setup": f"{type(e).__name__}: {e}"[:600]})
        rec["wall_s"] = round(time.monotonic() - t0, 3)
        records.append(rec)
        group.append((case, rec))
        if device != "cpu":
            torch.cuda.empty_cache()  # the graph pools of the last row
        log(f"{'/'.join(map(str, case.key()))} x{case.mult}: cuDNN {_f(rec.get('cudnn_us'), '.1f')} µs, "
            f"rdnaconv {_f(rec.get('rdnaconv_us'), '.1f')} µs ({rec.get('rdnaconv_method')}), "
            f"rel err {_f(rec.get('cudnn_rel_err'), '.1e')} / {_f(rec.get('rdnaconv_rel_err'), '.1e')}"
            + (f"  ERROR {rec['error']}" if rec.get("error") else ""))
        meta["not_run"] = len(todo) - n - 1
        save(out, meta, records)
    flush_group()
    meta["not_run"] = not_run
    meta["wall_s"] = round(time.monotonic() - t_start, 1)
    tiles: Dict[str, int] = {}
    for r in records:
        if r.get("rdnaconv_tiles"):
            tiles[r["rdnaconv_tiles"]] = tiles.get(r["rdnaconv_tiles"], 0) + 1
    meta["rdnaconv_tiles"] = tiles
    save(out, meta, records)
    return not_run


def git_commit() -> str:
    try:
        return subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, timeout=10).stdout.strip() or "?"
    except (OSError, subprocess.SubprocessError):
        return "?"


def fp32_probe(torch, F, device) -> float:
    """Relative error of a float32 conv against float64 on the GPU: ~1e-7 without TF32, ~1e-4
    with it (the reference must not be TF32)."""
    g = torch.Generator(device=device)
    g.manual_seed(7)
    x = torch.rand(1, 64, 34, 34, device=device, generator=g) * 2 - 1
    w = torch.rand(64, 64, 3, 3, device=device, generator=g) * 2 - 1
    y = F.conv2d(x, w)
    ref = F.conv2d(x.double(), w.double())
    return ((y.double() - ref).norm() / ref.norm()).item()


def _read(get: Callable[[], object]) -> object:
    try:
        return get()
    except Exception as e:  # noqa: BLE001 (a flag PyTorch may refuse to report)
        return f"? ({e})"


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--set", default="quick", choices=sorted(SETS))
    ap.add_argument("--models", help="comma list, e.g. resnet50_224,flux2_vae_1024")
    ap.add_argument("--batch", help="comma list of batches, e.g. 1,32")
    ap.add_argument("--dtype", help="fp16, bf16 or both (comma list)")
    ap.add_argument("--layout", help="nhwc, nchw or both (comma list)")
    ap.add_argument("--layers", help="regular expression on the layer names")
    ap.add_argument("--layers-json", default=LAYERS_JSON)
    ap.add_argument("--out", default="torch_layers.json", help="JSON, rewritten after every layer")
    ap.add_argument("--markdown", help="Markdown report")
    ap.add_argument("--resume", action="store_true", help="keep the rows --out already has")
    ap.add_argument("--deadline", type=float, default=0.0,
                    help="seconds: start no layer after this (0 = none); the rest is listed as not run")
    ap.add_argument("--no-kernels", action="store_true", help="skip the profiler pass (cuDNN kernels)")
    ap.add_argument("--benchmark-limit", type=int,
                    help="torch.backends.cudnn.benchmark_limit: plans cudnn.benchmark tries (0 = all; "
                         "default: PyTorch's, 10)")
    ap.add_argument("--list", action="store_true", help="print the selection and exit (no GPU)")
    ap.add_argument("--report", nargs="+",
                    help="re-render the Markdown of these JSON files (records merged) and exit")
    a = ap.parse_args(argv)
    t_start = time.monotonic()

    if a.report:
        meta, records = load(a.report[0])
        for path in a.report[1:]:
            records += load(path)[1]
        text = markdown(meta, records)
        if a.markdown:
            with open(a.markdown, "w") as f:
                f.write(text)
        else:
            sys.stdout.write(text)
        return 0

    batches = [int(b) for b in _csv(a.batch)] if a.batch else None
    cases = select(a.set, _csv(a.models), batches, _csv(a.dtype), _csv(a.layout), a.layers,
                   a.layers_json)
    if a.list:
        for c in cases:
            p = c.problem
            print(f"{c.model}/N{c.batch}/{c.dtype}/{c.layout}/{c.layer} x{c.mult}: {p.shape_str()} "
                  f"(P {p.p()}, copies {copies_for(p.x_elems() * 2, p.y_elems() * 2)})")
        print(f"{len(cases)} rows, {sum(c.mult for c in cases)} layers with multiplicities")
        return 0
    if not cases:
        print("bench_layers: the filters select no layer", file=sys.stderr)
        return 2

    import torch
    import torch.nn.functional as F

    if not torch.cuda.is_available():
        print("bench_layers: no CUDA device (use --list on a CPU machine)")
        return 77
    import rdnaconv.torch as rt

    ok, why = rt.backend.available()
    if not ok:
        print(f"bench_layers: {why}", file=sys.stderr)
        return 1
    torch.backends.cudnn.benchmark = True
    if a.benchmark_limit is not None:
        torch.backends.cudnn.benchmark_limit = a.benchmark_limit
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    device = "cuda"
    props = torch.cuda.get_device_properties(0)
    meta = dict(tool="python/bench_layers.py", command=" ".join(["python3"] + sys.argv),
                date=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                gpu=props.name, capability=f"{props.major}.{props.minor}", torch=torch.__version__,
                cuda=torch.version.cuda, cudnn=torch.backends.cudnn.version(), commit=git_commit(),
                set=a.set, cudnn_benchmark=True,
                cudnn_benchmark_limit=_read(lambda: torch.backends.cudnn.benchmark_limit),
                allow_tf32=_read(lambda: torch.backends.cudnn.allow_tf32),
                working_set_mib=WORKING_SET >> 20, samples=SAMPLES, warm_ms=WARM_MS,
                max_calls=MAX_CALLS, cases=len(cases),
                fp32_probe_rel_err=fp32_probe(torch, F, device))
    records: List[dict] = []
    if a.resume and os.path.exists(a.out):
        _, old = load(a.out)
        records = [r for r in old if r.get("cudnn_us") and r.get("rdnaconv_us")]
    not_run = run_cases(torch, F, rt, cases, GraphTimer(torch), device, a.out, meta, records,
                        deadline=a.deadline, t_start=t_start, kernels=not a.no_kernels)
    text = markdown(meta, records)
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write(text)
    print()
    print("\n".join(l for l in text.splitlines() if l.startswith("|") and l.count("|") == 12))
    errored = sum(1 for r in records if r.get("error"))
    print(f"bench_layers: {len(records)} rows, {errored} with an error, {not_run} not run, "
          f"{meta['wall_s']} s; JSON {a.out}" + (f", Markdown {a.markdown}" if a.markdown else ""))
    return 1 if errored else 0


if __name__ == "__main__":
    sys.exit(main())
