// SPDX-License-Identifier: MIT
/// @file hopper_launch.hpp The Hopper family's launcher (common/launch.hpp): the TMA kernel on
/// the sm90 tile table; the plan refuses the method on every other table (MethodInfo::runs_on),
/// so the other instantiations are never called.
#pragma once

#include "rdnaconv/kernels/common/launch.hpp"
#include "rdnaconv/kernels/hopper/hopper_desc.hpp"
#include "rdnaconv/kernels/hopper/hopper_halo.hpp"
#include "rdnaconv/kernels/hopper/hopper_halo_desc.hpp"
#include "rdnaconv/kernels/hopper/hopper_tma.hpp"

namespace rdnaconv::kernels {

template <>
struct Launcher<HopperTmaFamily> {
  template <ArchClass F, DType T, AtomKind A, LayoutKind L>
  static rt::error_t run(const LaunchArgs& r) {
#if defined(RDNACONV_BACKEND_CUDA) && defined(RDNACONV_SM90A)
    if constexpr (F == ArchClass::sm90 && A == AtomKind::native && L == LayoutKind::nhwc)
      return launch_hopper_tma<T>(
          r.d.problem, r.x, r.packed, r.epi, r.stream, r.d.options.tile == TileChoice::tall,
          r.d.options.schedule != Schedule::persistent && r.d.options.schedule != Schedule::pingpong
              ? 0
          : r.d.device.sms > 0 ? r.d.device.sms
                               : -1,
          r.d.options.schedule == Schedule::pingpong);
#endif
    (void)r;
    return rt::invalid_value;
  }
  template <DType, LayoutKind>
  static rt::error_t prepack(const PrepackArgs& a) {
    return prepack_tap_major<HopperTmaFamily>(a);
  }
};

template <>
struct Launcher<HopperHaloFamily> {
  template <ArchClass F, DType T, AtomKind A, LayoutKind L>
  static rt::error_t run(const LaunchArgs& r) {
#if defined(RDNACONV_BACKEND_CUDA) && defined(RDNACONV_SM90A)
    if constexpr (F == ArchClass::sm90 && A == AtomKind::native && L == LayoutKind::nhwc)
      return launch_hopper_halo<T>(r.d.problem, r.x, r.packed, r.epi, r.stream, r.d.device.sms);
#endif
    (void)r;
    return rt::invalid_value;
  }
  template <DType, LayoutKind>
  static rt::error_t prepack(const PrepackArgs& a) {
    return prepack_tap_major<HopperHaloFamily>(a);
  }
};

}  // namespace rdnaconv::kernels
