// SPDX-License-Identifier: MIT
/// @file rdnaconv_torch.cu The PyTorch ops of rdnaconv (torch.ops.rdnaconv.*):
///   prepack        OIHW weights into the plan's packing (a uint8 tensor),
///   conv2d_packed  the convolution from packed weights,
///   conv2d         F.conv2d's arguments plus activation and out dtype (packs into a temporary
///                  every call: for a model, convert() caches the packing and calls
///                  conv2d_packed),
///   describe       what the plan for these arguments runs (Plan::describe()).
/// Every op runs on the current stream; outputs, packings and workspaces come from PyTorch's
/// caching allocator, so the ops can be captured in a CUDA graph. The plan is made per call:
/// planning is host arithmetic (constexpr router, device facts queried once per device).
/// Built ahead of time by python/setup.py (CUDA; on ROCm PyTorch hipifies the same source).
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/extension.h>
#include <torch/library.h>

#include <cstdint>
#include <string>
#include <utility>

#include "plans.hpp"

namespace {

/// A number for an error message, as a string: TORCH_CHECK's messages are built by an
/// ostringstream, and streaming an integer into it crashed (SIGSEGV in
/// basic_ostream::_M_insert<long>, H200 machine, PyTorch 2.11, the extension built by the
/// image's g++): the extension's copy of the stream code met PyTorch's locale. Strings stream
/// safely; every number in a message goes through this.
template <class I>
std::string num(I v) {
  return std::to_string(v);
}

using rdnaconv::Activation;
using rdnaconv::Conv2dOptions;
using rdnaconv::Conv2dProblem;
using rdnaconv::DType;
using rdnaconv::Method;
using rdnaconv::PadMode;
using rdnaconv::Status;

Activation activation_of(const std::string& a) {
  for (Activation v : rdnaconv::kActivations)
    if (a == rdnaconv::to_string(v)) return v;
  TORCH_CHECK(false, "rdnaconv: unknown activation '", a,
              "' (none, relu, relu6, gelu, silu, sigmoid)");
  return Activation::none;  // not reached: TORCH_CHECK throws
}

Method method_of(const std::string& m) {
  if (m == "auto" || m.empty()) return Method::automatic;
  for (int i = 0;; ++i) {  // the methods are numbered from 0; to_string says "?" past the last
    const auto v = static_cast<Method>(i);
    const std::string name = rdnaconv::to_string(v);
    if (name == "?") break;
    if (m == name) return v;
  }
  TORCH_CHECK(false, "rdnaconv: unknown method '", m, "'");
  return Method::automatic;  // not reached
}

/// The output's scalar type: out_dtype if given (float16, bfloat16 or float32), else x's.
at::ScalarType out_type_of(at::ScalarType x, const c10::optional<at::ScalarType>& out) {
  const at::ScalarType t = out.value_or(x);
  TORCH_CHECK(t == at::kHalf || t == at::kBFloat16 || t == at::kFloat,
              "rdnaconv: out_dtype must be float16, bfloat16 or float32, not ",
              std::string(c10::toString(t)));
  return t;
}

DType dtype_of(at::ScalarType t) {
  return t == at::kHalf ? DType::f16 : t == at::kBFloat16 ? DType::bf16 : DType::f32;
}

/// nn.Conv2d's padding_mode as the library's PadMode (the same four modes and semantics).
PadMode pad_mode_of(const std::string& m) {
  for (PadMode p : {PadMode::zeros, PadMode::reflect, PadMode::replicate, PadMode::circular})
    if (m == to_string(p)) return p;
  TORCH_CHECK(false, "rdnaconv: padding_mode must be zeros, reflect, replicate or circular, not '",
              m, "'");
  return PadMode::zeros;
}

/// The problem of x [N, C, H, W] (sizes in NCHW order whatever the memory format) and
/// w [K, C / groups, R, S]; padding per side (top, bottom, left, right) in padding_mode.
Conv2dProblem problem_of(c10::IntArrayRef x, c10::IntArrayRef w, c10::IntArrayRef stride,
                         c10::IntArrayRef pad, c10::IntArrayRef dil, int64_t groups,
                         const std::string& padding_mode) {
  TORCH_CHECK(x.size() == 4 && w.size() == 4, "rdnaconv: x and w must have 4 dimensions");
  TORCH_CHECK(stride.size() == 2 && pad.size() == 4 && dil.size() == 2,
              "rdnaconv: stride[2], padding[4] (top, bottom, left, right), dilation[2]");
  TORCH_CHECK(groups >= 1, "rdnaconv: groups must be >= 1, not ", num(groups));
  TORCH_CHECK(x[1] == w[1] * groups, "rdnaconv: x has ", num(x[1]), " channels, w expects ",
              num(w[1]), " x groups ", num(groups));
  Conv2dProblem p;
  p.n = x[0];
  p.c = x[1];
  p.h = x[2];
  p.w = x[3];
  p.k = w[0];
  p.r = w[2];
  p.s = w[3];
  p.stride_h = stride[0];
  p.stride_w = stride[1];
  p.pad_top = pad[0];
  p.pad_bottom = pad[1];
  p.pad_left = pad[2];
  p.pad_right = pad[3];
  p.dil_h = dil[0];
  p.dil_w = dil[1];
  p.groups = groups;
  p.pad_mode = pad_mode_of(padding_mode);
  return p;
}

void check(const Status& s, const char* what) {
  TORCH_CHECK(s.ok(), "rdnaconv: ", what, ": ", s.message());
}

/// Everything a plan is made from, as the ops receive it.
struct Args {
  c10::IntArrayRef x_size, w_size, stride, pad, dil;
  bool nhwc = false, has_bias = false;
  std::string activation, method;
  int64_t x_align = 16;
  at::ScalarType out_type = at::kHalf;
  int64_t groups = 1;
  std::string padding_mode = "zeros";
};

/// The plan for input type t on the current device and a.nhwc's layout.
rdnaconv_torch::PlanPtr plan_of(at::ScalarType t, const Args& a) {
  TORCH_CHECK(t == at::kHalf || t == at::kBFloat16, "rdnaconv: dtype must be float16 or bfloat16");
  Conv2dOptions o;
  o.has_bias = a.has_bias;
  o.activation = activation_of(a.activation);
  o.method = method_of(a.method);
  o.x_align = int(a.x_align);
  o.out_type = dtype_of(a.out_type);
  Status s;
  rdnaconv_torch::PlanPtr plan = rdnaconv_torch::make_plan(
      dtype_of(t), a.nhwc,
      problem_of(a.x_size, a.w_size, a.stride, a.pad, a.dil, a.groups, a.padding_mode), o,
      c10::cuda::current_device(), s);
  check(s, "plan");
  return plan;
}

void check_weights(const at::Tensor& w) {
  TORCH_CHECK(w.is_cuda() && w.is_contiguous(), "rdnaconv: w must be a contiguous GPU tensor");
}

void* stream() {
  return at::cuda::getCurrentCUDAStream().stream();
}

/// The packing of w (OIHW, contiguous) for plan, on the current stream.
at::Tensor pack(const rdnaconv_torch::AnyPlan& plan, const at::Tensor& w) {
  at::Tensor packed =
      at::empty({int64_t(plan.packed_weight_bytes())}, w.options().dtype(at::kByte));
  check(plan.prepack(w.data_ptr(), packed.data_ptr(), stream()), "prepack");
  return packed;
}

/// y = the convolution of x with packed weights (plan's packing), on the current stream.
at::Tensor run(const rdnaconv_torch::AnyPlan& plan, const Args& a, const at::Tensor& x,
               const at::Tensor& packed, const c10::optional<at::Tensor>& bias) {
  TORCH_CHECK(std::size_t(packed.numel()) == plan.packed_weight_bytes(), "rdnaconv: packed ",
              "weights of ", num(packed.numel()), " bytes, the plan needs ",
              num(plan.packed_weight_bytes()),
              " (packed for another shape, layout, method or epilogue?)");
  const auto fmt = a.nhwc ? at::MemoryFormat::ChannelsLast : at::MemoryFormat::Contiguous;
  const Conv2dProblem pr =
      problem_of(a.x_size, a.w_size, a.stride, a.pad, a.dil, a.groups, a.padding_mode);
  at::Tensor y =
      at::empty({pr.n, pr.k, pr.p(), pr.q()}, x.options().dtype(a.out_type).memory_format(fmt));
  const std::size_t ws_bytes = plan.workspace_bytes();
  at::Tensor ws = at::empty({int64_t(ws_bytes)}, x.options().dtype(at::kByte));
  check(plan.run(x.data_ptr(), packed.data_ptr(), a.has_bias ? bias->data_ptr() : nullptr,
                 y.data_ptr(), ws_bytes ? ws.data_ptr() : nullptr, ws_bytes, stream()),
        "run");
  return y;
}

/// The checks on x and bias that conv2d and conv2d_packed share; sets a.x_size and a.has_bias.
void check_input(const at::Tensor& x, const c10::optional<at::Tensor>& bias, int64_t k, Args& a) {
  const auto fmt = a.nhwc ? at::MemoryFormat::ChannelsLast : at::MemoryFormat::Contiguous;
  TORCH_CHECK(x.is_cuda() && x.is_contiguous(fmt), "rdnaconv: x must be a GPU tensor, contiguous ",
              a.nhwc ? "channels_last" : "NCHW");
  a.has_bias = bias.has_value() && bias->defined();
  if (a.has_bias)
    TORCH_CHECK(bias->is_cuda() && bias->device() == x.device() && bias->is_contiguous() &&
                    bias->scalar_type() == x.scalar_type() && bias->numel() == k,
                "rdnaconv: bias must be a contiguous GPU tensor of K = ", num(k),
                " elements in x's dtype, on x's device");
  a.x_size = x.sizes();
}

/// Args of the ops that take the weights' size and x's size as lists (prepack, describe).
Args weight_args(const at::Tensor& w, c10::IntArrayRef x_size, c10::IntArrayRef stride,
                 c10::IntArrayRef pad, c10::IntArrayRef dil, bool nhwc, bool has_bias,
                 std::string act, std::string method, int64_t x_align,
                 c10::optional<at::ScalarType> out_dtype, int64_t groups,
                 std::string padding_mode) {
  TORCH_CHECK(w.is_cuda(), "rdnaconv: w must be a GPU tensor");
  return Args{x_size,
              w.sizes(),
              stride,
              pad,
              dil,
              nhwc,
              has_bias,
              std::move(act),
              std::move(method),
              x_align,
              out_type_of(w.scalar_type(), out_dtype),
              groups,
              std::move(padding_mode)};
}

at::Tensor prepack(const at::Tensor& w, c10::IntArrayRef x_size, c10::IntArrayRef stride,
                   c10::IntArrayRef pad, c10::IntArrayRef dil, bool nhwc, bool has_bias,
                   std::string act, std::string method, int64_t x_align,
                   c10::optional<at::ScalarType> out_dtype, int64_t groups,
                   std::string padding_mode) {
  check_weights(w);
  const c10::cuda::CUDAGuard guard(w.device());
  const Args a =
      weight_args(w, x_size, stride, pad, dil, nhwc, has_bias, std::move(act), std::move(method),
                  x_align, out_dtype, groups, std::move(padding_mode));
  return pack(*plan_of(w.scalar_type(), a), w);
}

std::string describe(const at::Tensor& w, c10::IntArrayRef x_size, c10::IntArrayRef stride,
                     c10::IntArrayRef pad, c10::IntArrayRef dil, bool nhwc, bool has_bias,
                     std::string act, std::string method, int64_t x_align,
                     c10::optional<at::ScalarType> out_dtype, int64_t groups,
                     std::string padding_mode) {
  const c10::cuda::CUDAGuard guard(w.device());
  const Args a =
      weight_args(w, x_size, stride, pad, dil, nhwc, has_bias, std::move(act), std::move(method),
                  x_align, out_dtype, groups, std::move(padding_mode));
  return plan_of(w.scalar_type(), a)->describe();
}

at::Tensor conv2d_packed(const at::Tensor& x, const at::Tensor& packed,
                         const c10::optional<at::Tensor>& bias, c10::IntArrayRef w_size,
                         c10::IntArrayRef stride, c10::IntArrayRef pad, c10::IntArrayRef dil,
                         bool nhwc, std::string act, std::string method, int64_t x_align,
                         c10::optional<at::ScalarType> out_dtype, int64_t groups,
                         std::string padding_mode) {
  TORCH_CHECK(w_size.size() == 4, "rdnaconv: w_size must have 4 dimensions");
  Args a{{},
         w_size,
         stride,
         pad,
         dil,
         nhwc,
         false,
         std::move(act),
         std::move(method),
         x_align,
         out_type_of(x.scalar_type(), out_dtype),
         groups,
         std::move(padding_mode)};
  check_input(x, bias, w_size[0], a);
  TORCH_CHECK(packed.is_cuda() && packed.device() == x.device(),
              "rdnaconv: packed weights not on x's device");
  const c10::cuda::CUDAGuard guard(x.device());
  return run(*plan_of(x.scalar_type(), a), a, x, packed, bias);
}

at::Tensor conv2d(const at::Tensor& x, const at::Tensor& w, const c10::optional<at::Tensor>& bias,
                  c10::IntArrayRef stride, c10::IntArrayRef pad, c10::IntArrayRef dil, bool nhwc,
                  std::string act, std::string method, c10::optional<at::ScalarType> out_dtype,
                  int64_t groups, std::string padding_mode) {
  check_weights(w);
  TORCH_CHECK(w.device() == x.device() && w.scalar_type() == x.scalar_type(),
              "rdnaconv: w must be on x's device, in x's dtype");
  Args a{{},
         w.sizes(),
         stride,
         pad,
         dil,
         nhwc,
         false,
         std::move(act),
         std::move(method),
         16,
         out_type_of(x.scalar_type(), out_dtype),
         groups,
         std::move(padding_mode)};
  check_input(x, bias, w.size(0), a);
  const auto addr = reinterpret_cast<std::uintptr_t>(x.data_ptr());
  a.x_align = addr % 16 == 0 ? 16 : addr % 8 == 0 ? 8 : addr % 4 == 0 ? 4 : 2;
  const c10::cuda::CUDAGuard guard(x.device());
  const rdnaconv_torch::PlanPtr plan = plan_of(x.scalar_type(), a);
  return run(*plan, a, x, pack(*plan, w), bias);
}

}  // namespace

TORCH_LIBRARY(rdnaconv, m) {
  // padding is per side: [top, bottom, left, right]; nhwc: x (and y) are channels_last;
  // groups: PyTorch's (w is [K, C / groups, R, S]; the library's grouped family runs G > 1);
  // padding_mode: nn.Conv2d's (zeros, reflect, replicate, circular; remapped inside the kernels)
  m.def(
      "prepack(Tensor w, int[] x_size, int[] stride, int[] padding, int[] dilation, bool nhwc, "
      "bool has_bias, str activation, str method, int x_align, ScalarType? out_dtype, int "
      "groups=1, str padding_mode=\"zeros\") -> Tensor");
  m.def(
      "describe(Tensor w, int[] x_size, int[] stride, int[] padding, int[] dilation, bool nhwc, "
      "bool has_bias, str activation, str method, int x_align, ScalarType? out_dtype, int "
      "groups=1, str padding_mode=\"zeros\") -> str");
  m.def(
      "conv2d_packed(Tensor x, Tensor packed, Tensor? bias, int[] w_size, int[] stride, "
      "int[] padding, int[] dilation, bool nhwc, str activation, str method, int x_align, "
      "ScalarType? out_dtype, int groups=1, str padding_mode=\"zeros\") -> Tensor");
  m.def(
      "conv2d(Tensor x, Tensor w, Tensor? bias, int[] stride, int[] padding, int[] dilation, "
      "bool nhwc, str activation, str method, ScalarType? out_dtype, int groups=1, "
      "str padding_mode=\"zeros\") -> Tensor");
}

TORCH_LIBRARY_IMPL(rdnaconv, CUDA, m) {
  m.impl("prepack", &prepack);
  m.impl("describe", &describe);
  m.impl("conv2d_packed", &conv2d_packed);
  m.impl("conv2d", &conv2d);
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.doc() = "rdnaconv ops: torch.ops.rdnaconv.*";
}
