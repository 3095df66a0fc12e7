// SPDX-License-Identifier: MIT
/// @file rdnaconv_torch.cu The PyTorch ops of rdnaconv (torch.ops.rdnaconv.*): prepack (OIHW
/// weights into the plan's packing, a uint8 tensor) and conv2d_packed (the convolution on the
/// current stream, output and workspace from PyTorch's caching allocator). The plan is made per
/// call: planning is host arithmetic (constexpr router, device facts queried once per device).
/// Built ahead of time by python/setup.py (CUDA; on ROCm PyTorch hipifies the same source).
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/extension.h>
#include <torch/library.h>

#include <cstdint>
#include <string>

#include "rdnaconv/conv2d.hpp"

namespace {

using rdnaconv::Activation;
using rdnaconv::Conv2dOptions;
using rdnaconv::Conv2dProblem;
using rdnaconv::Method;
using rdnaconv::Status;

Activation activation_of(const std::string& a) {
  for (Activation v : {Activation::none, Activation::relu, Activation::relu6, Activation::gelu})
    if (a == rdnaconv::to_string(v)) return v;
  TORCH_CHECK(false, "rdnaconv: unknown activation '", a, "' (none, relu, relu6, gelu)");
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

/// The problem of x [N, C, H, W] (sizes in NCHW order whatever the memory format) and
/// w [K, C, R, S]; padding per side (top, bottom, left, right).
Conv2dProblem problem_of(c10::IntArrayRef x, c10::IntArrayRef w, c10::IntArrayRef stride,
                         c10::IntArrayRef pad, c10::IntArrayRef dil) {
  TORCH_CHECK(x.size() == 4 && w.size() == 4, "rdnaconv: x and w must have 4 dimensions");
  TORCH_CHECK(stride.size() == 2 && pad.size() == 4 && dil.size() == 2,
              "rdnaconv: stride[2], padding[4] (top, bottom, left, right), dilation[2]");
  TORCH_CHECK(x[1] == w[1], "rdnaconv: x has ", x[1], " channels, w expects ", w[1]);
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
  return p;
}

Conv2dOptions options_of(bool has_bias, const std::string& act, const std::string& method,
                         int64_t x_align) {
  Conv2dOptions o;
  o.has_bias = has_bias;
  o.activation = activation_of(act);
  o.method = method_of(method);
  o.x_align = int(x_align);
  return o;
}

void check(const Status& s, const char* what) {
  TORCH_CHECK(s.ok(), "rdnaconv: ", what, ": ", s.message());
}

/// Calls f.template operator()<T, Layout>() for the tensor's dtype and the layout.
template <class F>
decltype(auto) dispatch(at::ScalarType t, bool nhwc, F&& f) {
  TORCH_CHECK(t == at::kHalf || t == at::kBFloat16, "rdnaconv: dtype must be float16 or bfloat16");
  if (t == at::kHalf)
    return nhwc ? f.template operator()<rdnaconv::fp16_t, rdnaconv::NHWC>()
                : f.template operator()<rdnaconv::fp16_t, rdnaconv::NCHW>();
  return nhwc ? f.template operator()<rdnaconv::bf16_t, rdnaconv::NHWC>()
              : f.template operator()<rdnaconv::bf16_t, rdnaconv::NCHW>();
}

at::Tensor prepack(const at::Tensor& w, c10::IntArrayRef x_size, c10::IntArrayRef stride,
                   c10::IntArrayRef pad, c10::IntArrayRef dil, bool nhwc, bool has_bias,
                   std::string act, std::string method, int64_t x_align) {
  TORCH_CHECK(w.is_cuda() && w.is_contiguous(), "rdnaconv: w must be a contiguous GPU tensor");
  const c10::cuda::CUDAGuard guard(w.device());
  const Conv2dProblem p = problem_of(x_size, w.sizes(), stride, pad, dil);
  const Conv2dOptions o = options_of(has_bias, act, method, x_align);
  return dispatch(w.scalar_type(), nhwc, [&]<class T, class L>() {
    rdnaconv::Plan<T, L> plan;
    check(rdnaconv::Plan<T, L>::create(plan, p, o, w.get_device()), "plan");
    at::Tensor packed =
        at::empty({int64_t(plan.packed_weight_bytes())}, w.options().dtype(at::kByte));
    check(plan.prepack(static_cast<const T*>(w.data_ptr()), packed.data_ptr(),
                       at::cuda::getCurrentCUDAStream().stream()),
          "prepack");
    return packed;
  });
}

at::Tensor conv2d_packed(const at::Tensor& x, const at::Tensor& packed,
                         const c10::optional<at::Tensor>& bias, c10::IntArrayRef w_size,
                         c10::IntArrayRef stride, c10::IntArrayRef pad, c10::IntArrayRef dil,
                         bool nhwc, std::string act, std::string method, int64_t x_align) {
  const auto fmt = nhwc ? at::MemoryFormat::ChannelsLast : at::MemoryFormat::Contiguous;
  TORCH_CHECK(x.is_cuda() && x.is_contiguous(fmt), "rdnaconv: x must be a GPU tensor, contiguous ",
              nhwc ? "channels_last" : "NCHW");
  TORCH_CHECK(packed.is_cuda() && packed.device() == x.device(),
              "rdnaconv: packed weights not on x's device");
  const bool has_bias = bias.has_value() && bias->defined();
  if (has_bias)
    TORCH_CHECK(bias->is_cuda() && bias->is_contiguous() &&
                    bias->scalar_type() == x.scalar_type() && bias->numel() == w_size[0],
                "rdnaconv: bias must be a contiguous GPU tensor of K elements in x's dtype");
  const c10::cuda::CUDAGuard guard(x.device());
  const Conv2dProblem p = problem_of(x.sizes(), w_size, stride, pad, dil);
  const Conv2dOptions o = options_of(has_bias, act, method, x_align);
  return dispatch(x.scalar_type(), nhwc, [&]<class T, class L>() {
    rdnaconv::Plan<T, L> plan;
    check(rdnaconv::Plan<T, L>::create(plan, p, o, x.get_device()), "plan");
    TORCH_CHECK(std::size_t(packed.numel()) == plan.packed_weight_bytes(),
                "rdnaconv: packed weights of ", packed.numel(), " bytes, the plan needs ",
                plan.packed_weight_bytes(), " (packed for another shape, layout or method?)");
    at::Tensor y = at::empty({p.n, p.k, p.p(), p.q()}, x.options().memory_format(fmt));
    at::Tensor ws = at::empty({int64_t(plan.workspace_bytes())}, x.options().dtype(at::kByte));
    check(plan.run(static_cast<const T*>(x.data_ptr()), packed.data_ptr(),
                   has_bias ? bias->data_ptr() : nullptr, y.data_ptr(),
                   plan.workspace_bytes() ? ws.data_ptr() : nullptr, plan.workspace_bytes(),
                   at::cuda::getCurrentCUDAStream().stream()),
          "run");
    return y;
  });
}

}  // namespace

TORCH_LIBRARY(rdnaconv, m) {
  m.def(
      "prepack(Tensor w, int[] x_size, int[] stride, int[] padding, int[] dilation, bool nhwc, "
      "bool has_bias, str activation, str method, int x_align) -> Tensor");
  m.def(
      "conv2d_packed(Tensor x, Tensor packed, Tensor? bias, int[] w_size, int[] stride, "
      "int[] padding, int[] dilation, bool nhwc, str activation, str method, int x_align) -> "
      "Tensor");
}

TORCH_LIBRARY_IMPL(rdnaconv, CUDA, m) {
  m.impl("prepack", &prepack);
  m.impl("conv2d_packed", &conv2d_packed);
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.doc() = "rdnaconv ops: torch.ops.rdnaconv.*";
}
