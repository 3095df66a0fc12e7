// SPDX-License-Identifier: MIT
/// @file isa_probe.cpp Instantiates every kernel a user's build gets (native atom, both types,
/// both layouts), so that the AMD resource report (cmake/amd_resources.sh) can read them all from
/// the tree's HIP build (target rdnaconv_isa_probe, tests/CMakeLists.txt).
#include "rdnaconv/conv2d.hpp"

template class rdnaconv::Plan<rdnaconv::fp16_t, rdnaconv::NHWC>;
template class rdnaconv::Plan<rdnaconv::fp16_t, rdnaconv::NCHW>;
template class rdnaconv::Plan<rdnaconv::bf16_t, rdnaconv::NHWC>;
template class rdnaconv::Plan<rdnaconv::bf16_t, rdnaconv::NCHW>;
