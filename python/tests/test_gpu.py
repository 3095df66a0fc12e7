# SPDX-License-Identifier: MIT
"""The compiled ops on a GPU (skipped without CUDA PyTorch and the built extension): results
against a float64 reference, describe(), CUDA graph capture, torch.compile, repacking, fallback,
bad input. Integer data (|x|, |w| <= 2) make every direct method exact: fp32 accumulation of
integers below 2^24 is exact and the one rounding, to the output type, is the reference's own;
those rows compare bit for bit. Winograd's transforms are not exact: its rows check against
2^-7 of the magnitude sum S = |x| * |w| + |b| (a sanity bound; the C++ device suite holds every
method to the tolerance model of docs/DESIGN.md, and bench_vae.py measures pixels)."""
import pytest
import torch
import torch.nn.functional as F
from torch import nn

import rdnaconv.torch as rt

ok, why = (torch.cuda.is_available(), "no CUDA device")
if ok:
    ok, why = rt.backend.available()
pytestmark = pytest.mark.skipif(not ok, reason=why)

DTYPES = [torch.float16, torch.bfloat16]
FORMATS = [torch.contiguous_format, torch.channels_last]
# (N, C, H, W, K, R, stride, padding (t, b, l, r), dilation)
SHAPES = [
    (2, 64, 16, 16, 96, 1, 1, (0, 0, 0, 0), 1),    # 1x1
    (1, 32, 20, 18, 64, 3, 1, (1, 1, 1, 1), 1),    # 3x3, the Winograd / 3x3 families
    (2, 20, 13, 11, 24, 3, 1, (1, 1, 1, 1), 1),    # C % 8 != 0
    (1, 48, 17, 17, 40, 3, 2, (1, 1, 1, 1), 1),    # stride 2
    (2, 3, 37, 35, 16, 7, 2, (3, 3, 3, 3), 1),     # the C = 3 stem
    (1, 16, 19, 21, 8, 3, 1, (2, 2, 2, 2), 2),     # dilation 2
    (1, 24, 15, 14, 32, 3, 1, (0, 2, 1, 0), 1),    # asymmetric padding
    (1, 64, 24, 24, 3, 3, 1, (1, 1, 1, 1), 1),     # K = 3 (a VAE's conv_out)
    (1, 16, 9, 9, 16, 3, 1, (4, 4, 4, 4), 1),      # padding beyond the filter's reach
]
ACT = {"none": lambda v: v, "relu": F.relu, "relu6": F.relu6, "gelu": F.gelu}


def ints(*shape, gen):
    return torch.randint(-2, 3, shape, generator=gen, device="cuda").to(torch.float64)


def reference(x, w, b, stride, pad, dil, act):
    t, bo, l, r = pad
    y = F.conv2d(F.pad(x.double(), (l, r, t, bo)), w.double(), None if b is None else b.double(),
                 stride=stride, dilation=dil)
    return ACT[act](y)


def compare(y, want, out_dtype, plan, scale, act):
    """Bitwise for a direct method without gelu; gelu: the tolerance model's fp32 evaluation
    bound, 8 u32 (|y| + S), plus y's rounding to fp32; Winograd: the sanity bound 2^-7 S."""
    assert y.dtype == out_dtype and y.shape == want.shape, plan
    e = (y.double() - want).abs()
    if "method=winograd" in plan:
        bound = scale * 2.0**-7 + want.abs() * 2.0**-8
    elif act == "gelu":
        bound = (2.0**-21 + 2.0**-24) * (want.abs() + scale)
    else:
        assert torch.equal(y, want.to(out_dtype)), f"{plan}: max |err| {e.max().item()}"
        return
    assert (e <= bound).all(), f"{plan}: max |err| {e.max().item()}"


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "N{}C{}H{}W{}K{}R{}s{}p{}d{}".format(
    *s[:7], "".join(map(str, s[7])), s[8]))
@pytest.mark.parametrize("fmt", FORMATS, ids=["nchw", "nhwc"])
@pytest.mark.parametrize("dtype", DTYPES, ids=["fp16", "bf16"])
@pytest.mark.parametrize("method", ["auto", "general"])
def test_functional_matches_reference(shape, fmt, dtype, method):
    n, c, h, w_, k, r, s, pad, d = shape
    g = torch.Generator(device="cuda").manual_seed(hash(shape) % 2**31)
    x, w, b = ints(n, c, h, w_, gen=g), ints(k, c, r, r, gen=g), ints(k, gen=g)
    for act, out_dtype, bias in (("none", dtype, None), ("relu", dtype, b),
                                 ("gelu", torch.float32, b)):
        xs = x.to(dtype).contiguous(memory_format=fmt)
        ws = w.to(dtype)
        bs = None if bias is None else bias.to(dtype)
        y = rt.conv2d(xs, ws, bs, stride=s, padding=pad, dilation=d, activation=act,
                      out_dtype=out_dtype, method=method)
        assert y.is_contiguous(memory_format=fmt)
        nhwc = fmt == torch.channels_last
        plan = torch.ops.rdnaconv.describe(ws, list(xs.shape), [s, s], list(pad), [d, d], nhwc,
                                           bias is not None, act, method, 16, out_dtype)
        assert plan.startswith("method=") and (method == "auto" or f"method={method}" in plan)
        want = reference(x, w, bias, s, pad, d, act)
        scale = reference(x.abs(), w.abs(), None if bias is None else bias.abs(), s, pad, d,
                          "none")
        compare(y, want, out_dtype, plan, scale, act)


# (N, C, H, W, K, R, stride, padding, groups): grouped, depthwise, depthwise x 2 (issue 18)
GROUPED = [
    (2, 32, 14, 14, 64, 3, 1, 1, 4),      # grouped, C/G = 8
    (1, 48, 17, 15, 48, 7, 1, 3, 48),     # depthwise 7x7 (ConvNeXt)
    (2, 24, 16, 16, 24, 3, 2, 1, 24),     # depthwise 3x3 stride 2 (MobileNetV2)
    (1, 16, 9, 11, 32, 3, 1, 1, 16),      # channel multiplier 2
]


@pytest.mark.parametrize("shape", GROUPED, ids=lambda s: "N{}C{}H{}W{}K{}R{}s{}p{}g{}".format(*s))
@pytest.mark.parametrize("fmt", FORMATS, ids=["nchw", "nhwc"])
@pytest.mark.parametrize("dtype", DTYPES, ids=["fp16", "bf16"])
def test_grouped_matches_reference(shape, fmt, dtype):
    """groups > 1 through the op, as F.conv2d takes them (written in the seventh session, not yet
    run on a GPU: the extension's build there did not happen that session)."""
    n, c, h, w_, k, r, s, p, grp = shape
    g = torch.Generator(device="cuda").manual_seed(hash(shape) % 2**31)
    x, w, b = ints(n, c, h, w_, gen=g), ints(k, c // grp, r, r, gen=g), ints(k, gen=g)
    xs = x.to(dtype).contiguous(memory_format=fmt)
    y = rt.conv2d(xs, w.to(dtype), b.to(dtype), stride=s, padding=p, groups=grp)
    want = F.conv2d(x, w, b, stride=s, padding=p, groups=grp)
    assert y.is_contiguous(memory_format=fmt)
    assert torch.equal(y, want.to(dtype))
    plan = torch.ops.rdnaconv.describe(w.to(dtype), list(xs.shape), [s, s], [p] * 4, [1, 1],
                                       fmt == torch.channels_last, True, "none", "auto", 16,
                                       dtype, grp)
    assert "method=grouped" in plan, plan
    # and through convert(): the layer swaps and runs the same
    conv = nn.Conv2d(c, k, r, stride=s, padding=p, groups=grp).to("cuda", dtype)
    with torch.no_grad():
        conv.weight.copy_(w.to(dtype))
        conv.bias.copy_(b.to(dtype))
        report = rt.convert(conv)
        assert report.swapped == ["<root>"]
        assert torch.equal(conv(xs), y)


# (N, C, H, W, K, R, stride, padding (t, b, l, r), groups): nn.Conv2d's padding modes (issue 17,
# routed from the eighth session): the VAE 3x3 (nhwc3x3 / cblocked3x3), the K = 3 output conv
# (the thin row's remap), the C = 3 stem and a 1x1 with padding (general), depthwise (grouped)
PADDED = [
    (1, 32, 18, 20, 48, 3, 1, (1, 1, 1, 1), 1),
    (1, 64, 12, 12, 3, 3, 1, (1, 1, 1, 1), 1),
    (2, 3, 23, 21, 16, 7, 2, (3, 3, 3, 3), 1),
    (1, 16, 9, 10, 24, 1, 1, (1, 0, 2, 1), 1),
    (1, 24, 11, 13, 24, 3, 2, (1, 1, 1, 1), 24),
]


@pytest.mark.parametrize("shape", PADDED, ids=lambda s: "N{}C{}H{}W{}K{}R{}s{}g{}".format(*s[:7], s[8]))
@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
@pytest.mark.parametrize("fmt", FORMATS, ids=["nchw", "nhwc"])
def test_padding_modes_match_reference(shape, mode, fmt):
    """padding_mode through the op and through convert(), bit for bit on integer data against
    F.pad + F.conv2d in float64 (written in the eighth session, not yet run on a GPU: the
    device time went to the library's own device suite)."""
    dtype = torch.bfloat16
    n, c, h, w_, k, r, s, (t, b, l, rr), grp = shape
    g = torch.Generator(device="cuda").manual_seed(hash((shape, mode)) % 2**31)
    x, w, bias = ints(n, c, h, w_, gen=g), ints(k, c // grp, r, r, gen=g), ints(k, gen=g)
    xs = x.to(dtype).contiguous(memory_format=fmt)
    y = rt.conv2d(xs, w.to(dtype), bias.to(dtype), stride=s, padding=(t, b, l, rr), groups=grp,
                  padding_mode=mode)
    want = F.conv2d(F.pad(x, (l, rr, t, b), mode=mode), w, bias, stride=s, groups=grp)
    assert y.is_contiguous(memory_format=fmt)
    assert torch.equal(y, want.to(dtype))
    plan = torch.ops.rdnaconv.describe(w.to(dtype), list(xs.shape), [s, s], [t, b, l, rr], [1, 1],
                                       fmt == torch.channels_last, True, "none", "auto", 16,
                                       dtype, grp, mode)
    assert "remap>" in plan and "not device-tested" not in plan, plan
    if t == b and l == rr:  # nn.Conv2d pads symmetrically
        conv = nn.Conv2d(c, k, r, stride=s, padding=(t, l), groups=grp,
                         padding_mode=mode).to("cuda", dtype)
        with torch.no_grad():
            conv.weight.copy_(w.to(dtype))
            conv.bias.copy_(bias.to(dtype))
            assert rt.convert(conv).swapped == ["<root>"]
            assert torch.equal(conv(xs), y)


def small_model(dtype, fmt):
    torch.manual_seed(0)
    m = nn.Sequential(nn.Conv2d(16, 32, 3, padding=1), nn.SiLU(), nn.Conv2d(32, 32, 1),
                      nn.Conv2d(32, 16, 3, stride=2, padding=1), nn.Conv2d(16, 8, 3, padding=1))
    return m.to("cuda", dtype).to(memory_format=fmt).eval()


@pytest.mark.parametrize("fmt", FORMATS, ids=["nchw", "nhwc"])
def test_converted_model_and_graph_capture(fmt):
    dtype = torch.bfloat16
    ref, mine = small_model(dtype, fmt), small_model(dtype, fmt)
    report = rt.convert(mine)
    assert len(report.swapped) == 4 and not report.skipped
    x = torch.randn(2, 16, 32, 32, device="cuda").to(dtype).contiguous(memory_format=fmt)
    with torch.inference_mode():
        want = ref(x)
        eager = mine(x)
        # bf16 after each of four layers: a few bf16 ulps of cuDNN's result
        assert torch.allclose(eager.float(), want.float(), rtol=3e-2, atol=3e-2)
        static_x = x.clone()
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            mine(static_x)  # packed already; the graph holds no packing
        torch.cuda.current_stream().wait_stream(s)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            static_y = mine(static_x)
        x2 = torch.randn_like(x)
        static_x.copy_(x2)
        graph.replay()
        torch.cuda.synchronize()
        assert torch.equal(static_y, mine(x2))
    assert all(v["fallback"] == 0 for v in rt.stats(mine).values())
    with torch.no_grad():
        plan = rt.describe(mine[0], x)
    assert plan.startswith("method=") and ("nhwc" in plan) == (fmt == torch.channels_last)


def test_inplace_weight_update_repacks():
    m = small_model(torch.float16, torch.contiguous_format)
    rt.convert(m)
    g = torch.Generator(device="cuda").manual_seed(3)
    conv = m[0]
    with torch.no_grad():
        conv.weight.copy_(ints(*conv.weight.shape, gen=g))
        conv.bias.copy_(ints(*conv.bias.shape, gen=g))
        x = ints(1, 16, 16, 16, gen=g).half()
        y0 = conv(x)
        conv.weight.mul_(-1)  # in place: the weight's version changes, the layer repacks
        y1 = conv(x)
        plan = rt.describe(conv, x)
    for y, sign in ((y0, -1), (y1, 1)):
        w = conv.weight.double() * (1 if sign == 1 else -1)
        want = reference(x, w, conv.bias, 1, (1, 1, 1, 1), 1, "none")
        scale = reference(x.abs(), w.abs(), conv.bias.abs(), 1, (1, 1, 1, 1), 1, "none")
        compare(y, want, torch.float16, plan, scale, "none")


def test_fallback_is_pytorch_exactly():
    m = small_model(torch.float16, torch.contiguous_format)
    rt.convert(m)
    x = torch.randn(1, 16, 20, 40, device="cuda").half()[:, :, :, ::2]  # neither layout
    with pytest.warns(RuntimeWarning, match="neither contiguous"), torch.no_grad():
        got = m[0](x)
    with torch.no_grad():
        assert torch.equal(got, m[0].forward.original(x))
    assert rt.stats(m)["0"]["fallback"] == 1


def test_torch_compile():
    x = torch.randn(1, 16, 24, 24, device="cuda").half().contiguous(memory_format=torch.channels_last)
    w = torch.randn(32, 16, 3, 3, device="cuda").half()
    b = torch.randn(32, device="cuda").half()

    def f(x, w, b):
        return rt.conv2d(x, w, b, padding=1, activation="relu") * 2

    want = f(x, w, b)
    got = torch.compile(f, fullgraph=True)(x, w, b)
    assert torch.equal(got, want)
    m = small_model(torch.float16, torch.channels_last)
    rt.convert(m)
    with torch.no_grad():
        xm = torch.randn(1, 16, 32, 32, device="cuda").half().contiguous(
            memory_format=torch.channels_last)
        assert torch.equal(torch.compile(m)(xm), m(xm))


def test_bad_input_raises_with_the_reason():
    x = torch.randn(1, 16, 8, 8, device="cuda").half()
    w = torch.randn(8, 16, 3, 3, device="cuda").half()
    with pytest.raises(RuntimeError, match="channels"):
        rt.conv2d(x, torch.randn(8, 12, 3, 3, device="cuda").half())
    with pytest.raises(RuntimeError, match="bias"):
        rt.conv2d(x, w, torch.randn(7, device="cuda").half())
    with pytest.raises(RuntimeError, match="dtype"):
        rt.conv2d(x, w.bfloat16())
    with pytest.raises(RuntimeError, match="activation"):
        rt.conv2d(x, w, activation="tanh")
    with pytest.raises(RuntimeError, match="plan"):
        rt.conv2d(x, w, padding=0, dilation=5)  # no output pixel
    packed = torch.ops.rdnaconv.prepack(w, [1, 16, 8, 8], [1, 1], [1, 1, 1, 1], [1, 1], False,
                                        False, "none", "auto", 16, None)
    with pytest.raises(RuntimeError, match="packed"):
        torch.ops.rdnaconv.conv2d_packed(x, packed[:-2], None, [8, 16, 3, 3], [1, 1],
                                         [1, 1, 1, 1], [1, 1], False, "none", "auto", 16, None)


@pytest.mark.parametrize("fmt", FORMATS, ids=["nchw", "nhwc"])
@pytest.mark.parametrize("dtype", DTYPES, ids=["fp16", "bf16"])
def test_prepack_matches_conv2d_and_replays_in_a_graph(fmt, dtype):
    """rt.prepack (packed once) gives rt.conv2d's result bit for bit, on the VAE downsample's
    per-side padding too, and runs with no packing kernel inside a CUDA graph."""
    g = torch.Generator(device="cuda").manual_seed(11)
    for n, c, h, k, r, s, pad in ((1, 32, 18, 48, 3, 2, (0, 1, 0, 1)), (2, 64, 14, 96, 1, 1, 0),
                                  (1, 24, 20, 40, 3, 1, 1)):
        x = ints(n, c, h, h, gen=g).to(dtype).contiguous(memory_format=fmt)
        w = ints(k, c, r, r, gen=g).to(dtype)
        plan = rt.prepack(x, w, None, s, pad)
        want = rt.conv2d(x, w, None, s, pad)
        assert torch.equal(plan(x), want)
        desc = plan.describe()
        assert desc.startswith("method=") and ("nhwc" in desc) == (fmt == torch.channels_last)
        static_x = x.clone()
        st = torch.cuda.Stream()
        st.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(st):
            plan(static_x)
        torch.cuda.current_stream().wait_stream(st)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            static_y = plan(static_x)
        x2 = ints(n, c, h, h, gen=g).to(dtype).contiguous(memory_format=fmt)
        static_x.copy_(x2)
        graph.replay()
        torch.cuda.synchronize()
        assert torch.equal(static_y, rt.conv2d(x2, w, None, s, pad))
