// SPDX-License-Identifier: MIT
/// @file gemm1x1_desc.hpp Host-side description of the 1x1 GEMM family. No runtime headers.
#pragma once

#include <cstddef>
#include <string>

#include "rdnaconv/kernels/common/layouts.hpp"
#include "rdnaconv/kernels/common/shape_rule.hpp"
#include "rdnaconv/problem.hpp"
#include "rdnaconv/types.hpp"

namespace rdnaconv::kernels {

/// 1x1 filters as a GEMM, any stride and padding (ResNet-50's stride-2 downsample gathers
/// every other pixel; padded rows read zeros). Packed [K][C_pad], C_pad = C rounded to block_k.
struct Gemm1x1Family : DirectFamilySizes<TileKind::gemm1x1, tap_layout> {
  static constexpr Method method = Method::gemm1x1;
  static constexpr const char* name() { return "gemm1x1"; }
  /// NHWC reads x in 16-byte vectors of 8 channels: C % 8 == 0 (and x 16-byte aligned, the
  /// plan's contract: Conv2dOptions::x_align); NCHW gathers. Zeros padding only: a padded 1x1
  /// layer is rare, so no remap kernel is built (general takes the other modes).
  static constexpr ShapeRule rule(const Conv2dProblem& p, LayoutKind l) {
    if (p.groups != 1) return dense_rule(p);
    if (p.r != 1 || p.s != 1) return broken("a 1x1 filter", "RxS", p.r, p.s);
    if (l == LayoutKind::nhwc && p.c % 8 != 0) return broken("C % 8 == 0 on NHWC", "C", p.c);
    return zeros_padding_rule(p, "pad_mode zeros (no remap kernel: general takes the other modes)");
  }
  static constexpr bool can_implement(const Conv2dProblem& p, LayoutKind l) {
    return rule(p, l).holds();
  }
  static constexpr bool reads_x_vectors(LayoutKind l) { return l == LayoutKind::nhwc; }
  /// The kernels run() launches, as the launch log names them (Plan::describe()).
  static std::string kernel_names(LayoutKind l) {
    return std::string("conv_gemm<TapIter ") + to_string(l) + " 1x1>";
  }
};

}  // namespace rdnaconv::kernels
