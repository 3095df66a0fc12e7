# SPDX-License-Identifier: MIT
"""The Python side of the drop-in (convert's walk, report, caching, fallback), on the CPU. The
compiled ops are replaced by a float64 stand-in that checks the arguments the layer passes. The
real ops (python/csrc) are not exercised here: no GPU, and Debian's PyTorch has no CUDA."""
import itertools
import warnings

import pytest
import torch
import torch.nn.functional as F
from torch import nn

import rdnaconv.torch as rt


class FakeBackend:
    """Computes what torch.ops.rdnaconv would, from the arguments it is given."""

    def __init__(self):
        self.prepacks = 0
        self.runs = 0

    def available(self):
        return True, ""

    def prepack(self, w, x_size, conv, nhwc, has_bias, x_align):
        self.prepacks += 1
        assert len(x_size) == 4 and x_align in (2, 4, 8, 16)
        return w.detach().clone()  # "packed": the weights as they were at packing time

    def conv2d_packed(self, x, packed, bias, w_size, conv, nhwc, x_align):
        self.runs += 1
        assert list(packed.shape) == list(w_size)
        fmt = torch.channels_last if nhwc else torch.contiguous_format
        assert x.is_contiguous(memory_format=fmt)
        t, b, l, r = conv.padding
        mode = "constant" if conv.padding_mode == "zeros" else conv.padding_mode
        xp = F.pad(x.double(), (l, r, t, b), mode=mode)
        assert x.shape[1] == w_size[1] * conv.groups
        y = F.conv2d(xp, packed.double(), None if bias is None else bias.double(),
                     stride=conv.stride, dilation=conv.dilation, groups=conv.groups)
        y = {"none": y, "relu": F.relu(y), "relu6": F.relu6(y), "gelu": F.gelu(y)}[conv.activation]
        return y.to(conv.out_dtype or x.dtype).contiguous(memory_format=fmt)

    def conv2d(self, x, w, bias, conv, nhwc):
        assert w.is_contiguous()
        return self.conv2d_packed(x, self.prepack(w, x.shape, conv, nhwc, bias is not None, 16),
                                  bias, w.shape, conv, nhwc, 16)

    def describe(self, w, x_size, conv, nhwc, has_bias, x_align):
        return f"fake plan nhwc={nhwc} method={conv.method} x_align={x_align}"


@pytest.fixture
def fake(monkeypatch):
    f = FakeBackend()
    monkeypatch.setattr(rt, "backend", f)
    # the stand-in runs on the CPU: let CPU inputs through the runtime check
    real = rt.runtime_reason

    def cpu_ok(conv, x, layout, args=None):
        why = real(conv, x, layout, args)
        return "" if why.startswith("input on cpu") or why == "weight not on the input's device" else why

    monkeypatch.setattr(rt, "runtime_reason", cpu_ok)
    return f


def model(dtype=torch.bfloat16):
    torch.manual_seed(0)
    m = nn.Sequential(
        nn.Conv2d(8, 16, 3, padding=1),
        nn.ReLU(),
        nn.Conv2d(16, 16, 1, bias=False),
        nn.Conv2d(16, 8, 3, stride=2, padding=1, groups=2),          # grouped: swapped
        nn.Conv2d(8, 8, 3, padding=1, padding_mode="circular"),     # circular: swapped
        nn.Conv2d(8, 8, 4, padding="same", dilation=2),             # asymmetric "same"
    ).to(dtype)
    return m.eval()


def test_eligibility_and_report(fake):
    m = model()
    m.add_module("fp32", nn.Conv2d(8, 8, 1).float())
    m.add_module("dw", nn.Conv2d(8, 8, 3, padding=1, groups=8).to(torch.bfloat16))  # depthwise
    report = rt.convert(m)
    assert report.swapped == ["0", "2", "3", "4", "5", "dw"]
    skipped = dict(report.skipped)
    assert "torch.float32" in skipped["fp32"]
    assert "6 Conv2d swapped, 1 skipped" in str(report)
    assert m[4].forward.args.padding_mode == "circular"  # the layer's mode goes to the op
    again = rt.convert(m)
    assert again.swapped == [] and dict(again.skipped)["0"] == "already converted"


@pytest.mark.parametrize("memory_format", [torch.contiguous_format, torch.channels_last])
def test_swapped_model_matches_pytorch(fake, memory_format):
    ref = model()
    m = model()
    rt.convert(m)
    x = torch.randn(2, 8, 12, 12).to(torch.bfloat16).contiguous(memory_format=memory_format)
    with torch.no_grad():
        want = ref.double()(x.double())
        got = m(x)
    assert got.shape == want.shape
    # bf16 after every layer: a few bf16 ulps of the float64 reference
    assert torch.allclose(got.double(), want, rtol=5e-2, atol=5e-2)
    assert fake.runs == 5 and all(s["fallback"] == 0 for s in rt.stats(m).values())
    assert m[3].forward.args.groups == 2  # the grouped layer passes its groups to the op
    with torch.no_grad():  # a swapped layer's output keeps the input's memory format
        assert m[0](x).is_contiguous(memory_format=memory_format)


def test_packs_once_and_repacks_after_an_inplace_update(fake):
    m = model()
    rt.convert(m)
    x = torch.randn(1, 8, 10, 10).to(torch.bfloat16)
    with torch.no_grad():
        m(x)
        m(x)
        assert fake.prepacks == 5  # five swapped layers, packed once each
        y0 = m[0](x)
        m[0].weight.add_(1.0)  # in place: the weight's version changes
        y1 = m[0](x)
        want = F.conv2d(x.double(), m[0].weight.double(), m[0].bias.double(), padding=1)
    assert fake.prepacks == 6
    assert not torch.equal(y0, y1)
    assert torch.allclose(y1.double(), want, rtol=2e-2, atol=2e-2)
    with torch.no_grad():
        m(torch.randn(1, 8, 14, 14).to(torch.bfloat16))  # another shape: every layer repacks
    assert fake.prepacks == 11


def test_fallback_warns_once_per_reason_and_is_exact(fake):
    m = model()
    rt.convert(m)
    x = torch.randn(1, 8, 10, 10)  # float32 input into bf16 layers: not rdnaconv's
    conv = m[0]
    original = conv.forward.original

    def outcome(f):  # the result, or the error PyTorch raises: the fallback must give the same
        try:
            return f(x)
        except RuntimeError as e:
            return str(e)

    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with torch.no_grad():
            for _ in range(3):
                got, want = outcome(conv), outcome(original)
                assert type(got) is type(want)
                assert got == want if isinstance(got, str) else torch.equal(got, want)
    mine = [str(e.message) for e in w if "rdnaconv" in str(e.message)]
    assert len(mine) == 1 and "dtype" in mine[0]
    assert rt.stats(m)["0"] == {"rdnaconv": 0, "fallback": 3}
    # autograd is not rdnaconv's: the original forward runs, gradients flow
    xg = torch.randn(1, 8, 10, 10).to(torch.bfloat16)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        y = conv(xg)
    y.float().sum().backward()
    assert conv.weight.grad is not None
    assert any("autograd" in str(e.message) for e in w)


def test_revert(fake):
    m = model()
    rt.convert(m)
    assert rt.revert(m) == 5
    assert rt.stats(m) == {}


def test_convert_without_the_extension_swaps_nothing(monkeypatch):
    monkeypatch.setattr(rt, "backend", rt.Backend())
    monkeypatch.setattr(rt.backend, "available", lambda: (False, "rdnaconv extension not built"))
    m = model()
    with pytest.raises(RuntimeError, match="not built"):
        rt.convert(m)
    assert rt.stats(m) == {}


@pytest.mark.parametrize("k,stride,pad,dil", list(itertools.product((1, 3, 4, 7), (1, 2), (0, 1, 3, "same", "valid"), (1, 2))))
def test_geometry_matches_pytorch(k, stride, pad, dil):
    if pad == "same" and stride != 1:
        return  # PyTorch refuses it
    conv = nn.Conv2d(3, 5, k, stride=stride, padding=pad, dilation=dil)
    x = torch.randn(1, 3, 17, 16)
    if (17 + 2 * (pad if isinstance(pad, int) else 0)) < dil * (k - 1) + 1:
        return
    a = rt.conv_args(conv)
    t, b, l, r = a.padding
    want = conv(x)
    got = F.conv2d(F.pad(x, (l, r, t, b)), conv.weight, conv.bias, stride=a.stride, dilation=a.dilation)
    assert list(want.shape) == rt.out_size(x.shape, conv.weight.shape, a.stride, a.padding, a.dilation)
    assert torch.allclose(got, want, atol=1e-5)


@pytest.mark.parametrize("memory_format", [torch.contiguous_format, torch.channels_last])
def test_channels_last_model_packs_oihw_weights_once(fake, memory_format):
    m = model().to(memory_format=memory_format)  # a channels_last model's 4-D weights too
    rt.convert(m)
    x = torch.randn(1, 8, 10, 10).to(torch.bfloat16).contiguous(memory_format=memory_format)
    packed = []
    real = fake.prepack

    def spy(w, *a):
        assert w.is_contiguous()  # OIHW, whatever the module's memory format
        packed.append(w)
        return real(w, *a)

    fake.prepack = spy
    with torch.no_grad():
        for _ in range(3):
            m(x)
    assert len(packed) == 5 and fake.runs == 15


def test_functional_conv2d(fake):
    torch.manual_seed(1)
    x = torch.randn(2, 4, 9, 11).to(torch.float16)
    w = torch.randn(6, 4, 3, 3).to(torch.float16)
    b = torch.randn(6).to(torch.float16)
    y = rt.conv2d(x, w, b, stride=2, padding=(1, 0, 2, 1), activation="relu",
                  out_dtype=torch.float32)
    want = F.relu(F.conv2d(F.pad(x.double(), (2, 1, 1, 0)), w.double(), b.double(), stride=2))
    assert y.dtype == torch.float32 and y.shape == want.shape
    assert torch.allclose(y.double(), want, rtol=1e-6, atol=1e-6)
    y2 = rt.conv2d(x.contiguous(memory_format=torch.channels_last), w, padding=1)
    assert y2.is_contiguous(memory_format=torch.channels_last) and y2.dtype == torch.float16
    with pytest.raises(ValueError, match="groups"):
        rt.conv2d(x, w, groups=2)  # w has C = 4 channels, x 4: not C / 2
    # grouped and depthwise, as F.conv2d takes them
    wg = torch.randn(6, 2, 3, 3).to(torch.float16)
    yg = rt.conv2d(x, wg, padding=1, groups=2)
    assert torch.allclose(yg.double(), F.conv2d(x.double(), wg.double(), padding=1, groups=2),
                          rtol=1e-2, atol=1e-2)
    wd = torch.randn(8, 1, 3, 3).to(torch.float16)
    yd = rt.conv2d(x, wd, padding=1, groups=4)  # channel multiplier 2
    assert torch.allclose(yd.double(), F.conv2d(x.double(), wd.double(), padding=1, groups=4),
                          rtol=1e-2, atol=1e-2)
    with pytest.raises(ValueError, match="groups"):
        rt.conv2d(x, torch.randn(6, 1, 3, 3).to(torch.float16), groups=4)  # K = 6 not by 4
    with pytest.raises(ValueError, match="padding"):
        rt.conv2d(x, w, padding=(1, 2, 3))


def test_describe(fake):
    m = model()
    rt.convert(m, methods="general")
    x = torch.randn(1, 8, 10, 10).to(torch.bfloat16)
    assert rt.describe(m[0], x).startswith("F.conv2d (fallback: autograd")
    with torch.no_grad():
        assert rt.describe(m[0], x) == "fake plan nhwc=False method=general x_align=16"
        assert rt.describe(m[0], x.float()).startswith("F.conv2d (fallback: input dtype")
    with pytest.raises(ValueError, match="not converted"):
        rt.describe(nn.Conv2d(8, 8, 1).to(torch.bfloat16), x)


def test_prepack_packs_once_and_refuses_other_inputs(fake):
    """rt.prepack: per-side padding, one packing, then only convolutions; what it refuses."""
    x = torch.randn(1, 4, 6, 6).to(torch.bfloat16)
    w = torch.randn(5, 4, 3, 3).to(torch.bfloat16)
    plan = rt.prepack(x, w, None, 1, (0, 1, 0, 1))
    y = plan(x)
    y2 = plan(x)
    assert fake.prepacks == 1 and fake.runs == 2 and torch.equal(y, y2)
    want = F.conv2d(F.pad(x.double(), (0, 1, 0, 1)), w.double())
    assert y.shape == (1, 5, 5, 5) and torch.allclose(y.double(), want, rtol=2e-2, atol=2e-2)
    assert plan.out_size() == [1, 5, 5, 5]
    with pytest.raises(ValueError, match="shape"):
        plan(torch.randn(1, 4, 7, 6).to(torch.bfloat16))
    with pytest.raises(ValueError, match="not contiguous NCHW"):
        plan(x.contiguous(memory_format=torch.channels_last))
    with pytest.raises(ValueError, match="dtype"):
        plan(x.float())
    w.add_(1)
    with pytest.raises(ValueError, match="prepack again"):
        plan(x)
    with pytest.raises(ValueError, match="groups"):
        rt.prepack(x, w, groups=2)
    wg = torch.randn(4, 2, 3, 3).to(torch.bfloat16)
    pg = rt.prepack(x, wg, None, 1, 1, groups=2)
    assert pg.args.groups == 2
    assert torch.allclose(pg(x).double(), F.conv2d(x.double(), wg.double(), padding=1, groups=2),
                          rtol=2e-2, atol=2e-2)


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
@pytest.mark.parametrize("memory_format", [torch.contiguous_format, torch.channels_last])
def test_padding_modes_swap_and_match_pytorch(fake, mode, memory_format):
    """nn.Conv2d's padding_mode goes to the op (the library remaps inside its kernels); a pad
    the mode cannot take at run time (reflect: pad >= size) falls back to the layer's own
    forward, which raises PyTorch's error: never a result from the library."""
    torch.manual_seed(2)
    m = nn.Sequential(
        nn.Conv2d(4, 6, 3, padding=1, padding_mode=mode),
        nn.Conv2d(6, 6, 5, stride=2, padding=2, padding_mode=mode),
        nn.Conv2d(6, 4, 4, padding="same", dilation=2, padding_mode=mode),  # asymmetric pads
    ).to(torch.bfloat16).eval()
    ref = nn.Sequential(*[nn.Conv2d(c.in_channels, c.out_channels, c.kernel_size, c.stride,
                                    c.padding, c.dilation, padding_mode=mode) for c in m])
    ref.load_state_dict(m.state_dict())
    report = rt.convert(m)
    assert report.swapped == ["0", "1", "2"] and not report.skipped
    assert all(c.forward.args.padding_mode == mode for c in m)
    assert m[2].forward.args.padding == (3, 3, 3, 3)
    x = torch.randn(2, 4, 11, 9).to(torch.bfloat16).contiguous(memory_format=memory_format)
    with torch.no_grad():
        got = m(x)
        want = ref.double()(x.double())
    assert torch.allclose(got.double(), want, rtol=5e-2, atol=5e-2)
    assert fake.runs == 3
    # reflect needs pad < size: a 2x2 input under pad 2 falls back (and PyTorch raises there)
    tiny = torch.randn(1, 4, 2, 2).to(torch.bfloat16)
    conv = nn.Conv2d(4, 4, 5, padding=2, padding_mode=mode).to(torch.bfloat16)
    rt.convert(conv)
    with warnings.catch_warnings(record=True) as w, torch.no_grad():
        warnings.simplefilter("always")
        try:
            conv(tiny)
        except RuntimeError:
            pass
    fell_back = [str(e.message) for e in w if "falls back" in str(e.message)]
    if mode == "reflect":
        assert len(fell_back) == 1 and "reflect needs pad < size" in fell_back[0]
        assert rt.stats(conv)[""] == {"rdnaconv": 0, "fallback": 1}
    else:  # replicate takes any pad, circular pad <= size: the library runs it
        assert not fell_back and rt.stats(conv)[""]["rdnaconv"] == 1


def test_padding_mode_of_the_functional_ops(fake):
    x = torch.randn(1, 3, 7, 8).to(torch.float16)
    w = torch.randn(4, 3, 3, 3).to(torch.float16)
    y = rt.conv2d(x, w, padding=(1, 2, 0, 1), padding_mode="reflect")
    want = F.conv2d(F.pad(x.double(), (0, 1, 1, 2), mode="reflect"), w.double())
    assert torch.allclose(y.double(), want, rtol=1e-2, atol=1e-2)
    plan = rt.prepack(x, w, None, 1, 1, padding_mode="circular")
    assert plan.args.padding_mode == "circular"
    want = F.conv2d(F.pad(x.double(), (1, 1, 1, 1), mode="circular"), w.double())
    assert torch.allclose(plan(x).double(), want, rtol=1e-2, atol=1e-2)
    with pytest.raises(ValueError, match="padding_mode"):
        rt.conv2d(x, w, padding=1, padding_mode="mirror")
