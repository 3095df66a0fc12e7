// SPDX-License-Identifier: MIT
/// @file layouts.hpp Packed reduction layouts of the direct families. Pure host/device
/// arithmetic, no runtime headers (the host tests and plan selection use it).
#pragma once

#include <cstddef>
#include <cstdint>

#include "rdnaconv/kernels/common/tiles.hpp"
#include "rdnaconv/problem.hpp"

namespace rdnaconv::kernels {

constexpr std::int64_t round_up(std::int64_t v, std::int64_t a) {
  return (v + a - 1) / a * a;
}
constexpr std::int64_t ceil_div(std::int64_t v, std::int64_t a) {
  return (v + a - 1) / a;
}

/// Packed weights of every direct family: row k (one per filter) holds the reduction in
/// tap-major (r, s, c) order, c fastest, channels padded to c_pad, the row zero-padded to
/// k_total (a multiple of the tile's block_k, so the B operand never needs a reduction mask):
///   wpk[k][(r*S + s)*c_pad + c] = w[k][c][r][s].
struct ReductionLayout {
  std::int64_t c_pad;
  std::int64_t k_total;
};

/// General family: c_pad = C rounded up to 8 (a 16-byte vector never straddles two taps) when
/// C >= 8; for C < 8 (RGB input layers) c_pad = C and every element is decoded on its own,
/// which wastes no multiplies on padding channels.
constexpr ReductionLayout general_layout(const Conv2dProblem& p, int block_k) {
  const std::int64_t c_pad = p.c >= 8 ? round_up(p.c, 8) : p.c;
  return {c_pad, round_up(p.r * p.s * c_pad, block_k)};
}

/// Tap families (1x1, 3x3 NHWC, channel-blocked and repack-free NCHW): c_pad = C rounded up to
/// block_k, so every reduction step lies inside one tap and the spatial bounds of a row are
/// computed once per tap ([K][R*S][C_pad], K-major).
constexpr ReductionLayout tap_layout(const Conv2dProblem& p, int block_k) {
  const std::int64_t c_pad = round_up(p.c, block_k);
  return {c_pad, p.r * p.s * c_pad};
}

/// The sizes every direct family (one engine kernel over packed [K][k_total] weights) derives
/// from its reduction layout on the plan's tile table; a family inherits them and adds its
/// method, name, can_implement, reads_x_vectors and kernel_names (and may hide
/// workspace_bytes).
template <TileKind TK, ReductionLayout (*Layout)(const Conv2dProblem&, int)>
struct DirectFamilySizes {
  static constexpr TileKind tile_kind = TK;
  /// The tile a problem runs on: the thin row when K fits its filter block, else the family's.
  static constexpr TileKind tile_for(const Conv2dProblem& p, ArchClass f) {
    return p.k <= tile_of(f, TileKind::thin).block_n ? TileKind::thin : TK;
  }
  static constexpr ReductionLayout layout(const Conv2dProblem& p, ArchClass f) {
    return Layout(p, tile_of(f, TK).block_k);
  }
  static constexpr std::size_t packed_weight_bytes(const Conv2dProblem& p, ArchClass f) {
    return std::size_t(p.k) * std::size_t(layout(p, f).k_total) * 2;
  }
  static constexpr std::size_t workspace_bytes(const Conv2dProblem&, LayoutKind, ArchClass) {
    return 0;
  }
  /// Reduction steps of block_k (the thin row shares the main row's block_k): what split-K
  /// divides.
  static constexpr std::int64_t k_steps(const Conv2dProblem& p, ArchClass f) {
    return layout(p, f).k_total / tile_of(f, TK).block_k;
  }
};

}  // namespace rdnaconv::kernels
