// SPDX-License-Identifier: MIT
/// @file winograd_launch.hpp The launchers of the two Winograd variants (common/launch.hpp):
///   unfused: [repack (NCHW)] -> input transform -> 36 batched GEMMs -> output transform;
///   fused:   [repack (NCHW)] -> input transform -> one GEMM kernel with the output transform
///            folded in (winograd_fused.hpp).
/// Both share the prepack (U, the filter transform) and the input transform (V).
#pragma once

#include "rdnaconv/kernels/common/launch.hpp"
#include "rdnaconv/kernels/conv3x3/repack.hpp"
#include "rdnaconv/kernels/winograd/winograd.hpp"
#include "rdnaconv/kernels/winograd/winograd_desc.hpp"
#include "rdnaconv/kernels/winograd/winograd_fused.hpp"

namespace rdnaconv::kernels {

namespace winograd {
/// The transforms' parameters of one call: the plan's problem, the workspace map, the epilogue.
inline WinogradParams make_params(const LaunchArgs& r, const WinogradLayout& wl) {
  const Conv2dProblem& p = r.d.problem;
  WinogradParams wp{};
  static_cast<ConvDims&>(wp) = conv_dims(p);
  wp.c_pad = int(wl.c_pad);
  wp.tiles_h = int(wl.tiles_h);
  wp.tiles_w = int(wl.tiles_w);
  wp.tiles = wl.tiles;
  wp.x = r.x;
  wp.v = reinterpret_cast<std::uint16_t*>(r.workspace + wl.v_off);
  wp.m = nullptr;
  wp.epi = r.epi;
  return wp;
}

/// [repack] + input transform: V in the workspace. NCHW reads the channel-blocked repack.
template <DType T, LayoutKind L, int BK>
inline rt::error_t transform_input(const LaunchArgs& r, const WinogradLayout& wl,
                                   WinogradParams& wp) {
  if constexpr (L == LayoutKind::nchw) {
    auto* xc = reinterpret_cast<std::uint16_t*>(r.workspace + wl.repack_off);
    if (rt::error_t e = launch_repack_nchwc<BK>(r.x, xc, wp.n, wp.c, wp.c_pad,
                                                std::int64_t(wp.h) * wp.w, r.stream);
        e != rt::success)
      return e;
    wp.x = xc;
    return launch_winograd_input<T, InLayout::nchwc, BK>(wp, r.stream);
  } else {
    return launch_winograd_input<T, InLayout::nhwc, BK>(wp, r.stream);
  }
}

/// U from OIHW weights, with the c_pad of the run (winograd_layout on the plan's tile table).
template <DType T, LayoutKind L>
inline rt::error_t prepack(const PrepackArgs& a) {
  const Conv2dProblem& p = a.d.problem;
  const int c_pad = int(winograd_layout(p, L, WinogradFamily::block_k(a.d.tiles)).c_pad);
  return launch_winograd_filter<T>(a.w, a.packed, int(p.k), int(p.c), c_pad, a.stream);
}
}  // namespace winograd

template <>
struct Launcher<WinogradFamily> {
  template <ArchClass F, DType T, AtomKind A, LayoutKind L>
  static rt::error_t run(const LaunchArgs& r) {
    constexpr int BK = tile_of(F, TileKind::winograd).block_k;
    const WinogradLayout wl = winograd_layout(r.d.problem, L, BK, true);
    WinogradParams wp = winograd::make_params(r, wl);
    wp.m = reinterpret_cast<float*>(r.workspace + wl.m_off);
    if (rt::error_t e = winograd::transform_input<T, L, BK>(r, wl, wp); e != rt::success) return e;
    // the 36 GEMMs M[α] = V[α] U[α]ᵀ in one launch (blockIdx.y = α), M in fp32
    const ConvGemmParams g =
        make_batched_gemm_params(wl.tiles, wp.k, wp.c_pad, wp.v, r.packed, wp.m);
    if (rt::error_t e = launch_conv_gemm<tile_tag<F, TileKind::winograd>, T, A, WinogradIterTag,
                                         LayoutKind::nhwc>(g, 36, r.stream);
        e != rt::success)
      return e;
    return launch_winograd_output<L>(wp, r.stream);
  }
  template <DType T, LayoutKind L>
  static rt::error_t prepack(const PrepackArgs& a) {
    return winograd::prepack<T, L>(a);
  }
};

template <>
struct Launcher<WinogradFusedFamily> {
  template <ArchClass F, DType T, AtomKind A, LayoutKind L>
  static rt::error_t run(const LaunchArgs& r) {
    constexpr int BK = tile_of(F, TileKind::winograd).block_k;  // U and V as the unfused variant's
    const WinogradLayout wl = winograd_layout(r.d.problem, L, BK, false);
    WinogradParams wp = winograd::make_params(r, wl);
    if (rt::error_t e = winograd::transform_input<T, L, BK>(r, wl, wp); e != rt::success) return e;
    return launch_winograd_fused<tile_tag<F, TileKind::winograd_fused>, T, A, L>(wp, r.packed,
                                                                                 r.stream);
  }
  template <DType T, LayoutKind L>
  static rt::error_t prepack(const PrepackArgs& a) {
    return winograd::prepack<T, L>(a);
  }
};

}  // namespace rdnaconv::kernels
