// SPDX-License-Identifier: MIT
/// @file isa_probe.cpp Instantiates the general kernel (native atom) so CI can read its AMD ISA.
#include "rdnaconv/plan.hpp"

template rdnaconv::rt::error_t rdnaconv::kernels::launch_implicit_gemm<
    rdnaconv::kernels::tile_tag<rdnaconv::kernels::kGeneralRdna3>, rdnaconv::DType::bf16,
    rdnaconv::LayoutKind::nhwc, rdnaconv::AtomKind::native>(const rdnaconv::kernels::GemmConvParams&,
                                                            rdnaconv::rt::stream_t);
