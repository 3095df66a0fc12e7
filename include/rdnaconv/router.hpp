// SPDX-License-Identifier: MIT
/// @file router.hpp The constexpr shape router: (problem, layout, architecture family) -> method.
/// Every rule returns a method that can implement the shape (checked by the host tests over the
/// model layers and random shapes); plan selection still falls back to `general` if one could
/// not, so every valid shape always has a kernel.
#pragma once

#include "rdnaconv/kernels/winograd/winograd_desc.hpp"
#include "rdnaconv/problem.hpp"
#include "rdnaconv/types.hpp"

namespace rdnaconv {

using kernels::winograd_eligible;
using kernels::winograd_tiles;

/// Thresholds of the router, one set per architecture family; where each number comes from is
/// in docs/ROUTER.md: sm80's from the measured sweep on the H200; RDNA keeps the arithmetic
/// argument (Winograd for large C, K and many tiles) since no AMD GPU is available to measure.
struct RouterThresholds {
  std::int64_t tap_min_c;            ///< tap families pad C to block_k: below this, general wastes less
  std::int64_t winograd_min_c;
  std::int64_t winograd_min_k;
  std::int64_t winograd_max_k;
  std::int64_t winograd_min_tiles;   ///< 4x4 output tiles (N * ceil(P/4) * ceil(Q/4))
  std::int64_t winograd_max_pixels;  ///< N * P * Q
  std::int64_t cblocked_min_k;       ///< NCHW 3x3: channel-blocked (repack) from this K, else nchw3x3
  /// Winograd-eligible 3x3 with K up to this (and C >= tap_min_c), outside the unfused window:
  /// the fused variant, whose 32-wide filter tile is not 97% empty for K = 3 as the direct
  /// kernels' 128-wide one is.
  std::int64_t fused_max_k;
};

inline constexpr std::int64_t kNoLimit = std::int64_t(1) << 60;

constexpr RouterThresholds router_thresholds(ArchFamily f) {
  switch (f) {
    case ArchFamily::rdna3:
    case ArchFamily::rdna4: return {16, 256, 256, kNoLimit, 1024, kNoLimit, 1, 32};
    // H200 sweep (docs/ROUTER.md): Winograd won only where the direct grid is small (few output
    // pixels) and K moderate; cblocked3x3 beat nchw3x3 at every K measured; the fused Winograd
    // beat every direct kernel on the VAE's K = 3 output conv (both layouts and types).
    case ArchFamily::sm80: return {16, 128, 1, 256, 1, 4096, 1, 32};
    case ArchFamily::generic: break;
  }
  // no matrix units: keep to the direct methods
  return {16, kNoLimit, kNoLimit, kNoLimit, kNoLimit, 0, 1, 0};
}

constexpr Method route(const Conv2dProblem& p, LayoutKind layout, ArchFamily family) {
  const RouterThresholds t = router_thresholds(family);
  if (p.r == 1 && p.s == 1) return p.c >= t.tap_min_c ? Method::gemm1x1 : Method::general;
  if (p.r == 3 && p.s == 3) {
    if (winograd_eligible(p) && p.c >= t.winograd_min_c && p.k >= t.winograd_min_k && p.k <= t.winograd_max_k &&
        winograd_tiles(p) >= t.winograd_min_tiles && p.gemm_m() <= t.winograd_max_pixels)
      return Method::winograd;
    if (p.c < t.tap_min_c) return Method::general;
    if (winograd_eligible(p) && p.k <= t.fused_max_k) return Method::winograd_fused;
    if (layout == LayoutKind::nhwc) return Method::nhwc3x3;
    return p.k >= t.cblocked_min_k ? Method::cblocked3x3 : Method::nchw3x3;
  }
  return Method::general;
}

}  // namespace rdnaconv
