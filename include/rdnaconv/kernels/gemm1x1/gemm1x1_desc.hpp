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

/// The dense problem cblocked1x1's GEMM runs: its repack gathers, for every output pixel, the
/// one input pixel a 1x1 filter reads there (stride, padding and padding mode applied), so the
/// engine sees a 1x1, stride-1, unpadded convolution over a P x Q image with the same N, C, K
/// and output.
constexpr Conv2dProblem cblocked1x1_gemm_problem(const Conv2dProblem& p) {
  Conv2dProblem g = p;
  g.h = p.p();
  g.w = p.q();
  g.stride_h = g.stride_w = g.dil_h = g.dil_w = 1;
  g.pad_top = g.pad_bottom = g.pad_left = g.pad_right = 0;
  g.pad_mode = PadMode::zeros;
  return g;
}

/// 1x1 filters on NCHW through a channel-blocked repack (issue 14 item 5): gemm1x1 on NCHW reads
/// each of a vector's 8 reduction elements with a 2-byte load (channels are H*W apart); here a
/// memory-bound kernel first writes the pixels the filter reads as NCHWc ([N][C_pad/cb][P*Q][cb],
/// cb = block_k, zeros past C and in the padding), and the engine then reads 16-byte vectors of
/// 8 channels of one pixel, as on NHWC (TapIterTag<nchwc, true>); y is written NCHW by the
/// engine's epilogue. The repack reads only the pixels the filter reads (a stride-2 layer's
/// repack writes a quarter of x) and applies the padding mode, so every mode is taken. Same
/// packing and tile rows as gemm1x1.
struct CBlocked1x1Family : DirectFamilySizes<TileKind::gemm1x1, tap_layout> {
  static constexpr Method method = Method::cblocked1x1;
  static constexpr const char* name() { return "cblocked1x1"; }
  static constexpr ShapeRule rule(const Conv2dProblem& p, LayoutKind l) {
    if (p.groups != 1) return dense_rule(p);
    if (p.r != 1 || p.s != 1) return broken("a 1x1 filter", "RxS", p.r, p.s);
    if (l != LayoutKind::nchw) return broken("NCHW", "layout", to_string(l));
    return {};
  }
  static constexpr bool can_implement(const Conv2dProblem& p, LayoutKind l) {
    return rule(p, l).holds();
  }
  static constexpr bool reads_x_vectors(LayoutKind) { return false; }  // x is gathered
  static std::string kernel_names(LayoutKind) {
    return "repack_nchwc_1x1, conv_gemm<TapIter nchwc 1x1>";
  }
  /// The repack: N x C_pad x P x Q elements.
  static constexpr std::size_t workspace_bytes(const Conv2dProblem& p, LayoutKind, ArchClass f) {
    return std::size_t(p.n) * std::size_t(CBlocked1x1Family::layout(p, f).c_pad) *
           std::size_t(p.p()) * std::size_t(p.q()) * 2;
  }
};

}  // namespace rdnaconv::kernels
