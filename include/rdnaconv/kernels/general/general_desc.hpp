// SPDX-License-Identifier: MIT
/// @file general_desc.hpp Host-side description of the general (implicit GEMM) family:
/// what it accepts, its packing and its sizes. No runtime headers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "rdnaconv/kernels/common/layouts.hpp"
#include "rdnaconv/kernels/common/shape_rule.hpp"
#include "rdnaconv/problem.hpp"
#include "rdnaconv/types.hpp"

namespace rdnaconv::kernels {

struct GeneralFamily : DirectFamilySizes<TileKind::general, general_layout> {
  static constexpr Method method = Method::general;
  static constexpr const char* name() { return "general"; }
  /// Every valid dense problem (groups 1), every padding mode (the remap kernel: PadRemapTag):
  /// this is the family that makes "every dense shape has a kernel" true (grouped ones have
  /// the grouped family).
  static constexpr ShapeRule rule(const Conv2dProblem& p, LayoutKind) { return dense_rule(p); }
  static constexpr bool can_implement(const Conv2dProblem& p, LayoutKind l) {
    return rule(p, l).holds();
  }
  /// Vector loads where C % 8 == 0 and x is 16-byte aligned, element gathers otherwise: one
  /// kernel either way, no alignment contract.
  static constexpr bool reads_x_vectors(LayoutKind) { return false; }
  /// The kernels run() launches, as the launch log names them (Plan::describe()).
  static std::string kernel_names(const Conv2dProblem& p, LayoutKind l) {
    return std::string("conv_gemm<GeneralIter ") + to_string(l) + remap_suffix(p) + ">";
  }
};

}  // namespace rdnaconv::kernels
