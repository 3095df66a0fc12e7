// SPDX-License-Identifier: MIT
/// @file general_desc.hpp Host-side description of the general (implicit GEMM) family:
/// what it accepts, its packing and its sizes. No runtime headers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "rdnaconv/kernels/common/layouts.hpp"
#include "rdnaconv/problem.hpp"
#include "rdnaconv/types.hpp"

namespace rdnaconv::kernels {

struct GeneralFamily {
  static constexpr Method method = Method::general;
  static constexpr TileKind tile_kind = TileKind::general;
  static constexpr const char* name() { return "general"; }
  /// Every valid problem: this is the family that makes "every shape has a kernel" true.
  static constexpr bool can_implement(const Conv2dProblem&, LayoutKind) { return true; }
  /// Vector loads where C % 8 == 0 and x is 16-byte aligned, element gathers otherwise: one
  /// kernel either way, no alignment contract.
  static constexpr bool reads_x_vectors(LayoutKind) { return false; }
  /// The kernels run() launches, as the launch log names them (Plan::describe()).
  static std::string kernel_names(LayoutKind l) {
    return std::string("conv_gemm<GeneralIter ") + to_string(l) + ">";
  }
  static constexpr ReductionLayout layout(const Conv2dProblem& p, ArchClass f) {
    return general_layout(p, tile_of(f, tile_kind).block_k);
  }
  static constexpr std::size_t packed_weight_bytes(const Conv2dProblem& p, ArchClass f) {
    return std::size_t(p.k) * std::size_t(layout(p, f).k_total) * 2;
  }
  static constexpr std::size_t workspace_bytes(const Conv2dProblem&, LayoutKind, ArchClass) {
    return 0;
  }
};

}  // namespace rdnaconv::kernels
