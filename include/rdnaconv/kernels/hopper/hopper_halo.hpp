// SPDX-License-Identifier: MIT
/// @file hopper_halo.hpp The Hopper halo family's kernel (version 7, hopper_halo_desc.hpp,
/// kernels/hopper/README.md): version 6's persistent warp-specialized loop with the input loaded
/// once per 64 channels as a halo box that every filter tap reads a shifted window of.
///
/// The reduction runs blocks of 64 channels outside, filter taps inside. The producer (one
/// thread) keeps two rings: two halo boxes (one being read, the next being loaded: it issues the
/// box of the next 64 channels, or of the next tile's first, a few weight boxes into the current
/// ones) and b_stages weight boxes, one per tap. A consumer warpgroup waits for a block's halo
/// box once, then per tap for the weight box, and issues its products with the A descriptor
/// moved to the tap's window. It releases a weight stage when the next tap's wait_group(1)
/// says the products that read it are done, a halo box likewise at the first tap of the next
/// block of channels, and the last of each after the tile's wait_group(0). Epilogue: version 6's
/// (hopper_tma.hpp), from the registers through 1280 bytes per consumer warp.
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
#include "rdnaconv/kernels/hopper/hopper_halo_desc.hpp"
#include "rdnaconv/kernels/hopper/hopper_tma.hpp"

namespace rdnaconv::kernels {

/// The kernel's parameters besides the two tensor maps.
struct HopperHaloParams : ConvDims {
  int cblocks;  ///< blocks of 64 channels (C / 64)
  int taps;     ///< R * S
  int bw, bh, hw;
  int tiles_q, tiles_p, n_blocks;
  int tiles;  ///< every tile of the launch (<= INT_MAX: the host checks)
  EpilogueParams epi;
};

#if defined(RDNACONV_BACKEND_CUDA)

/// Tile `t`'s output box origin, image and first filter (filter blocks fastest, then columns,
/// rows, images: hopper_tma's order).
RDNACONV_DEVICE inline HopperTileAt hopper_tile_at_box(const HopperHaloParams& pr, int t, int bn) {
  const int n_block = t % pr.n_blocks;
  t /= pr.n_blocks;
  const int tq = t % pr.tiles_q;
  t /= pr.tiles_q;
  const int tp = t % pr.tiles_p, tn = t / pr.tiles_p;
  return {tq * pr.bw, tp * pr.bh, tn, n_block * bn};
}

/// T: fp16 or bf16; BM x BN: 256 x 128 (K <= 128) or 128 x 256; SB: weight stages.
template <DType T, int BM, int BN, int SB>
__global__ void __launch_bounds__(kHopperThreads, 1)
    hopper_halo_conv(const __grid_constant__ CUtensorMap ta, const __grid_constant__ CUtensorMap tb,
                     const __grid_constant__ HopperHaloParams pr, int a_bytes) {
#if defined(RDNACONV_TMA_ASM)
  using Atom = arch::MmaSm80<T>;  // wgmma's accumulators follow mma.sync's C map (wgmma.hpp)
  constexpr int NH = BN / 128;    // 128-column halves (one m64n256k16 when 2)
  constexpr int MH = BM / 128;    // 64-row slabs per consumer warpgroup
  constexpr int NA = MH * NH;
  constexpr int kB = BN * 64 * 2;  // one weight box
  static_assert((BM == 256 && BN == 128) || (BM == 128 && BN == 256), "128 accumulators");
  extern __shared__ __align__(1024) uint4 smem_words[];
  char* smem = reinterpret_cast<char*>(smem_words);
  char* bstage = smem + 2 * a_bytes;
  float* scratch = reinterpret_cast<float*>(bstage + SB * kB);
  auto* full_a = reinterpret_cast<std::uint64_t*>(bstage + SB * kB + kHopperEpiBytes);
  std::uint64_t* empty_a = full_a + 2;
  std::uint64_t* full_b = full_a + 4;
  std::uint64_t* empty_b = full_b + SB;
  const int tid = int(threadIdx.x), wg = tid / 128;
  const int tiles = pr.tiles, grid = int(gridDim.x);

  if (tid == 0) {
    arch::tma_prefetch_map(&ta);
    arch::tma_prefetch_map(&tb);
#pragma unroll
    for (int s = 0; s < 2; ++s) {
      arch::mbar_init(&full_a[s], 1);
      arch::mbar_init(&empty_a[s], 256);
    }
#pragma unroll
    for (int s = 0; s < SB; ++s) {
      arch::mbar_init(&full_b[s], 1);
      arch::mbar_init(&empty_b[s], 256);
    }
    arch::mbar_init_fence();
  }
  __syncthreads();

  if (wg == 0) {  // producer
    arch::setmaxnreg_dec<40>();
    if (tid == 0) {
      const std::uint32_t a_box = std::uint32_t(pr.hw) * std::uint32_t(pr.bh + pr.r - 1) * 128;
      int sa = 0, sb = 0;
      std::uint32_t pa = 0, pb = 0;  // ring laps; a fresh `empty` passes lap 0's wait
      auto load_a = [&](int t, int cb) {
        const HopperTileAt o = hopper_tile_at_box(pr, t, BN);
        arch::mbar_wait(&empty_a[sa], pa ^ 1);
        arch::mbar_arrive_expect_tx(&full_a[sa], a_box);
        arch::tma_load_4d(smem + sa * a_bytes, &ta, &full_a[sa], cb * 64, o.q0 - pr.pad_left,
                          o.p0 - pr.pad_top, o.n0);
        if (++sa == 2) sa = 0, pa ^= 1;
      };
      if (int(blockIdx.x) < tiles) load_a(int(blockIdx.x), 0);
      // The next block of channels' halo box (this tile's, or the next tile's first) goes out
      // after weight box `ahead` of the current block: its slot is the one the consumers release
      // at tap 0 of the current block, so they must not need a weight box issued after it (no
      // deadlock: ahead >= 0), and by weight box SB of a block they are past tap 0 (no wait).
      const int ahead = SB < pr.taps - 1 ? SB : pr.taps - 1;
      for (int t = int(blockIdx.x); t < tiles; t += grid) {
        const int k0 = (t % pr.n_blocks) * BN;
        for (int cb = 0; cb < pr.cblocks; ++cb) {
          for (int tap = 0; tap < pr.taps; ++tap) {
            arch::mbar_wait(&empty_b[sb], pb ^ 1);
            arch::mbar_arrive_expect_tx(&full_b[sb], kB);
            arch::tma_load_3d(bstage + sb * kB, &tb, &full_b[sb], cb * 64, tap, k0);
            if (++sb == SB) sb = 0, pb ^= 1;
            if (tap == ahead) {
              if (cb + 1 < pr.cblocks)
                load_a(t, cb + 1);
              else if (t + grid < tiles)
                load_a(t + grid, 0);
            }
          }
        }
      }
    }
    return;
  }

  arch::setmaxnreg_inc<232>();
  const int g = wg - 1, ctid = tid - 128;
  const int lane = ctid % 32, warp = (ctid / 32) % 4;
  float* scr = scratch + (ctid / 32) * 16 * kHopperEpiLd;
  const EpilogueParams& e = pr.epi;
  const bool clamp = epilogue_is_clamp(e);
  const ClampEpilogue fc(e);
  const bool vec = reinterpret_cast<std::uintptr_t>(e.y) % 16 == 0 &&
                   reinterpret_cast<std::uintptr_t>(e.z) % 16 == 0 && pr.k % 8 == 0;
  // slab m of this warpgroup: GEMM rows 64 (MH g + m) on = box row i_m, columns j_m on; its A
  // window for tap (r, s) starts (i_m + r) hw + j_m + s rows of 128 bytes into the halo box
  // (descriptor units of 16 bytes: 8 per row)
  std::uint32_t slab_rows[MH];
#pragma unroll
  for (int m = 0; m < MH; ++m) {
    const int row0 = (g * MH + m) * 64;
    slab_rows[m] = std::uint32_t((row0 / pr.bw) * pr.hw + row0 % pr.bw);
  }
  const std::uint64_t da0 = arch::smem_desc_swizzled<128>(smem);
  const std::uint64_t db0 = arch::smem_desc_swizzled<128>(bstage);
  int sa = 0, sb = 0;
  std::uint32_t pa = 0, pb = 0;
  float acc[NA][8][8];
  for (int t = int(blockIdx.x); t < tiles; t += grid) {
    const HopperTileAt o = hopper_tile_at_box(pr, t, BN);
#pragma unroll
    for (int h = 0; h < NA; ++h)
#pragma unroll
      for (int j = 0; j < 8; ++j)
#pragma unroll
        for (int v = 0; v < 8; ++v) acc[h][j][v] = 0.f;
    int rel_b = -1, rel_a = -1;  // stages whose products may still run
    for (int cb = 0; cb < pr.cblocks; ++cb) {
      arch::mbar_wait(&full_a[sa], pa);
      const std::uint64_t da = da0 + std::uint64_t(sa) * std::uint64_t(a_bytes / 16);
      int r = 0, s = 0;
      for (int tap = 0; tap < pr.taps; ++tap) {
        arch::mbar_wait(&full_b[sb], pb);
        const std::uint64_t db = db0 + std::uint64_t(sb) * (kB / 16);
        const std::uint32_t shift = std::uint32_t(r * pr.hw + s);
        arch::wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < 4; ++kk) {  // the k-th 16 channels: 32 bytes on
          if constexpr (NH == 2) {
            arch::wgmma_m64n256k16<T == DType::bf16>(acc, da + 8 * (slab_rows[0] + shift) + 2 * kk,
                                                     db + 2 * kk);
          } else {
#pragma unroll
            for (int m = 0; m < MH; ++m)
              arch::wgmma_m64n128k16<T == DType::bf16>(
                  acc[m], da + 8 * (slab_rows[m] + shift) + 2 * kk, db + 2 * kk);
          }
        }
        arch::wgmma_commit();
        arch::wgmma_wait<1>();  // the previous tap's products are done
        if (rel_b >= 0) arch::mbar_arrive(&empty_b[rel_b]);
        rel_b = sb;
        if (tap == 0 && rel_a >= 0) {  // ... and with them the last block's halo box
          arch::mbar_arrive(&empty_a[rel_a]);
          rel_a = -1;
        }
        if (++sb == SB) sb = 0, pb ^= 1;
        if (++s == pr.s) s = 0, ++r;
      }
      rel_a = sa;
      if (++sa == 2) sa = 0, pa ^= 1;
    }
    arch::wgmma_wait<0>();
    arch::mbar_arrive(&empty_b[rel_b]);
    arch::mbar_arrive(&empty_a[rel_a]);
#pragma unroll
    for (int h = 0; h < NA; ++h) arch::fence_operands(acc[h]);

    // Epilogue (version 6's): chunk c of 16 x 16, accumulator set c / 8 = slab m x half h.
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
      __syncwarp();
      float v8[8] = {x0.x, x0.y, x0.z, x0.w, x1.x, x1.y, x1.z, x1.w};
      const int a = c / 8, m = NH == 2 ? 0 : a, h = NH == 2 ? a : 0;
      const int row = (g * MH + m) * 64 + warp * 16 + lane % 16;
      const int q = o.q0 + row % pr.bw, p = o.p0 + row / pr.bw;
      const int ko = o.k0 + h * 128 + (c % 8) * 16 + 8 * (lane / 16);
      if (q < pr.q && p < pr.p && ko < pr.k) {
        const std::int64_t o0 = ((std::int64_t(o.n0) * pr.p + p) * pr.q + q) * pr.k + ko;
        hopper_store_run(e, clamp, fc, vec, o0, ko, pr.k, v8);
      }
    }
  }
#else
  (void)ta, (void)tb, (void)pr, (void)a_bytes;
  arch::tma_unreachable();
#endif
}

namespace detail_hopper {

template <DType T, int BM, int BN>
inline rt::error_t launch_halo(const CUtensorMap& ta, const CUtensorMap& tb,
                               const HopperHaloParams& pr, const HopperHaloGeometry& g, int grid,
                               rt::stream_t stream) {
  constexpr int SB = BN == 256 ? 3 : 4;  // hopper_halo_geometry's b_stages
  auto* kernel = &hopper_halo_conv<T, BM, BN, SB>;
  if (g.b_stages != SB || g.smem > kHopperSmemMax) return rt::invalid_value;
  if (rt::error_t e = rt::set_max_dynamic_smem(kernel, kHopperSmemMax); e != rt::success) return e;
  kernel<<<unsigned(grid), kHopperThreads, g.smem, stream>>>(ta, tb, pr, g.a_bytes);
  return rt::get_last_error();
}

}  // namespace detail_hopper

/// Host launcher: the halo map of x ({64 channels, hw, hh, 1 image} boxes, 128-byte swizzle),
/// the weights' map (hopper_tma's), then one persistent launch on min(tiles, sms) blocks (sms:
/// the plan's multiprocessor count; <= 0: one block per tile).
template <DType T>
inline rt::error_t launch_hopper_halo(const Conv2dProblem& p, const std::uint16_t* x,
                                      const std::uint16_t* wpk, const EpilogueParams& epi,
                                      rt::stream_t stream, int sms) {
  const HopperHaloGeometry g = hopper_halo_geometry(p);
  const ReductionLayout l = tap_layout(p, 32);
  if (g.blocks() > INT_MAX) return rt::invalid_value;
  detail::note_launch([] { return std::string("hopper_halo_conv<nhwc>"); });
  struct Tile {  // the launch log's tile: what describe() prints
    const Conv2dProblem& p;
    std::string str() const { return HopperHaloFamily::tile_str(p); }
  };
  detail::note_tile(Tile{p});
  CUtensorMap ta{}, tb{};
  {
    const cuuint64_t dims[4] = {cuuint64_t(p.c), cuuint64_t(p.w), cuuint64_t(p.h), cuuint64_t(p.n)};
    const cuuint64_t strides[3] = {cuuint64_t(p.c) * 2, cuuint64_t(p.w) * p.c * 2,
                                   cuuint64_t(p.h) * p.w * p.c * 2};
    const cuuint32_t box[4] = {64, cuuint32_t(g.hw), cuuint32_t(g.hh), 1};
    const cuuint32_t estr[4] = {1, 1, 1, 1};
    if (!detail_hopper::encode(ta, x, 4, dims, strides, box, estr, 64)) return rt::invalid_value;
  }
  {
    const cuuint64_t dims[3] = {cuuint64_t(l.c_pad), cuuint64_t(p.r * p.s), cuuint64_t(p.k)};
    const cuuint64_t strides[2] = {cuuint64_t(l.c_pad) * 2, cuuint64_t(l.k_total) * 2};
    const cuuint32_t box[3] = {64, 1, cuuint32_t(g.bn)};
    const cuuint32_t estr[3] = {1, 1, 1};
    if (!detail_hopper::encode(tb, wpk, 3, dims, strides, box, estr, 64)) return rt::invalid_value;
  }
  HopperHaloParams pr{};
  static_cast<ConvDims&>(pr) = conv_dims(p);
  pr.cblocks = int(p.c / 64);
  pr.taps = int(p.r * p.s);
  pr.bw = g.bw;
  pr.bh = g.bh;
  pr.hw = g.hw;
  pr.tiles_q = g.tiles_q;
  pr.tiles_p = g.tiles_p;
  pr.n_blocks = g.n_blocks;
  pr.tiles = int(g.blocks());
  pr.epi = epi;
  const int grid = sms > 0 && g.blocks() > sms ? sms : int(g.blocks());
  return g.bm == 256 ? detail_hopper::launch_halo<T, 256, 128>(ta, tb, pr, g, grid, stream)
                     : detail_hopper::launch_halo<T, 128, 256>(ta, tb, pr, g, grid, stream);
}

#endif  // RDNACONV_BACKEND_CUDA

}  // namespace rdnaconv::kernels
