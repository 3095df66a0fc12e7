// SPDX-License-Identifier: MIT
/// @file router.hpp The constexpr shape router: (problem, layout, architecture family) -> method.
/// The rules name all five families; a family that cannot implement a shape (or is not built
/// yet) falls through to `general` in plan selection (see methods.hpp), so every valid shape
/// always has a kernel.
#pragma once

#include "rdnaconv/problem.hpp"
#include "rdnaconv/types.hpp"

namespace rdnaconv {

/// Thresholds of the router, one set per architecture family. Initial values are set from the
/// arithmetic argument in docs/DESIGN.md (Winograd pays once the GEMM is large enough that the
/// transforms' extra bytes are amortised); the kernel-family and Winograd work replace them by
/// measured sweeps.
struct RouterThresholds {
  std::int64_t winograd_min_c;
  std::int64_t winograd_min_k;
  std::int64_t winograd_min_tiles;  ///< 4x4 output tiles (N * ceil(P/4) * ceil(Q/4))
};

constexpr RouterThresholds router_thresholds(ArchFamily f) {
  switch (f) {
    case ArchFamily::rdna3:
    case ArchFamily::rdna4: return {256, 256, 1024};
    case ArchFamily::sm80: return {256, 256, 1024};
    case ArchFamily::generic: break;
  }
  return {1 << 30, 1 << 30, 1 << 30};  // no matrix units: keep to direct methods
}

/// F(4x4, 3x3) needs unit stride and dilation; C < 4 is excluded because the transform's
/// error amplification is not amortised over a short reduction (docs/DESIGN.md).
constexpr bool winograd_eligible(const Conv2dProblem& p) {
  return p.r == 3 && p.s == 3 && p.stride_h == 1 && p.stride_w == 1 && p.dil_h == 1 &&
         p.dil_w == 1 && p.c >= 4;
}

constexpr std::int64_t winograd_tiles(const Conv2dProblem& p) {
  return p.n * ((p.p() + 3) / 4) * ((p.q() + 3) / 4);
}

constexpr Method route(const Conv2dProblem& p, LayoutKind layout, ArchFamily family) {
  if (p.r == 1 && p.s == 1) return Method::gemm1x1;
  if (p.r == 3 && p.s == 3) {
    const RouterThresholds t = router_thresholds(family);
    if (winograd_eligible(p) && p.c >= t.winograd_min_c && p.k >= t.winograd_min_k &&
        winograd_tiles(p) >= t.winograd_min_tiles)
      return Method::winograd;
    return layout == LayoutKind::nhwc ? Method::nhwc3x3 : Method::cblocked3x3;
  }
  return Method::general;
}

}  // namespace rdnaconv
