# SPDX-License-Identifier: MIT
"""PyTorch drop-in: swap nn.Conv2d.forward for rdnaconv's convolution.

    import rdnaconv.torch as rt
    report = rt.convert(model)          # swaps every eligible nn.Conv2d, returns what it did
    print(report)                       # swapped / skipped, each with its reason
    plan = rt.prepack(x, w, b, stride=2, padding=(0, 1, 0, 1))   # no module: packed once
    y = plan(x)

A swapped layer calls `torch.ops.rdnaconv.conv2d_packed` with weights packed once per weight
version and input shape (an in-place weight update repacks). An input the library cannot take at
run time (CPU tensor, other dtype, non-contiguous layout, ...) goes to F.conv2d, with one warning
per layer and reason, never a wrong result. The layout is the tensor's memory format (NCHW or
channels_last) unless convert(layout=...) forces one. A layer's padding_mode (zeros, reflect,
replicate, circular) goes to the library, which remaps the padded positions inside its kernels
(no padded copy of x).
"""
from __future__ import annotations

import dataclasses
import warnings
from typing import Callable, Dict, List, Optional, Sequence, Tuple, Union

import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.modules.lazy import LazyModuleMixin

DTYPES = (torch.float16, torch.bfloat16)
LAYOUTS = ("auto", "nchw", "nhwc")
PADDING_MODES = ("zeros", "reflect", "replicate", "circular")  # nn.Conv2d's, all in the library


class Backend:
    """The compiled ops (torch.ops.rdnaconv.*, registered by the extension rdnaconv._C)."""

    def __init__(self) -> None:
        self._error: Optional[str] = None
        self._loaded = False

    def available(self) -> Tuple[bool, str]:
        if not self._loaded:
            self._loaded = True
            try:
                import rdnaconv._C  # noqa: F401  (registers torch.ops.rdnaconv)
            except ImportError as e:
                self._error = f"rdnaconv extension not built ({e}); see python/README.md"
            else:
                _register_fakes()
        return self._error is None, self._error or ""

    def prepack(self, w: torch.Tensor, x_size: Sequence[int], conv: "ConvArgs", nhwc: bool,
                has_bias: bool, x_align: int) -> torch.Tensor:
        return torch.ops.rdnaconv.prepack(w, list(x_size), list(conv.stride), list(conv.padding),
                                          list(conv.dilation), nhwc, has_bias, conv.activation,
                                          conv.method, x_align, conv.out_dtype, conv.groups,
                                          conv.padding_mode)

    def describe(self, w: torch.Tensor, x_size: Sequence[int], conv: "ConvArgs", nhwc: bool,
                 has_bias: bool, x_align: int) -> str:
        return torch.ops.rdnaconv.describe(w, list(x_size), list(conv.stride), list(conv.padding),
                                           list(conv.dilation), nhwc, has_bias, conv.activation,
                                           conv.method, x_align, conv.out_dtype, conv.groups,
                                           conv.padding_mode)

    def conv2d_packed(self, x: torch.Tensor, packed: torch.Tensor, bias: Optional[torch.Tensor],
                      w_size: Sequence[int], conv: "ConvArgs", nhwc: bool,
                      x_align: int) -> torch.Tensor:
        return torch.ops.rdnaconv.conv2d_packed(x, packed, bias, list(w_size), list(conv.stride),
                                                list(conv.padding), list(conv.dilation), nhwc,
                                                conv.activation, conv.method, x_align,
                                                conv.out_dtype, conv.groups, conv.padding_mode)

    def conv2d(self, x: torch.Tensor, w: torch.Tensor, bias: Optional[torch.Tensor],
               conv: "ConvArgs", nhwc: bool) -> torch.Tensor:
        return torch.ops.rdnaconv.conv2d(x, w, bias, list(conv.stride), list(conv.padding),
                                         list(conv.dilation), nhwc, conv.activation, conv.method,
                                         conv.out_dtype, conv.groups, conv.padding_mode)


def out_size(x_size: Sequence[int], w_size: Sequence[int], stride: Sequence[int],
             padding: Sequence[int], dilation: Sequence[int]) -> List[int]:
    """[N, K, P, Q] of a convolution (padding per side: top, bottom, left, right)."""
    n, _, h, w = x_size
    k, _, r, s = w_size
    p = (h + padding[0] + padding[1] - dilation[0] * (r - 1) - 1) // stride[0] + 1
    q = (w + padding[2] + padding[3] - dilation[1] * (s - 1) - 1) // stride[1] + 1
    return [n, k, p, q]


def _register_fakes() -> None:
    """conv2d_packed's shape function for torch.compile / meta tensors (register_fake in torch >= 2.4,
    impl_abstract in 2.1-2.3; older PyTorch has neither and gets none)."""
    reg = getattr(torch.library, "register_fake", None) or getattr(torch.library, "impl_abstract", None)
    if reg is None:
        return

    def fake_y(x, w_size, stride, padding, dilation, nhwc, out_dtype):
        fmt = torch.channels_last if nhwc else torch.contiguous_format
        return x.new_empty(out_size(x.shape, w_size, stride, padding, dilation),
                           dtype=out_dtype or x.dtype).contiguous(memory_format=fmt)

    @reg("rdnaconv::conv2d_packed")
    def _(x, packed, bias, w_size, stride, padding, dilation, nhwc, activation, method, x_align,
          out_dtype, groups=1, padding_mode="zeros"):
        return fake_y(x, w_size, stride, padding, dilation, nhwc, out_dtype)

    @reg("rdnaconv::conv2d")
    def _(x, w, bias, stride, padding, dilation, nhwc, activation, method, out_dtype, groups=1,
          padding_mode="zeros"):
        return fake_y(x, w.shape, stride, padding, dilation, nhwc, out_dtype)
    # prepack has none: its size is the plan's (host arithmetic in C++), and it runs outside
    # graphs (once per weight version, cached by the swapped forward).


backend = Backend()


@dataclasses.dataclass(frozen=True)
class ConvArgs:
    """A Conv2d's geometry as the library takes it: padding per side (top, bottom, left, right)."""
    stride: Tuple[int, int]
    padding: Tuple[int, int, int, int]
    dilation: Tuple[int, int]
    activation: str = "none"  # none, relu, relu6, gelu, silu, sigmoid (after the bias)
    method: str = "auto"  # a library method name forces it (the plan refuses what it cannot run)
    out_dtype: Optional[torch.dtype] = None  # None: the input's; float16, bfloat16 or float32
    groups: int = 1  # PyTorch's groups (the library's grouped family runs groups > 1)
    padding_mode: str = "zeros"  # nn.Conv2d's: zeros, reflect, replicate, circular


def conv_args(conv: nn.Conv2d, method: str = "auto") -> ConvArgs:
    """The layer's geometry; padding="same" becomes PyTorch's split (the extra pixel at the end)."""
    kh, kw = conv.kernel_size
    dh, dw = conv.dilation
    if isinstance(conv.padding, str):
        if conv.padding == "valid":
            pad = (0, 0, 0, 0)
        else:  # "same" (stride 1, checked by nn.Conv2d itself)
            th, tw = dh * (kh - 1), dw * (kw - 1)
            pad = (th // 2, th - th // 2, tw // 2, tw - tw // 2)
    else:
        ph, pw = conv.padding
        pad = (ph, ph, pw, pw)
    return ConvArgs(tuple(conv.stride), pad, (dh, dw), method=method, groups=conv.groups,
                    padding_mode=conv.padding_mode)


def eligible(conv: nn.Module) -> Tuple[bool, str]:
    """Whether the library implements this layer (checked once, at convert time)."""
    if not isinstance(conv, nn.Conv2d) or isinstance(conv, LazyModuleMixin):
        return False, "not an nn.Conv2d"
    if conv.weight.dtype not in DTYPES:
        return False, f"weight dtype {conv.weight.dtype} (rdnaconv takes float16 and bfloat16)"
    if conv.padding_mode not in PADDING_MODES:
        return False, f"padding_mode={conv.padding_mode!r} (rdnaconv takes {', '.join(PADDING_MODES)})"
    if conv.bias is not None and conv.bias.dtype != conv.weight.dtype:
        return False, f"bias dtype {conv.bias.dtype} differs from the weight's"
    return True, ""


def runtime_reason(conv: nn.Conv2d, x: torch.Tensor, layout: str,
                   args: Optional["ConvArgs"] = None) -> str:
    """Why this call cannot run on rdnaconv ('' if it can). args: the layer's ConvArgs where the
    caller holds them (a swapped forward), else derived from the layer."""
    if x.dim() != 4:
        return f"input of {x.dim()} dimensions (rdnaconv takes N, C, H, W)"
    if x.dtype != conv.weight.dtype:
        return f"input dtype {x.dtype} differs from the weight's {conv.weight.dtype}"
    if conv.weight.requires_grad and torch.is_grad_enabled():
        return "autograd (rdnaconv is forward only; use torch.no_grad() or inference_mode())"
    if layout == "auto" and not (x.is_contiguous() or
                                 x.is_contiguous(memory_format=torch.channels_last)):
        return "input neither contiguous NCHW nor channels_last"
    why = pad_reason(args if args is not None else conv_args(conv), x.shape)
    if why:
        return why
    # the device last (the CPU tests' stand-in backend lets exactly these two through)
    if not x.is_cuda:
        return f"input on {x.device} (rdnaconv runs on the GPU)"
    if conv.weight.device != x.device:
        return "weight not on the input's device"
    return ""


def pad_reason(args: "ConvArgs", x_size: Sequence[int]) -> str:
    """Why the padding mode cannot pad an input of this size ('' if it can): PyTorch's own limits
    (F.pad), which the library's validation shares: reflect needs every pad < the axis' size,
    circular every pad <= it."""
    if args.padding_mode not in ("reflect", "circular"):
        return ""
    t, b, l, r = args.padding
    h, w = x_size[2], x_size[3]
    strict = args.padding_mode == "reflect"
    for pad, size, axis in ((t, h, "H"), (b, h, "H"), (l, w, "W"), (r, w, "W")):
        if pad > size or (strict and pad == size):
            return (f"padding_mode={args.padding_mode!r} with a pad of {pad} on an input {axis} of "
                    f"{size} ({'reflect needs pad < size' if strict else 'circular needs pad <= size'})")
    return ""


def _layout_of(x: torch.Tensor, layout: str) -> bool:
    """True for NHWC. auto: the tensor's memory format (contiguous NCHW wins a tie, e.g. C = 1)."""
    if layout == "nhwc":
        return True
    if layout == "nchw":
        return False
    return not x.is_contiguous() and x.is_contiguous(memory_format=torch.channels_last)


def _x_align(x: torch.Tensor) -> int:
    """The largest of 16, 8, 4, 2 bytes that x's address is a multiple of (a view at an odd
    element offset plans a gathering method)."""
    addr = x.data_ptr()
    return 16 if addr % 16 == 0 else 8 if addr % 8 == 0 else 4 if addr % 4 == 0 else 2


class _Swapped:
    """The forward that replaces a Conv2d's: packs per (weight version, shape, layout), falls
    back per call, warns once per reason."""

    def __init__(self, conv: nn.Conv2d, layout: str, original: Callable,
                 method: str = "auto") -> None:
        self.conv = conv
        self.layout = layout
        self.original = original
        self.args = conv_args(conv, method)
        self.cache: Dict[tuple, torch.Tensor] = {}
        self.warned: set = set()
        self.calls = {"rdnaconv": 0, "fallback": 0}

    def fallback(self, x: torch.Tensor, why: str) -> torch.Tensor:
        if why not in self.warned:
            self.warned.add(why)
            warnings.warn(f"rdnaconv: {self.conv.__class__.__name__} falls back to F.conv2d: {why}",
                          RuntimeWarning, stacklevel=3)
        self.calls["fallback"] += 1
        return self.original(x)

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        conv = self.conv
        why = runtime_reason(conv, x, self.layout, self.args)
        if why:
            return self.fallback(x, why)
        nhwc = _layout_of(x, self.layout)
        fmt = torch.channels_last if nhwc else torch.contiguous_format
        x = x.contiguous(memory_format=fmt)
        # the plan (hence the packing) depends on the shape, the layout and x's alignment (a view
        # at an odd offset runs a gathering method)
        x_align = _x_align(x)
        key = (conv.weight._version, conv.weight.data_ptr(), tuple(x.shape), nhwc, x_align)
        packed = self.cache.get(key)
        if packed is None:
            self.cache.clear()  # one packing per layer: the newest weights and shape
            w = conv.weight.detach().contiguous()  # OIHW (a channels_last model's weights too)
            packed = backend.prepack(w, x.shape, self.args, nhwc, conv.bias is not None, x_align)
            self.cache[key] = packed
        self.calls["rdnaconv"] += 1
        b = conv.bias.detach() if conv.bias is not None else None
        return backend.conv2d_packed(x, packed, b, conv.weight.shape, self.args, nhwc, x_align)

    def describe(self, x: torch.Tensor) -> str:
        """What a call with x runs (the plan's describe()), or why it falls back."""
        why = runtime_reason(self.conv, x, self.layout, self.args)
        if why:
            return f"F.conv2d (fallback: {why})"
        nhwc = _layout_of(x, self.layout)
        x = x.contiguous(memory_format=torch.channels_last if nhwc else torch.contiguous_format)
        return backend.describe(self.conv.weight.detach().contiguous(), x.shape, self.args, nhwc,
                                self.conv.bias is not None, _x_align(x))


@dataclasses.dataclass
class ConvertReport:
    swapped: List[str] = dataclasses.field(default_factory=list)
    skipped: List[Tuple[str, str]] = dataclasses.field(default_factory=list)

    def __str__(self) -> str:
        lines = [f"rdnaconv: {len(self.swapped)} Conv2d swapped, {len(self.skipped)} skipped"]
        lines += [f"  swapped {name}" for name in self.swapped]
        lines += [f"  skipped {name}: {why}" for name, why in self.skipped]
        return "\n".join(lines)


def convert(module: nn.Module, *, layout: str = "auto",
            methods: Union[None, str, Callable[[str, nn.Conv2d], Optional[str]]] = None,
            include: Optional[Callable[[str, nn.Conv2d], bool]] = None) -> ConvertReport:
    """Swaps the forward of every eligible nn.Conv2d in `module` (in place) and returns the report.
    layout: "auto" (each input's memory format), "nchw" or "nhwc" (inputs converted to it).
    methods: None (the router picks per shape), a library method name for every layer (e.g.
      "general"), or `(qualified name, conv) -> name or None`. A forced method the plan cannot
      run on a shape raises from the op (the plan's message), it does not fall back.
    include: optional `(qualified name, conv) -> bool`; False leaves the layer alone.
    Raises RuntimeError when the extension is not built (nothing is swapped then)."""
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {LAYOUTS}, not {layout!r}")
    ok, why = backend.available()
    if not ok:
        raise RuntimeError(why)
    report = ConvertReport()
    for name, m in module.named_modules():
        if not isinstance(m, nn.Conv2d):
            continue
        name = name or "<root>"
        if isinstance(getattr(m, "forward", None), _Swapped):
            report.skipped.append((name, "already converted"))
            continue
        good, reason = eligible(m)
        if good and include is not None and not include(name, m):
            good, reason = False, "excluded by the include filter"
        if not good:
            report.skipped.append((name, reason))
            continue
        method = methods(name, m) if callable(methods) else methods
        m.forward = _Swapped(m, layout, m.forward, method or "auto")
        report.swapped.append(name)
    return report


def describe(conv: nn.Conv2d, x: torch.Tensor) -> str:
    """What a converted layer runs on input x: the plan's describe() (method, kernels, tile,
    atom, bytes, the router's rule), or the fallback and its reason."""
    f = getattr(conv, "forward", None)
    if not isinstance(f, _Swapped):
        raise ValueError("describe(): the layer is not converted (rdnaconv.torch.convert)")
    return f.describe(x)


def _pair(v: Union[int, Sequence[int]]) -> Tuple[int, int]:
    return (v, v) if isinstance(v, int) else (int(v[0]), int(v[1]))


def conv2d(x: torch.Tensor, weight: torch.Tensor, bias: Optional[torch.Tensor] = None,
           stride: Union[int, Sequence[int]] = 1,
           padding: Union[int, Sequence[int]] = 0,
           dilation: Union[int, Sequence[int]] = 1, groups: int = 1, *,
           activation: str = "none", out_dtype: Optional[torch.dtype] = None,
           method: str = "auto", padding_mode: str = "zeros") -> torch.Tensor:
    """F.conv2d's arguments plus the fused activation, the output type and nn.Conv2d's
    padding_mode, on rdnaconv (the layout is x's memory format). padding: an int, (h, w), or per
    side (top, bottom, left, right). The weights are packed into a temporary on every call (one
    extra kernel): for a model, convert() caches the packing. Raises what the op raises (no
    fallback here)."""
    _check_groups(x, weight, groups)
    ok, why = backend.available()
    if not ok:
        raise RuntimeError(why)
    args = _conv_args(stride, padding, dilation, activation, method, out_dtype, groups,
                      padding_mode)
    nhwc = _layout_of(x, "auto")
    if not x.is_contiguous(memory_format=torch.channels_last if nhwc else torch.contiguous_format):
        x = x.contiguous()
    return backend.conv2d(x, weight.contiguous(), bias, args, nhwc)


class PackedConv2d:
    """A convolution planned for one input shape, layout and alignment, with its weights packed
    once (rdnaconv.torch.prepack). Calling it runs only the convolution: `y = plan(x)`. The packing
    is a copy: after an in-place update of the weights, calling raises; prepack again."""

    def __init__(self, x: torch.Tensor, weight: torch.Tensor, bias: Optional[torch.Tensor],
                 args: ConvArgs) -> None:
        self.args = args
        self.nhwc = _layout_of(x, "auto")
        self.x_size = tuple(x.shape)
        self.x_align = _x_align(x)
        self.dtype = x.dtype
        self.weight = weight.detach().contiguous()
        self.w_size = tuple(self.weight.shape)
        self._w_source, self._w_version = weight, weight._version
        self.bias = None if bias is None else bias.detach()
        self.packed = backend.prepack(self.weight, self.x_size, args, self.nhwc, bias is not None,
                                      self.x_align)

    def out_size(self) -> List[int]:
        """[N, K, P, Q] of the output."""
        return out_size(self.x_size, self.w_size, self.args.stride, self.args.padding,
                        self.args.dilation)

    def check(self, x: torch.Tensor) -> str:
        """Why x cannot run on this packing ('' if it can)."""
        if tuple(x.shape) != self.x_size:
            return f"x of shape {tuple(x.shape)}, packed for {self.x_size}"
        if x.dtype != self.dtype:
            return f"x of dtype {x.dtype}, packed for {self.dtype}"
        fmt = torch.channels_last if self.nhwc else torch.contiguous_format
        if not x.is_contiguous(memory_format=fmt):
            return f"x not contiguous {'channels_last' if self.nhwc else 'NCHW'}, as packed"
        if _x_align(x) < self.x_align:
            return f"x aligned to {_x_align(x)} bytes, packed for {self.x_align}"
        if self._w_source._version != self._w_version:
            return "the weights changed in place since prepack (prepack again)"
        return ""

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        why = self.check(x)
        if why:
            raise ValueError(f"rdnaconv.PackedConv2d: {why}")
        return backend.conv2d_packed(x, self.packed, self.bias, self.w_size, self.args, self.nhwc,
                                     self.x_align)

    def describe(self) -> str:
        """The plan's describe(): method, kernels, tile, atom, bytes, the router's rule."""
        return backend.describe(self.weight, self.x_size, self.args, self.nhwc,
                                self.bias is not None, self.x_align)


def _check_groups(x: torch.Tensor, weight: torch.Tensor, groups: int) -> None:
    """F.conv2d's rule: w is [K, C / groups, R, S] with C and K divisible by groups."""
    if groups < 1 or x.dim() != 4 or weight.dim() != 4 or x.shape[1] != weight.shape[1] * groups \
            or weight.shape[0] % groups != 0:
        raise ValueError(f"groups={groups}: x has {x.shape[1] if x.dim() > 1 else '?'} channels "
                         f"and w is {tuple(weight.shape)} (w must be [K, C / groups, R, S], K "
                         "divisible by groups)")


def _conv_args(stride: Union[int, Sequence[int]], padding: Union[int, Sequence[int]],
               dilation: Union[int, Sequence[int]], activation: str, method: str,
               out_dtype: Optional[torch.dtype], groups: int = 1,
               padding_mode: str = "zeros") -> ConvArgs:
    pad = (padding,) * 4 if isinstance(padding, int) else tuple(int(v) for v in padding)
    if len(pad) == 2:
        pad = (pad[0], pad[0], pad[1], pad[1])
    if len(pad) != 4:
        raise ValueError("padding: an int, (h, w) or (top, bottom, left, right)")
    if padding_mode not in PADDING_MODES:
        raise ValueError(f"padding_mode must be one of {PADDING_MODES}, not {padding_mode!r}")
    return ConvArgs(_pair(stride), pad, _pair(dilation), activation, method, out_dtype, groups,
                    padding_mode)


def prepack(x: torch.Tensor, weight: torch.Tensor, bias: Optional[torch.Tensor] = None,
            stride: Union[int, Sequence[int]] = 1,
            padding: Union[int, Sequence[int]] = 0,
            dilation: Union[int, Sequence[int]] = 1, groups: int = 1, *,
            activation: str = "none", out_dtype: Optional[torch.dtype] = None,
            method: str = "auto", padding_mode: str = "zeros") -> PackedConv2d:
    """conv2d's arguments; plans for x's shape, memory format and alignment and packs the weights
    once. Returns a PackedConv2d: `plan(x2)` convolves any x2 of that shape, layout and (at
    least) alignment with no packing kernel, e.g. in a CUDA graph. Raises what the op raises."""
    _check_groups(x, weight, groups)
    ok, why = backend.available()
    if not ok:
        raise RuntimeError(why)
    nhwc = _layout_of(x, "auto")
    if not x.is_contiguous(memory_format=torch.channels_last if nhwc else torch.contiguous_format):
        raise ValueError("rdnaconv.prepack: x must be contiguous NCHW or channels_last")
    return PackedConv2d(x, weight, bias, _conv_args(stride, padding, dilation, activation, method,
                                                    out_dtype, groups, padding_mode))


def revert(module: nn.Module) -> int:
    """Restores the original forward of every converted Conv2d; returns how many."""
    n = 0
    for m in module.modules():
        f = getattr(m, "forward", None)
        if isinstance(f, _Swapped):
            m.forward = f.original
            n += 1
    return n


def stats(module: nn.Module) -> Dict[str, Dict[str, int]]:
    """Per converted layer: calls that ran on rdnaconv and calls that fell back."""
    return {name: dict(m.forward.calls) for name, m in module.named_modules()
            if isinstance(getattr(m, "forward", None), _Swapped)}
