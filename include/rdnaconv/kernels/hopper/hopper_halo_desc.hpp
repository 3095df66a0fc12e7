// SPDX-License-Identifier: MIT
/// @file hopper_halo_desc.hpp Host-side description of the Hopper halo family (issue 15,
/// kernels/hopper/README.md "Version 7"): hopper_tma's warp-specialized wgmma loop, persistent,
/// with the input read once per block of 64 channels instead of once per filter tap. No runtime
/// headers; the kernel: hopper_halo.hpp.
///
/// hopper_tma loads, for every (filter tap, 64 channels) step, the BM input pixels that tap
/// reads: a 3x3 layer moves each input pixel through L2 nine times per block. On the VAEs'
/// C = 128 layers that is what binds it: FLUX.2 `enc.down0.res0.conv1` moved 3.5 GB between L2
/// and the multiprocessors in 723 us (4.9 TB/s, near the H100's L2 bandwidth) for 10 us of
/// tensor-core work per 23 us tile. Here a block loads, per 64 channels, one box of the input
/// with its halo (bh + R - 1 rows x bw + S - 1 columns, zero-filled outside x: the padding) and
/// runs every tap on it: tap (r, s)'s A operand for a 64-row slab is the 64 box pixels starting
/// at row i + r, column j + s, i.e. a wgmma descriptor moved (i + r) * (bw + S - 1) + j + s rows
/// of 128 bytes into the box (the 128-byte swizzle is a function of the shared-memory address,
/// anchored at 1024-byte boundaries, so a slab may start at any row of the box). Only the
/// weights' box is loaded per tap. Per 64 channels of the tall block (256 x 128) on a 3x3 layer:
/// 66.5 KB of A + 9 x 16 KiB of B where hopper_tma moves 9 x (32 + 16) KiB: 2.1x fewer bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "rdnaconv/kernels/common/layouts.hpp"
#include "rdnaconv/kernels/common/shape_rule.hpp"
#include "rdnaconv/kernels/hopper/hopper_desc.hpp"
#include "rdnaconv/problem.hpp"
#include "rdnaconv/types.hpp"

namespace rdnaconv::kernels {

/// Version 7 (hopper_halo): its device tests passed on an H100 (tenth session: HopperHalo.*,
/// the Family suites, BigTensor, the check CLI, compute-sanitizer), so describe() carries no
/// note; the router does not pick it (no faster than hopper_tma where profiled: README.md).
inline constexpr bool kHopperHaloDeviceTested = true;

/// The largest dynamic shared memory of one block on sm_90 (227 KiB).
inline constexpr int kHopperSmemMax = 227 * 1024;

/// The block geometry of a halo problem (host and device agree through this one function).
struct HopperHaloGeometry {
  int bm;        ///< output pixels per block: 256 (K <= 128: the tall block) or 128
  int bn;        ///< filters per block: 128 (tall) or 256
  int bw, bh;    ///< the output box: bw columns (64 or 128, so a 64-row slab is one box row's
                 ///< run) x bh rows, one image
  int hw, hh;    ///< the halo box: bw + S - 1 columns x bh + R - 1 rows
  int a_bytes;   ///< one halo box in shared memory, rounded up to 1024 (the swizzle's span)
  int b_bytes;   ///< one weight box: bn filters x 64 channels
  int b_stages;  ///< weight boxes in flight (two halo boxes always)
  int smem;      ///< the block's dynamic shared memory
  int tiles_q, tiles_p, tiles_n, n_blocks;
  std::int64_t blocks() const { return std::int64_t(tiles_q) * tiles_p * tiles_n * n_blocks; }
};

constexpr HopperHaloGeometry hopper_halo_geometry(const Conv2dProblem& p) {
  HopperHaloGeometry g{};
  g.bm = p.k <= 128 ? 256 : 128;  // 128 accumulators per consumer thread either way
  g.bn = p.k <= 128 ? 128 : 256;
  g.bw = p.q() >= 128 ? 128 : 64;  // a slab (64 rows) is one box row's run of columns
  g.bh = g.bm / g.bw;
  g.hw = g.bw + int(p.s) - 1;
  g.hh = g.bh + int(p.r) - 1;
  g.a_bytes = int(round_up(std::int64_t(g.hw) * g.hh * 128, 1024));
  g.b_bytes = g.bn * 64 * 2;
  g.b_stages = g.bn == 256 ? 3 : 4;  // 3 x 32 KiB / 4 x 16 KiB: 2 to 4 taps ahead
  // two halo boxes, the weight ring, version 6's epilogue staging, the barriers (2 + 2 + 2 b)
  g.smem = 2 * g.a_bytes + g.b_stages * g.b_bytes + kHopperEpiBytes + (4 + 2 * g.b_stages) * 8;
  g.tiles_q = int(ceil_div(p.q(), g.bw));
  g.tiles_p = int(ceil_div(p.p(), g.bh));
  g.tiles_n = int(p.n);
  g.n_blocks = int(ceil_div(p.k, g.bn));
  return g;
}

struct HopperHaloFamily {
  static constexpr Method method = Method::hopper_halo;
  static constexpr const char* name() { return "hopper_halo"; }
  /// Not an engine tile row (describe() prints tile_str); the row sizes the 32-bit grid check.
  static constexpr TileKind tile_kind = TileKind::general;
  static constexpr TileKind tile_for(const Conv2dProblem&, ArchClass) { return tile_kind; }
  /// hopper_tma's packing ([K][R*S][C_pad]); C % 64 == 0 here, so C_pad = C.
  static constexpr ReductionLayout layout(const Conv2dProblem& p, ArchClass) {
    return tap_layout(p, 32);
  }
  /// NHWC; C % 64 == 0 (one 128-byte swizzled row per pixel and block of channels); stride 1
  /// and dilation 1 (a tap's pixels are a shifted window of the box); a filter of 2 to 9 taps
  /// with R, S <= 3 (the box must fit twice in shared memory; a 1x1 filter has no halo to
  /// share); zeros padding (TMA's fill); an image within TMA's 2^40-byte strides.
  static constexpr ShapeRule rule(const Conv2dProblem& p, LayoutKind l) {
    if (p.groups != 1) return dense_rule(p);
    if (l != LayoutKind::nhwc) return broken("NHWC", "layout", to_string(l));
    if (p.c % 64 != 0) return broken("C % 64 == 0", "C", p.c);
    if (p.stride_h != 1 || p.stride_w != 1)
      return broken("stride 1", "stride", p.stride_h, p.stride_w);
    if (p.dil_h != 1 || p.dil_w != 1) return broken("dilation 1", "dilation", p.dil_h, p.dil_w);
    if (p.r > 3 || p.s > 3 || p.r * p.s < 2)
      return broken("R, S <= 3 and R * S >= 2", "R x S", p.r, p.s);
    if (p.h * p.w * p.c >= (std::int64_t(1) << 39))
      return broken("H*W*C < 2^39 (TMA strides)", "H*W*C", p.h * p.w * p.c);
    return zeros_padding_rule(p, "pad_mode zeros (TMA fills the halo with zeros)");
  }
  static constexpr bool can_implement(const Conv2dProblem& p, LayoutKind l) {
    return rule(p, l).holds();
  }
  static constexpr bool reads_x_vectors(LayoutKind) { return true; }
  static std::string kernel_names(LayoutKind) { return "hopper_halo_conv<nhwc>"; }
  static constexpr std::size_t packed_weight_bytes(const Conv2dProblem& p, ArchClass f) {
    return std::size_t(p.k) * std::size_t(layout(p, f).k_total) * 2;
  }
  static constexpr std::size_t workspace_bytes(const Conv2dProblem&, LayoutKind, ArchClass) {
    return 0;
  }
  static constexpr std::int64_t k_steps(const Conv2dProblem&, ArchClass) { return 0; }
  static constexpr bool runs_on(ArchClass f) { return f == ArchClass::sm90; }
  static std::string tile_str(const Conv2dProblem& p) {
    const HopperHaloGeometry g = hopper_halo_geometry(p);
    return std::to_string(g.bm) + "x" + std::to_string(g.bn) + "x64 wgmma, TMA halo box " +
           std::to_string(g.hh) + "x" + std::to_string(g.hw) +
           " (rows x columns, one load per 64 channels for all " + std::to_string(p.r * p.s) +
           " taps), weight stages=" + std::to_string(g.b_stages) + ", output box 1x" +
           std::to_string(g.bh) + "x" + std::to_string(g.bw) +
           ", persistent (one block per multiprocessor walking the " + std::to_string(g.blocks()) +
           " tiles)" + (kHopperHaloDeviceTested ? "" : " [not device-tested]");
  }
};

}  // namespace rdnaconv::kernels
