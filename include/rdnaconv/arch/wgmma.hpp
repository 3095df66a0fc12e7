// SPDX-License-Identifier: MIT
/// @file wgmma.hpp Hopper's warpgroup matrix product (sm_90a): wgmma.mma_async with both
/// operands in shared memory, described by 64-bit matrix descriptors, plus the fences and waits
/// it needs. This file is the only place that spells wgmma. (PTX ISA, "Asynchronous Warpgroup
/// Level Matrix Multiply-Accumulate Instructions" and "Matrix Descriptor Format".)
///
/// The library's use: a warpgroup (4 consecutive warps, the first one's index divisible by 4)
/// computes a 64 x 128 tile, m64n128k16 per 16 reduction elements, f32 accumulators in
/// registers. Both operands are K-major (A: 64 rows x k, B: 128 filters x k, k contiguous) in
/// the 64-byte swizzled layout: rows of block_k = 32 16-bit elements (64 bytes), row r's 16-byte
/// chunk c stored at chunk c ^ ((r / 2) % 4), i.e. address bits 4-5 XOR bits 7-8, so the
/// pattern repeats every 8 rows (512 bytes) and each operand must start 512-byte aligned.
///
/// Accumulator layout: warp w of the warpgroup holds rows 16w..16w+15; its register 4c + i of
/// 8-column chunk c is (row l/4 + 8(i/2), column 8c + 2(l%4) + i%2) for lane l, the same map as
/// mma.sync m16n8k16's C (atoms.hpp). Held as acc[1][8][8] (16x16 blocks of the engine), the
/// engine's epilogue stores them through the native atom's c_row / c_col unchanged.
///
/// Built only for the sm_90a target (-gencode=arch=compute_90a,code=sm_90a; the CMake build
/// sets RDNACONV_SM90A when CMAKE_CUDA_ARCHITECTURES names 90a). Elsewhere the functions trap;
/// the plan selects the sm90 tile table only in a build with RDNACONV_SM90A on a 9.0 device.
#pragma once

#include <cstdint>

#include "rdnaconv/arch/macros.hpp"

#if defined(RDNACONV_SM90A) && defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#if __CUDA_ARCH__ == 900
#error \
    "rdnaconv: RDNACONV_SM90A is set but this pass is plain sm_90: build Hopper as -gencode=arch=compute_90a,code=sm_90a (CMAKE_CUDA_ARCHITECTURES=90a), not 90"
#endif
#endif

namespace rdnaconv::arch {

/// True in a device pass that has wgmma (the sm_90a target).
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
inline constexpr bool kDeviceHasWgmma = true;
#define RDNACONV_WGMMA_ASM 1
#else
inline constexpr bool kDeviceHasWgmma = false;
#endif
/// False only in a device pass for a 9.0+ target without the sm_90a features, where a wgmma
/// tile would trap: the engine refuses to compile one there. (sm_80 passes of a fat binary
/// compile the sm90 rows as traps; the plan never selects them off a 9.0 device.)
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
inline constexpr bool kWgmmaTilesCompile = false;
#else
inline constexpr bool kWgmmaTilesCompile = true;
#endif

/// Descriptor of a K-major operand in a swizzled layout of RowBytes-byte rows: 64 (above: rows
/// of 32 16-bit elements, chunk c of row r at c ^ ((r / 2) % 4), 512 bytes per 8 rows, mode 2)
/// or 128 (rows of 64 elements, chunk c of row r at c ^ (r % 8), 1024 bytes per 8 rows, mode 1;
/// what CU_TENSOR_MAP_SWIZZLE_128B writes). Fields: the start address and the byte offset
/// between consecutive 8-row groups, both in 16-byte units; the leading offset, unused for
/// swizzled K-major layouts, is 1 by convention. An operand starts aligned to its 8-row span;
/// the k-th 16-element slice of the rows starts 32 k bytes further (+2 k in the descriptor).
template <int RowBytes>
RDNACONV_DEVICE inline std::uint64_t smem_desc_swizzled(const void* p) {
  static_assert(RowBytes == 64 || RowBytes == 128, "the 64- or 128-byte swizzle");
#if defined(RDNACONV_WGMMA_ASM)
  const auto a = static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
  return std::uint64_t((a & 0x3ffff) >> 4) | (std::uint64_t(1) << 16) |
         (std::uint64_t(8 * RowBytes >> 4) << 32) | (std::uint64_t(RowBytes == 64 ? 2 : 1) << 62);
#else
  (void)p;
  return 0;
#endif
}
/// The engine's wgmma tiles: 64-byte rows.
RDNACONV_DEVICE inline std::uint64_t smem_desc_sw64(const void* p) {
  return smem_desc_swizzled<64>(p);
}

/// Orders this warpgroup's register accesses before the wgmma that follow (needed before the
/// first wgmma and whenever other instructions touched the accumulators).
RDNACONV_DEVICE inline void wgmma_fence() {
#if defined(RDNACONV_WGMMA_ASM)
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#endif
}
RDNACONV_DEVICE inline void wgmma_commit() {
#if defined(RDNACONV_WGMMA_ASM)
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
#endif
}
/// Waits until at most N committed wgmma groups of this warpgroup are pending.
template <int N>
RDNACONV_DEVICE inline void wgmma_wait() {
#if defined(RDNACONV_WGMMA_ASM)
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
#endif
}
/// Ties the accumulators to this point: the compiler may not move a read or write of them
/// across it (wgmma writes them asynchronously until the wait, invisible to the compiler).
template <int N, int M>
RDNACONV_DEVICE inline void fence_operands(float (&d)[N][M]) {
#if defined(RDNACONV_WGMMA_ASM)
#pragma unroll
  for (int i = 0; i < N; ++i)
#pragma unroll
    for (int j = 0; j < M; ++j) asm volatile("" : "+f"(d[i][j])::"memory");
#else
  (void)d;
#endif
}

/// Makes this thread's generic-proxy writes to shared memory (stores, cp.async once waited for)
/// visible to the async proxy that wgmma reads through; then a barrier.
RDNACONV_DEVICE inline void fence_proxy_async_smem() {
#if defined(RDNACONV_WGMMA_ASM)
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
#endif
}

// The accumulator operands, acc[0][j][v] for v < 8, in register order: 8 per 16 columns.
#define RDNACONV_WG_ACC8(j)                                                                 \
  "+f"(d[j][0]), "+f"(d[j][1]), "+f"(d[j][2]), "+f"(d[j][3]), "+f"(d[j][4]), "+f"(d[j][5]), \
      "+f"(d[j][6]), "+f"(d[j][7])
#define RDNACONV_WG_ACC64(j0)                                                       \
  RDNACONV_WG_ACC8(j0), RDNACONV_WG_ACC8(j0 + 1), RDNACONV_WG_ACC8(j0 + 2),         \
      RDNACONV_WG_ACC8(j0 + 3), RDNACONV_WG_ACC8(j0 + 4), RDNACONV_WG_ACC8(j0 + 5), \
      RDNACONV_WG_ACC8(j0 + 6), RDNACONV_WG_ACC8(j0 + 7)
#define RDNACONV_WG_REGS64                                                                 \
  "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, " \
  "%19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "  \
  "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, "  \
  "%53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}"

/// D += A x B for one 64 x 128 x 16 step of the warpgroup (AN = 8 blocks of 16 columns; in
/// the engine's tiles a 256-wide variant measured slower on every layer tried,
/// kernels/common/README.md; the hopper family's is below); accumulate
/// always (the engine zeroes the accumulators first). Bf16 selects .bf16 or .f16 inputs.
template <bool Bf16, int AN>
RDNACONV_DEVICE inline void wgmma_m64n128k16(float (&d)[AN][8], std::uint64_t desc_a,
                                             std::uint64_t desc_b) {
  static_assert(AN == 8, "m64n128k16");
#if defined(RDNACONV_WGMMA_ASM)
  if constexpr (Bf16) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 " RDNACONV_WG_REGS64
        ", %64, %65, p, 1, 1, 0, 0;\n}\n"
        : RDNACONV_WG_ACC64(0)
        : "l"(desc_a), "l"(desc_b), "r"(1));
  } else {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 " RDNACONV_WG_REGS64
        ", %64, %65, p, 1, 1, 0, 0;\n}\n"
        : RDNACONV_WG_ACC64(0)
        : "l"(desc_a), "l"(desc_b), "r"(1));
  }
#else
  (void)d;
  (void)desc_a;
  (void)desc_b;
#if defined(__CUDA_ARCH__)
  __trap();  // an sm_80 pass of a fat binary: unreachable, the plan selects sm90 tiles on 9.0 only
#else
  __builtin_trap();
#endif
#endif
}
#define RDNACONV_WG_ACC128 RDNACONV_WG_ACC64(0), RDNACONV_WG_ACC64(8)
#define RDNACONV_WG_REGS128                                                                     \
  "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, "      \
  "%19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "       \
  "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, "       \
  "%53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, "  \
  "%71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, "  \
  "%89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, " \
  "%106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, "  \
  "%121, %122, %123, %124, %125, %126, %127}"

/// D += A x B for one 64 x 256 x 16 step of the warpgroup: the hopper family's 256-wide block,
/// which reads each A slice from shared memory once where two m64n128k16 read it twice. The
/// 128 accumulators continue the m64n128 map (register 4c + i of 8-column chunk c, c < 32), held
/// as d[h][j][v]: columns 128 h + 16 j + the atom's c_col, as two m64n128 halves would hold them.
template <bool Bf16>
RDNACONV_DEVICE inline void wgmma_m64n256k16(float (&acc)[2][8][8], std::uint64_t desc_a,
                                             std::uint64_t desc_b) {
#if defined(RDNACONV_WGMMA_ASM)
  float(&d)[16][8] = *reinterpret_cast<float(*)[16][8]>(&acc);
  if constexpr (Bf16) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 " RDNACONV_WG_REGS128
        ", %128, %129, p, 1, 1, 0, 0;\n}\n"
        : RDNACONV_WG_ACC128
        : "l"(desc_a), "l"(desc_b), "r"(1));
  } else {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 " RDNACONV_WG_REGS128
        ", %128, %129, p, 1, 1, 0, 0;\n}\n"
        : RDNACONV_WG_ACC128
        : "l"(desc_a), "l"(desc_b), "r"(1));
  }
#else
  (void)acc;
  (void)desc_a;
  (void)desc_b;
#if defined(__CUDA_ARCH__)
  __trap();
#else
  __builtin_trap();
#endif
#endif
}
#undef RDNACONV_WG_REGS128
#undef RDNACONV_WG_ACC128
#undef RDNACONV_WG_REGS64
#undef RDNACONV_WG_ACC64
#undef RDNACONV_WG_ACC8

}  // namespace rdnaconv::arch
