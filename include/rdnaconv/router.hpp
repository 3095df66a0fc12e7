// SPDX-License-Identifier: MIT
/// @file router.hpp The constexpr shape router: (problem, layout, architecture family) -> method.
/// Every rule returns a method that can implement the shape (checked by the host tests over the
/// model layers and random shapes); plan selection still falls back to `general` if one could
/// not, so every valid shape always has a kernel.
#pragma once

#include "rdnaconv/kernels/hopper/hopper_desc.hpp"
#include "rdnaconv/kernels/winograd/winograd_desc.hpp"
#include "rdnaconv/problem.hpp"
#include "rdnaconv/types.hpp"

namespace rdnaconv {

using kernels::winograd_eligible;
using kernels::winograd_tiles;

inline constexpr std::int64_t kNoLimit = std::int64_t(1) << 60;

/// Thresholds of the router, one set per architecture family; where each number comes from is
/// in docs/ROUTER.md: sm80's from the measured sweep on the H200; RDNA keeps the arithmetic
/// argument (Winograd for large C, K and many tiles) since no AMD GPU is available to measure.
struct RouterThresholds {
  std::int64_t tap_min_c;  ///< tap families pad C to block_k: below this, general wastes less
  std::int64_t winograd_min_c;
  std::int64_t winograd_min_k;
  std::int64_t winograd_max_k;
  std::int64_t winograd_min_tiles;   ///< 4x4 output tiles (N * ceil(P/4) * ceil(Q/4))
  std::int64_t winograd_max_pixels;  ///< N * P * Q
  std::int64_t cblocked_min_k;  ///< NCHW 3x3: channel-blocked (repack) from this K, else nchw3x3
  /// Winograd-eligible 3x3 with K up to this (and C >= tap_min_c), outside the unfused window:
  /// the fused variant, whose 32-wide filter tile is not 97% empty for K = 3 as the direct
  /// kernels' 128-wide one is.
  std::int64_t fused_max_k;
  /// Split-K for small grids (plan_desc.hpp, `auto_split_k`): a direct engine plan on its main
  /// tile whose grid has fewer blocks than the device has multiprocessors, at least
  /// split_min_total_steps reduction steps and at least split_min_steps_per_block steps per block
  /// is split into S = min(split_max_parts, split_fill * SMs / blocks, steps / split_min_steps)
  /// parts when that is >= 2. split_max_parts = 0: never (tables not measured).
  int split_max_parts;
  int split_fill;       ///< blocks per multiprocessor the split grid aims at
  int split_min_steps;  ///< block_k steps each part keeps at least
  int split_min_total_steps;
  double split_min_steps_per_block;
  /// NCHW 1x1 plans (gemm1x1 gathering NCHW, the loop furthest from its ceiling) split earlier:
  /// when the grid fills at most half the multiprocessors and the reduction has at least
  /// split_nchw1x1_min_total_steps steps, into S = min(split_max_parts, SMs / blocks, steps /
  /// split_nchw1x1_min_steps) parts. 0: no such rule (the general one above applies).
  int split_nchw1x1_min_total_steps = 0;
  int split_nchw1x1_min_steps = 0;
  /// Hopper's TMA family (hopper_tma, sm90 only) for NHWC 3x3 layers with K >= hopper_min_k,
  /// C >= hopper_min_c, K + C >= hopper_min_k_plus_c and at least hopper_min_pixels output
  /// pixels (N * P * Q), or hopper_narrow_min_pixels where K or C is below
  /// hopper_wide_channels; kNoLimit (the default): never.
  std::int64_t hopper_min_k = kNoLimit;
  std::int64_t hopper_min_c = kNoLimit;
  std::int64_t hopper_min_k_plus_c = kNoLimit;
  std::int64_t hopper_min_pixels = kNoLimit;
  std::int64_t hopper_wide_channels = kNoLimit;
  std::int64_t hopper_narrow_min_pixels = kNoLimit;
  /// The small tile (ArchTiles::small) for a direct engine plan on its main tile whose grid has
  /// fewer than small_below_sm_fraction x SMs blocks and whose work on the small tile, in
  /// small-tile blocks x reduction steps per multiprocessor, is at most
  /// small_max_block_steps_per_sm (0: no such bound). 0 (the default): never.
  double small_below_sm_fraction = 0;
  double small_max_block_steps_per_sm = 0;
  /// NCHW 1x1 plans (gemm1x1 gathering NCHW) keep the main tile where its own split-K rule splits
  /// it (the small tile's grid splits into fewer parts there, and lost: docs/ROUTER.md).
  bool small_not_for_split_nchw1x1 = false;
  /// Split-K on the small tile: split_min_steps_per_block for the small tile's grid (0: the
  /// main tile's split_min_steps_per_block).
  double small_split_min_steps_per_block = 0;
  /// hopper_tma's tall block (256 x 128, kernels/hopper, K <= 128) for NHWC 3x3 layers with
  /// K >= hopper_tall_min_k, C >= hopper_tall_min_c and at least hopper_tall_min_pixels output
  /// pixels; kNoLimit (the default): never.
  std::int64_t hopper_tall_min_k = kNoLimit;
  std::int64_t hopper_tall_min_c = kNoLimit;
  std::int64_t hopper_tall_min_pixels = kNoLimit;
  /// hopper_tma's ping-pong walk (version 8, Schedule::pingpong) for a hopper_tma plan with the
  /// tile and the schedule left automatic whose 128 x 128 tiles number at least
  /// hopper_pingpong_min_tiles_per_sm per multiprocessor (both consumer warpgroups busy);
  /// kNoLimit (the default): never. It takes the place of the tall block there.
  std::int64_t hopper_pingpong_min_tiles_per_sm = kNoLimit;
  /// NCHW 1x1 layers (C >= tap_min_c) go to cblocked1x1 (a repack of the pixels the filter reads,
  /// then 16-byte loads) instead of gemm1x1 (2-byte gathers) where K >= cblocked1x1_min_k, or
  /// C >= cblocked1x1_min_c, or the GEMM has at most cblocked1x1_small_max_pixels rows
  /// (N * P * Q: the small grids of batch 1) and C >= cblocked1x1_small_min_c. kNoLimit / 0
  /// (the defaults): never.
  std::int64_t cblocked1x1_min_k = kNoLimit;
  std::int64_t cblocked1x1_min_c = kNoLimit;
  std::int64_t cblocked1x1_small_max_pixels = 0;
  std::int64_t cblocked1x1_small_min_c = kNoLimit;
};

constexpr RouterThresholds router_thresholds(ArchClass f) {
  switch (f) {
    case ArchClass::rdna3:
    case ArchClass::rdna4:
      return {.tap_min_c = 16,
              .winograd_min_c = 256,
              .winograd_min_k = 256,
              .winograd_max_k = kNoLimit,
              .winograd_min_tiles = 1024,
              .winograd_max_pixels = kNoLimit,
              .cblocked_min_k = 1,
              .fused_max_k = 32,
              .split_max_parts = 0,  // not measured (no AMD GPU): never split by itself
              .split_fill = 0,
              .split_min_steps = 0,
              .split_min_total_steps = 0,
              .split_min_steps_per_block = 0};
    // H200 sweep (docs/ROUTER.md): Winograd won only where the direct grid is small (few output
    // pixels) and K moderate; cblocked3x3 beat nchw3x3 at every K measured; the fused Winograd
    // beat every direct kernel on the VAE's K = 3 output conv (both layouts and types).
    // sm90 (wgmma main rows) keeps sm80's numbers until its own sweep (docs/ROUTER.md).
    case ArchClass::sm90: {
      // sm80's numbers, plus the Hopper TMA family where it measured faster than the engine's
      // wgmma rows (H100, 2026-12-06, docs/ROUTER.md "Hopper TMA family"): the SD3.5 VAE's 3x3
      // layers with K = 256 / 512 and C >= 256 at >= 128x128 outputs, 1.09-1.26x; it lost at
      // 64x64 outputs (0.85-0.95x), with K = 128 (its 128-wide tile: 0.78-0.93x), on 1x1 layers
      // (0.71-0.84x) and on every ResNet-50 layer at batch 32 (0.50-0.95x).
      RouterThresholds t = router_thresholds(ArchClass::sm80);
      // NCHW split-K sweep, H100, 2026-12-06 (fourth session, docs/ROUTER.md "Split-K"): every
      // NCHW 1x1 layer of ResNet-50 at N1 / N8 with <= 64 blocks and >= 8 steps gained with
      // parts of >= 2 steps (1.01-2.28x; 16 blocks x 16 steps: 1.55-1.80x); 98-104 blocks
      // and 4-step reductions lost (0.38-0.93x)
      t.split_nchw1x1_min_total_steps = 8;
      t.split_nchw1x1_min_steps = 2;
      // hopper_tma version 2, H100, 2026-12-06 (fifth session, docs/ROUTER.md "Hopper TMA
      // family"): faster than the engine on every VAE 3x3 layer with K, C >= 256 at >= 128x128
      // outputs (1.02-1.12x) and with one side 128, the other 256, at >= 256x256 (1.14-1.19x);
      // slower with K = C = 128 at 512x512 (0.93x), at 64x64 (0.90x), on 1x1 layers and thin C
      t.hopper_min_k = 128;
      t.hopper_min_c = 128;
      t.hopper_min_k_plus_c = 384;
      t.hopper_min_pixels = 128 * 128;
      t.hopper_wide_channels = 256;
      t.hopper_narrow_min_pixels = 256 * 256;
      // The small tile, H100, 2026-12-07 (eighth session, docs/ROUTER.md "Small tile"): at
      // ResNet-50 N1 (every grid below one main block per SM, at most 9 small-tile block-steps
      // per SM) it beat the main tile on 20 of 23 NHWC layers (1.01-1.42x) and on the NCHW 3x3
      // and unsplit 1x1 layers (1.02-1.32x); it lost where the small tile's work was 35 or more
      // block-steps per SM: ResNet-50 N32's layer3 / layer4 (0.35-0.77x, 95-218), the VAE's
      // 64x64 mid block (0.35x, 558), its K = 32 conv_out (0.85x, 70) and its C = 16 conv_in
      // (0.56x, 35); and on 7 of the 12 NCHW 1x1 layers the main tile splits (0.69-0.93x)
      t.small_below_sm_fraction = 1.0;
      t.small_max_block_steps_per_sm = 16;
      t.small_not_for_split_nchw1x1 = true;
      // split-K on the small tile: with 2.5 steps per block (the main tile's bound) the 32-36
      // step layers of 16-32 small blocks did not split and lost to the main tile's split
      // (12.1-14.0 us against 9.6-11.4 us with 4 parts on the small tile)
      t.small_split_min_steps_per_block = 1.0;
      // hopper_tma's tall block, H100, 2026-12-07 (eighth session, kernels/hopper/README.md
      // version 4): every K = 128 3x3 layer of the VAEs with C >= 128 at >= 256x256 outputs,
      // 1.06-1.19x the router's plan (nhwc3x3 or the 128 x 128 hopper block); K = 64 at 128x128
      // level (1.01x), K = 32 / 3 and 1x1 layers slower (0.46-0.86x)
      t.hopper_tall_min_k = 128;
      t.hopper_tall_min_c = 128;
      t.hopper_tall_min_pixels = 256 * 256;
      // hopper_tma's ping-pong walk (version 8), H100, 2026-12-08 (twelfth session,
      // docs/ROUTER.md "Ping-pong walk"): faster than the per-tile kernel on all 42 hopper_tma
      // rows of both VAEs (bf16 NHWC N1: 1.03-1.74x, geomean 1.27x SD3.5 / 1.21x FLUX.2); with
      // the rule at 2 tiles per multiprocessor the VAEs ran 1.13x / 1.07x end to end, and the
      // check CLI (all modes, the router with the rule on) and compute-sanitizer passed. Still
      // OFF (kNoLimit): its GoogleTest device cases (HopperPingpong.*, the whole suite with the
      // rule on) have not run - the suite's build did not finish in the session's one lease.
      // bench/results/s11_prepared_not_run/router_rule_on.patch turns it on (2).
      // cblocked1x1 against gemm1x1 on NCHW 1x1 layers, H100, 2026-12-07 (ninth session,
      // docs/ROUTER.md "cblocked1x1"; bf16, ResNet-50 N1 / N32 and both VAEs): the repack paid
      // for itself where the GEMM re-reads x often (K >= 512: 0.97-1.57x, >= 1.08x on 16 of 18
      // layers; C >= 1024: 1.01-1.34x) and on batch 1's small grids with C >= 256 (1.17-1.49x:
      // the split gather against the small tile); it lost with K <= 256 at large images (VAE
      // shortcuts 0.72-1.00x, ResNet-50 N32 layer1 / layer2 0.65-0.90x) and with C = 64 or 32
      // (0.66-0.80x)
      t.cblocked1x1_min_k = 512;
      t.cblocked1x1_min_c = 1024;
      t.cblocked1x1_small_max_pixels = 56 * 56;
      t.cblocked1x1_small_min_c = 256;
      return t;
    }
    case ArchClass::sm80:
      return {.tap_min_c = 16,
              .winograd_min_c = 128,
              .winograd_min_k = 1,
              .winograd_max_k = 256,
              .winograd_min_tiles = 1,
              .winograd_max_pixels = 4096,
              .cblocked_min_k = 1,
              .fused_max_k = 32,
              // split-K sweep, H100, 2026-12-06 (docs/ROUTER.md): every ResNet-50 layer that
              // split gained had >= 32 steps and >= 2.5 steps per block of the unsplit grid
              // (1.11-2.37x NHWC); the 16-step 1x1 layers and the full grids lost (0.19-0.93x);
              // the best part count filled about one block per SM, up to 16 (a part's fixed
              // cost, about 4-5 us for the second kernel, bounds it below)
              .split_max_parts = 16,
              .split_fill = 1,
              .split_min_steps = 4,
              .split_min_total_steps = 32,
              .split_min_steps_per_block = 2.5};
    case ArchClass::generic:
      break;
  }
  // no matrix units: keep to the direct methods
  return {.tap_min_c = 16,
          .winograd_min_c = kNoLimit,
          .winograd_min_k = kNoLimit,
          .winograd_max_k = kNoLimit,
          .winograd_min_tiles = kNoLimit,
          .winograd_max_pixels = 0,
          .cblocked_min_k = 1,
          .fused_max_k = 0,
          .split_max_parts = 0,
          .split_fill = 0,
          .split_min_steps = 0,
          .split_min_total_steps = 0,
          .split_min_steps_per_block = 0};
}

/// Whether the router sends an NHWC 3x3 layer to hopper_tma's tall block (the plan then runs
/// it: plan_desc.hpp sets Conv2dOptions::tile = TileChoice::tall).
constexpr bool hopper_tall_routed(const Conv2dProblem& p, LayoutKind layout,
                                  const RouterThresholds& t) {
  return p.r == 3 && p.s == 3 && p.k >= t.hopper_tall_min_k && kernels::hopper_tall_fits(p) &&
         p.c >= t.hopper_tall_min_c && p.gemm_m() >= t.hopper_tall_min_pixels &&
         kernels::HopperTmaFamily::can_implement(p, layout);
}

/// Whether a hopper_tma plan with tile and schedule automatic runs version 8's ping-pong walk on
/// `sms` multiprocessors (plan_desc.hpp then sets Conv2dOptions::schedule = pingpong).
constexpr bool hopper_pingpong_routed(const Conv2dProblem& p, const RouterThresholds& t, int sms) {
  if (t.hopper_pingpong_min_tiles_per_sm == kNoLimit || sms <= 0) return false;
  return kernels::hopper_geometry(p, false, true).blocks() >=
         t.hopper_pingpong_min_tiles_per_sm * sms;
}

/// Whether the router sends an NCHW 1x1 layer (C >= tap_min_c) to cblocked1x1 (RouterThresholds).
constexpr bool cblocked1x1_routed(const Conv2dProblem& p, const RouterThresholds& t) {
  return p.k >= t.cblocked1x1_min_k || p.c >= t.cblocked1x1_min_c ||
         (p.gemm_m() <= t.cblocked1x1_small_max_pixels && p.c >= t.cblocked1x1_small_min_c);
}

/// The router's answer and the rule that gave it (Plan::describe() reports it).
struct Routed {
  Method method;
  const char* rule;
};

/// Winograd F(4x4, 3x3) stores its transformed operands in the input type. With bf16's 8-bit
/// significand the transforms' error amplification (up to 64x at a tile's far corner) makes
/// errors of the order of the outputs themselves (measured: 0.025 on outputs of 0.05, C = 16;
/// kernels/winograd/README.md), so the router never picks it for bf16; fp16 (11 bits, V
/// scaled into range) is 8x more precise. A forced method still runs Winograd on bf16.
constexpr bool winograd_precise_enough(DType t) {
  return t == DType::f16;
}

constexpr Routed route_explained(const Conv2dProblem& p, LayoutKind layout, ArchClass family,
                                 DType dtype = DType::f16) {
  const RouterThresholds t = router_thresholds(family);
  if (p.groups != 1)
    return {Method::grouped, p.c_per_group() == 1
                                 ? "groups > 1, depthwise (C/G = 1): the grouped family"
                                 : "groups > 1: the grouped family (the only one that takes them)"};
  // Reflect, replicate, circular: only the families with a remap kernel (PadRemapTag) take
  // them, nhwc3x3 / cblocked3x3 for 3x3 layers (the zeros rule's families but for Winograd,
  // hopper_tma and nchw3x3) and general for the rest (grouped, above, takes every mode).
  if (p.pad_mode != PadMode::zeros) {
    if (p.r == 3 && p.s == 3 && p.c >= t.tap_min_c)
      return layout == LayoutKind::nhwc
                 ? Routed{Method::nhwc3x3, "3x3 NHWC, pad_mode other than zeros (a remap kernel)"}
                 : Routed{Method::cblocked3x3,
                          "3x3 NCHW, pad_mode other than zeros (a remap kernel)"};
    return {Method::general,
            "pad_mode other than zeros, not 3x3 with C >= tap_min_c: general (its remap "
            "kernel)"};
  }
  if (p.r == 1 && p.s == 1) {
    if (p.c < t.tap_min_c) return {Method::general, "1x1, C < tap_min_c (thin reduction)"};
    if (layout == LayoutKind::nchw && cblocked1x1_routed(p, t))
      return {Method::cblocked1x1,
              "1x1 NCHW, K >= cblocked1x1_min_k or C >= cblocked1x1_min_c or (N*P*Q <= "
              "cblocked1x1_small_max_pixels and C >= cblocked1x1_small_min_c): the "
              "channel-blocked repack"};
    return {Method::gemm1x1, "1x1, C >= tap_min_c"};
  }
  if (p.r == 3 && p.s == 3) {
    const bool wino = winograd_eligible(p) && winograd_precise_enough(dtype);
    if (wino && p.c >= t.winograd_min_c && p.k >= t.winograd_min_k && p.k <= t.winograd_max_k &&
        winograd_tiles(p) >= t.winograd_min_tiles && p.gemm_m() <= t.winograd_max_pixels)
      return {Method::winograd, "3x3 s1, fp16, C/K/tiles/pixels inside the Winograd window"};
    if (p.c < t.tap_min_c) return {Method::general, "3x3, C < tap_min_c (thin reduction)"};
    if (wino && p.k <= t.fused_max_k)
      return {Method::winograd_fused, "3x3 s1, fp16, K <= fused_max_k"};
    // (the family's own shape rule says what it runs: NHWC, C % 8, stride, image size)
    if (hopper_tall_routed(p, layout, t))
      return {Method::hopper_tma,
              "3x3 NHWC, hopper_tall_min_k <= K <= 128, C >= hopper_tall_min_c, pixels >= "
              "hopper_tall_min_pixels: hopper_tma's tall 256 x 128 block (sm90)"};
    if (p.k >= t.hopper_min_k && p.c >= t.hopper_min_c && p.k + p.c >= t.hopper_min_k_plus_c &&
        kernels::HopperTmaFamily::can_implement(p, layout)) {
      const bool wide = p.k >= t.hopper_wide_channels && p.c >= t.hopper_wide_channels;
      if (wide && p.gemm_m() >= t.hopper_min_pixels)
        return {Method::hopper_tma,
                "3x3 NHWC, K and C >= hopper_wide_channels, pixels >= hopper_min_pixels (sm90: "
                "TMA, warp-specialized)"};
      if (!wide && p.gemm_m() >= t.hopper_narrow_min_pixels)
        return {Method::hopper_tma,
                "3x3 NHWC, K, C >= hopper_min_k / hopper_min_c, K + C >= hopper_min_k_plus_c, "
                "pixels >= hopper_narrow_min_pixels (sm90: TMA, warp-specialized)"};
    }
    if (layout == LayoutKind::nhwc) return {Method::nhwc3x3, "3x3 NHWC"};
    return p.k >= t.cblocked_min_k ? Routed{Method::cblocked3x3, "3x3 NCHW, K >= cblocked_min_k"}
                                   : Routed{Method::nchw3x3, "3x3 NCHW, K < cblocked_min_k"};
  }
  return {Method::general, "R x S other than 1x1 and 3x3"};
}

constexpr Method route(const Conv2dProblem& p, LayoutKind layout, ArchClass family,
                       DType dtype = DType::f16) {
  return route_explained(p, layout, family, dtype).method;
}

}  // namespace rdnaconv
