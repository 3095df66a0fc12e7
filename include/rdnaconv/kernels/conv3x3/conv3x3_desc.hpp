// SPDX-License-Identifier: MIT
/// @file conv3x3_desc.hpp Host-side description of the three 3x3 direct variants (NHWC,
/// channel-blocked NCHW, repack-free NCHW). They share the packing [K][9][C_pad] (C padded
/// with zeros to the tile's block_k) and the tap iterator; they differ in how they read x.
/// Any stride, dilation and (asymmetric) padding. No runtime headers.
#pragma once

#include <cstddef>
#include <string>

#include "rdnaconv/kernels/common/layouts.hpp"
#include "rdnaconv/kernels/common/shape_rule.hpp"
#include "rdnaconv/problem.hpp"
#include "rdnaconv/types.hpp"

namespace rdnaconv::kernels {

template <Method M, LayoutKind L>
struct Conv3x3Variant : DirectFamilySizes<TileKind::conv3x3, tap_layout> {
  static constexpr Method method = M;
  static constexpr const char* name() { return to_string(M); }
  /// NHWC reads x in 16-byte vectors of 8 channels: C % 8 == 0 (and x 16-byte aligned, the
  /// plan's contract: Conv2dOptions::x_align). NCHW gathers; the channel-blocked variant reads
  /// its own repack. Padding modes: every one on NHWC and on the channel-blocked NCHW variant
  /// (their remap kernels: the tap iterator remaps the tap's coordinates, whatever the layout it
  /// reads); zeros only on nchw3x3 (no remap kernel built).
  static constexpr ShapeRule rule(const Conv2dProblem& p, LayoutKind l) {
    if (p.groups != 1) return dense_rule(p);
    if (p.r != 3 || p.s != 3) return broken("a 3x3 filter", "RxS", p.r, p.s);
    if (l != L) return broken(L == LayoutKind::nhwc ? "NHWC" : "NCHW", "layout", to_string(l));
    if (L == LayoutKind::nhwc && p.c % 8 != 0) return broken("C % 8 == 0", "C", p.c);
    if (M == Method::nchw3x3)
      return zeros_padding_rule(
          p, "pad_mode zeros (no remap kernel: cblocked3x3 and general take the other modes)");
    return {};
  }
  static constexpr bool can_implement(const Conv2dProblem& p, LayoutKind l) {
    return rule(p, l).holds();
  }
  /// The kernels run() launches, as the launch log names them (Plan::describe()).
  static std::string kernel_names(const Conv2dProblem& p, LayoutKind) {
    if (M == Method::cblocked3x3)
      return "repack_nchwc, conv_gemm<TapIter nchwc 3x3" + remap_suffix(p) + ">";
    return M == Method::nhwc3x3 ? "conv_gemm<TapIter nhwc 3x3" + remap_suffix(p) + ">"
                                : "conv_gemm<TapIter nchw 3x3>";
  }
  static constexpr bool reads_x_vectors(LayoutKind l) {
    return M == Method::nhwc3x3 && l == LayoutKind::nhwc;
  }
  /// The channel-blocked variant repacks x into NCHWc (cb = block_k) on every call.
  static constexpr std::size_t workspace_bytes(const Conv2dProblem& p, LayoutKind, ArchClass f) {
    if constexpr (M != Method::cblocked3x3) return 0;
    return std::size_t(p.n) * std::size_t(Conv3x3Variant::layout(p, f).c_pad) * std::size_t(p.h) *
           std::size_t(p.w) * 2;
  }
};

using Nhwc3x3Family = Conv3x3Variant<Method::nhwc3x3, LayoutKind::nhwc>;
using CBlocked3x3Family = Conv3x3Variant<Method::cblocked3x3, LayoutKind::nchw>;
using Nchw3x3Family = Conv3x3Variant<Method::nchw3x3, LayoutKind::nchw>;

}  // namespace rdnaconv::kernels
