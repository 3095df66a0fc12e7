// SPDX-License-Identifier: MIT
/// @file gemm1x1_launch.hpp The 1x1 family's launcher (common/launch.hpp).
#pragma once

#include "rdnaconv/kernels/common/launch.hpp"
#include "rdnaconv/kernels/gemm1x1/gemm1x1_desc.hpp"

namespace rdnaconv::kernels {

template <>
struct Launcher<Gemm1x1Family> {
  template <ArchClass F, DType T, AtomKind A, LayoutKind L>
  static rt::error_t run(const LaunchArgs& r) {
    constexpr InLayout kIn = L == LayoutKind::nhwc ? InLayout::nhwc : InLayout::nchw;
    return run_direct<Gemm1x1Family, F, T, A, L, TapIterTag<kIn, true>>(r, r.x);
  }
  template <DType, LayoutKind>
  static rt::error_t prepack(const PrepackArgs& a) {
    return prepack_tap_major<Gemm1x1Family>(a);
  }
};

}  // namespace rdnaconv::kernels
