# SPDX-License-Identifier: MIT
"""python/bench_layers.py on the CPU: its layer selection against the C++ benchmark's (the model
tables derived again here from the architectures, as tests/common/model_layers.hpp does; the
sets of bench/bench_layers.cpp; the rows of a recorded C++ run), the padding of the VAE
downsample, the buffers, one row end to end with stand-ins for the GPU timer and the rdnaconv
ops, the aggregates and the Markdown, the profiler's kernel attribution."""
import json
import math
import os
import re
import types

import pytest
import torch
import torch.nn.functional as F

import bench_layers as bl
import rdnaconv.torch as rt
from test_convert import FakeBackend

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
BENCH_CPP = os.path.join(ROOT, "bench", "bench_layers.cpp")
FULL_RUN = os.path.join(ROOT, "bench", "results", "h200_sm90_full.json")
QUICK_RUN = os.path.join(ROOT, "bench", "results", "h200_23aca67_quick.json")


# --- the model tables, derived from the architectures (a port of model_layers.hpp) -----------

def conv(n, c, h, k, r, stride, pad):
    return bl.Problem(n, c, h, h, k, r, r, stride, pad if isinstance(pad, tuple) else (pad,) * 4)


def resnet50_224():
    out = [("conv1", conv(1, 3, 224, 64, 7, 2, 3))]
    in_c, hw = 64, 56
    for li, (wd, blocks) in enumerate(zip((64, 128, 256, 512), (3, 4, 6, 3))):
        for b in range(blocks):
            stride = 2 if li > 0 and b == 0 else 1
            pre = f"layer{li + 1}.{b}."
            out_hw = hw // stride
            out += [(pre + "conv1", conv(1, in_c, hw, wd, 1, 1, 0)),
                    (pre + "conv2", conv(1, wd, hw, wd, 3, stride, 1)),
                    (pre + "conv3", conv(1, wd, out_hw, wd * 4, 1, 1, 0))]
            if b == 0:
                out.append((pre + "downsample", conv(1, in_c, hw, wd * 4, 1, stride, 0)))
            in_c, hw = wd * 4, out_hw
    return out


def autoencoder_kl(res, latent, quant):
    ch = (128, 256, 512, 512)
    out, h, c = [("enc.conv_in", conv(1, 3, res, ch[0], 3, 1, 1))], res, ch[0]
    for b in range(4):
        for r in range(2):
            rp = f"enc.down{b}.res{r}."
            out += [(rp + "conv1", conv(1, c, h, ch[b], 3, 1, 1)), (rp + "conv2", conv(1, ch[b], h, ch[b], 3, 1, 1))]
            if c != ch[b]:
                out.append((rp + "shortcut", conv(1, c, h, ch[b], 1, 1, 0)))
            c = ch[b]
        if b < 3:
            out.append((f"enc.down{b}.downsample", conv(1, c, h, c, 3, 2, (0, 1, 0, 1))))
            h //= 2
    for r in range(2):
        out += [(f"enc.mid.res{r}.conv1", conv(1, c, h, c, 3, 1, 1)), (f"enc.mid.res{r}.conv2", conv(1, c, h, c, 3, 1, 1))]
    out.append(("enc.conv_out", conv(1, c, h, 2 * latent, 3, 1, 1)))
    if quant:
        out += [("quant_conv", conv(1, 2 * latent, h, 2 * latent, 1, 1, 0)),
                ("post_quant_conv", conv(1, latent, h, latent, 1, 1, 0))]
    c = ch[3]
    out.append(("dec.conv_in", conv(1, latent, h, c, 3, 1, 1)))
    for r in range(2):
        out += [(f"dec.mid.res{r}.conv1", conv(1, c, h, c, 3, 1, 1)), (f"dec.mid.res{r}.conv2", conv(1, c, h, c, 3, 1, 1))]
    for b in range(4):
        oc = ch[3 - b]
        for r in range(3):
            rp = f"dec.up{b}.res{r}."
            out += [(rp + "conv1", conv(1, c, h, oc, 3, 1, 1)), (rp + "conv2", conv(1, oc, h, oc, 3, 1, 1))]
            if c != oc:
                out.append((rp + "shortcut", conv(1, c, h, oc, 1, 1, 0)))
            c = oc
        if b < 3:
            h *= 2
            out.append((f"dec.up{b}.upsample", conv(1, c, h, c, 3, 1, 1)))
    out.append(("dec.conv_out", conv(1, c, h, 3, 3, 1, 1)))
    return out


ARCH = {"resnet50_224": resnet50_224(), "sd35_vae_512": autoencoder_kl(512, 16, False),
        "sd35_vae_1024": autoencoder_kl(1024, 16, False),
        "flux2_vae_512": autoencoder_kl(512, 32, True), "flux2_vae_1024": autoencoder_kl(1024, 32, True)}


def test_the_json_table_is_the_architectures():
    table = bl.load_models()
    doc = json.load(open(bl.LAYERS_JSON))
    assert set(ARCH) <= set(table)  # the grouped models: test_grouped_models_load_with_groups
    for m, layers in ARCH.items():
        assert table[m] == layers, m  # same names, order, shapes, per-side padding
        u = bl.unique_layers(table[m])
        assert len(u) == doc["models"][m]["unique"] and sum(x.mult for x in u) == doc["models"][m]["total"]


def test_grouped_models_load_with_groups():
    # ConvNeXt-T's and MobileNetV2's depthwise layers keep their groups (C = K = G); the
    # unique-shape counts are the JSON's (rdnaconv_bench --set=grouped runs them, not this file)
    table = bl.load_models()
    doc = json.load(open(bl.LAYERS_JSON))
    for m, depthwise in (("convnext_t_224", 18), ("mobilenet_v2_224", 17)):
        dw = [p for _, p in table[m] if p.groups > 1]
        assert len(dw) == depthwise and all(p.groups == p.c == p.k for p in dw), m
        assert len(bl.unique_layers(table[m])) == doc["models"][m]["unique"], m


def test_unique_layers_group_like_the_cpp_table():
    u = bl.unique_layers(bl.load_models()["resnet50_224"])
    assert len(u) == 23 and sum(x.mult for x in u) == 53  # tests/host/test_model_layers.cpp
    first = {x.name: x for x in u}
    assert first["layer1.0.conv3"].names == ["layer1.0.conv3", "layer1.0.downsample", "layer1.1.conv3",
                                             "layer1.2.conv3"]
    assert first["layer3.1.conv1"].mult == 5


def test_downsample_is_padded_per_side_and_cudnn_gets_the_json_shape():
    doc = json.load(open(bl.LAYERS_JSON))
    j = next(l for l in doc["models"]["sd35_vae_512"]["layers"] if l["name"] == "enc.down0.downsample")
    p = bl.problem_of(j)
    assert (p.h, p.w, p.pad, p.stride) == (512, 512, (0, 1, 0, 1), 2) and p.asymmetric()
    q = p.vendor()
    assert (q.h, q.w, q.pad) == (j["H"], j["W"], (0, 0, 0, 0)) == (513, 513, (0, 0, 0, 0))
    assert (p.p(), p.q()) == (q.p(), q.q()) == (256, 256)
    sym = bl.problem_of(doc["models"]["sd35_vae_512"]["layers"][1])
    assert sym.vendor() is sym
    bad = dict(j, pad=1)
    with pytest.raises(ValueError):
        bl.problem_of(bad)


# --- the sets against bench/bench_layers.cpp ---------------------------------------------------

def cpp_sets():
    """{set: [(model, batch, dtypes, layouts, filter)]} read from bench_layers.cpp's sets()."""
    src = open(BENCH_CPP).read()
    body = src[src.index("std::vector<BenchSet> sets("):]
    body = body[:body.index("\n}\n")]
    types_ = {"both_t": ("fp16", "bf16"), "{DType::f16}": ("fp16",), "{DType::bf16}": ("bf16",)}
    layouts = {"both_l": ("nhwc", "nchw"), "{LayoutKind::nhwc}": ("nhwc",), "{LayoutKind::nchw}": ("nchw",)}
    filters = {None: "all", "nullptr": "all", "&is_1x1": "1x1", "&is_3x3": "3x3"}
    entry = re.compile(r'\{"(\w+)", (\d+), (both_t|\{DType::\w+\}), (both_l|\{LayoutKind::\w+\})'
                       r'(?:, (nullptr|&\w+))?')

    def parse(chunk):
        return [(m, int(n), types_[t], layouts[l], filters.get(f, f)) for m, n, t, l, f in entry.findall(chunk)]

    out = {}
    for name in ("quick", "smoke"):
        at = body.index(f'which == "{name}"')
        out[name] = parse(body[at:body.index(";", at)])
    last = body.rindex("return {")  # the full set: the last return
    out["full"] = parse(body[last:body.index(";", last)])
    return out


@pytest.mark.parametrize("name", ["quick", "full", "smoke"])
def test_sets_are_the_cpp_benchmark_s(name):
    want = cpp_sets()[name]
    assert want, "no set read from bench_layers.cpp (its sets() changed form: update cpp_sets())"
    got = [(s.model, s.batch, s.dtypes, s.layouts, s.filter) for s in bl.SETS[name]]
    assert got == want


@pytest.mark.parametrize("name,path", [("full", FULL_RUN), ("quick", QUICK_RUN)])
def test_selection_is_the_rows_of_a_recorded_cpp_run(name, path):
    """Every router row of a C++ run of that set: same keys, multiplicities and shapes."""
    doc = json.load(open(path))
    cpp = {}
    for b in doc["benchmarks"]:
        parts = b["name"].split("/")
        if parts[0] == "layer" and parts[6] == "router":
            cpp[(parts[1], int(parts[2][1:]), parts[3], parts[4], parts[5])] = b
    cases = bl.select(name)
    assert len(cases) == len(cpp) and len({c.key() for c in cases}) == len(cases)
    for c in cases:
        b = cpp[c.key()]
        p = c.problem
        assert (p.n, int(b["mult"]), p.c, p.k, p.h, p.r, p.stride, p.p()) == \
            (c.batch, c.mult, b["C"], b["K"], b["H"], b["R"], b["str"], b["P"]), c.key()


def test_filters_narrow_the_selection():
    full = bl.select("full")
    assert len(full) == 536 and sum(c.mult for c in full) == 1388
    r = bl.select("full", models=["resnet50_224"], batches=[8], dtypes=["bf16"], layouts=["nchw"])
    assert len(r) == 23 and {(c.model, c.batch, c.dtype, c.layout) for c in r} == {("resnet50_224", 8, "bf16", "nchw")}
    assert all(c.problem.n == 8 for c in r)
    d = bl.select("full", models=["sd35_vae_512"], layer_re=r"downsample")
    assert len(d) == 2 * 2 * 2 * 3 and all(c.problem.pad == (0, 1, 0, 1) for c in d)
    # a shape shared by several layers is selected by any of its names
    assert [c.layer for c in bl.select("quick", layer_re=r"^layer1\.1\.conv3$")] == ["layer1.0.conv3"]
    assert bl.select("quick", models=["flux2_vae_1024"]) == []
    with pytest.raises(ValueError):
        bl.select("nope")


def test_copies_exceed_the_working_set_like_the_cpp_bench():
    assert bl.copies_for(2 << 30, 1 << 30) == 2
    for x, y in ((1000, 1000), (301056, 802816), (3 << 20, 1 << 20)):
        n = bl.copies_for(x, y)
        xa, ya = -(-x // 256) * 256, -(-y // 256) * 256
        assert n * (xa + ya) > bl.WORKING_SET >= (n - 1) * (xa + ya)


@pytest.mark.parametrize("nhwc", [False, True])
def test_pool_views_are_aligned_distinct_and_in_the_layout(nhwc):
    g = torch.Generator().manual_seed(3)
    pool, views = bl.make_pool(torch, (2, 3, 5, 7), torch.bfloat16, nhwc, 4, "cpu", g)
    fmt = torch.channels_last if nhwc else torch.contiguous_format
    base = pool.data_ptr()
    offs = [v.data_ptr() - base for v in views]
    assert all(o % 256 == 0 for o in offs) and len(set(offs)) == 4
    assert all(tuple(v.shape) == (2, 3, 5, 7) and v.is_contiguous(memory_format=fmt) for v in views)
    assert all(v.abs().max() <= 1 and v.abs().sum() > 0 for v in views)
    assert not torch.equal(views[0], views[1])


# --- one row end to end (CPU: eager timer, float64 stand-in for the ops) ----------------------

@pytest.fixture
def fake(monkeypatch):
    f = FakeBackend()
    monkeypatch.setattr(rt, "backend", f)
    monkeypatch.setattr(bl, "WORKING_SET", 1 << 16)  # a few copies, not thousands
    return f


@pytest.mark.parametrize("layout", ["nchw", "nhwc"])
@pytest.mark.parametrize("pad", [(0, 1, 0, 1), (1, 1, 1, 1), (0, 0, 0, 0)])
def test_run_case_end_to_end(fake, layout, pad):
    r = 3 if pad != (0, 0, 0, 0) else 1
    stride = 2 if pad == (0, 1, 0, 1) else 1
    p = bl.Problem(2, 8, 9, 9, 12, r, r, stride, pad)
    case = bl.Case("m", 2, "bf16", layout, "a", ["a", "b"], p)
    rec = bl.run_case(torch, F, rt, case, bl.CpuTimer(), "cpu", seed=5)
    assert "error" not in rec
    assert rec["mult"] == 2 and rec["shape"]["pad"] == list(pad) and rec["copies"] >= 2
    assert rec["cudnn_input"] == ("pre-padded, pad 0" if pad == (0, 1, 0, 1) else f"padding=({pad[0]}, {pad[2]})")
    # bf16 output of an fp32-exact-ish computation: a few bf16 ulps from the reference
    for eng in ("cudnn", "rdnaconv"):
        assert 0 < rec[f"{eng}_rel_err"] < 1e-2 and rec[f"{eng}_us"] > 0 and rec[f"{eng}_graph_diff"] == 0
    assert rec["rdnaconv_method"] == "auto" and f"nhwc={layout == 'nhwc'}" in rec["rdnaconv_describe"]
    assert fake.prepacks == 1  # packed once, outside the timed calls
    assert fake.runs >= 3


def test_run_case_records_an_engine_error(fake, monkeypatch):
    def boom(*a, **k):
        raise RuntimeError("rdnaconv: no launcher")

    monkeypatch.setattr(fake, "conv2d_packed", boom)
    case = bl.Case("m", 1, "bf16", "nchw", "a", ["a"], bl.Problem(1, 4, 6, 6, 4, 3, 3, 1, (1, 1, 1, 1)))
    rec = bl.run_case(torch, F, rt, case, bl.CpuTimer(), "cpu")
    assert "no launcher" in rec["error"]["rdnaconv"] and "rdnaconv_us" not in rec
    assert rec["cudnn_us"] > 0 and "cudnn" not in rec["error"]


def test_wrong_reference_shows_in_the_error(fake, monkeypatch):
    """The error is measured: a stand-in that drops the bias-free conv's last channel is caught."""
    real = fake.conv2d_packed

    def wrong(x, packed, bias, w_size, conv, nhwc, x_align):
        y = real(x, packed, bias, w_size, conv, nhwc, x_align)
        y[:, -1] = 0
        return y

    monkeypatch.setattr(fake, "conv2d_packed", wrong)
    case = bl.Case("m", 1, "bf16", "nhwc", "a", ["a"], bl.Problem(1, 4, 6, 6, 4, 3, 3, 1, (1, 1, 1, 1)))
    rec = bl.run_case(torch, F, rt, case, bl.CpuTimer(), "cpu")
    assert rec["rdnaconv_rel_err"] > 0.1 > rec["cudnn_rel_err"]


# --- aggregates, Markdown, JSON ---------------------------------------------------------------

def rec(layer, mult, cud, rdn, layout="nhwc", err=None, **kw):
    r = dict(model="m", batch=1, dtype="fp16", layout=layout, layer=layer, mult=mult,
             shape_str="C1 K1 1x1 1x1", cudnn_us=cud, rdnaconv_us=rdn, cudnn_rel_err=1e-3,
             rdnaconv_rel_err=2e-3, rdnaconv_method="gemm1x1", rdnaconv_tiles="sm90", **kw)
    if err:
        r["error"] = err
    return r


def test_aggregates_sum_with_multiplicities_and_take_geomeans():
    rs = [rec("a", 3, 10.0, 20.0), rec("b", 1, 40.0, 10.0), rec("c", 2, 5.0, 5.0, layout="nchw")]
    a = bl.aggregates(rs)
    assert [(x["layout"], x["unique"], x["layers"]) for x in a] == [("nhwc", 2, 4), ("nchw", 1, 2)]
    x = a[0]
    assert x["cudnn_ms"] == pytest.approx((30 + 40) / 1e3) and x["rdnaconv_ms"] == pytest.approx((60 + 10) / 1e3)
    assert x["speed_sum"] == pytest.approx(1.0) and x["speed_geo"] == pytest.approx(math.sqrt(0.5 * 4))
    assert x["complete"] and x["rdnaconv_max_err"] == 2e-3
    bad = bl.aggregates(rs[:2] + [rec("d", 1, 7.0, None, err={"rdnaconv": "boom"})])[0]
    assert not bad["complete"] and bad["layers"] == 5 and bad["cudnn_ms"] == pytest.approx(0.07)


def test_markdown_and_report_round_trip(tmp_path):
    rs = [rec("a", 3, 10.0, 20.0, cudnn_kernels=["sm90_xmma_fprop_implicit_gemm"]),
          rec("d", 1, 7.0, None, err={"rdnaconv": "RuntimeError: boom"})]
    meta = dict(date="2026-12-07", gpu="NVIDIA H100", torch="2.11", cudnn=91900, commit="abc",
                command="python3 bench_layers.py", rdnaconv_tiles={"sm90": 1}, not_run=4, cases=6)
    text = bl.markdown(meta, rs)
    assert "| m | 1 | fp16 | nhwc | 4 (2) (incomplete) | 0.030 | 0.060 |" in text
    assert "sm90_xmma_fprop_implicit_gemm" in text and "| n/a |" in text
    assert "**4 of 6 layers not run**" in text and "m/1/fp16/nhwc/d rdnaconv: RuntimeError: boom" in text
    path = str(tmp_path / "t.json")
    bl.save(path, meta, rs)
    md = str(tmp_path / "t.md")
    assert bl.main(["--report", path, "--markdown", md]) == 0
    assert open(md).read() == text
    other = str(tmp_path / "u.json")
    bl.save(other, {}, [rec("e", 2, 1.0, 2.0, layout="nchw")])
    assert bl.main(["--report", path, other, "--markdown", md]) == 0
    assert "| m | 1 | fp16 | nchw | 2 (1) | 0.002 | 0.004 | 0.50 |" in open(md).read()


def test_parse_describe():
    d = ("method=gemm1x1 kernels=[gemm1x1] tile=128x128x32 (cp.async) tiles=sm90 atom=native fp16 "
         "nhwc out=fp16 workspace=0B packed=8192B problem: ... reason: router (sm90): 1x1")
    assert bl.parse_describe(d) == ("gemm1x1", "sm90")
    assert bl.parse_describe("") == (None, None)


def test_list_needs_no_gpu(capsys):
    assert bl.main(["--set=quick", "--list", "--layout=nchw"]) == 0
    out = capsys.readouterr().out
    assert "sd35_vae_512/N1/bf16/nchw/enc.down0.downsample x1: C128 K128 512x512 3x3 s2 pad 0,1,0,1" in out
    assert out.strip().endswith("17 rows, 58 layers with multiplicities")


def test_main_without_cuda_says_so(capsys):
    if torch.cuda.is_available():
        pytest.skip("a CUDA device is present")
    assert bl.main(["--set=smoke"]) == 77


# --- the profiler's kernel names ------------------------------------------------------------

def ev(name, dev, start, end):
    return types.SimpleNamespace(name=name, device_type=f"DeviceType.{dev}",
                                 time_range=types.SimpleNamespace(start=start, end=end))


def test_kernels_go_to_the_range_they_start_in():
    P = "rdnaconv_bench#"
    events = [ev(P + "0", "CPU", 0, 100), ev(P + "1", "CPU", 200, 300),
              ev(P + "0", "CUDA", 10, 90),                     # the range's GPU annotation
              ev("aten::cudnn_convolution", "CPU", 5, 50),     # CPU ops are not kernels
              ev("nchwToNhwcKernel", "CUDA", 20, 30), ev("sm90_xmma_fprop", "CUDA", 31, 80),
              ev("cutlass_kernel", "CUDA", 210, 290), ev("elsewhere", "CUDA", 150, 160)]
    got = bl.attribute_kernels(events, {P + "0": 0, P + "1": 1}, P)
    assert got == {0: ["nchwToNhwcKernel", "sm90_xmma_fprop"], 1: ["cutlass_kernel"]}


def test_profiler_pass_runs_on_the_cpu():
    p = bl.Problem(1, 4, 6, 6, 4, 3, 3, 2, (0, 1, 0, 1))
    cases = [bl.Case("m", 1, "bf16", lay, "a", ["a"], p) for lay in ("nchw", "nhwc")]
    assert bl.cudnn_kernels(torch, F, cases, "cpu") == {}  # no CUDA kernels, no failure


def test_run_cases_saves_each_row_stops_at_the_deadline_and_resumes(fake, tmp_path):
    small = [bl.Case("m", 1, "bf16", lay, name, [name], bl.Problem(1, 4, 6, 6, 4, r, r, 1, (r // 2,) * 4))
             for lay in ("nchw", "nhwc") for name, r in (("a", 3), ("b", 1))]
    out = str(tmp_path / "rows.json")
    logs = []
    meta = {"cases": 4}
    recs = []
    assert bl.run_cases(torch, F, rt, small, bl.CpuTimer(), "cpu", out, meta, recs, log=logs.append) == 0
    assert [r["layer"] for r in recs] == ["a", "b", "a", "b"] and len(logs) == 4
    assert all(r["cudnn_kernels"] is None for r in recs)  # the profiler pass ran, no CUDA kernels
    saved_meta, saved = bl.load(out)
    assert saved == json.loads(json.dumps(recs)) and saved_meta["not_run"] == 0
    # a deadline already past: nothing runs, every row is listed as not run
    meta2, recs2 = {}, []
    assert bl.run_cases(torch, F, rt, small, bl.CpuTimer(), "cpu", out, meta2, recs2, deadline=1e-9,
                        t_start=0.0, log=logs.append) == 4
    assert recs2 == [] and "deadline" in meta2["stopped"]
    # resume: the rows already there are kept, the others run
    recs3 = [r for r in saved if r["layout"] == "nchw"]
    assert bl.run_cases(torch, F, rt, small, bl.CpuTimer(), "cpu", out, {}, recs3, kernels=False,
                        log=logs.append) == 0
    assert [(r["layer"], r["layout"]) for r in recs3] == [("a", "nchw"), ("b", "nchw"), ("a", "nhwc"), ("b", "nhwc")]
    assert "cudnn_kernels" not in recs3[2]


def test_run_cases_records_a_failed_setup(fake, tmp_path, monkeypatch):
    def broken(*a, **k):
        raise MemoryError("CUDA out of memory")

    monkeypatch.setattr(bl, "make_pool", broken)
    case = bl.Case("m", 1, "bf16", "nchw", "a", ["a"], bl.Problem(1, 4, 6, 6, 4, 3, 3, 1, (1, 1, 1, 1)))
    recs = []
    bl.run_cases(torch, F, rt, [case], bl.CpuTimer(), "cpu", str(tmp_path / "r.json"), {}, recs,
                 kernels=False, log=lambda m: None)
    assert recs[0]["error"] == {"setup": "MemoryError: CUDA out of memory"}
    assert "- m/1/bf16/nchw/a setup: MemoryError: CUDA out of memory" in bl.markdown({}, recs)
