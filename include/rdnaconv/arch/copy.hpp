// SPDX-License-Identifier: MIT
/// @file copy.hpp Global -> shared-memory copies. sm_80+ has an asynchronous 16-byte copy
/// (cp.async) that fills shared memory without passing through registers; RDNA3/RDNA4 have no
/// such instruction for these targets (docs/RDNA_FACTS.md), so the kernels there stage
/// the next tile in registers instead. This file is the only place that spells cp.async.
#pragma once

#include <cstdint>

#include "rdnaconv/arch/macros.hpp"
#include "rdnaconv/arch/platform.hpp"

namespace rdnaconv::arch {

/// True in a device pass that has cp.async (NVIDIA sm_80+). Host passes and AMD: false.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
inline constexpr bool kDeviceHasAsyncCopy = true;
#else
inline constexpr bool kDeviceHasAsyncCopy = false;
#endif

/// 16 bytes from `src` to shared `dst`; when `valid` is false the 16 bytes are zero-filled and
/// `src` is not read (0 source bytes, PTX ISA "cp.async": src-size bytes are copied, the rest
/// of the 16 zero-filled), so it may be any address.
RDNACONV_DEVICE inline void cp_async16(void* dst, const void* src, bool valid) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  const int bytes = valid ? 16 : 0;
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(src), "r"(bytes));
#else
  (void)dst;
  (void)src;
  (void)valid;
  __builtin_trap();  // unreachable: the engine's static_assert on kDeviceHasAsyncCopy refuses such
                     // tiles
#endif
}

RDNACONV_DEVICE inline void cp_async_commit() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::);
#endif
}

/// Waits until at most N committed groups of this thread are still in flight.
template <int N>
RDNACONV_DEVICE inline void cp_async_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
#endif
}

/// 16 bytes of global memory into registers. On AMD the address is marked global so that the
/// load is a global_load: a flat load also counts on the LDS counter, and every wait for a
/// shared-memory read in the loop would then wait for the global load as well.
RDNACONV_DEVICE inline uint4 load_global16(const void* src) {
#if defined(__HIP_DEVICE_COMPILE__) && defined(__AMDGCN__)
  using v4u = unsigned int __attribute__((ext_vector_type(4)));
  const v4u v = *(const __attribute__((address_space(1))) v4u*)src;
  return make_uint4(v.x, v.y, v.z, v.w);
#else
  return *reinterpret_cast<const uint4*>(src);
#endif
}

/// One 16-bit element of global memory (a global_load on AMD, as load_global16).
RDNACONV_DEVICE inline std::uint16_t load_global2(const std::uint16_t* src) {
#if defined(__HIP_DEVICE_COMPILE__) && defined(__AMDGCN__)
  return *(const __attribute__((address_space(1))) std::uint16_t*)src;
#else
  return *src;
#endif
}

/// The compiler's scheduler moves no instruction across this point (AMD: sched_barrier with an
/// empty mask; elsewhere nothing). The register-staged loop puts it between a step's products
/// and the shared stores of the next tile, which wait for that tile's global loads: hoisted
/// above the products, the stores would make every WMMA wait for global memory.
RDNACONV_DEVICE inline void schedule_fence() {
#if defined(__HIP_DEVICE_COMPILE__) && defined(__AMDGCN__)
  __builtin_amdgcn_sched_barrier(0);
#endif
}

/// ldmatrix.x4: four 8x8 matrices of 16-bit elements from shared memory; lane l gives the
/// address of row l%8 of matrix l/8, and receives row l/4, columns 2(l%4), 2(l%4)+1 of each.
RDNACONV_DEVICE inline void ldmatrix_x4(std::uint32_t (&r)[4], const void* row_addr) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(row_addr));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(s));
#else
  (void)r;
  (void)row_addr;
  __builtin_trap();
#endif
}

}  // namespace rdnaconv::arch
