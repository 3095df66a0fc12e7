// SPDX-License-Identifier: MIT
/// @file winograd_desc.hpp Host-side description of Winograd F(4x4, 3x3): eligibility, the
/// packed filter layout and the workspace map. No runtime headers. See README.md beside it and
/// docs/DESIGN.md (numerics).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "rdnaconv/kernels/common/layouts.hpp"
#include "rdnaconv/kernels/common/shape_rule.hpp"
#include "rdnaconv/problem.hpp"
#include "rdnaconv/types.hpp"

namespace rdnaconv::kernels {

/// F(4x4, 3x3) needs unit stride and dilation; C < 4 is excluded because the transforms'
/// error amplification is not amortised over a short reduction (docs/DESIGN.md). Zeros padding
/// only: the input transform reads zeros outside the image (no remap form of it is written).
constexpr ShapeRule winograd_rule(const Conv2dProblem& p) {
  if (p.groups != 1) return dense_rule(p);
  if (p.r != 3 || p.s != 3) return broken("a 3x3 filter", "RxS", p.r, p.s);
  if (p.stride_h != 1 || p.stride_w != 1)
    return broken("stride 1", "stride", p.stride_h, p.stride_w);
  if (p.dil_h != 1 || p.dil_w != 1) return broken("dilation 1", "dilation", p.dil_h, p.dil_w);
  if (p.c < 4) return broken("C >= 4", "C", p.c);
  return zeros_padding_rule(
      p,
      "pad_mode zeros (its input transform reads zeros outside the image; general takes the "
      "other modes)");
}
constexpr bool winograd_eligible(const Conv2dProblem& p) {
  return winograd_rule(p).holds();
}

/// The 4x4 output tiles: N * ceil(P/4) * ceil(Q/4).
constexpr std::int64_t winograd_tiles(const Conv2dProblem& p) {
  return p.n * ceil_div(p.p(), 4) * ceil_div(p.q(), 4);
}

/// Workspace map (byte offsets, each 256-aligned):
///   NCHW only: x repacked to NCHWc (cb = block_k), as the channel-blocked 3x3 variant does;
///   V [36][tiles][c_pad] in T; M [36][tiles][K] in fp32 (unfused variant only).
/// Packed filters U [36][K][c_pad] in T.
struct WinogradLayout {
  std::int64_t c_pad, tiles, tiles_h, tiles_w;
  std::size_t repack_off, v_off, m_off, workspace;
};

constexpr WinogradLayout winograd_layout(const Conv2dProblem& p, LayoutKind l, int block_k,
                                         bool with_m = true) {
  WinogradLayout w{};
  w.c_pad = round_up(p.c, block_k);
  w.tiles_h = ceil_div(p.p(), 4);
  w.tiles_w = ceil_div(p.q(), 4);
  w.tiles = p.n * w.tiles_h * w.tiles_w;
  const std::size_t repack = l == LayoutKind::nchw ? std::size_t(p.n * w.c_pad * p.h * p.w) * 2 : 0;
  w.repack_off = 0;
  w.v_off = std::size_t(round_up(std::int64_t(repack), 256));
  w.m_off = w.v_off + std::size_t(round_up(36 * w.tiles * w.c_pad * 2, 256));
  w.workspace = with_m ? w.m_off + std::size_t(36 * w.tiles * p.k * 4) : w.m_off;
  return w;
}

struct WinogradFamily {
  static constexpr Method method = Method::winograd;
  static constexpr TileKind tile_kind = TileKind::winograd;
  static constexpr TileKind tile_for(const Conv2dProblem&, ArchClass) { return tile_kind; }
  static constexpr const char* name() { return "winograd"; }
  static constexpr ShapeRule rule(const Conv2dProblem& p, LayoutKind) { return winograd_rule(p); }
  static constexpr bool can_implement(const Conv2dProblem& p, LayoutKind) {
    return winograd_eligible(p);
  }
  static constexpr bool reads_x_vectors(LayoutKind) { return false; }
  /// The kernels run() launches, as the launch log names them (Plan::describe()).
  static std::string kernel_names(LayoutKind l) {
    return std::string(l == LayoutKind::nchw ? "repack_nchwc, " : "") +
           "winograd_input_transform, conv_gemm<WinogradIter> x36 batches, "
           "winograd_output_transform";
  }
  static constexpr int block_k(ArchClass f) { return tile_of(f, tile_kind).block_k; }
  static constexpr std::size_t packed_weight_bytes(const Conv2dProblem& p, ArchClass f) {
    return std::size_t(36 * p.k * round_up(p.c, block_k(f))) * 2;
  }
  static constexpr std::size_t workspace_bytes(const Conv2dProblem& p, LayoutKind l, ArchClass f) {
    return winograd_layout(p, l, block_k(f)).workspace;
  }
  /// No split-K: the 36 products are already 36 grid layers over a short reduction.
  static constexpr std::int64_t k_steps(const Conv2dProblem&, ArchClass) { return 0; }
};

/// The fused variant: same eligibility, the same packed U; its workspace has no M.
struct WinogradFusedFamily {
  static constexpr Method method = Method::winograd_fused;
  static constexpr TileKind tile_kind = TileKind::winograd_fused;
  static constexpr TileKind tile_for(const Conv2dProblem&, ArchClass) { return tile_kind; }
  static constexpr const char* name() { return "winograd_fused"; }
  static constexpr ShapeRule rule(const Conv2dProblem& p, LayoutKind l) {
    return WinogradFamily::rule(p, l);
  }
  static constexpr bool can_implement(const Conv2dProblem& p, LayoutKind l) {
    return WinogradFamily::can_implement(p, l);
  }
  static constexpr bool reads_x_vectors(LayoutKind l) { return WinogradFamily::reads_x_vectors(l); }
  static std::string kernel_names(LayoutKind l) {
    return std::string(l == LayoutKind::nchw ? "repack_nchwc, " : "") +
           "winograd_input_transform, winograd_fused";
  }
  static constexpr std::size_t packed_weight_bytes(const Conv2dProblem& p, ArchClass f) {
    return WinogradFamily::packed_weight_bytes(p, f);
  }
  static constexpr std::size_t workspace_bytes(const Conv2dProblem& p, LayoutKind l, ArchClass f) {
    return winograd_layout(p, l, WinogradFamily::block_k(f), false).workspace;
  }
  static constexpr std::int64_t k_steps(const Conv2dProblem&, ArchClass) { return 0; }
};

}  // namespace rdnaconv::kernels
