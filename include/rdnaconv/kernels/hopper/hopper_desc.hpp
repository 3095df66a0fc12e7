// SPDX-License-Identifier: MIT
/// @file hopper_desc.hpp Host-side description of the Hopper family (issue 15): NHWC
/// convolutions on a warp-specialized wgmma main loop fed by the tensor-memory accelerator
/// (TMA). No runtime headers. The kernel and its notes: hopper_tma.hpp, README.md here. The sm90
/// router picks it for the large NHWC 3x3 layers where it measured faster (router.hpp).
///
/// One block computes BM output pixels x BN filters (BM = 128; 256 for the tall block, below).
/// The BM pixels are a box of the output, bni images x bh rows x bw columns (powers of two,
/// bw * bh * bni = BM), so that each
/// reduction step's A tile is one 4-D TMA box of the NHWC input: BK channels (64, or 32 where
/// C_pad is not a multiple of 64) x the box's pixels moved by the filter tap, strided by the
/// convolution's stride, zero-filled outside the input (the padding). The weights are the direct
/// families' tap-major packing ([K][R*S][C_pad], C_pad = C rounded up to 32), one 3-D box of BK
/// channels x BN filters per step (channels past C_pad zero-filled).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "rdnaconv/kernels/common/layouts.hpp"
#include "rdnaconv/kernels/common/shape_rule.hpp"
#include "rdnaconv/problem.hpp"
#include "rdnaconv/types.hpp"

namespace rdnaconv::kernels {

/// The block geometry of a problem (host and device agree through this one function).
struct HopperGeometry {
  int bw, bh, bni;  ///< the output box of a block: columns, rows, images (product bm)
  int bm;           ///< output pixels per block: 128, or 256 for the tall block
  int bn;           ///< filters per block: 128, or 256 where K > 128 (and not tall)
  int bk;           ///< channels per reduction step: 64 (128-byte rows), or 32
  int stages;       ///< TMA stages in flight
  int tiles_q, tiles_p, tiles_n, n_blocks;
  std::int64_t blocks() const { return std::int64_t(tiles_q) * tiles_p * tiles_n * n_blocks; }
};

constexpr int hopper_pow2_at_least(std::int64_t v, int cap) {
  int p = 1;
  while (p < v && p < cap) p *= 2;
  return p;
}

/// TMA stages of a block of `bm` pixels x `bn` filters with `bk`-channel steps. 32-channel
/// steps: as many as fit (8 x 16 KiB, 6 x 24 KiB). 64-channel steps: 4 (256 reduction elements
/// in flight, as 8 x 32; 128 / 192 KiB), more than the epilogue's staging needs (hopper_tma.hpp
/// checks it). A stage holds (bm + bn) x bk elements, so 256 x 128 stages as 128 x 256 does.
constexpr int hopper_stages(int bm, int bn, int bk) {
  return bk == 64 ? 4 : bm + bn > 256 ? 6 : 8;
}

/// Version 8's stages (Conv2dOptions::schedule = pingpong; 128 x 128 tiles per consumer
/// warpgroup, stages of 32 / 16 KiB at bk = 64 / 32): 192 KiB of ring, the most that fits beside
/// the epilogue's 10 KiB of chunks in the 227 KiB a block may have. Each warpgroup's tile is a
/// whole reduction (9 taps x 2 steps at C = 128), so the deeper ring is what lets the producer
/// run a tile's first steps ahead of the other warpgroup's last.
constexpr int hopper_pingpong_stages(int bk) {
  return bk == 64 ? 6 : 12;
}

/// The tall block (version 4; Conv2dOptions::tile = TileChoice::tall): 256 pixels x 128 filters
/// for layers with K <= 128, each consumer warpgroup issuing two m64n128k16 per 16 channels
/// (128 rows, 128 accumulators per thread as the 128 x 256 block's one m64n256k16). Per 16
/// channels the tensor cores read A (256 x 16) and B (128 x 16) once for 256 x 128 outputs where
/// the 128 x 128 block reads 128 x 16 and 128 x 16 for half the outputs: 0.75x the shared-memory
/// bytes per FLOP, half the barrier round trips and boxes. For the VAE's C = K = 128 layers at
/// 512² and 1024² (FLUX.2 enc.down0: 807 µs against cuDNN's 470, H100, fifth session), which
/// the 128 x 128 block ran at 0.78-0.93x the engine (fourth session).
/// Version 6, the persistent tile walk (Conv2dOptions::schedule = persistent; README.md here):
/// its device tests passed on an H100 (tenth session: HopperPersistent.*, BigTensor, the check
/// CLI, compute-sanitizer), so describe() carries no note; it measured no faster than the
/// per-tile kernel, so only a forced schedule reaches it.
inline constexpr bool kHopperPersistentDeviceTested = true;

/// Version 8, the ping-pong walk (Conv2dOptions::schedule = pingpong; README.md here): written in
/// the eleventh session; the check CLI (every mode, both types) and compute-sanitizer passed on
/// an H100 in the twelfth, its GoogleTest device tests (HopperPingpong.*) have not run: describe()
/// says "not device-tested" until they pass.
inline constexpr bool kHopperPingpongDeviceTested = false;

/// Shared memory of version 6's epilogue: each consumer warp stages one 16 x 16 chunk of its
/// accumulators as f32 rows of 20 floats (20: the copy-out's row-per-lane float4 reads hit 8
/// different bank quads; 16 would put every row in the same ones), 8 warps.
inline constexpr int kHopperEpiLd = 20;
inline constexpr int kHopperEpiBytes = 8 * 16 * kHopperEpiLd * 4;

constexpr bool hopper_tall_fits(const Conv2dProblem& p) {
  return p.k <= 128;
}

/// Filters per block: 256 when K > 128 (one m64n256k16 per consumer warpgroup and 16 channels,
/// half the A reloads per filter), else 128. Channels per step: 64 where C_pad is a multiple of
/// 64 (128-byte rows: half the boxes, barrier waits and descriptor setups per FLOP of 32), else
/// 32 (a 64-wide step would read a zero half). Stages: hopper_stages.
/// tall: the 256 x 128 block (hopper_tall_fits), whose box keeps each dimension at most 128
/// pixels (TMA's 256 elements per box dimension at stride 2). pingpong: version 8's tile, 128
/// pixels x 128 filters per consumer warpgroup whatever K (two per block at a time).
constexpr HopperGeometry hopper_geometry(const Conv2dProblem& p, bool tall = false,
                                         bool pingpong = false) {
  HopperGeometry g{};
  g.bm = tall && !pingpong ? 256 : 128;
  g.bw = hopper_pow2_at_least(p.q(), 128);
  g.bh = hopper_pow2_at_least(p.p(), g.bm / g.bw < 128 ? g.bm / g.bw : 128);
  g.bni = g.bm / (g.bw * g.bh);
  g.bn = !tall && !pingpong && p.k > 128 ? 256 : 128;
  g.bk = ceil_div(p.c, 32) % 2 == 0 ? 64 : 32;
  g.stages = pingpong ? hopper_pingpong_stages(g.bk) : hopper_stages(g.bm, g.bn, g.bk);
  g.tiles_q = int(ceil_div(p.q(), g.bw));
  g.tiles_p = int(ceil_div(p.p(), g.bh));
  g.tiles_n = int(ceil_div(p.n, g.bni));
  g.n_blocks = int(ceil_div(p.k, g.bn));
  return g;
}

struct HopperTmaFamily {
  static constexpr Method method = Method::hopper_tma;
  static constexpr const char* name() { return "hopper_tma"; }
  /// Not an engine tile row: describe() prints the family's own tile (tile_str). The row named
  /// here only sizes the plan's 32-bit grid check (same 128-row blocks).
  static constexpr TileKind tile_kind = TileKind::general;
  static constexpr TileKind tile_for(const Conv2dProblem&, ArchClass) { return tile_kind; }
  static constexpr ReductionLayout layout(const Conv2dProblem& p, ArchClass) {
    return tap_layout(p, 32);
  }
  /// NHWC only; C % 8 == 0 (TMA: every global stride a multiple of 16 bytes); stride 1 or 2
  /// (TMA's traversal stride, with a box of up to 256 elements per dimension: 128 columns x 2);
  /// an image within TMA's 2^40-byte strides. Any filter size, dilation and padding amounts;
  /// zeros padding only (TMA fills what lies outside the tensor with zeros: no remap possible).
  static constexpr ShapeRule rule(const Conv2dProblem& p, LayoutKind l) {
    if (p.groups != 1) return dense_rule(p);
    if (l != LayoutKind::nhwc) return broken("NHWC", "layout", to_string(l));
    if (p.c % 8 != 0) return broken("C % 8 == 0", "C", p.c);
    if (p.stride_h > 2 || p.stride_w > 2)
      return broken("stride 1 or 2", "stride", p.stride_h, p.stride_w);
    if (p.h * p.w * p.c >= (std::int64_t(1) << 39))
      return broken("H*W*C < 2^39 (TMA strides)", "H*W*C", p.h * p.w * p.c);
    return zeros_padding_rule(p, "pad_mode zeros (TMA fills the padding with zeros)");
  }
  static constexpr bool can_implement(const Conv2dProblem& p, LayoutKind l) {
    return rule(p, l).holds();
  }
  /// TMA reads x from a 16-byte aligned base: the plan's x_align contract.
  static constexpr bool reads_x_vectors(LayoutKind) { return true; }
  static std::string kernel_names(LayoutKind) { return "hopper_tma_conv<nhwc>"; }
  static constexpr std::size_t packed_weight_bytes(const Conv2dProblem& p, ArchClass f) {
    return std::size_t(p.k) * std::size_t(layout(p, f).k_total) * 2;
  }
  static constexpr std::size_t workspace_bytes(const Conv2dProblem&, LayoutKind, ArchClass) {
    return 0;
  }
  static constexpr std::int64_t k_steps(const Conv2dProblem&, ArchClass) { return 0; }
  /// Hopper only: the sm90 tile table (an sm_90a build on a 9.0 device, native atom).
  static constexpr bool runs_on(ArchClass f) { return f == ArchClass::sm90; }
  /// What describe() prints as the tile (tall: the 256 x 128 block; the schedule: version 6's
  /// persistent walk or version 8's ping-pong; both from PlanDesc's options).
  static std::string tile_str(const Conv2dProblem& p, bool tall = false,
                              Schedule sc = Schedule::per_tile) {
    const bool pingpong = sc == Schedule::pingpong;
    const HopperGeometry g = hopper_geometry(p, tall, pingpong);
    std::string s = std::to_string(g.bm) + "x" + std::to_string(g.bn) + "x" + std::to_string(g.bk) +
                    (pingpong ? " per consumer warpgroup" : "") +
                    " wgmma, TMA, warp-specialized (1 producer warp, " +
                    "2 consumer warpgroups), stages=" + std::to_string(g.stages) + ", output box " +
                    std::to_string(g.bni) + "x" + std::to_string(g.bh) + "x" +
                    std::to_string(g.bw) + " (images x rows x columns)";
    if (sc == Schedule::persistent)
      s += std::string(", persistent (one block per multiprocessor walking the ") +
           std::to_string(g.blocks()) + " tiles, epilogue from registers)" +
           (kHopperPersistentDeviceTested ? "" : " [not device-tested]");
    if (pingpong)
      s += std::string(", ping-pong (one block per multiprocessor walking the ") +
           std::to_string(g.blocks()) +
           " tiles, the consumer warpgroups taking turns: one's epilogue under the other's "
           "products)" +
           (kHopperPingpongDeviceTested ? "" : " [not device-tested]");
    return s;
  }
};

}  // namespace rdnaconv::kernels
