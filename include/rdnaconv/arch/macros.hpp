// SPDX-License-Identifier: MIT
/// @file macros.hpp Function qualifiers that work under g++, nvcc and clang-HIP.
#pragma once

#if defined(__CUDACC__) || defined(__HIPCC__) || defined(__HIP__)
#define RDNACONV_HD __host__ __device__
#define RDNACONV_DEVICE __device__
#define RDNACONV_GPU_COMPILER 1
#else
#define RDNACONV_HD
#define RDNACONV_DEVICE
#define RDNACONV_GPU_COMPILER 0
#endif

// Inlined whatever the inliner's cost model says (g++, clang and nvcc all take this attribute);
// RDNACONV_INLINE_LAMBDA goes between a lambda's parameter list and its body.
#define RDNACONV_FORCEINLINE __attribute__((always_inline)) inline
#define RDNACONV_INLINE_LAMBDA __attribute__((always_inline))

// Kernel parameter blocks are read through references by the iterators; on CUDA a
// __grid_constant__ parameter can be addressed without a copy to local memory.
#if defined(__CUDACC__) && !defined(__HIP__)
#define RDNACONV_GRID_CONSTANT __grid_constant__
#else
#define RDNACONV_GRID_CONSTANT
#endif
