// SPDX-License-Identifier: MIT
/// @file problem.hpp The convolution problem: shapes, stride, dilation, padding. Host and device.
#pragma once

#include <cstdint>

#include "rdnaconv/arch/macros.hpp"
#include "rdnaconv/types.hpp"

namespace rdnaconv {

/// A forward 2-D convolution y = conv(x, w).
///   x: N x C x H x W (layout NCHW or NHWC), w: K x C/G x R x S (OIHW), y: N x K x P x Q.
/// Implicit-GEMM view: M = N*P*Q output pixels, N_gemm = K filters, K_gemm = C/G*R*S.
/// Padding is per side; asymmetric padding (the VAE downsample's (0,1,0,1)) is allowed. What the
/// padding reads is `pad_mode` (PyTorch's padding_mode; pad_source below).
/// Groups (G = `groups`, PyTorch's): C and K divisible by G; filter k reads the C/G input
/// channels of its group g = k / (K/G), i.e. channels [g C/G, (g+1) C/G). G = C: depthwise.
struct Conv2dProblem {
  std::int64_t n = 1, c = 1, h = 1, w = 1, k = 1;
  std::int64_t r = 1, s = 1;
  std::int64_t stride_h = 1, stride_w = 1;
  std::int64_t dil_h = 1, dil_w = 1;
  std::int64_t pad_top = 0, pad_bottom = 0, pad_left = 0, pad_right = 0;
  std::int64_t groups = 1;  ///< G: 1 (dense), C (depthwise) or any divisor of C and K
  /// zeros (the default), reflect, replicate or circular: the kernels remap the input
  /// coordinate (pad_source), no padded copy of x is made. Last, so that aggregate
  /// initialisations written before it keep their meaning.
  PadMode pad_mode = PadMode::zeros;

  /// Output height; may be <= 0 for an invalid problem (validation rejects it).
  RDNACONV_HD constexpr std::int64_t p() const {
    const std::int64_t span = h + pad_top + pad_bottom - dil_h * (r - 1) - 1;
    return span < 0 ? 0 : span / stride_h + 1;
  }
  /// Output width.
  RDNACONV_HD constexpr std::int64_t q() const {
    const std::int64_t span = w + pad_left + pad_right - dil_w * (s - 1) - 1;
    return span < 0 ? 0 : span / stride_w + 1;
  }
  /// Input channels per group, C/G (C where G is not positive: validation refuses it).
  RDNACONV_HD constexpr std::int64_t c_per_group() const { return groups > 0 ? c / groups : c; }
  /// Filters per group, K/G (K where G is not positive).
  RDNACONV_HD constexpr std::int64_t k_per_group() const { return groups > 0 ? k / groups : k; }
  RDNACONV_HD constexpr std::int64_t gemm_m() const { return n * p() * q(); }
  RDNACONV_HD constexpr std::int64_t gemm_n() const { return k; }
  /// The reduction of one output: C/G * R * S.
  RDNACONV_HD constexpr std::int64_t gemm_k() const { return c_per_group() * r * s; }
  RDNACONV_HD constexpr std::int64_t x_elems() const { return n * c * h * w; }
  RDNACONV_HD constexpr std::int64_t w_elems() const { return k * c_per_group() * r * s; }
  RDNACONV_HD constexpr std::int64_t y_elems() const { return n * k * p() * q(); }
  /// Direct-convolution FLOP count, the one convention used everywhere (Winograd too).
  constexpr double flops() const { return 2.0 * double(gemm_m()) * double(k) * double(gemm_k()); }
};

/// The input index that padded index i of an axis of n elements reads under mode m: i itself
/// inside [0, n); outside it, -1 (zeros: the padding adds nothing), the mirror image without
/// the edge (reflect: -1 -> 1, n -> n - 2), the nearest edge (replicate) or i wrapped by n
/// (circular). One reflection or wrap is enough: a convolution's input coordinate
/// p*stride - pad_before + r*dil lies in [-pad_before, n - 1 + pad_after] (the output size's
/// formula bounds it), and validation keeps reflect's pads below n and circular's at most n.
template <class I>
RDNACONV_HD constexpr I pad_source(I i, I n, PadMode m) {
  if (i >= 0 && i < n) return i;
  switch (m) {
    case PadMode::reflect:
      return i < 0 ? -i : 2 * (n - 1) - i;
    case PadMode::replicate:
      return i < 0 ? I(0) : n - 1;
    case PadMode::circular:
      return i < 0 ? i + n : i - n;
    case PadMode::zeros:
      break;
  }
  return I(-1);
}

/// Convenience: symmetric padding (and groups, default 1).
constexpr Conv2dProblem make_problem(std::int64_t n, std::int64_t c, std::int64_t h, std::int64_t w,
                                     std::int64_t k, std::int64_t r, std::int64_t s,
                                     std::int64_t stride = 1, std::int64_t pad = 0,
                                     std::int64_t dil = 1, std::int64_t groups = 1) {
  Conv2dProblem pr;
  pr.n = n;
  pr.c = c;
  pr.h = h;
  pr.w = w;
  pr.k = k;
  pr.r = r;
  pr.s = s;
  pr.stride_h = pr.stride_w = stride;
  pr.dil_h = pr.dil_w = dil;
  pr.pad_top = pr.pad_bottom = pr.pad_left = pr.pad_right = pad;
  pr.groups = groups;
  return pr;
}

}  // namespace rdnaconv
