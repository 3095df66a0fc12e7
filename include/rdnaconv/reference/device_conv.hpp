// SPDX-License-Identifier: MIT
/// @file device_conv.hpp Naive device reference: one thread per output, fp32 accumulation in
/// (c, r, s) order over the C/G channels of the output's group, both layouts, every padding mode
/// (pad_source), the full epilogue. The oracle for shapes too large for the host.
#pragma once

#include <cstdint>

#include "rdnaconv/arch/convert.hpp"
#include "rdnaconv/arch/platform.hpp"
#include "rdnaconv/epilogue.hpp"
#include "rdnaconv/problem.hpp"
#include "rdnaconv/reference/host_conv.hpp"
#include "rdnaconv/validate.hpp"

namespace rdnaconv::reference {

/// Output index o (y layout order) -> (n, k, p, q).
struct OutCoord {
  std::int64_t n, k, op, oq;
};
RDNACONV_HD inline OutCoord out_coord(const Conv2dProblem& p, LayoutKind l, std::int64_t o) {
  const std::int64_t P = p.p(), Q = p.q();
  if (l == LayoutKind::nchw) return {o / (Q * P * p.k), (o / (Q * P)) % p.k, (o / Q) % P, o % Q};
  return {o / (p.k * Q * P), o % p.k, (o / (p.k * Q)) % P, (o / p.k) % Q};
}

/// `count` outputs: output idx[i] (idx null: output i) is stored at position i of e.y.
template <DType T, LayoutKind L>
__global__ void naive_conv2d(Conv2dProblem p, const std::uint16_t* __restrict__ x,
                             const std::uint16_t* __restrict__ w, EpilogueParams e,
                             const std::int64_t* __restrict__ idx, std::int64_t count) {
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    // without idx, i enumerates outputs in the y layout, so stores are coalesced
    const OutCoord oc = out_coord(p, L, idx ? idx[i] : i);
    const std::int64_t n = oc.n, k = oc.k, op = oc.op, oq = oc.oq;
    float acc = 0.f;
    const std::int64_t cg = p.c_per_group();
    const std::int64_t c0 = k / p.k_per_group() * cg;  // the group's first input channel
    for (std::int64_t c = 0; c < cg; ++c)
      for (std::int64_t r = 0; r < p.r; ++r) {
        // the padding: zeros (-1, skipped) or the input pixel its mode reads
        const std::int64_t ih =
            pad_source(op * p.stride_h - p.pad_top + r * p.dil_h, p.h, p.pad_mode);
        if (ih < 0) continue;
        for (std::int64_t t = 0; t < p.s; ++t) {
          const std::int64_t iw =
              pad_source(oq * p.stride_w - p.pad_left + t * p.dil_w, p.w, p.pad_mode);
          if (iw < 0) continue;
          acc = fmaf(arch::to_float<T>(x[x_index(p, L, n, c0 + c, ih, iw)]),
                     arch::to_float<T>(w[((k * cg + c) * p.r + r) * p.s + t]), acc);
        }
      }
    store_out(e.y, e.out_type, i, epilogue_value(e, idx ? idx[i] : i, k, acc));
  }
}

/// Runs the device reference. Validates like the library; launches nothing on error. With
/// `idx` (device array of `count` output indices in the y layout) only those outputs are
/// computed, stored compactly at y[0..count). The residual z (o.has_residual) is read at the
/// outputs' own indices, in `z_type` (same: o's output type), so that an fp32 reference of a
/// 16-bit output reads that output's z.
[[nodiscard]] inline Status device_conv2d(const Conv2dProblem& p, DType in, LayoutKind l,
                                          const void* x, const void* w, const Conv2dOptions& o,
                                          const void* bias, void* y, rt::stream_t stream,
                                          const std::int64_t* idx = nullptr,
                                          std::int64_t count = -1, const void* z = nullptr,
                                          DType z_type = DType::same) {
  if (Status s = validate_problem(p); !s) return s;
  if (Status s = validate_types(in, o); !s) return s;
  if (!x || !w || !y || (o.has_bias && !bias) || (o.has_residual && !z))
    return {StatusCode::null_pointer, "rdnaconv reference: null pointer"};
  EpilogueParams e;
  e.z = o.has_residual ? z : nullptr;
  e.alpha = o.alpha;
  e.beta = o.beta;
  e.bias = o.has_bias ? bias : nullptr;
  e.bias_type = o.bias_type == DType::same ? in : o.bias_type;
  e.act = o.activation;
  e.out_type = o.out_type == DType::same ? in : o.out_type;
  e.z_type = z_type == DType::same ? e.out_type : z_type;
  e.y = y;
  const std::int64_t total = idx ? count : p.y_elems();
  const unsigned blocks = unsigned(total / 256 + 1 < 131072 ? total / 256 + 1 : 131072);
  auto xs = static_cast<const std::uint16_t*>(x);
  auto ws = static_cast<const std::uint16_t*>(w);
  if (in == DType::f16) {
    if (l == LayoutKind::nchw)
      naive_conv2d<DType::f16, LayoutKind::nchw>
          <<<blocks, 256, 0, stream>>>(p, xs, ws, e, idx, total);
    else
      naive_conv2d<DType::f16, LayoutKind::nhwc>
          <<<blocks, 256, 0, stream>>>(p, xs, ws, e, idx, total);
  } else {
    if (l == LayoutKind::nchw)
      naive_conv2d<DType::bf16, LayoutKind::nchw>
          <<<blocks, 256, 0, stream>>>(p, xs, ws, e, idx, total);
    else
      naive_conv2d<DType::bf16, LayoutKind::nhwc>
          <<<blocks, 256, 0, stream>>>(p, xs, ws, e, idx, total);
  }
  const rt::error_t err = rt::get_last_error();
  if (err != rt::success)
    return {StatusCode::runtime_error,
            std::string("rdnaconv reference: launch failed: ") + rt::error_string(err)};
  return Status::success();
}

}  // namespace rdnaconv::reference
