// SPDX-License-Identifier: MIT
/// @file conv3x3_launch.hpp The launchers of the three 3x3 variants (common/launch.hpp): the
/// same packing, three ways to read x (README.md). Each runs on its own layout only (the plan
/// refuses the other through can_implement), so the other layout is not instantiated.
#pragma once

#include "rdnaconv/kernels/common/launch.hpp"
#include "rdnaconv/kernels/conv3x3/conv3x3_desc.hpp"
#include "rdnaconv/kernels/conv3x3/repack.hpp"

namespace rdnaconv::kernels {

template <Method M, LayoutKind VL>
struct Launcher<Conv3x3Variant<M, VL>> {
  using Family = Conv3x3Variant<M, VL>;
  template <ArchClass F, DType T, AtomKind A, LayoutKind L>
  static rt::error_t run(const LaunchArgs& r) {
    if constexpr (L != VL) {
      return rt::invalid_value;  // unreachable: can_implement refuses the other layout
    } else if constexpr (M == Method::nhwc3x3) {  // every padding mode (the VAEs' 3x3 NHWC)
      return run_direct_padded<Family, F, T, A, L, TapIterTag<InLayout::nhwc, false>>(r, r.x);
    } else if constexpr (M == Method::nchw3x3) {
      return run_direct<Family, F, T, A, L, TapIterTag<InLayout::nchw, false>>(r, r.x);
    } else {
      // channel-blocked: x repacked to NCHWc (cb = block_k) in the workspace on every call;
      // every padding mode (the remap reads the repack at the mode's coordinates)
      constexpr int BK = tile_of(F, Family::tile_kind).block_k;
      const Conv2dProblem& p = r.d.problem;
      auto* xc = reinterpret_cast<std::uint16_t*>(r.workspace);
      const int c_pad = int(Family::layout(p, F).c_pad);
      if (rt::error_t e =
              launch_repack_nchwc<BK>(r.x, xc, int(p.n), int(p.c), c_pad, p.h * p.w, r.stream);
          e != rt::success)
        return e;
      return run_direct_padded<Family, F, T, A, L, TapIterTag<InLayout::nchwc, false>>(r, xc);
    }
  }
  template <DType, LayoutKind>
  static rt::error_t prepack(const PrepackArgs& a) {
    return prepack_tap_major<Family>(a);
  }
};

}  // namespace rdnaconv::kernels
