// SPDX-License-Identifier: MIT
/// @file device_conv.hpp Naive device reference: one thread per output, fp32 accumulation in
/// (c, r, s) order, both layouts, the full epilogue. The oracle for shapes too large for the host.
#pragma once

#include <cstdint>

#include "rdnaconv/arch/convert.hpp"
#include "rdnaconv/arch/platform.hpp"
#include "rdnaconv/epilogue.hpp"
#include "rdnaconv/problem.hpp"
#include "rdnaconv/reference/host_conv.hpp"
#include "rdnaconv/validate.hpp"

namespace rdnaconv::reference {

template <DType T, LayoutKind L>
__global__ void naive_conv2d(Conv2dProblem p, const std::uint16_t* __restrict__ x,
                             const std::uint16_t* __restrict__ w, EpilogueParams e) {
  const std::int64_t P = p.p(), Q = p.q();
  const std::int64_t total = p.n * p.k * P * Q;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    // i enumerates outputs in the y layout, so stores are coalesced
    std::int64_t n, k, op, oq;
    if (L == LayoutKind::nchw) {
      oq = i % Q; op = (i / Q) % P; k = (i / (Q * P)) % p.k; n = i / (Q * P * p.k);
    } else {
      k = i % p.k; oq = (i / p.k) % Q; op = (i / (p.k * Q)) % P; n = i / (p.k * Q * P);
    }
    float acc = 0.f;
    for (std::int64_t c = 0; c < p.c; ++c)
      for (std::int64_t r = 0; r < p.r; ++r) {
        const std::int64_t ih = op * p.stride_h - p.pad_top + r * p.dil_h;
        if (ih < 0 || ih >= p.h) continue;
        for (std::int64_t t = 0; t < p.s; ++t) {
          const std::int64_t iw = oq * p.stride_w - p.pad_left + t * p.dil_w;
          if (iw < 0 || iw >= p.w) continue;
          acc = fmaf(arch::to_float<T>(x[x_index(p, L, n, c, ih, iw)]),
                     arch::to_float<T>(w[((k * p.c + c) * p.r + r) * p.s + t]), acc);
        }
      }
    epilogue_store(e, i, k, acc);
  }
}

/// Runs the device reference. Validates like the library; launches nothing on error.
inline Status device_conv2d(const Conv2dProblem& p, DType in, LayoutKind l, const void* x,
                            const void* w, const Conv2dOptions& o, const void* bias, void* y,
                            rt::stream_t stream) {
  if (Status s = validate_problem(p); !s) return s;
  if (Status s = validate_types(in, o); !s) return s;
  if (!x || !w || !y || (o.has_bias && !bias))
    return {StatusCode::null_pointer, "rdnaconv reference: null pointer"};
  EpilogueParams e;
  e.bias = o.has_bias ? bias : nullptr;
  e.bias_type = o.bias_type;
  e.act = o.activation;
  e.out_type = o.out_type == DType::same ? in : o.out_type;
  e.y = y;
  const std::int64_t total = p.y_elems();
  const unsigned blocks = unsigned(total / 256 + 1 < 131072 ? total / 256 + 1 : 131072);
  auto xs = static_cast<const std::uint16_t*>(x);
  auto ws = static_cast<const std::uint16_t*>(w);
  if (in == DType::f16) {
    if (l == LayoutKind::nchw) naive_conv2d<DType::f16, LayoutKind::nchw><<<blocks, 256, 0, stream>>>(p, xs, ws, e);
    else naive_conv2d<DType::f16, LayoutKind::nhwc><<<blocks, 256, 0, stream>>>(p, xs, ws, e);
  } else {
    if (l == LayoutKind::nchw) naive_conv2d<DType::bf16, LayoutKind::nchw><<<blocks, 256, 0, stream>>>(p, xs, ws, e);
    else naive_conv2d<DType::bf16, LayoutKind::nhwc><<<blocks, 256, 0, stream>>>(p, xs, ws, e);
  }
  const rt::error_t err = rt::get_last_error();
  if (err != rt::success)
    return {StatusCode::runtime_error, std::string("rdnaconv reference: launch failed: ") + rt::error_string(err)};
  return Status::success();
}

}  // namespace rdnaconv::reference
