// SPDX-License-Identifier: MIT
/// @file implicit_gemm_desc.hpp Host-side description of the general (implicit GEMM) family:
/// what it accepts and how its packed weights are laid out. No runtime headers.
#pragma once

#include <cstddef>
#include <cstdint>

#include "rdnaconv/kernels/implicit_gemm/tiles.hpp"
#include "rdnaconv/problem.hpp"
#include "rdnaconv/types.hpp"

namespace rdnaconv::kernels {

/// Packed weights: row k (one per filter) holds the reduction in (r, s, c) order, c fastest,
/// channels padded to c_pad, the row padded with zeros to a multiple of block_k:
///   wpk[k][(r*S + s)*c_pad + c] = w[k][c][r][s].
/// c_pad = C rounded up to 8 (so a 16-byte vector never straddles two taps) when C >= 8; for
/// C < 8 (RGB input layers) c_pad = C, and the kernel decodes every element on its own,
/// which wastes no multiplies on padding channels.
struct GeneralLayout {
  std::int64_t c_pad;
  std::int64_t k_total;
};

constexpr GeneralLayout general_layout(const Conv2dProblem& p, int block_k) {
  const std::int64_t c_pad = p.c >= 8 ? (p.c + 7) / 8 * 8 : p.c;
  const std::int64_t red = p.r * p.s * c_pad;
  return {c_pad, (red + block_k - 1) / block_k * block_k};
}

struct GeneralFamily {
  static constexpr Method method = Method::general;
  static constexpr const char* name() { return "general"; }
  /// Every valid problem: this is the family that makes "every shape has a kernel" true.
  static constexpr bool can_implement(const Conv2dProblem&, LayoutKind) { return true; }
  static constexpr std::size_t workspace_bytes(const Conv2dProblem&) { return 0; }
  static constexpr std::size_t packed_weight_bytes(const Conv2dProblem& p, ArchFamily f) {
    const GeneralLayout l = general_layout(p, general_tiles(f).block_k);
    return std::size_t(p.k) * std::size_t(l.k_total) * 2;
  }
};

}  // namespace rdnaconv::kernels
