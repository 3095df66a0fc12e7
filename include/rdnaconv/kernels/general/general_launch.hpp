// SPDX-License-Identifier: MIT
/// @file general_launch.hpp The general family's launcher (common/launch.hpp).
#pragma once

#include "rdnaconv/kernels/common/launch.hpp"
#include "rdnaconv/kernels/general/general_desc.hpp"

namespace rdnaconv::kernels {

template <>
struct Launcher<GeneralFamily> {
  template <ArchClass F, DType T, AtomKind A, LayoutKind L>
  static rt::error_t run(const LaunchArgs& r) {
    return run_direct<GeneralFamily, F, T, A, L, GeneralIterTag<L>>(r, r.x);
  }
  template <DType, LayoutKind>
  static rt::error_t prepack(const PrepackArgs& a) {
    return prepack_tap_major<GeneralFamily>(a);
  }
};

}  // namespace rdnaconv::kernels
