// SPDX-License-Identifier: MIT
/// @file launchers.hpp Every family's launcher (the device half of its static surface,
/// common/launch.hpp). A new family adds its folder, its row in methods.hpp's family list and
/// its launcher's include here; the plan needs no edit (docs/DESIGN.md, "Adding a family").
#pragma once

#include "rdnaconv/kernels/conv3x3/conv3x3_launch.hpp"
#include "rdnaconv/kernels/gemm1x1/gemm1x1_launch.hpp"
#include "rdnaconv/kernels/general/general_launch.hpp"
#include "rdnaconv/kernels/grouped/grouped_launch.hpp"
#include "rdnaconv/kernels/hopper/hopper_launch.hpp"
#include "rdnaconv/kernels/winograd/winograd_launch.hpp"
