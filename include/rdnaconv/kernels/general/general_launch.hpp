// SPDX-License-Identifier: MIT
/// @file general_launch.hpp The general family's launcher (common/launch.hpp).
#pragma once

#include "rdnaconv/kernels/common/launch.hpp"
#include "rdnaconv/kernels/general/general_desc.hpp"

namespace rdnaconv::kernels {

/// Every padding mode: zeros through GeneralIterTag, the others through its remap form.
template <>
struct Launcher<GeneralFamily> : DirectLauncher<GeneralFamily, GeneralIterTag, true> {};

}  // namespace rdnaconv::kernels
