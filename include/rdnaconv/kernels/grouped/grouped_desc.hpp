// SPDX-License-Identifier: MIT
/// @file grouped_desc.hpp Host-side description of the grouped family (groups > 1: grouped and
/// depthwise convolution), direct kernels without matrix atoms. No runtime headers. The kernels
/// and their notes: grouped.hpp and README.md beside it.
///
/// Packed weights, one layout for every kernel of the family: [R*S][C/G][K_pad], K_pad = K
/// rounded up to 8 (zeros beyond K), so that the 8 consecutive filters a thread computes are
/// one aligned 16-byte vector per (tap, channel of the group):
///   wpk[((r*S + s)*Cg + ci)*K_pad + k] = w[k][ci][r][s].
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "rdnaconv/kernels/common/layouts.hpp"
#include "rdnaconv/kernels/common/shape_rule.hpp"
#include "rdnaconv/problem.hpp"
#include "rdnaconv/types.hpp"

namespace rdnaconv::kernels {

/// Dynamic shared memory a grouped kernel may use (the launch needs no opt-in below 48 KiB; RDNA
/// has 64 KiB per workgroup).
inline constexpr std::int64_t kGroupedSmemCap = 48 * 1024;
/// Threads per block of every grouped kernel (at most: the NCHW depthwise block may be smaller).
inline constexpr int kGroupedThreads = 256;

constexpr int grouped_pow2_at_least(std::int64_t v, int cap) {
  int p = 1;
  while (p < v && p < cap) p *= 2;
  return p;
}

/// The depthwise row-window kernel (grouped_depthwise_window, README.md "Row window"): output
/// pixels per thread, consecutive along a row. 4: a 7x7 filter's row reads 4 + 6 = 10 input
/// vectors for 4 x 7 = 28 vector products (the plain kernel: 1 vector per product, one tap at a
/// time), and the 10 loads of a row are independent, so they are in flight together. Measured
/// (H100): 1.23-2.14x the plain kernel at N32, 0.68-1.08x at N1, where 4 already leaves too
/// few threads to fill the GPU (README.md "Row window").
inline constexpr int kGroupedWindowPixels = 4;
/// The row-window kernel passed the check CLI (every mode, both types) and compute-sanitizer on
/// an H100 (twelfth session); its GoogleTest device tests (GroupedWindow.*) have not run:
/// describe() says "not device-tested" until they pass, and the router does not pick it
/// (Conv2dOptions::tile = window forces it; README.md "Row window" has its measured rule).
inline constexpr bool kGroupedWindowDeviceTested = false;

/// Whether the row-window kernel is built for a problem on a layout: depthwise with channel
/// multiplier 1 (K = C) on NHWC, C % 8 == 0 (x in 16-byte vectors along C), a square 3x3, 5x5
/// or 7x7 filter (its width is the template's), the same stride 1 or 2 both ways (7x7: stride 1;
/// its stride-2 instance, 13 input vectors per filter row, used 32 bytes of scratch on gfx1100
/// and gfx1201, which CI's AMD report refuses, and no model layer of ours has it), no dilation,
/// zero padding. (x_align 16 is the plan's check.)
constexpr bool grouped_window_fits(const Conv2dProblem& p, LayoutKind l) {
  return l == LayoutKind::nhwc && p.groups > 1 && p.c_per_group() == 1 && p.k == p.c &&
         p.c % 8 == 0 && p.r == p.s && (p.s == 3 || p.s == 5 || p.s == 7) &&
         p.stride_h == p.stride_w && (p.stride_w == 1 || p.stride_w == 2) &&
         !(p.s == 7 && p.stride_w == 2) && p.dil_h == 1 && p.dil_w == 1 &&
         p.pad_mode == PadMode::zeros;
}

/// The block geometry of a grouped problem on a layout (host and device agree through this one
/// function; describe() prints it).
struct GroupedGeometry {
  bool depthwise = false;  ///< C/G == 1 (any channel multiplier K/G)
  int k_pad = 8;           ///< K rounded up to 8
  int kv = 1;              ///< 8-filter vectors: k_pad / 8
  // depthwise NHWC: a block is kvb filter vectors (one slice of K) x ppb output pixels; the
  // slice's weights [R*S][kvb x 8] sit in shared memory (w_smem) unless they exceed the cap.
  // The row window (window): ppb runs of pw pixels along a row instead of ppb pixels.
  int kvb = 1, ppb = 1;
  bool window = false;
  int pw = 1;
  bool w_smem = false;
  // depthwise NCHW: a block is bpl (n, k) planes x bp output rows x bq output columns, threads
  // along the columns; the input rows and columns the strip reads (rows_in x cols_in per plane,
  // zeros for the padding) are staged in shared memory (staged) unless they exceed the cap
  int bq = 1, bp = 1, bpl = 1, rows_in = 1, cols_in = 1;
  bool staged = false;
  int threads = kGroupedThreads;  ///< threads per block
  std::int64_t smem_bytes = 0;    ///< dynamic shared memory per block
  std::int64_t work = 0;          ///< blocks of work (the grid strides over them)
};

/// window: the row-window kernel's geometry (the caller checked grouped_window_fits).
constexpr GroupedGeometry grouped_geometry(const Conv2dProblem& p, LayoutKind l,
                                           bool window = false) {
  GroupedGeometry g{};
  g.depthwise = p.c_per_group() == 1;
  g.k_pad = int(round_up(p.k, 8));
  g.kv = g.k_pad / 8;
  const std::int64_t taps = p.r * p.s;
  if (!g.depthwise) {  // one thread per (output pixel, 8 filters), no shared memory
    g.work = ceil_div(p.gemm_m() * g.kv, kGroupedThreads);
    return g;
  }
  if (l == LayoutKind::nhwc) {
    g.kvb = grouped_pow2_at_least(g.kv, 32);
    while (g.kvb > 1 && taps * g.kvb * 16 > kGroupedSmemCap) g.kvb /= 2;
    g.w_smem = taps * g.kvb * 16 <= kGroupedSmemCap;
    g.ppb = kGroupedThreads / g.kvb;
    g.smem_bytes = g.w_smem ? taps * g.kvb * 16 : 0;
    g.work = ceil_div(g.kv, g.kvb) * ceil_div(p.gemm_m(), g.ppb);
    if (window) {  // 7x7 x 32 vectors x 16 B = 25 KiB: the weights always fit
      g.window = true;
      g.pw = kGroupedWindowPixels;
      g.work = ceil_div(g.kv, g.kvb) * ceil_div(p.n * p.p() * ceil_div(p.q(), g.pw), g.ppb);
    }
    return g;
  }
  g.bq = grouped_pow2_at_least(p.q(), 64);
  if (g.bq < 8) g.bq = 8;
  g.bp = grouped_pow2_at_least(p.p(), kGroupedThreads / g.bq);
  g.bpl = kGroupedThreads / (g.bq * g.bp);
  const auto strip = [&p](const GroupedGeometry& t) {
    const std::int64_t rows = (t.bp - 1) * p.stride_h + (p.r - 1) * p.dil_h + 1;
    const std::int64_t cols = (t.bq - 1) * p.stride_w + (p.s - 1) * p.dil_w + 1;
    return std::int64_t(t.bpl) * rows * cols * 2;
  };
  while (strip(g) > kGroupedSmemCap && g.bpl > 1) g.bpl /= 2;
  while (strip(g) > kGroupedSmemCap && g.bp > 1) g.bp /= 2;
  g.staged = strip(g) <= kGroupedSmemCap;
  g.rows_in = g.staged ? int((g.bp - 1) * p.stride_h + (p.r - 1) * p.dil_h + 1) : 0;
  g.cols_in = g.staged ? int((g.bq - 1) * p.stride_w + (p.s - 1) * p.dil_w + 1) : 0;
  g.threads = g.bq * g.bp * g.bpl;
  g.smem_bytes = g.staged ? strip(g) : 0;
  g.work = ceil_div(p.n * p.k, g.bpl) * ceil_div(p.p(), g.bp) * ceil_div(p.q(), g.bq);
  return g;
}

struct GroupedFamily {
  static constexpr Method method = Method::grouped;
  static constexpr const char* name() { return "grouped"; }
  /// Not an engine tile row: describe() prints the family's own tile (tile_str). The row named
  /// here only sizes the plan's 32-bit grid check, which the family's grid-stride loops do not
  /// need.
  static constexpr TileKind tile_kind = TileKind::general;
  static constexpr TileKind tile_for(const Conv2dProblem&, ArchClass) { return tile_kind; }
  /// groups > 1, any layout, filter, stride, dilation, padding and padding mode (the only
  /// family that takes them; every other family needs groups 1).
  static constexpr ShapeRule rule(const Conv2dProblem& p, LayoutKind) {
    if (p.groups <= 1) return broken("groups > 1", "groups", p.groups);
    return {};
  }
  static constexpr bool can_implement(const Conv2dProblem& p, LayoutKind l) {
    return rule(p, l).holds();
  }
  /// 16-byte loads of x where C % 8 == 0 and x is 16-byte aligned (decided per launch), element
  /// loads otherwise: no alignment contract.
  static constexpr bool reads_x_vectors(LayoutKind) { return false; }
  /// The kernel run() launches, as the launch log names it (Plan::describe()).
  static std::string kernel_names(const Conv2dProblem& p, LayoutKind l) {
    return std::string(p.c_per_group() == 1 ? "grouped_depthwise<" : "grouped_direct<") +
           to_string(l) + remap_suffix(p) + ">";
  }
  static constexpr std::size_t packed_weight_bytes(const Conv2dProblem& p, ArchClass) {
    return std::size_t(p.r * p.s) * std::size_t(p.c_per_group()) * std::size_t(round_up(p.k, 8)) *
           2;
  }
  static constexpr std::size_t workspace_bytes(const Conv2dProblem&, LayoutKind, ArchClass) {
    return 0;
  }
  /// No split-K (no engine reduction steps).
  static constexpr std::int64_t k_steps(const Conv2dProblem&, ArchClass) { return 0; }
  /// What describe() prints as the tile.
  static std::string tile_str(const Conv2dProblem& p, LayoutKind l) {
    return tile_str(p, l, false);
  }
  /// window: the row-window kernel's (Conv2dOptions::tile = window).
  static std::string tile_str(const Conv2dProblem& p, LayoutKind l, bool window) {
    const GroupedGeometry g = grouped_geometry(p, l, window);
    if (window)
      return "depthwise row window (no matrix units): 8 filters x " + std::to_string(g.pw) +
             " consecutive output pixels of a row per thread, " + std::to_string(g.kvb * 8) +
             " filters x " + std::to_string(g.ppb) + " runs per block, each filter row's " +
             std::to_string((g.pw - 1) * p.stride_w + p.s) +
             " input vectors loaded together, weights [R*S][" + std::to_string(g.kvb * 8) +
             "] in shared memory" + (kGroupedWindowDeviceTested ? "" : " [not device-tested]");
    if (!g.depthwise)
      return "direct (no matrix units): 8 filters x 1 output pixel per thread, " +
             std::to_string(kGroupedThreads) + " threads, weights [R*S][C/G][K_pad] read as " +
             "16-byte vectors";
    if (l == LayoutKind::nhwc)
      return "depthwise direct (no matrix units): 8 filters x 1 output pixel per thread, " +
             std::to_string(g.kvb * 8) + " filters x " + std::to_string(g.ppb) +
             " pixels per block, weights " +
             (g.w_smem ? std::string("[R*S][") + std::to_string(g.kvb * 8) + "] in shared memory"
                       : std::string("from global memory (over the shared-memory cap)"));
    return "depthwise direct (no matrix units): 1 output per thread, " + std::to_string(g.bpl) +
           " planes x " + std::to_string(g.bp) + " rows x " + std::to_string(g.bq) +
           " columns per block, input strip " +
           (g.staged ? std::to_string(g.rows_in) + "x" + std::to_string(g.cols_in) +
                           " per plane in shared memory"
                     : std::string("read from global memory (over the shared-memory cap)"));
  }
};

}  // namespace rdnaconv::kernels
