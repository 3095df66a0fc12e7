// SPDX-License-Identifier: MIT
/// @file gemm1x1_launch.hpp The 1x1 family's launcher (common/launch.hpp).
#pragma once

#include "rdnaconv/kernels/common/launch.hpp"
#include "rdnaconv/kernels/gemm1x1/gemm1x1_desc.hpp"
#include "rdnaconv/kernels/gemm1x1/repack1x1.hpp"

namespace rdnaconv::kernels {

/// One tap: the window position of each row is computed once per block.
template <LayoutKind L>
using Tap1x1IterTag = TapIterTag<L == LayoutKind::nhwc ? InLayout::nhwc : InLayout::nchw, true>;

template <>
struct Launcher<Gemm1x1Family> : DirectLauncher<Gemm1x1Family, Tap1x1IterTag> {};

/// cblocked1x1: the repack applies the filter's window (stride, padding, mode) and blocks the
/// channels; the engine runs the dense problem on it with the NCHWc one-tap iterator. NCHW only
/// (can_implement refuses NHWC, so that layout is not instantiated).
template <>
struct Launcher<CBlocked1x1Family> {
  using Family = CBlocked1x1Family;
  template <ArchClass F, DType T, AtomKind A, LayoutKind L>
  static rt::error_t run(const LaunchArgs& r) {
    if constexpr (L != LayoutKind::nchw) {
      return rt::invalid_value;  // unreachable: can_implement refuses NHWC
    } else {
      constexpr int BK = tile_of(F, Family::tile_kind).block_k;
      const Conv2dProblem& p = r.d.problem;
      Repack1x1Params a{};
      a.x = r.x;
      a.xc = reinterpret_cast<std::uint16_t*>(r.workspace);
      a.n = p.n;
      a.c = p.c;
      a.c_pad = Family::layout(p, F).c_pad;
      a.h = p.h;
      a.w = p.w;
      a.p = p.p();
      a.q = p.q();
      a.stride_h = p.stride_h;
      a.stride_w = p.stride_w;
      a.pad_top = p.pad_top;
      a.pad_left = p.pad_left;
      a.pad_mode = p.pad_mode;
      if (rt::error_t e = launch_repack_nchwc_1x1<BK>(a, r.stream); e != rt::success) return e;
      return run_direct<Family, F, T, A, L, TapIterTag<InLayout::nchwc, true>>(
          r, a.xc, cblocked1x1_gemm_problem(p));
    }
  }
  template <DType, LayoutKind>
  static rt::error_t prepack(const PrepackArgs& a) {
    return prepack_tap_major<Family>(a);
  }
};

}  // namespace rdnaconv::kernels
