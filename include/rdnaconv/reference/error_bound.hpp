// SPDX-License-Identifier: MIT
/// @file error_bound.hpp The tolerance model (docs/DESIGN.md, "Tolerance model"), implemented
/// once: per-output error scales computed on the device, and the bound built from them.
///
///   S  = |alpha| Σ_{c,r,s} |x||w| + |bias| + |beta z|   scale of any summation order's rounding
///        error (alpha, beta, z: the residual epilogue; Sw below is scaled by |alpha| too)
///   Sw = Σ_c Σ_{α} |Aᵀ_iα_a||Aᵀ_jα_b| |U_α||V_α|, bounded from above by
///        Σ_c Σ_{r,s,u,v} k_i(r,u) k_j(s,v) (|g_rs| + fg)(|d_uv| + fd),  k_i(r,u) = Σ_a
///        |Aᵀ_ia||G_ar||Bᵀ_au| the scale of Winograd's rounding of U and V to T (fd, fg: the fp16
///        subnormal floors).
///   bound = u_out |y| + e_out (twice when two results are each rounded) + 8 u32 (|y| + S)
///         + L (3 n u32 S  + [winograd] (2 u_T + u_T² + (2C + 64) u32) Sw)
/// with u = unit roundoff, n = C R S + 8 (accumulation length, plus alpha, bias, residual and
/// activation). The
/// matrix units' fp32 accumulation is not guaranteed to round to nearest: allowing 2 u32 per
/// addition for it and u32 for the reference's fma chain gives the 3 (and the 2C). e_out is half
/// the output type's subnormal spacing (gradual underflow makes that error absolute).
/// 8 u32 (|y| + S) is the activation's own fp32 evaluation: gelu = v (1 + erf(v/√2)) / 2
/// cancels for negative v, so its rounding error is a few ulp of its input v (|v| <= S), not of
/// its result; silu = v / (1 + e^-v) and sigmoid likewise stay within a few ulp of |v| and of
/// their result. L = 1.13 is the largest slope of the activations (gelu's; silu's is 1.10,
/// sigmoid's 0.25). The bound is
/// deterministic (worst case), so it holds for any data; integer data make direct methods exact,
/// and the tests then compare bit for bit instead.
#pragma once

#include <cmath>
#include <cstdint>

#include "rdnaconv/arch/convert.hpp"
#include "rdnaconv/arch/platform.hpp"
#include "rdnaconv/detail/numeric.hpp"
#include "rdnaconv/problem.hpp"
#include "rdnaconv/reference/device_conv.hpp"
#include "rdnaconv/reference/host_conv.hpp"
#include "rdnaconv/types.hpp"

namespace rdnaconv::reference {

/// The F(4x4, 3x3) matrices, written out independently of the kernels' hand-expanded transforms.
namespace wino {
RDNACONV_HD constexpr double fabs_c(double v) {
  return v < 0 ? -v : v;
}
/// k_i(r, u) = Σ_a |Aᵀ_ia| |G_ar| |Bᵀ_au|
RDNACONV_HD constexpr double k_table(int i, int r, int u) {
  constexpr double at[4][6] = {
      {1, 1, 1, 1, 1, 0}, {0, 1, -1, 2, -2, 0}, {0, 1, 1, 4, 4, 0}, {0, 1, -1, 8, -8, 1}};
  constexpr double g[6][3] = {{1.0 / 4, 0, 0},
                              {-1.0 / 6, -1.0 / 6, -1.0 / 6},
                              {-1.0 / 6, 1.0 / 6, -1.0 / 6},
                              {1.0 / 24, 1.0 / 12, 1.0 / 6},
                              {1.0 / 24, -1.0 / 12, 1.0 / 6},
                              {0, 0, 1}};
  constexpr double bt[6][6] = {{4, 0, -5, 0, 1, 0},  {0, -4, -4, 1, 1, 0}, {0, 4, -4, -1, 1, 0},
                               {0, -2, -1, 2, 1, 0}, {0, 2, -1, -2, 1, 0}, {0, 4, 0, -5, 0, 1}};
  double s = 0;
  for (int a = 0; a < 6; ++a) s += fabs_c(at[i][a]) * fabs_c(g[a][r]) * fabs_c(bt[a][u]);
  return s;
}
}  // namespace wino

/// Subnormal floors of the Winograd operands (fp16 stores V/16 and 16 U; see winograd.hpp).
RDNACONV_HD constexpr double winograd_floor_d(DType t) {
  return t == DType::f16 ? 1.0 / 1024 : 0.0;
}
RDNACONV_HD constexpr double winograd_floor_g(DType t) {
  return t == DType::f16 ? 1.0 / 16384 : 0.0;
}

constexpr double kUnitF32 = 1.0 / 16777216.0;
/// Gradual underflow: below the smallest normal, rounding errors are absolute, at most half the
/// subnormal spacing (fl(v) = v (1 + d) + e, |d| <= u, |e| <= this).
constexpr double kHalfSubnormalF32 = 7.006492321624085e-46;  // 2^-150
RDNACONV_HD constexpr double half_subnormal(DType t) {
  return t == DType::f16    ? 2.98023223876953125e-08 /* 2^-25 */
         : t == DType::bf16 ? 4.591774807899561e-41   /* 2^-134 */
                            : kHalfSubnormalF32;
}
constexpr double kActivationSlope = 1.13;

/// The bound on |y - y_exact| for one output (see the file comment). `rounded_twice`: the
/// compared value and the reference are each rounded to the output type.
RDNACONV_HD inline double error_bound(bool winograd, DType in, DType out, std::int64_t c,
                                      std::int64_t crs, double y_abs, double s, double sw,
                                      bool rounded_twice) {
  const double uo = out == DType::f32 ? kUnitF32 : detail::unit_roundoff(out);
  const double ut = detail::unit_roundoff(in);
  double acc = 3 * double(crs + 8) * (kUnitF32 * s + kHalfSubnormalF32);
  if (winograd) acc += (2 * ut + ut * ut + double(2 * c + 64) * kUnitF32) * sw;
  const int roundings = rounded_twice ? 2 : 1;
  return roundings * (uo * y_abs + half_subnormal(out)) + 8 * kUnitF32 * (y_abs + s) +
         kActivationSlope * acc;
}

/// Reads 16-bit storage as float: the device kernel uses the target's conversions, the host
/// checks the portable bit-level ones.
template <DType T>
struct DeviceLoad {
  RDNACONV_DEVICE float operator()(std::uint16_t b) const { return arch::to_float<T>(b); }
};
struct SoftLoad {
  DType t;
  RDNACONV_HD float operator()(std::uint16_t b) const {
    return t == DType::bf16 ? detail::bf16_to_float_soft(b) : detail::f16_to_float_soft(b);
  }
};

/// The error scales of one output (n, k, op, oq) without the bias: S = Σ |x||w| and, when
/// `wino`, the Winograd scale Sw of the 4x4 tile holding it (tiles start at output row and
/// column 0, as the kernels place them). One definition for the device kernel below and the
/// host checks (tests/common/fuzz.cpp).
template <class Load>
RDNACONV_HD inline void output_scales(const Conv2dProblem& p, LayoutKind l, DType t,
                                      const std::uint16_t* x, const std::uint16_t* w,
                                      std::int64_t n, std::int64_t k, std::int64_t op,
                                      std::int64_t oq, bool with_winograd, Load load, double& s_out,
                                      double& sw_out) {
  const double fd = winograd_floor_d(t), fg = winograd_floor_g(t);
  double s = 0, sw = 0;
  const int ti = int(op % 4), tj = int(oq % 4);
  const bool wino_tile = with_winograd && p.r == 3 && p.s == 3;
  // the k tables in float (registers), each rounded up by one part in 2^20 so the bound stays a
  // bound
  float kti[3][6], ktj[3][6];
  for (int r = 0; r < 3; ++r)
    for (int u = 0; u < 6; ++u) {
      kti[r][u] = float(wino::k_table(ti, r, u) * (1 + 1.0 / 1048576));
      ktj[r][u] = float(wino::k_table(tj, r, u) * (1 + 1.0 / 1048576));
    }
  const std::int64_t cg = p.c_per_group();
  const std::int64_t c0 = k / p.k_per_group() * cg;  // groups: the C/G channels of k's group
  for (std::int64_t c = 0; c < cg; ++c) {
    for (std::int64_t r = 0; r < p.r; ++r) {
      // the padding: zeros (-1, skipped) or the input pixel its mode reads
      const std::int64_t ih =
          pad_source(op * p.stride_h - p.pad_top + r * p.dil_h, p.h, p.pad_mode);
      if (ih < 0) continue;
      for (std::int64_t q = 0; q < p.s; ++q) {
        const std::int64_t iw =
            pad_source(oq * p.stride_w - p.pad_left + q * p.dil_w, p.w, p.pad_mode);
        if (iw < 0) continue;
        s += fabs(double(load(x[x_index(p, l, n, c0 + c, ih, iw)])) *
                  double(load(w[((k * cg + c) * p.r + r) * p.s + q])));
      }
    }
    if (wino_tile) {
      // h[r][v] = Σ_t k_j(t, v) (|g_rt| + fg); weight of patch (u, v) = Σ_r k_i(r, u) h[r][v]
      double h[3][6];
      for (int r = 0; r < 3; ++r) {
        double g[3];
        for (int q = 0; q < 3; ++q)
          g[q] = fabs(double(load(w[((k * cg + c) * 3 + r) * 3 + q]))) + fg;
        for (int v = 0; v < 6; ++v)
          h[r][v] = ktj[0][v] * g[0] + ktj[1][v] * g[1] + ktj[2][v] * g[2];
      }
      // the 6x6 patch of the 4x4 tile holding this output (zeros padding: Winograd's rule
      // refuses the other modes)
      const std::int64_t ih0 = op - ti - p.pad_top, iw0 = oq - tj - p.pad_left;
      for (int u = 0; u < 6; ++u)
        for (int v = 0; v < 6; ++v) {
          const std::int64_t ih = ih0 + u, iw = iw0 + v;
          double d = fd;
          if (ih >= 0 && ih < p.h && iw >= 0 && iw < p.w)
            d += fabs(double(load(x[x_index(p, l, n, c0 + c, ih, iw)])));
          sw += (kti[0][u] * h[0][v] + kti[1][u] * h[1][v] + kti[2][u] * h[2][v]) * d;
        }
    }
  }
  s_out = s;
  sw_out = sw;
}

/// One thread per output: S (bias included) and, when `sw_out` is non-null, the Winograd scale,
/// for output sel[i] (sel null: output i, y layout order), stored at position i.
template <DType T, LayoutKind L>
__global__ void error_scales(Conv2dProblem p, const std::uint16_t* __restrict__ x,
                             const std::uint16_t* __restrict__ w, const void* bias, DType bias_type,
                             float* __restrict__ s_out, float* __restrict__ sw_out,
                             const std::int64_t* __restrict__ sel, std::int64_t count) {
  for (std::int64_t idx = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; idx < count;
       idx += std::int64_t(gridDim.x) * blockDim.x) {
    const OutCoord oc = out_coord(p, L, sel ? sel[idx] : idx);
    const double b =
        bias ? fabs(double(bias_type == DType::f32
                               ? static_cast<const float*>(bias)[oc.k]
                               : arch::to_float<T>(static_cast<const std::uint16_t*>(bias)[oc.k])))
             : 0.0;
    double s = 0, sw = 0;
    output_scales(p, L, T, x, w, oc.n, oc.k, oc.op, oc.oq, sw_out != nullptr, DeviceLoad<T>{}, s,
                  sw);
    s_out[idx] = float(s + b);
    if (sw_out) sw_out[idx] = float(sw);
  }
}

/// Fills s (and sw, if non-null) for every output in the y layout, or for the `count` outputs
/// listed in `sel` (device array), compactly. Launch errors are returned.
inline rt::error_t device_error_scales(const Conv2dProblem& p, DType in, LayoutKind l,
                                       const void* x, const void* w, const void* bias,
                                       DType bias_type, float* s, float* sw, rt::stream_t stream,
                                       const std::int64_t* sel = nullptr, std::int64_t count = -1) {
  const std::int64_t total = sel ? count : p.y_elems();
  const unsigned blocks = unsigned(total / 128 + 1 < 65536 ? total / 128 + 1 : 65536);
  auto xs = static_cast<const std::uint16_t*>(x);
  auto ws = static_cast<const std::uint16_t*>(w);
  if (in == DType::f16) {
    if (l == LayoutKind::nchw)
      error_scales<DType::f16, LayoutKind::nchw>
          <<<blocks, 128, 0, stream>>>(p, xs, ws, bias, bias_type, s, sw, sel, total);
    else
      error_scales<DType::f16, LayoutKind::nhwc>
          <<<blocks, 128, 0, stream>>>(p, xs, ws, bias, bias_type, s, sw, sel, total);
  } else {
    if (l == LayoutKind::nchw)
      error_scales<DType::bf16, LayoutKind::nchw>
          <<<blocks, 128, 0, stream>>>(p, xs, ws, bias, bias_type, s, sw, sel, total);
    else
      error_scales<DType::bf16, LayoutKind::nhwc>
          <<<blocks, 128, 0, stream>>>(p, xs, ws, bias, bias_type, s, sw, sel, total);
  }
  return rt::get_last_error();
}

}  // namespace rdnaconv::reference
