// SPDX-License-Identifier: MIT
/// @file grouped_launch.hpp The grouped family's launcher (common/launch.hpp): one direct kernel
/// per convolution (grouped.hpp), the same on every tile table and atom (no matrix atoms).
#pragma once

#include "rdnaconv/kernels/common/launch.hpp"
#include "rdnaconv/kernels/grouped/grouped.hpp"
#include "rdnaconv/kernels/grouped/grouped_desc.hpp"

namespace rdnaconv::kernels {

template <>
struct Launcher<GroupedFamily> {
  template <ArchClass, DType T, AtomKind, LayoutKind L>
  static rt::error_t run(const LaunchArgs& r) {
    return launch_grouped<T, L>(r.d.problem, r.x, r.packed, r.epi, r.stream,
                                r.d.options.tile == TileChoice::window);
  }
  template <DType, LayoutKind>
  static rt::error_t prepack(const PrepackArgs& a) {
    return launch_pack_grouped(a.d.problem, a.w, a.packed, a.stream);
  }
};

}  // namespace rdnaconv::kernels
