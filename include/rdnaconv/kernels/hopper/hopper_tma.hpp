// SPDX-License-Identifier: MIT
/// @file hopper_tma.hpp The Hopper family's kernel (issue 15, hopper_desc.hpp): a
/// warp-specialized main loop. Warpgroup 0 is the producer: one thread walks the reduction
/// (filter tap, then block of BK = 64 or 32 channels) and issues one TMA box of the input and one
/// of the packed weights per step into a ring of stages, each completing on its stage's `full`
/// mbarrier. Warpgroups 1 and 2 are the consumers: each waits for a stage, issues its 64-row
/// share of the block's wgmma products from shared memory (m64n128k16 or m64n256k16, one per 16
/// reduction elements), and releases the stage it finished one step later on the stage's `empty`
/// mbarrier. No __syncthreads in the loop, no address arithmetic in the consumers, no register
/// staging. Epilogue: accumulators through shared memory (f32, the pipeline's own bytes), then
/// runs of 8 filters of one pixel with 16-byte stores, every epilogue option (bias, residual,
/// activation, output type) applied in the copy-out.
///
/// Shared memory layouts: both operands of a step are K-major rows of BK channels, 128-byte rows
/// in the 128-byte swizzle (BK = 64) or 64-byte rows in the 64-byte swizzle (BK = 32): what
/// CU_TENSOR_MAP_SWIZZLE_128B / _64B write and what the wgmma descriptors of arch/wgmma.hpp read;
/// the A box's rows are its pixels in (image, row, column) order, i.e. the block's GEMM rows.
#pragma once

#include <climits>
#include <cstdint>

#include "rdnaconv/arch/atoms.hpp"
#include "rdnaconv/arch/platform.hpp"
#include "rdnaconv/arch/static_for.hpp"
#include "rdnaconv/arch/tma.hpp"
#include "rdnaconv/arch/wgmma.hpp"
#include "rdnaconv/detail/launch_log.hpp"
#include "rdnaconv/epilogue.hpp"
#include "rdnaconv/kernels/common/conv_params.hpp"
#include "rdnaconv/kernels/common/engine.hpp"
#include "rdnaconv/kernels/hopper/hopper_desc.hpp"

#if defined(RDNACONV_BACKEND_CUDA)
#include <cuda.h>
#endif

namespace rdnaconv::kernels {

/// The kernel's parameters besides the two tensor maps.
struct HopperTmaParams : ConvDims {
  int cblocks;  ///< BK-channel steps per filter tap (C_pad / BK, rounded up)
  int steps;    ///< reduction steps: R * S * cblocks
  int bw, bh, bni, tiles_q, tiles_p, n_blocks;
  EpilogueParams epi;
};

/// Version 6's parameters: the per-tile kernel's and the launch's tile count (the walk's end).
struct HopperPersistentParams : HopperTmaParams {
  int tiles;  ///< every block tile of the launch (<= INT_MAX: the host checks)
};

/// Version 8's parameters: version 6's and the log2 of the box's columns and rows (powers of
/// two), so that its epilogue finds a row's pixel by shifts and masks.
struct HopperPingpongParams : HopperPersistentParams {
  int lbw, lbh;
};

#if defined(RDNACONV_BACKEND_CUDA)

/// Block = 3 warpgroups: the producer, then two consumers of 64 GEMM rows each.
inline constexpr int kHopperThreads = 384;

template <int BM, int BN, int ST, int BK>
struct HopperSmem {
  static constexpr int kBk = BK;                    ///< channels per step (one swizzled row)
  static constexpr int kABytes = BM * kBk * 2;      ///< the A box: BM pixels x BK channels
  static constexpr int kBBytes = BN * kBk * 2;      ///< the B box: BN filters x BK channels
  static constexpr int kStage = kABytes + kBBytes;  ///< one step, 1024-byte aligned
  static constexpr int kLd = BN + 8;                ///< staged f32 row (+8: C-map stores spread)
  static constexpr int kStaged = BM * kLd * 4;
  static constexpr int kPipe = ST * kStage;
  static constexpr int kBytes = (kPipe > kStaged ? kPipe : kStaged) + 2 * ST * 8;
  static_assert(kStage % 1024 == 0, "stages keep the swizzle's 1024-byte alignment");
  static_assert(kStaged <= kPipe, "the staged epilogue reuses the pipeline's bytes");
};

/// The kernel. T: fp16 or bf16 (x, weights); BN: filters per block (128 or 256); ST: stages;
/// BK: channels per step (64: 128-byte swizzle; 32: 64-byte swizzle). BM: pixels per block, 128
/// or 256 (the tall block, BN = 128 only: each consumer owns 128 rows, two m64n128k16 per 16
/// channels).
template <DType T, int BN, int ST, int BK, int BM = 128>
__global__ void __launch_bounds__(kHopperThreads, 1)
    hopper_tma_conv(const __grid_constant__ CUtensorMap ta, const __grid_constant__ CUtensorMap tb,
                    const __grid_constant__ HopperTmaParams pr) {
#if defined(RDNACONV_TMA_ASM)
  using SM = HopperSmem<BM, BN, ST, BK>;
  using Atom = arch::MmaSm80<T>;  // wgmma's accumulators follow mma.sync's C map (wgmma.hpp)
  constexpr int NH = BN / 128;    // 128-column halves of the block (one m64n{128 NH}k16 each)
  constexpr int MH = BM / 128;    // 64-row slabs per consumer warpgroup (one product each)
  constexpr int NA = MH * NH;     // accumulator sets of 64 floats per thread
  static_assert(BM == 128 || (BM == 256 && BN == 128), "the tall block is 256 x 128");
  extern __shared__ __align__(1024) uint4 smem_words[];
  char* smem = reinterpret_cast<char*>(smem_words);
  auto* full = reinterpret_cast<std::uint64_t*>(smem + (SM::kBytes - 2 * ST * 8));
  std::uint64_t* empty = full + ST;
  const int tid = int(threadIdx.x), wg = tid / 128;

  if (tid == 0) {
    arch::tma_prefetch_map(&ta);
    arch::tma_prefetch_map(&tb);
#pragma unroll
    for (int s = 0; s < ST; ++s) {
      arch::mbar_init(&full[s], 1);     // the producer's arrive (+ the boxes' bytes)
      arch::mbar_init(&empty[s], 256);  // every consumer thread, once its products are done
    }
    arch::mbar_init_fence();
  }
  __syncthreads();

  // The block's output box and filter block (filter blocks fastest: the blocks that share an
  // A box run together).
  int t = int(blockIdx.x);
  const int n_block = t % pr.n_blocks;
  t /= pr.n_blocks;
  const int tq = t % pr.tiles_q;
  t /= pr.tiles_q;
  const int tp = t % pr.tiles_p, tn = t / pr.tiles_p;
  const int q0 = tq * pr.bw, p0 = tp * pr.bh, n0 = tn * pr.bni, k0 = n_block * BN;

  if (wg == 0) {  // producer
    if constexpr (NA == 2) arch::setmaxnreg_dec<40>();
    if (tid == 0) {
      const int w0 = q0 * pr.stride_w - pr.pad_left, h0 = p0 * pr.stride_h - pr.pad_top;
      int tap = 0, cb = 0, r = 0, s = 0;
      for (int step = 0; step < pr.steps; ++step) {
        const int st = step % ST;
        if (step >= ST) arch::mbar_wait(&empty[st], ((step / ST) & 1) ^ 1);
        arch::mbar_arrive_expect_tx(&full[st], SM::kStage);
        char* a = smem + st * SM::kStage;
        arch::tma_load_4d(a, &ta, &full[st], cb * SM::kBk, w0 + s * pr.dil_w, h0 + r * pr.dil_h,
                          n0);
        arch::tma_load_3d(a + SM::kABytes, &tb, &full[st], cb * SM::kBk, tap, k0);
        if (++cb == pr.cblocks) {
          cb = 0;
          ++tap;
          if (++s == pr.s) s = 0, ++r;
        }
      }
    }
    return;
  }

  // consumers: warpgroup g owns GEMM rows 64 MH g .. 64 MH (g + 1) - 1 of the block; acc[m * NH
  // + h] is its slab m (64 rows) x column half h (128 filters)
  if constexpr (NA == 2) arch::setmaxnreg_inc<232>();
  const int g = wg - 1, ctid = tid - 128;
  float acc[NA][8][8];
#pragma unroll
  for (int h = 0; h < NA; ++h)
#pragma unroll
    for (int j = 0; j < 8; ++j)
#pragma unroll
      for (int v = 0; v < 8; ++v) acc[h][j][v] = 0.f;

  for (int step = 0; step < pr.steps; ++step) {
    const int st = step % ST;
    arch::mbar_wait(&full[st], (step / ST) & 1);
    const char* a = smem + st * SM::kStage;
    const std::uint64_t da = arch::smem_desc_swizzled<BK * 2>(a + g * MH * 64 * SM::kBk * 2);
    const std::uint64_t db = arch::smem_desc_swizzled<BK * 2>(a + SM::kABytes);
    // the descriptor's address field counts 16-byte units: slab m starts 64 rows further on
    constexpr std::uint64_t kSlab = 64 * SM::kBk * 2 / 16;
    arch::wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < SM::kBk / 16; ++kk) {  // the k-th 16 channels: 32 bytes on
      if constexpr (NH == 2) {
        arch::wgmma_m64n256k16<T == DType::bf16>(acc, da + 2 * kk, db + 2 * kk);
      } else {
#pragma unroll
        for (int m = 0; m < MH; ++m)
          arch::wgmma_m64n128k16<T == DType::bf16>(acc[m], da + m * kSlab + 2 * kk, db + 2 * kk);
      }
    }
    arch::wgmma_commit();
    arch::wgmma_wait<1>();  // the previous step's products are done: release its stage
    if (step > 0) arch::mbar_arrive(&empty[(step - 1) % ST]);
  }
  arch::wgmma_wait<0>();
#pragma unroll
  for (int h = 0; h < NA; ++h) arch::fence_operands(acc[h]);

  // Epilogue. Both consumers' products are done before the staging overwrites the stages
  // (every TMA box was waited for, so none is still landing).
  arch::named_barrier(1, 256);
  float* st = reinterpret_cast<float*>(smem);
  const int lane = ctid % 32, warp = (ctid / 32) % 4;
  if constexpr (MH == 1) {
#pragma unroll
    for (int h = 0; h < NH; ++h)
#pragma unroll
      for (int j = 0; j < 8; ++j)
#pragma unroll
        for (int v = 0; v < 8; v += 2) {
          const int row = g * 64 + warp * 16 + Atom::c_row(lane, v);
          const int col = h * 128 + j * 16 + Atom::c_col(lane, v);  // even; v + 1 is col + 1
          *reinterpret_cast<float2*>(st + row * SM::kLd + col) =
              make_float2(acc[h][j][v], acc[h][j][v + 1]);
        }
  } else {  // the tall block: slab m of 64 rows, one column half
#pragma unroll
    for (int m = 0; m < MH; ++m)
#pragma unroll
      for (int j = 0; j < 8; ++j)
#pragma unroll
        for (int v = 0; v < 8; v += 2) {
          const int row = (g * MH + m) * 64 + warp * 16 + Atom::c_row(lane, v);
          const int col = j * 16 + Atom::c_col(lane, v);
          *reinterpret_cast<float2*>(st + row * SM::kLd + col) =
              make_float2(acc[m][j][v], acc[m][j][v + 1]);
        }
  }
  arch::named_barrier(1, 256);

  const EpilogueParams& e = pr.epi;
  const bool clamp = epilogue_is_clamp(e);
  const ClampEpilogue fc(e);
  const bool vec = reinterpret_cast<std::uintptr_t>(e.y) % 16 == 0 &&
                   reinterpret_cast<std::uintptr_t>(e.z) % 16 == 0 && pr.k % 8 == 0;
  constexpr int kRuns = BN / 8;  // runs of 8 filters per pixel
  for (int u = ctid; u < BM * kRuns; u += 256) {
    const int row = u / kRuns, c0 = (u % kRuns) * 8;
    const int dq = row % pr.bw, dp = (row / pr.bw) % pr.bh, dn = row / (pr.bw * pr.bh);
    const int q = q0 + dq, p = p0 + dp, n = n0 + dn, ko = k0 + c0;
    if (q >= pr.q || p >= pr.p || n >= pr.n || ko >= pr.k) continue;
    const std::int64_t o0 = ((std::int64_t(n) * pr.p + p) * pr.q + q) * pr.k + ko;
    const float* sv = st + row * SM::kLd + c0;
    const float4 x0 = *reinterpret_cast<const float4*>(sv);
    const float4 x1 = *reinterpret_cast<const float4*>(sv + 4);
    float v[8] = {x0.x, x0.y, x0.z, x0.w, x1.x, x1.y, x1.z, x1.w};
    if (vec && ko + 8 <= pr.k) {
      float bias[8];
      engine::load_bias8(e.bias, e.bias_type, ko, bias);
      if (clamp) {
#pragma unroll
        for (int i = 0; i < 8; ++i) v[i] = fc(bias[i], v[i]);
      } else {
        float z[8] = {0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f};
        if (e.z != nullptr) engine::load8(e.z, e.z_type, o0, z);
#pragma unroll
        for (int i = 0; i < 8; ++i) {
          float t8 = e.alpha * v[i] + bias[i];
          if (e.z != nullptr) t8 += e.beta * z[i];
          v[i] = activate(t8, e.act);
        }
      }
      engine::store8(e.y, e.out_type, o0, v);
    } else {
      for (int i = 0; i < 8 && ko + i < pr.k; ++i)
        store_out(e.y, e.out_type, o0 + i,
                  clamp ? fc(load_bias(e.bias, e.bias_type, ko + i), v[i])
                        : epilogue_value(e, o0 + i, ko + i, v[i]));
    }
  }
#else
  (void)ta, (void)tb, (void)pr;
  arch::tma_unreachable();
#endif
}

/// Version 6's epilogue for one run of 8 filters of one pixel (o0: y's index of the run's first
/// element, ko: its filter): bias, residual, activation and output type as the per-tile
/// kernel's copy-out, one 16-byte store where `vec` and the run is whole, element stores else.
/// The per-tile kernel keeps its own copy of these lines: calling this from it changes its PTX
/// (register numbering), and it is the routed, device-tested kernel.
RDNACONV_DEVICE inline void hopper_store_run(const EpilogueParams& e, bool clamp,
                                             const ClampEpilogue& fc, bool vec, std::int64_t o0,
                                             int ko, int k, float (&v)[8]) {
  if (vec && ko + 8 <= k) {
    float bias[8];
    engine::load_bias8(e.bias, e.bias_type, ko, bias);
    if (clamp) {
#pragma unroll
      for (int i = 0; i < 8; ++i) v[i] = fc(bias[i], v[i]);
    } else {
      float z[8] = {0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f};
      if (e.z != nullptr) engine::load8(e.z, e.z_type, o0, z);
#pragma unroll
      for (int i = 0; i < 8; ++i) {
        float t8 = e.alpha * v[i] + bias[i];
        if (e.z != nullptr) t8 += e.beta * z[i];
        v[i] = activate(t8, e.act);
      }
    }
    engine::store8(e.y, e.out_type, o0, v);
  } else {
    for (int i = 0; i < 8 && ko + i < k; ++i)
      store_out(e.y, e.out_type, o0 + i,
                clamp ? fc(load_bias(e.bias, e.bias_type, ko + i), v[i])
                      : epilogue_value(e, o0 + i, ko + i, v[i]));
  }
}

/// Tile `t`'s output box origin and first filter (filter blocks fastest: the tiles that share
/// an A box run together), as the per-tile kernel derives them from its block index.
struct HopperTileAt {
  int q0, p0, n0, k0;
};
RDNACONV_DEVICE inline HopperTileAt hopper_tile_at(const HopperTmaParams& pr, int t, int bn) {
  const int n_block = t % pr.n_blocks;
  t /= pr.n_blocks;
  const int tq = t % pr.tiles_q;
  t /= pr.tiles_q;
  const int tp = t % pr.tiles_p, tn = t / pr.tiles_p;
  return {tq * pr.bw, tp * pr.bh, tn * pr.bni, n_block * bn};
}

/// Version 6 (README.md here): the per-tile kernel's main loop in a persistent block. The grid
/// holds at most one block per multiprocessor; block b computes tiles b, b + gridDim.x, ... The
/// producer's ring of stages runs on across tiles (its phase bits flip every ST steps, not
/// every tile), so while the consumers store tile i it is already loading tile i + 1's first
/// stages. The consumers therefore cannot stage the epilogue in the pipeline's bytes: each
/// consumer warp writes one 16 x 16 chunk of its accumulators at a time to its own 1280 bytes
/// (kHopperEpiLd), reads it back as one row of 8 filters per lane and stores those with the
/// per-tile kernel's epilogue (16 bytes per lane; a warp's store covers 16 pixels x 32 bytes).
template <DType T, int BN, int ST, int BK, int BM = 128>
__global__ void __launch_bounds__(kHopperThreads, 1)
    hopper_tma_persistent(const __grid_constant__ CUtensorMap ta,
                          const __grid_constant__ CUtensorMap tb,
                          const __grid_constant__ HopperPersistentParams pr) {
#if defined(RDNACONV_TMA_ASM)
  using SM = HopperSmem<BM, BN, ST, BK>;
  using Atom = arch::MmaSm80<T>;  // wgmma's accumulators follow mma.sync's C map (wgmma.hpp)
  constexpr int NH = BN / 128;
  constexpr int MH = BM / 128;
  constexpr int NA = MH * NH;
  static_assert(BM == 128 || (BM == 256 && BN == 128), "the tall block is 256 x 128");
  extern __shared__ __align__(1024) uint4 smem_words[];
  char* smem = reinterpret_cast<char*>(smem_words);
  float* scratch = reinterpret_cast<float*>(smem + SM::kPipe);
  auto* full = reinterpret_cast<std::uint64_t*>(smem + SM::kPipe + kHopperEpiBytes);
  std::uint64_t* empty = full + ST;
  const int tid = int(threadIdx.x), wg = tid / 128;
  const int tiles = pr.tiles;

  if (tid == 0) {
    arch::tma_prefetch_map(&ta);
    arch::tma_prefetch_map(&tb);
#pragma unroll
    for (int s = 0; s < ST; ++s) {
      arch::mbar_init(&full[s], 1);
      arch::mbar_init(&empty[s], 256);
    }
    arch::mbar_init_fence();
  }
  __syncthreads();

  if (wg == 0) {  // producer: one thread, every step of every tile of this block
    if constexpr (NA == 2) arch::setmaxnreg_dec<40>();
    if (tid == 0) {
      int st = 0;
      std::uint32_t phase = 0;  // of the ring's current lap; a fresh `empty` passes lap 0's wait
      for (int t = int(blockIdx.x); t < tiles; t += int(gridDim.x)) {
        const HopperTileAt o = hopper_tile_at(pr, t, BN);
        const int w0 = o.q0 * pr.stride_w - pr.pad_left, h0 = o.p0 * pr.stride_h - pr.pad_top;
        int tap = 0, cb = 0, r = 0, s = 0;
        for (int step = 0; step < pr.steps; ++step) {
          arch::mbar_wait(&empty[st], phase ^ 1);
          arch::mbar_arrive_expect_tx(&full[st], SM::kStage);
          char* a = smem + st * SM::kStage;
          arch::tma_load_4d(a, &ta, &full[st], cb * SM::kBk, w0 + s * pr.dil_w, h0 + r * pr.dil_h,
                            o.n0);
          arch::tma_load_3d(a + SM::kABytes, &tb, &full[st], cb * SM::kBk, tap, o.k0);
          if (++cb == pr.cblocks) {
            cb = 0;
            ++tap;
            if (++s == pr.s) s = 0, ++r;
          }
          if (++st == ST) st = 0, phase ^= 1;
        }
      }
    }
    return;
  }

  if constexpr (NA == 2) arch::setmaxnreg_inc<232>();
  const int g = wg - 1, ctid = tid - 128;
  const int lane = ctid % 32, warp = (ctid / 32) % 4;
  float* scr = scratch + (ctid / 32) * 16 * kHopperEpiLd;  // this warp's chunk
  const EpilogueParams& e = pr.epi;
  const bool clamp = epilogue_is_clamp(e);
  const ClampEpilogue fc(e);
  const bool vec = reinterpret_cast<std::uintptr_t>(e.y) % 16 == 0 &&
                   reinterpret_cast<std::uintptr_t>(e.z) % 16 == 0 && pr.k % 8 == 0;
  constexpr std::uint64_t kSlab = 64 * SM::kBk * 2 / 16;  // slab m's A: 64 rows on
  int st = 0;
  std::uint32_t phase = 0;
  float acc[NA][8][8];
  for (int t = int(blockIdx.x); t < tiles; t += int(gridDim.x)) {
    const HopperTileAt o = hopper_tile_at(pr, t, BN);
#pragma unroll
    for (int h = 0; h < NA; ++h)
#pragma unroll
      for (int j = 0; j < 8; ++j)
#pragma unroll
        for (int v = 0; v < 8; ++v) acc[h][j][v] = 0.f;
    int last = 0;  // the stage of the previous step, released once its products are done
    for (int step = 0; step < pr.steps; ++step) {
      arch::mbar_wait(&full[st], phase);
      const char* a = smem + st * SM::kStage;
      const std::uint64_t da = arch::smem_desc_swizzled<BK * 2>(a + g * MH * 64 * SM::kBk * 2);
      const std::uint64_t db = arch::smem_desc_swizzled<BK * 2>(a + SM::kABytes);
      arch::wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < SM::kBk / 16; ++kk) {
        if constexpr (NH == 2) {
          arch::wgmma_m64n256k16<T == DType::bf16>(acc, da + 2 * kk, db + 2 * kk);
        } else {
#pragma unroll
          for (int m = 0; m < MH; ++m)
            arch::wgmma_m64n128k16<T == DType::bf16>(acc[m], da + m * kSlab + 2 * kk, db + 2 * kk);
        }
      }
      arch::wgmma_commit();
      arch::wgmma_wait<1>();
      if (step > 0) arch::mbar_arrive(&empty[last]);
      last = st;
      if (++st == ST) st = 0, phase ^= 1;
    }
    arch::wgmma_wait<0>();
    arch::mbar_arrive(&empty[last]);  // the tile's last stage: the producer is on the next tile
#pragma unroll
    for (int h = 0; h < NA; ++h) arch::fence_operands(acc[h]);

    // Epilogue from the registers, one 16 x 16 chunk c at a time: accumulator set a = c / 8
    // (slab m x column half h), columns 16 (c % 8) on. The loop stays a loop (one copy of the
    // copy-out's type and activation code, not NA * 8): each chunk's registers are picked by a
    // chain of constant-index branches, so no accumulator leaves the registers.
#pragma unroll 1
    for (int c = 0; c < NA * 8; ++c) {
      static_for<NA * 8>([&](auto cc) RDNACONV_INLINE_LAMBDA {
        constexpr int C = decltype(cc)::value;
        if (c == C) {
#pragma unroll
          for (int v = 0; v < 8; v += 2)
            *reinterpret_cast<float2*>(scr + Atom::c_row(lane, v) * kHopperEpiLd +
                                       Atom::c_col(lane, v)) =
                make_float2(acc[C / 8][C % 8][v], acc[C / 8][C % 8][v + 1]);
        }
      });
      __syncwarp();
      const float* sv = scr + (lane % 16) * kHopperEpiLd + 8 * (lane / 16);
      const float4 x0 = *reinterpret_cast<const float4*>(sv);
      const float4 x1 = *reinterpret_cast<const float4*>(sv + 4);
      __syncwarp();  // every lane has read its run before the next chunk overwrites it
      float v8[8] = {x0.x, x0.y, x0.z, x0.w, x1.x, x1.y, x1.z, x1.w};
      const int a = c / 8, m = NH == 2 ? 0 : a, h = NH == 2 ? a : 0;
      const int row = (g * MH + m) * 64 + warp * 16 + lane % 16;  // this lane's pixel
      const int dq = row % pr.bw, dp = (row / pr.bw) % pr.bh, dn = row / (pr.bw * pr.bh);
      const int q = o.q0 + dq, p = o.p0 + dp, n = o.n0 + dn;
      const int ko = o.k0 + h * 128 + (c % 8) * 16 + 8 * (lane / 16);
      if (q < pr.q && p < pr.p && n < pr.n && ko < pr.k) {
        const std::int64_t o0 = ((std::int64_t(n) * pr.p + p) * pr.q + q) * pr.k + ko;
        hopper_store_run(e, clamp, fc, vec, o0, ko, pr.k, v8);
      }
    }
  }
#else
  (void)ta, (void)tb, (void)pr;
  arch::tma_unreachable();
#endif
}

/// Version 8's epilogue from the registers. Per accumulator set a (slab m x column half
/// h of the warpgroup's NA sets of 64 x 128) the lane's GEMM row, which `pixel(row, pix)` turns
/// into y's offset of its filter 0 (false: outside the output); then its 8 chunks of 16 x 16,
/// each staged through this warp's 1280 bytes `scr` and read back as one run of 8 filters of
/// that row per lane, which `store(pix, col, v)` stores (col: the run's first filter within the
/// block). The chunk loop stays a loop (one copy of the store's type and activation code per
/// set, not 8): a chunk's registers are picked by a chain of constant-index branches, so no
/// accumulator leaves the registers.
template <class Atom, int NA, int NH, int MH, class Pixel, class Store>
RDNACONV_DEVICE RDNACONV_FORCEINLINE void hopper_store_chunks(float (&acc)[NA][8][8], float* scr,
                                                              int g, int warp, int lane,
                                                              Pixel&& pixel, Store&& store) {
  static_for<NA>([&](auto aa) RDNACONV_INLINE_LAMBDA {
    constexpr int A = decltype(aa)::value;
    constexpr int m = NH == 2 ? 0 : A, h = NH == 2 ? A : 0;
    std::int64_t pix = 0;
    const bool inside = pixel((g * MH + m) * 64 + warp * 16 + lane % 16, pix);
    const int col0 = h * 128 + 8 * (lane / 16);
#pragma unroll 1
    for (int j = 0; j < 8; ++j) {
      static_for<8>([&](auto jj) RDNACONV_INLINE_LAMBDA {
        constexpr int J = decltype(jj)::value;
        if (j == J) {
#pragma unroll
          for (int v = 0; v < 8; v += 2)
            *reinterpret_cast<float2*>(scr + Atom::c_row(lane, v) * kHopperEpiLd +
                                       Atom::c_col(lane, v)) =
                make_float2(acc[A][J][v], acc[A][J][v + 1]);
        }
      });
      __syncwarp();
      const float* sv = scr + (lane % 16) * kHopperEpiLd + 8 * (lane / 16);
      const float4 x0 = *reinterpret_cast<const float4*>(sv);
      const float4 x1 = *reinterpret_cast<const float4*>(sv + 4);
      __syncwarp();  // every lane has read its run before the next chunk overwrites it
      float v8[8] = {x0.x, x0.y, x0.z, x0.w, x1.x, x1.y, x1.z, x1.w};
      if (inside) store(pix, col0 + j * 16, v8);
    }
  });
}

/// Version 8's epilogue of one tile `o` (hopper_store_chunks with the per-tile kernel's box: the
/// row's pixel by shifts, y's filters from o.k0), every epilogue option applied. Versions 6 and
/// 7 keep their own (the row's pixel by divisions): they are device-tested as they are, and the
/// shifts are not yet (kernels/hopper/README.md, "Version 8").
template <class Atom, int NA, int NH, int MH>
RDNACONV_DEVICE RDNACONV_FORCEINLINE void hopper_store_tile(float (&acc)[NA][8][8], float* scr,
                                                            int g, int warp, int lane,
                                                            const HopperPingpongParams& pr,
                                                            const HopperTileAt& o, bool clamp,
                                                            const ClampEpilogue& fc, bool vec) {
  const EpilogueParams& e = pr.epi;
  hopper_store_chunks<Atom, NA, NH, MH>(
      acc, scr, g, warp, lane,
      [&](int row, std::int64_t& pix) RDNACONV_INLINE_LAMBDA {
        const int q = o.q0 + (row & (pr.bw - 1)), p = o.p0 + ((row >> pr.lbw) & (pr.bh - 1));
        const int n = o.n0 + (row >> (pr.lbw + pr.lbh));
        pix = ((std::int64_t(n) * pr.p + p) * pr.q + q) * pr.k;
        return q < pr.q && p < pr.p && n < pr.n;
      },
      [&](std::int64_t pix, int col, float(&v8)[8]) RDNACONV_INLINE_LAMBDA {
        const int ko = o.k0 + col;
        if (ko < pr.k) hopper_store_run(e, clamp, fc, vec, pix + ko, ko, pr.k, v8);
      });
}

/// Version 8's producer (one thread; version 6's loop, which keeps its own copy as device-tested):
/// every step of every tile of this block (tiles
/// blockIdx.x, + gridDim.x, ... below `tiles`) into the ring of ST stages, in order, each stage
/// waited for on its `empty` barrier (lap 0's wait passes on a fresh barrier), armed on `full`
/// with the step's bytes, then the A box (the tap's window of x) and the B box (the weights).
template <class SM, int ST, int BN>
RDNACONV_DEVICE RDNACONV_FORCEINLINE void hopper_produce_walk(const CUtensorMap& ta,
                                                              const CUtensorMap& tb,
                                                              const HopperTmaParams& pr, int tiles,
                                                              char* smem, std::uint64_t* full,
                                                              std::uint64_t* empty) {
  int st = 0;
  std::uint32_t phase = 0;  // of the ring's current lap
  for (int t = int(blockIdx.x); t < tiles; t += int(gridDim.x)) {
    const HopperTileAt o = hopper_tile_at(pr, t, BN);
    const int w0 = o.q0 * pr.stride_w - pr.pad_left, h0 = o.p0 * pr.stride_h - pr.pad_top;
    int tap = 0, cb = 0, r = 0, s = 0;
    for (int step = 0; step < pr.steps; ++step) {
      arch::mbar_wait(&empty[st], phase ^ 1);
      arch::mbar_arrive_expect_tx(&full[st], SM::kStage);
      char* a = smem + st * SM::kStage;
      arch::tma_load_4d(a, &ta, &full[st], cb * SM::kBk, w0 + s * pr.dil_w, h0 + r * pr.dil_h,
                        o.n0);
      arch::tma_load_3d(a + SM::kABytes, &tb, &full[st], cb * SM::kBk, tap, o.k0);
      if (++cb == pr.cblocks) {
        cb = 0;
        ++tap;
        if (++s == pr.s) s = 0, ++r;
      }
      if (++st == ST) st = 0, phase ^= 1;
    }
  }
}

/// Version 8 (README.md here): the ping-pong walk. Persistent as version 6 (block b takes the
/// launch's tiles b, b + gridDim.x, ... in the per-tile kernel's order, the producer's ring
/// running on across them), but each tile is one consumer warpgroup's alone: 128 pixels x 128
/// filters (two m64n128k16 per 16 channels, 128 accumulators per thread, the tall block's share),
/// the block's even tiles warpgroup 1's, its odd ones warpgroup 2's. The warpgroups take turns on
/// the tensor cores: one issues a tile's products while the other stores its last tile, so the
/// epilogue, which versions 2-7 run with the tensor cores idle, hides under the products.
///
/// Barriers: `full` / `empty` per stage as version 6, `empty` counting one warpgroup (128
/// arrivals). `turn[g]` completes a phase each time warpgroup g has issued a tile's last
/// products; a warpgroup starts tile i's products only once the other has issued tile i - 1's.
/// That order is also what keeps the `full` waits' parity exact: a warpgroup waits on ring
/// position i * steps + k only after the other has passed position i * steps - 1, so the
/// stage's previous lap (ST positions back) has landed and its parity cannot alias two laps.
template <DType T, int ST, int BK>
__global__ void __launch_bounds__(kHopperThreads, 1)
    hopper_tma_pingpong(const __grid_constant__ CUtensorMap ta,
                        const __grid_constant__ CUtensorMap tb,
                        const __grid_constant__ HopperPingpongParams pr) {
#if defined(RDNACONV_TMA_ASM)
  constexpr int BM = 128, BN = 128;
  using SM = HopperSmem<BM, BN, ST, BK>;
  using Atom = arch::MmaSm80<T>;  // wgmma's accumulators follow mma.sync's C map (wgmma.hpp)
  extern __shared__ __align__(1024) uint4 smem_words[];
  char* smem = reinterpret_cast<char*>(smem_words);
  float* scratch = reinterpret_cast<float*>(smem + SM::kPipe);
  auto* full = reinterpret_cast<std::uint64_t*>(smem + SM::kPipe + kHopperEpiBytes);
  std::uint64_t* empty = full + ST;
  std::uint64_t* turn = empty + ST;
  const int tid = int(threadIdx.x), wg = tid / 128;
  const int tiles = pr.tiles;

  if (tid == 0) {
    arch::tma_prefetch_map(&ta);
    arch::tma_prefetch_map(&tb);
#pragma unroll
    for (int s = 0; s < ST; ++s) {
      arch::mbar_init(&full[s], 1);
      arch::mbar_init(&empty[s], 128);  // the one warpgroup whose tile the stage holds
    }
    arch::mbar_init(&turn[0], 128);
    arch::mbar_init(&turn[1], 128);
    arch::mbar_init_fence();
  }
  __syncthreads();

  if (wg == 0) {  // producer: version 6's, every step of every tile of this block in order
    arch::setmaxnreg_dec<40>();
    if (tid == 0) hopper_produce_walk<SM, ST, BN>(ta, tb, pr, tiles, smem, full, empty);
    return;
  }

  arch::setmaxnreg_inc<232>();
  const int g = wg - 1, ctid = tid - 128;
  const int lane = ctid % 32, warp = (ctid / 32) % 4;
  float* scr = scratch + (ctid / 32) * 16 * kHopperEpiLd;  // this warp's chunk
  const EpilogueParams& e = pr.epi;
  const bool clamp = epilogue_is_clamp(e);
  const ClampEpilogue fc(e);
  const bool vec = reinterpret_cast<std::uintptr_t>(e.y) % 16 == 0 &&
                   reinterpret_cast<std::uintptr_t>(e.z) % 16 == 0 && pr.k % 8 == 0;
  constexpr std::uint64_t kSlab = 64 * SM::kBk * 2 / 16;  // slab 1's A: 64 rows on
  // The ring position after one tile of the other warpgroup: `steps` positions on.
  const int skip_st = pr.steps % ST;
  const std::uint32_t skip_phase = std::uint32_t(pr.steps / ST) & 1u;
  int st = 0;
  std::uint32_t phase = 0;
  auto skip = [&] {
    st += skip_st;
    phase ^= skip_phase;
    if (st >= ST) st -= ST, phase ^= 1;
  };
  if (g == 1) skip();  // warpgroup 2 starts at the block's second tile
  float acc[2][8][8];
  int j = 0;  // this warpgroup's tiles so far
  for (int t = int(blockIdx.x) + g * int(gridDim.x); t < tiles; t += 2 * int(gridDim.x), ++j) {
    const HopperTileAt o = hopper_tile_at(pr, t, BN);
    // the block's tile i = 2 j + g: after the other warpgroup has issued tile i - 1's products
    if (g == 1)
      arch::mbar_wait(&turn[0], std::uint32_t(j) & 1u);
    else if (j > 0)
      arch::mbar_wait(&turn[1], std::uint32_t(j - 1) & 1u);
#pragma unroll
    for (int m = 0; m < 2; ++m)
#pragma unroll
      for (int jj = 0; jj < 8; ++jj)
#pragma unroll
        for (int v = 0; v < 8; ++v) acc[m][jj][v] = 0.f;
    int last = 0;
    for (int step = 0; step < pr.steps; ++step) {
      arch::mbar_wait(&full[st], phase);
      const char* a = smem + st * SM::kStage;
      const std::uint64_t da = arch::smem_desc_swizzled<BK * 2>(a);
      const std::uint64_t db = arch::smem_desc_swizzled<BK * 2>(a + SM::kABytes);
      arch::wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < SM::kBk / 16; ++kk) {
#pragma unroll
        for (int m = 0; m < 2; ++m)
          arch::wgmma_m64n128k16<T == DType::bf16>(acc[m], da + m * kSlab + 2 * kk, db + 2 * kk);
      }
      arch::wgmma_commit();
      arch::wgmma_wait<1>();
      if (step > 0) arch::mbar_arrive(&empty[last]);
      last = st;
      if (++st == ST) st = 0, phase ^= 1;
    }
    arch::mbar_arrive(&turn[g]);  // every product of the tile issued: the other's turn
    arch::wgmma_wait<0>();
    arch::mbar_arrive(&empty[last]);
#pragma unroll
    for (int m = 0; m < 2; ++m) arch::fence_operands(acc[m]);
    skip();  // the other warpgroup's next tile

    hopper_store_tile<Atom, 2, 1, 2>(acc, scr, 0, warp, lane, pr, o, clamp, fc, vec);
  }
#else
  (void)ta, (void)tb, (void)pr;
  arch::tma_unreachable();
#endif
}

namespace detail_hopper {

/// cuTensorMapEncodeTiled, found once through the runtime (no link against the driver library).
using EncodeTiled = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*,
                                 const cuuint64_t*, const cuuint64_t*, const cuuint32_t*,
                                 const cuuint32_t*, CUtensorMapInterleave, CUtensorMapSwizzle,
                                 CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
inline EncodeTiled encode_tiled() {
  static const EncodeTiled f = [] {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult q{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault,
                                         &q) != cudaSuccess ||
        q != cudaDriverEntryPointSuccess)
      return EncodeTiled(nullptr);
    return reinterpret_cast<EncodeTiled>(fn);
  }();
  return f;
}

/// A tiled map of 16-bit elements in the swizzle of bk-channel rows (bk = 64: 128 bytes, 32:
/// 64 bytes), zero fill outside the tensor.
inline bool encode(CUtensorMap& m, const void* base, int rank, const cuuint64_t* dims,
                   const cuuint64_t* strides, const cuuint32_t* box, const cuuint32_t* estr,
                   int bk) {
  const EncodeTiled f = encode_tiled();
  if (f == nullptr) return false;
  return f(&m, CU_TENSOR_MAP_DATA_TYPE_UINT16, cuuint32_t(rank), const_cast<void*>(base), dims,
           strides, box, estr, CU_TENSOR_MAP_INTERLEAVE_NONE,
           bk == 64 ? CU_TENSOR_MAP_SWIZZLE_128B : CU_TENSOR_MAP_SWIZZLE_64B,
           CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

/// Version 8 on `grid` blocks (at most one per multiprocessor, at most the tiles).
template <DType T, int BK>
inline rt::error_t launch_pingpong(const CUtensorMap& ta, const CUtensorMap& tb,
                                   const HopperTmaParams& pr, std::int64_t tiles,
                                   rt::stream_t stream, int grid) {
  int lbw = 0, lbh = 0;  // the box's sides are powers of two (hopper_geometry)
  while ((1 << lbw) < pr.bw) ++lbw;
  while ((1 << lbh) < pr.bh) ++lbh;
  constexpr int ST = hopper_pingpong_stages(BK);
  using SM = HopperSmem<128, 128, ST, BK>;
  auto* kernel = &hopper_tma_pingpong<T, ST, BK>;
  constexpr int bytes = SM::kPipe + kHopperEpiBytes + (2 * ST + 2) * 8;
  static_assert(bytes <= 227 * 1024, "one block per multiprocessor");
  if (rt::error_t e = rt::set_max_dynamic_smem(kernel, bytes); e != rt::success) return e;
  HopperPingpongParams pp{};
  static_cast<HopperTmaParams&>(pp) = pr;
  pp.tiles = int(tiles);
  pp.lbw = lbw;
  pp.lbh = lbh;
  kernel<<<unsigned(grid), kHopperThreads, bytes, stream>>>(ta, tb, pp);
  return rt::get_last_error();
}

/// persistent_grid: 0 for the per-tile kernel (one block per tile), else version 6 on that many
/// blocks (at most one per multiprocessor, at most the tiles).
template <DType T, int BN, int BK, int BM = 128>
inline rt::error_t launch(const CUtensorMap& ta, const CUtensorMap& tb, const HopperTmaParams& pr,
                          std::int64_t blocks, rt::stream_t stream, int persistent_grid = 0) {
  constexpr int ST = hopper_stages(BM, BN, BK);
  using SM = HopperSmem<BM, BN, ST, BK>;
  if (persistent_grid > 0) {
    auto* kernel = &hopper_tma_persistent<T, BN, ST, BK, BM>;
    constexpr int bytes = SM::kPipe + kHopperEpiBytes + 2 * ST * 8;
    static_assert(bytes <= 227 * 1024, "one block per multiprocessor");
    if (rt::error_t e = rt::set_max_dynamic_smem(kernel, bytes); e != rt::success) return e;
    HopperPersistentParams pp{};
    static_cast<HopperTmaParams&>(pp) = pr;
    pp.tiles = int(blocks);
    kernel<<<unsigned(persistent_grid), kHopperThreads, bytes, stream>>>(ta, tb, pp);
    return rt::get_last_error();
  }
  auto* kernel = &hopper_tma_conv<T, BN, ST, BK, BM>;
  constexpr int bytes = SM::kBytes;
  if (rt::error_t e = rt::set_max_dynamic_smem(kernel, bytes); e != rt::success) return e;
  kernel<<<unsigned(blocks), kHopperThreads, bytes, stream>>>(ta, tb, pr);
  return rt::get_last_error();
}

}  // namespace detail_hopper

/// Host launcher: the tensor maps of this call's x and packed weights (built here, on the host,
/// about a microsecond each: they hold the addresses), then one launch.
/// tall: the 256 x 128 block (Conv2dOptions::tile = tall; the plan checked hopper_tall_fits).
/// persistent_sms: 0 for the per-tile kernel; else version 6 (Conv2dOptions::schedule =
/// persistent), or version 8 where `pingpong`, on min(this, tiles) blocks (the plan's
/// multiprocessor count; -1 where the plan has none: one block per tile).
template <DType T>
inline rt::error_t launch_hopper_tma(const Conv2dProblem& p, const std::uint16_t* x,
                                     const std::uint16_t* wpk, const EpilogueParams& epi,
                                     rt::stream_t stream, bool tall = false, int persistent_sms = 0,
                                     bool pingpong = false) {
  if (pingpong && persistent_sms == 0) return rt::invalid_value;
  const HopperGeometry g = hopper_geometry(p, tall, pingpong);
  const ReductionLayout l = tap_layout(p, 32);
  if (g.blocks() > INT_MAX) return rt::invalid_value;
  const bool persistent = persistent_sms != 0;
  const int grid = !persistent                   ? 0
                   : persistent_sms < 0          ? int(g.blocks())
                   : g.blocks() < persistent_sms ? int(g.blocks())
                                                 : persistent_sms;
  const Schedule sc = pingpong     ? Schedule::pingpong
                      : persistent ? Schedule::persistent
                                   : Schedule::per_tile;
  detail::note_launch([sc] {
    return std::string(sc == Schedule::pingpong     ? "hopper_tma_pingpong<nhwc>"
                       : sc == Schedule::persistent ? "hopper_tma_persistent<nhwc>"
                                                    : "hopper_tma_conv<nhwc>");
  });
  struct Tile {  // the launch log's tile: what describe() prints (HopperTmaFamily::tile_str)
    const Conv2dProblem& p;
    bool tall;
    Schedule sc;
    std::string str() const { return HopperTmaFamily::tile_str(p, tall, sc); }
  };
  detail::note_tile(Tile{p, tall, sc});
  CUtensorMap ta{}, tb{};
  {
    const cuuint64_t dims[4] = {cuuint64_t(p.c), cuuint64_t(p.w), cuuint64_t(p.h), cuuint64_t(p.n)};
    const cuuint64_t strides[3] = {cuuint64_t(p.c) * 2, cuuint64_t(p.w) * p.c * 2,
                                   cuuint64_t(p.h) * p.w * p.c * 2};
    const cuuint32_t box[4] = {cuuint32_t(g.bk), cuuint32_t(g.bw * p.stride_w),
                               cuuint32_t(g.bh * p.stride_h), cuuint32_t(g.bni)};
    const cuuint32_t estr[4] = {1, cuuint32_t(p.stride_w), cuuint32_t(p.stride_h), 1};
    if (!detail_hopper::encode(ta, x, 4, dims, strides, box, estr, g.bk)) return rt::invalid_value;
  }
  {
    const cuuint64_t dims[3] = {cuuint64_t(l.c_pad), cuuint64_t(p.r * p.s), cuuint64_t(p.k)};
    const cuuint64_t strides[2] = {cuuint64_t(l.c_pad) * 2, cuuint64_t(l.k_total) * 2};
    const cuuint32_t box[3] = {cuuint32_t(g.bk), 1, cuuint32_t(g.bn)};
    const cuuint32_t estr[3] = {1, 1, 1};
    if (!detail_hopper::encode(tb, wpk, 3, dims, strides, box, estr, g.bk))
      return rt::invalid_value;
  }
  HopperTmaParams pr{};
  static_cast<ConvDims&>(pr) = conv_dims(p);
  pr.cblocks = int(ceil_div(l.c_pad, g.bk));
  pr.steps = int(p.r * p.s) * pr.cblocks;
  pr.bw = g.bw;
  pr.bh = g.bh;
  pr.bni = g.bni;
  pr.tiles_q = g.tiles_q;
  pr.tiles_p = g.tiles_p;
  pr.n_blocks = g.n_blocks;
  pr.epi = epi;
  const std::int64_t b = g.blocks();
  if (pingpong)
    return g.bk == 64 ? detail_hopper::launch_pingpong<T, 64>(ta, tb, pr, b, stream, grid)
                      : detail_hopper::launch_pingpong<T, 32>(ta, tb, pr, b, stream, grid);
  if (g.bm == 256)
    return g.bk == 64 ? detail_hopper::launch<T, 128, 64, 256>(ta, tb, pr, b, stream, grid)
                      : detail_hopper::launch<T, 128, 32, 256>(ta, tb, pr, b, stream, grid);
  if (g.bk == 64)
    return g.bn == 256 ? detail_hopper::launch<T, 256, 64>(ta, tb, pr, b, stream, grid)
                       : detail_hopper::launch<T, 128, 64>(ta, tb, pr, b, stream, grid);
  return g.bn == 256 ? detail_hopper::launch<T, 256, 32>(ta, tb, pr, b, stream, grid)
                     : detail_hopper::launch<T, 128, 32>(ta, tb, pr, b, stream, grid);
}

#endif  // RDNACONV_BACKEND_CUDA

}  // namespace rdnaconv::kernels
