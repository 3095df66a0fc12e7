// SPDX-License-Identifier: MIT
/// @file tma.hpp Hopper's asynchronous copy engine and its barriers (sm_90a): tensor-map tile
/// loads (cp.async.bulk.tensor) that complete on a shared-memory mbarrier with a byte count,
/// the mbarrier operations a producer / consumer pipeline needs, named barriers and setmaxnreg.
/// This file is the only place that spells them. (PTX ISA: "Tensor Copy Instructions",
/// "Parallel Synchronization and Communication Instructions: mbarrier", "setmaxnreg".)
///
/// Built only in sm_90a device passes (RDNACONV_WGMMA_ASM, arch/wgmma.hpp); elsewhere the
/// device functions trap: the plan runs the kernels that use them only on the sm90 tile table,
/// which it selects only in a build with RDNACONV_SM90A on a 9.0 device.
#pragma once

#include <cstdint>

#include "rdnaconv/arch/macros.hpp"
#include "rdnaconv/arch/wgmma.hpp"

namespace rdnaconv::arch {

#if defined(RDNACONV_WGMMA_ASM)
#define RDNACONV_TMA_ASM 1
#endif

/// Traps in a device pass without sm_90a (unreachable: see the file comment).
RDNACONV_DEVICE inline void tma_unreachable() {
#if defined(__CUDA_ARCH__) && !defined(RDNACONV_TMA_ASM)
  __trap();
#endif
}

RDNACONV_DEVICE inline std::uint32_t smem_addr(const void* p) {
#if defined(RDNACONV_TMA_ASM)
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
#else
  (void)p;
  return 0;
#endif
}

/// Initialises an mbarrier to expect `count` arrivals per phase (one thread, before any use;
/// then mbar_init_fence and a block barrier).
RDNACONV_DEVICE inline void mbar_init(std::uint64_t* bar, unsigned count) {
#if defined(RDNACONV_TMA_ASM)
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem_addr(bar)), "r"(count)
               : "memory");
#else
  (void)bar;
  (void)count;
  tma_unreachable();
#endif
}
/// Makes the initialisations visible to the async proxy (the copy engine's completions).
RDNACONV_DEVICE inline void mbar_init_fence() {
#if defined(RDNACONV_TMA_ASM)
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
#endif
}
/// One arrival, and `bytes` more transaction bytes this phase waits for (the producer, before it
/// issues the copies that complete them).
RDNACONV_DEVICE inline void mbar_arrive_expect_tx(std::uint64_t* bar, std::uint32_t bytes) {
#if defined(RDNACONV_TMA_ASM)
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem_addr(bar)),
               "r"(bytes)
               : "memory");
#else
  (void)bar;
  (void)bytes;
  tma_unreachable();
#endif
}
/// One arrival (a consumer releasing a stage).
RDNACONV_DEVICE inline void mbar_arrive(std::uint64_t* bar) {
#if defined(RDNACONV_TMA_ASM)
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(smem_addr(bar)) : "memory");
#else
  (void)bar;
  tma_unreachable();
#endif
}
/// Waits until the phase of parity `parity` has completed (phases alternate 0, 1, 0, ...; a
/// fresh barrier is in phase 0, so waiting for parity 1 returns at once).
RDNACONV_DEVICE inline void mbar_wait(std::uint64_t* bar, std::uint32_t parity) {
#if defined(RDNACONV_TMA_ASM)
  const std::uint32_t a = smem_addr(bar);
  std::uint32_t done = 0;
  do {
    asm volatile(
        "{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
        "selp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(a), "r"(parity)
        : "memory");
  } while (done == 0);
#else
  (void)bar;
  (void)parity;
  tma_unreachable();
#endif
}

/// A tile of a 3-D / 4-D tensor map into shared memory at `dst` (aligned to the map's swizzle
/// span), completing `bytes` (the whole box, out-of-bounds elements included, zero-filled) on
/// `bar`. Coordinates are signed element indices, innermost first; a box reaching outside the
/// tensor is filled with zeros there (the convolution's padding). `map` is the address of a
/// __grid_constant__ kernel parameter.
RDNACONV_DEVICE inline void tma_load_3d(void* dst, const void* map, std::uint64_t* bar, int c0,
                                        int c1, int c2) {
#if defined(RDNACONV_TMA_ASM)
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], "
      "[%1, {%2, %3, %4}], [%5];\n" ::"r"(smem_addr(dst)),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(c0), "r"(c1), "r"(c2), "r"(smem_addr(bar))
      : "memory");
#else
  (void)dst, (void)map, (void)bar, (void)c0, (void)c1, (void)c2;
  tma_unreachable();
#endif
}
RDNACONV_DEVICE inline void tma_load_4d(void* dst, const void* map, std::uint64_t* bar, int c0,
                                        int c1, int c2, int c3) {
#if defined(RDNACONV_TMA_ASM)
  asm volatile(
      "cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], "
      "[%1, {%2, %3, %4, %5}], [%6];\n" ::"r"(smem_addr(dst)),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(c0), "r"(c1), "r"(c2), "r"(c3),
      "r"(smem_addr(bar))
      : "memory");
#else
  (void)dst, (void)map, (void)bar, (void)c0, (void)c1, (void)c2, (void)c3;
  tma_unreachable();
#endif
}
/// Brings a tensor map (a kernel parameter) into the descriptor cache ahead of its first use.
RDNACONV_DEVICE inline void tma_prefetch_map(const void* map) {
#if defined(RDNACONV_TMA_ASM)
  asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<std::uint64_t>(map)) : "memory");
#else
  (void)map;
#endif
}

/// Barrier `id` (1..15; 0 is __syncthreads) among `threads` threads of the block (a multiple of
/// 32): the consumer warpgroups synchronise without the producer.
RDNACONV_DEVICE inline void named_barrier(int id, int threads) {
#if defined(RDNACONV_TMA_ASM)
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
#else
  (void)id;
  (void)threads;
  tma_unreachable();
#endif
}

/// Warpgroup-wide register budget changes (all warps of the warpgroup execute them): the
/// producer gives registers back, the consumers take them.
template <int N>
RDNACONV_DEVICE inline void setmaxnreg_dec() {
#if defined(RDNACONV_TMA_ASM)
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(N));
#endif
}
template <int N>
RDNACONV_DEVICE inline void setmaxnreg_inc() {
#if defined(RDNACONV_TMA_ASM)
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(N));
#endif
}

}  // namespace rdnaconv::arch
