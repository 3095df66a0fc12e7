// SPDX-License-Identifier: MIT
/// @file gemm1x1_launch.hpp The 1x1 family's launcher (common/launch.hpp).
#pragma once

#include "rdnaconv/kernels/common/launch.hpp"
#include "rdnaconv/kernels/gemm1x1/gemm1x1_desc.hpp"

namespace rdnaconv::kernels {

/// One tap: the window position of each row is computed once per block.
template <LayoutKind L>
using Tap1x1IterTag = TapIterTag<L == LayoutKind::nhwc ? InLayout::nhwc : InLayout::nchw, true>;

template <>
struct Launcher<Gemm1x1Family> : DirectLauncher<Gemm1x1Family, Tap1x1IterTag> {};

}  // namespace rdnaconv::kernels
