// SPDX-License-Identifier: MIT
/// @file host_conv.hpp Host reference convolution: double accumulation, the full epilogue, both
/// layouts. Type-erased (16-bit words + DType) so it needs no GPU runtime and no platform types.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "rdnaconv/arch/macros.hpp"
#include "rdnaconv/detail/numeric.hpp"
#include "rdnaconv/problem.hpp"
#include "rdnaconv/types.hpp"

namespace rdnaconv::reference {

/// Index of x[n][c][h][w] in the given layout.
RDNACONV_HD constexpr std::int64_t x_index(const Conv2dProblem& p, LayoutKind l, std::int64_t n,
                                           std::int64_t c, std::int64_t h, std::int64_t w) {
  return l == LayoutKind::nchw ? ((n * p.c + c) * p.h + h) * p.w + w
                               : ((n * p.h + h) * p.w + w) * p.c + c;
}
/// Index of y[n][k][p][q] in the given layout.
RDNACONV_HD constexpr std::int64_t y_index(const Conv2dProblem& pr, LayoutKind l, std::int64_t n,
                                           std::int64_t k, std::int64_t p, std::int64_t q) {
  return l == LayoutKind::nchw ? ((n * pr.k + k) * pr.p() + p) * pr.q() + q
                               : ((n * pr.p() + p) * pr.q() + q) * pr.k + k;
}

inline double activate_host(double v, Activation a) {
  switch (a) {
    case Activation::none:
      return v;
    case Activation::relu:
      return v > 0 ? v : 0;
    case Activation::relu6:
      return v > 0 ? (v < 6 ? v : 6) : 0;
    case Activation::gelu:
      return 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0)));
    case Activation::silu:
      return v / (1.0 + std::exp(-v));
    case Activation::sigmoid:
      return 1.0 / (1.0 + std::exp(-v));
  }
  return v;
}

struct HostEpilogue {
  const void* bias = nullptr;  ///< float* or 16-bit words, per bias_type
  DType bias_type = DType::f32;
  Activation act = Activation::none;
  const void* z = nullptr;  ///< residual in the y layout: float* or 16-bit words, per z_type
  DType z_type = DType::f32;
  double alpha = 1, beta = 1;  ///< act(alpha conv + bias + beta z)
};

/// Element i of a type-erased host tensor (float or 16-bit words).
inline double host_load(const void* t, DType type, std::int64_t i) {
  return type == DType::f32
             ? double(static_cast<const float*>(t)[i])
             : double(detail::bits_to_float(type, static_cast<const std::uint16_t*>(t)[i]));
}

/// Pre-rounding results (double) into `acc` (y layout, y_elems long); `abs_acc` gets sum |x*w|
/// per output when non-null (the scale of the rounding error of any summation order). Groups:
/// filter k reads the C/G channels of its group, g = k / (K/G), from weights [K][C/G][R][S].
/// The padding reads what p.pad_mode says (pad_source, problem.hpp).
inline void host_conv2d_exact(const Conv2dProblem& p, LayoutKind l, DType in,
                              const std::uint16_t* x, const std::uint16_t* w, const HostEpilogue& e,
                              std::vector<double>& acc, std::vector<double>* abs_acc = nullptr) {
  const std::int64_t P = p.p(), Q = p.q();
  acc.assign(std::size_t(p.y_elems()), 0.0);
  if (abs_acc) abs_acc->assign(std::size_t(p.y_elems()), 0.0);
  std::vector<double> wf(std::size_t(p.w_elems()));
  for (std::size_t i = 0; i < wf.size(); ++i) wf[i] = detail::bits_to_float(in, w[i]);
  const std::int64_t cg = p.c_per_group(), kg = p.k_per_group();
  for (std::int64_t n = 0; n < p.n; ++n)
    for (std::int64_t k = 0; k < p.k; ++k)
      for (std::int64_t op = 0; op < P; ++op)
        for (std::int64_t oq = 0; oq < Q; ++oq) {
          double s = 0, sa = 0;
          const std::int64_t c0 = k / kg * cg;  // the group's first input channel
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
                const double xv = detail::bits_to_float(in, x[x_index(p, l, n, c0 + c, ih, iw)]);
                const double prod = xv * wf[std::size_t(((k * cg + c) * p.r + r) * p.s + t)];
                s += prod;
                sa += std::fabs(prod);
              }
            }
          const double b = e.bias ? host_load(e.bias, e.bias_type, k) : 0.0;
          const std::size_t yi = std::size_t(y_index(p, l, n, k, op, oq));
          const double zv = e.z ? e.beta * host_load(e.z, e.z_type, std::int64_t(yi)) : 0.0;
          acc[yi] = activate_host(e.alpha * s + b + zv, e.act);
          if (abs_acc) (*abs_acc)[yi] = std::fabs(e.alpha) * sa + std::fabs(b) + std::fabs(zv);
        }
}

/// The reference as the library would store it: rounded to `out` (f32 results as float bits in
/// a uint32 vector, 16-bit types as words).
inline std::vector<std::uint32_t> host_conv2d(const Conv2dProblem& p, LayoutKind l, DType in,
                                              const std::uint16_t* x, const std::uint16_t* w,
                                              const HostEpilogue& e, DType out) {
  std::vector<double> acc;
  host_conv2d_exact(p, l, in, x, w, e, acc);
  std::vector<std::uint32_t> y(acc.size());
  for (std::size_t i = 0; i < acc.size(); ++i) {
    const float f = float(acc[i]);
    y[i] = out == DType::f32 ? detail::float_bits(f) : detail::float_to_bits(out, f);
  }
  return y;
}

}  // namespace rdnaconv::reference
