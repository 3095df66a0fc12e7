// SPDX-License-Identifier: MIT
/// @file engine.hpp The implicit-GEMM engine every matrix family runs on: a block tile of
/// block_m GEMM rows x block_n filters, the reduction stepped block_k at a time through a
/// shared-memory pipeline, 16x16x16 products on the atom layer, the fused epilogue straight
/// from the accumulators. Families differ only in their A iterator (iterators.hpp), their
/// packing and their tile row; see kernels/*/README.md.
#pragma once

#include <climits>
#include <cstdint>
#include <type_traits>

#include "rdnaconv/arch/atoms.hpp"
#include "rdnaconv/arch/copy.hpp"
#include "rdnaconv/arch/platform.hpp"
#include "rdnaconv/arch/wgmma.hpp"
#include "rdnaconv/detail/launch_log.hpp"
#include "rdnaconv/epilogue.hpp"
#include "rdnaconv/kernels/common/conv_params.hpp"
#include "rdnaconv/kernels/common/iterators.hpp"

namespace rdnaconv::kernels {

namespace engine {

/// A thread's place in its block tile and the block's place in the 1-D raster: block ids run
/// over the n_blocks filter blocks fastest, so the blocks that share one A tile (the same GEMM
/// rows) run together and read it from DRAM once, while every wave touches all weight panels,
/// which therefore stay in L2 (weights are small next to activations here).
struct BlockCoords {
  int tid, lane, wm, wn;
  std::int64_t m_block;  ///< first GEMM row of the block
  int n_block;           ///< first filter of the block
};
template <TileConfig Cfg>
RDNACONV_DEVICE inline BlockCoords block_coords(int n_blocks) {
  BlockCoords c;
  c.tid = int(threadIdx.x);
  c.lane = c.tid % 32;
  const int warp = c.tid / 32;
  c.wm = warp % Cfg.warps_m;
  c.wn = warp / Cfg.warps_m;
  const std::int64_t bid = blockIdx.x;
  c.m_block = (bid / n_blocks) * Cfg.block_m;
  c.n_block = int(bid % n_blocks) * Cfg.block_n;
  return c;
}

/// One tile's vectors of this thread in flight (the register-staged pipeline): 16-byte loads as
/// words, gathers as loaded (packed only by store_regs, after the step's products).
template <class It>
struct Staged {
  std::uint32_t w[It::IT][4];
  Gathered<true> g[It::IT];
  bool vec[It::IT];
};

/// Issues this thread's loads of one tile into registers.
template <class It>
RDNACONV_DEVICE inline void fetch_regs(const It& it, Staged<It>& r) {
#pragma unroll
  for (int i = 0; i < It::IT; ++i) {
    const std::uint16_t* src = nullptr;
    bool live = false;
    r.vec[i] = it.vec(i, src, live);
    if (r.vec[i]) {
      if (live) {
        const uint4 v = arch::load_global16(src);
        r.w[i][0] = v.x;
        r.w[i][1] = v.y;
        r.w[i][2] = v.z;
        r.w[i][3] = v.w;
      } else {
        r.w[i][0] = r.w[i][1] = r.w[i][2] = r.w[i][3] = 0;
      }
    } else {
      it.gather(i, r.g[i]);
    }
  }
}

template <TileConfig Cfg, class It>
RDNACONV_DEVICE inline void store_regs(const It& it, const Staged<It>& r, std::uint16_t* tile) {
#pragma unroll
  for (int i = 0; i < It::IT; ++i) {
    std::uint16_t* dst = tile + Cfg.lds_offset(it.row(i), it.kv(i));
    if (r.vec[i]) {
      *reinterpret_cast<uint4*>(dst) = make_uint4(r.w[i][0], r.w[i][1], r.w[i][2], r.w[i][3]);
    } else {
#pragma unroll
      for (int j = 0; j < 8; ++j) dst[j] = r.g[i].e[j];  // the loaded registers, as they are
    }
  }
}

/// Issues this thread's vectors of one tile as cp.async (contiguous vectors) or as a
/// synchronous gather + shared store (the rest); both land before the consuming barrier.
template <TileConfig Cfg, class It>
RDNACONV_DEVICE inline void fetch_async(const It& it, std::uint16_t* tile) {
#pragma unroll
  for (int i = 0; i < It::IT; ++i) {
    std::uint16_t* dst = tile + Cfg.lds_offset(it.row(i), it.kv(i));
    const std::uint16_t* src = nullptr;
    bool live = false;
    if (it.vec(i, src, live)) {
      arch::cp_async16(dst, src, live);  // 0 bytes of src where !live: zeros, src not read
    } else {
      Gathered<false> g;
      it.gather(i, g);
      std::uint32_t w[4];
      g.pack(w);
      *reinterpret_cast<uint4*>(dst) = make_uint4(w[0], w[1], w[2], w[3]);
    }
  }
}

/// One block_k step of products out of shared memory.
template <TileConfig Cfg, class Atom, int AM, int AN>
RDNACONV_DEVICE inline void multiply(float (&acc)[AM][AN][8], const std::uint16_t* as,
                                     const std::uint16_t* bs, int wm, int wn, int lane) {
  constexpr int LD = Cfg.lds_row();
#pragma unroll
  for (int kk = 0; kk < Cfg.block_k; kk += 16) {
    typename Atom::AFrag af[AM];
    typename Atom::BFrag bf[AN];
#pragma unroll
    for (int i = 0; i < AM; ++i)
      Atom::load_a(af[i], as + (wm * Cfg.warp_m() + i * 16) * LD + kk, LD, lane);
#pragma unroll
    for (int j = 0; j < AN; ++j)
      Atom::load_b(bf[j], bs + (wn * Cfg.warp_n() + j * 16) * LD + kk, LD, lane);
#pragma unroll
    for (int i = 0; i < AM; ++i)
#pragma unroll
      for (int j = 0; j < AN; ++j) Atom::mma(acc[i][j], af[i], bf[j], lane);
  }
}

/// One block_k step of warpgroup products (wgmma tiles): warpgroup g multiplies its 64 rows of
/// the A tile by the whole B tile, block_k / 16 instructions, committed as one group. The
/// second k16 half of a 64-byte row starts 32 bytes in: the descriptor's start address moves by
/// 2 (16-byte units) and the hardware applies the swizzle to the full address.
template <TileConfig Cfg, class Atom, int AN>
RDNACONV_DEVICE inline void multiply_wgmma(float (&acc)[1][AN][8], const std::uint16_t* as,
                                           const std::uint16_t* bs, int group) {
  static_assert(AN * 16 == Cfg.block_n, "one m64 x block_n product per warpgroup");
  const std::uint64_t da = arch::smem_desc_sw64(as + group * 64 * Cfg.block_k);
  const std::uint64_t db = arch::smem_desc_sw64(bs);
  arch::wgmma_fence();
#pragma unroll
  for (int kk = 0; kk < Cfg.block_k / 16; ++kk)
    arch::wgmma_m64n128k16<Atom::dtype == DType::bf16>(acc[0], da + 2 * kk, db + 2 * kk);
  arch::wgmma_commit();
}

/// wgmma groups a warpgroup leaves in flight behind the step it issues (0: each step's products
/// complete before the next barrier).
inline constexpr int kWgmmaPending = 1;

/// Called after each step's products; the plain GEMM needs none.
struct NoHook {
  template <class Acc>
  RDNACONV_DEVICE void operator()(int, Acc&) const {}
};

/// The staged epilogue (issue 14 item 4): the accumulators go to shared memory first, then each
/// thread writes runs of 8 consecutive outputs (NHWC: 8 filters of one pixel; NCHW: 8 pixels of
/// one filter, along W) with 16-byte loads of z and 16-byte stores of y, instead of one 2-byte
/// store per accumulator from the atom's scattered C map. Two forms, by what the tile's shared
/// memory holds:
///  - f32: the raw accumulators, [block_m][block_n + 8] for NHWC, [block_n][block_m + 4] for
///    NCHW (+8 / +4: the C map's stores of one warp land in distinct banks), any epilogue
///    (bias, residual, every activation, every output type) applied in the copy-out;
///  - u16: the finished 16-bit outputs (a clamp epilogue applied and converted while staging),
///    half the bytes, for tiles whose shared memory cannot hold the f32 form (the RDNA main
///    tile's 40 KiB); launches with a residual, another activation or f32 output keep the
///    direct stores there.
template <TileConfig Cfg, LayoutKind OutL, class E>
struct StagedOut {
  static constexpr bool kNhwc = OutL == LayoutKind::nhwc;
  static constexpr int kRows = kNhwc ? Cfg.block_m : Cfg.block_n;  ///< staged rows
  static constexpr int kCols = kNhwc ? Cfg.block_n : Cfg.block_m;  ///< a row: one run of outputs
  static constexpr int kLd = kCols + (sizeof(E) == 4 ? (kNhwc ? 8 : 4) : 8);
  static constexpr int kBytes = kRows * kLd * int(sizeof(E));
  static constexpr bool kFits = kBytes <= Cfg.lds_bytes();
  /// Element offset of GEMM row `r`, filter column `c` (block-local).
  RDNACONV_HD static constexpr int at(int r, int c) { return kNhwc ? r * kLd + c : c * kLd + r; }
};

/// The f32 form applies when it fits; the u16 form otherwise (clamp launches only).
template <TileConfig Cfg, LayoutKind OutL>
inline constexpr bool kStageF32 = StagedOut<Cfg, OutL, float>::kFits;
template <TileConfig Cfg, LayoutKind OutL>
inline constexpr bool kStageU16 = StagedOut<Cfg, OutL, std::uint16_t>::kFits;

/// True when the atom's accumulators v and v+1 (v even) are adjacent filters of one GEMM row
/// for every lane (mma.sync's C map): their f32 staging is one 8-byte store.
template <class Atom>
constexpr bool c_pairs() {
  for (int lane = 0; lane < 32; ++lane)
    for (int v = 0; v < 8; v += 2)
      if (Atom::c_row(lane, v + 1) != Atom::c_row(lane, v) ||
          Atom::c_col(lane, v + 1) != Atom::c_col(lane, v) + 1 || Atom::c_col(lane, v) % 2 != 0)
        return false;
  return true;
}
template <class Atom>
inline constexpr bool kCPairs = c_pairs<Atom>();

/// Writes this thread's accumulators into the staging tile (block-local coordinates), each as
/// `f(filter, acc)`; the caller brackets it with barriers.
template <TileConfig Cfg, class Atom, LayoutKind OutL, class E, int AM, int AN, class F>
RDNACONV_DEVICE inline void stage_acc(const float (&acc)[AM][AN][8], E* st, int wm, int wn,
                                      int lane, F&& f) {
  using SO = StagedOut<Cfg, OutL, E>;
#pragma unroll
  for (int i = 0; i < AM; ++i)
#pragma unroll
    for (int j = 0; j < AN; ++j)
#pragma unroll
      for (int v = 0; v < 8; ++v) {
        const int r = wm * Cfg.warp_m() + i * 16 + Atom::c_row(lane, v);
        const int c = wn * Cfg.warp_n() + j * 16 + Atom::c_col(lane, v);
        if constexpr (sizeof(E) == 4 && SO::kNhwc && kCPairs<Atom>) {
          if (v % 2 == 0)
            *reinterpret_cast<float2*>(st + SO::at(r, c)) =
                make_float2(f(c, acc[i][j][v]), f(c + 1, acc[i][j][v + 1]));
        } else {
          st[SO::at(r, c)] = f(c, acc[i][j][v]);
        }
      }
}

/// The biases of filters k..k+7 (an NHWC run) with the widest loads their address allows: two
/// float4 (f32) or one 16-byte load of 8 halves, instead of 8 element loads through load_bias's
/// type switch (the cost a bias + relu row paid over the plain row).
RDNACONV_DEVICE inline void load_bias8(const void* bias, DType t, int k, float (&b)[8]) {
  if (bias == nullptr) {
#pragma unroll
    for (int q = 0; q < 8; ++q) b[q] = 0.f;
    return;
  }
  if (t == DType::f32) {
    const float* p = static_cast<const float*>(bias) + k;
    if (reinterpret_cast<std::uintptr_t>(p) % 16 == 0) {
      const float4 x = *reinterpret_cast<const float4*>(p);
      const float4 y = *reinterpret_cast<const float4*>(p + 4);
      b[0] = x.x, b[1] = x.y, b[2] = x.z, b[3] = x.w, b[4] = y.x, b[5] = y.y, b[6] = y.z,
      b[7] = y.w;
    } else {
#pragma unroll
      for (int q = 0; q < 8; ++q) b[q] = p[q];
    }
    return;
  }
  const std::uint16_t* p = static_cast<const std::uint16_t*>(bias) + k;
  std::uint16_t h[8];
  if (reinterpret_cast<std::uintptr_t>(p) % 16 == 0) {
    const uint4 w = *reinterpret_cast<const uint4*>(p);
    const std::uint32_t u[4] = {w.x, w.y, w.z, w.w};
#pragma unroll
    for (int q = 0; q < 8; ++q) h[q] = std::uint16_t(u[q / 2] >> (16 * (q % 2)));
  } else {
#pragma unroll
    for (int q = 0; q < 8; ++q) h[q] = p[q];
  }
#pragma unroll
  for (int q = 0; q < 8; ++q)
    b[q] = t == DType::bf16 ? arch::bf16_to_float(h[q]) : arch::f16_to_float(h[q]);
}

/// Loads 8 output-typed values (the residual z) at elements i..i+7, with the widest loads their
/// address allows (16, 8, 4 bytes or one element each).
RDNACONV_DEVICE inline void load8(const void* p, DType t, std::int64_t i, float (&v)[8]) {
  if (t == DType::f32) {
    const float* z = static_cast<const float*>(p) + i;
    const std::uintptr_t a = reinterpret_cast<std::uintptr_t>(z);
    if (a % 16 == 0) {
      const float4 x = *reinterpret_cast<const float4*>(z);
      const float4 y = *reinterpret_cast<const float4*>(z + 4);
      v[0] = x.x, v[1] = x.y, v[2] = x.z, v[3] = x.w, v[4] = y.x, v[5] = y.y, v[6] = y.z,
      v[7] = y.w;
    } else if (a % 8 == 0) {
#pragma unroll
      for (int q = 0; q < 8; q += 2) {
        const float2 x = *reinterpret_cast<const float2*>(z + q);
        v[q] = x.x, v[q + 1] = x.y;
      }
    } else {
#pragma unroll
      for (int q = 0; q < 8; ++q) v[q] = z[q];
    }
    return;
  }
  const std::uint16_t* z = static_cast<const std::uint16_t*>(p) + i;
  const std::uintptr_t a = reinterpret_cast<std::uintptr_t>(z);
  std::uint16_t b[8];
  if (a % 16 == 0) {
    const uint4 w = *reinterpret_cast<const uint4*>(z);
    const std::uint32_t u[4] = {w.x, w.y, w.z, w.w};
#pragma unroll
    for (int q = 0; q < 8; ++q) b[q] = std::uint16_t(u[q / 2] >> (16 * (q % 2)));
  } else if (a % 4 == 0) {
#pragma unroll
    for (int q = 0; q < 8; q += 2) {
      const std::uint32_t w = *reinterpret_cast<const std::uint32_t*>(z + q);
      b[q] = std::uint16_t(w), b[q + 1] = std::uint16_t(w >> 16);
    }
  } else {
#pragma unroll
    for (int q = 0; q < 8; ++q) b[q] = z[q];
  }
#pragma unroll
  for (int q = 0; q < 8; ++q)
    v[q] = t == DType::bf16 ? arch::bf16_to_float(b[q]) : arch::f16_to_float(b[q]);
}

/// Stores 8 16-bit words at y + i.. with the widest stores their address allows.
RDNACONV_DEVICE inline void store8_bits(std::uint16_t* y, const std::uint32_t (&u)[4]) {
  const std::uintptr_t a = reinterpret_cast<std::uintptr_t>(y);
  if (a % 16 == 0) {
    *reinterpret_cast<uint4*>(y) = make_uint4(u[0], u[1], u[2], u[3]);
  } else if (a % 8 == 0) {
    *reinterpret_cast<uint2*>(y) = make_uint2(u[0], u[1]);
    *reinterpret_cast<uint2*>(y + 4) = make_uint2(u[2], u[3]);
  } else if (a % 4 == 0) {
#pragma unroll
    for (int q = 0; q < 4; ++q) *reinterpret_cast<std::uint32_t*>(y + 2 * q) = u[q];
  } else {
#pragma unroll
    for (int q = 0; q < 8; ++q) y[q] = std::uint16_t(u[q / 2] >> (16 * (q % 2)));
  }
}

/// Stores 8 values at elements i..i+7 of y in its type, with the widest stores their address
/// allows.
RDNACONV_DEVICE inline void store8(void* p, DType t, std::int64_t i, const float (&v)[8]) {
  if (t == DType::f32) {
    float* y = static_cast<float*>(p) + i;
    const std::uintptr_t a = reinterpret_cast<std::uintptr_t>(y);
    if (a % 16 == 0) {
      *reinterpret_cast<float4*>(y) = make_float4(v[0], v[1], v[2], v[3]);
      *reinterpret_cast<float4*>(y + 4) = make_float4(v[4], v[5], v[6], v[7]);
    } else if (a % 8 == 0) {
#pragma unroll
      for (int q = 0; q < 8; q += 2)
        *reinterpret_cast<float2*>(y + q) = make_float2(v[q], v[q + 1]);
    } else {
#pragma unroll
      for (int q = 0; q < 8; ++q) y[q] = v[q];
    }
    return;
  }
  std::uint32_t u[4];
  const bool bf = t == DType::bf16;
#pragma unroll
  for (int e = 0; e < 4; ++e) {
    const std::uint32_t lo = bf ? arch::float_to_bf16(v[2 * e]) : arch::float_to_f16(v[2 * e]);
    const std::uint32_t hi =
        bf ? arch::float_to_bf16(v[2 * e + 1]) : arch::float_to_f16(v[2 * e + 1]);
    u[e] = lo | (hi << 16);
  }
  store8_bits(static_cast<std::uint16_t*>(p) + i, u);
}

/// The staged epilogue of one block (see StagedOut). A run of 8 whose outputs are consecutive in
/// y (NHWC: inside K; NCHW: inside M and one image) is written with the widest loads and stores
/// its address allows (16 bytes where y, z, K or P*Q allow it; 8 or 4 otherwise, e.g. P*Q = 196
/// or 49); other runs go element by element, the NCHW image index computed once per run and
/// stepped. Returns false (nothing written) when this form cannot serve the launch.
template <TileConfig Cfg, class Atom, LayoutKind OutL, int AM, int AN>
RDNACONV_DEVICE inline bool store_staged(const ConvGemmParams& pr, const float (&acc)[AM][AN][8],
                                         std::uint16_t* smem, std::int64_t m_block, int n_block,
                                         std::int64_t out_base, int wm, int wn, int lane, int tid) {
  constexpr bool kF32 = kStageF32<Cfg, OutL>;
  using E = std::conditional_t<kF32, float, std::uint16_t>;
  using SO = StagedOut<Cfg, OutL, E>;
  static_assert(SO::kFits, "no staged form fits this tile");
  const EpilogueParams& e = pr.epi;
  const bool clamp = epilogue_is_clamp(e);
  if constexpr (!kF32) {
    if (!clamp || e.out_type == DType::f32) return false;
  }
  const std::int64_t pq = std::int64_t(pr.p) * pr.q;
  constexpr bool nhwc = SO::kNhwc;
  E* st = reinterpret_cast<E*>(smem);
  __syncthreads();  // every warp's last reads of the pipeline's stages are done
  if constexpr (kF32) {
    stage_acc<Cfg, Atom, OutL>(acc, st, wm, wn, lane, [](int, float x) { return x; });
  } else {
    const ClampEpilogue f(e);
    const bool bf = e.out_type == DType::bf16;
    stage_acc<Cfg, Atom, OutL>(acc, st, wm, wn, lane, [&](int c, float x) {
      const int ko = n_block + c;
      const float v = f(ko < pr.k ? load_bias(e.bias, e.bias_type, ko) : 0.f, x);
      return bf ? arch::float_to_bf16(v) : arch::float_to_f16(v);
    });
  }
  __syncthreads();
  const ClampEpilogue fc(e);
  constexpr int kRuns = SO::kCols / 8;  // runs of 8 per staged row
  for (int u = tid; u < SO::kRows * kRuns; u += Cfg.threads()) {
    const int sr = u / kRuns, sc = (u % kRuns) * 8;      // staged row, first column of the run
    const int r0 = nhwc ? sr : sc, c0 = nhwc ? sc : sr;  // GEMM row and filter, block-local
    const std::int64_t m0 = m_block + r0;
    const int k0 = n_block + c0;
    if (m0 >= pr.m || k0 >= pr.k) continue;
    // the run's first output; along the run, +1 per element
    std::int64_t o0, img = 0, rem = 0;
    if constexpr (nhwc) {
      o0 = out_base + m0 * pr.k + k0;
    } else {
      img = m0 / pq;  // once per run
      rem = m0 - img * pq;
      o0 = (img * pr.k + k0) * pq + rem;
    }
    const E* s = st + SO::at(r0, c0);  // the run is contiguous in the staged row
    // the run's 8 outputs are consecutive in y: NHWC inside K, NCHW inside M and one image; then
    // stored with the widest stores the address allows (16 bytes where y, K or P*Q allow)
    const bool contiguous = nhwc ? k0 + 8 <= pr.k : m0 + 8 <= pr.m && rem + 8 <= pq;
    if (contiguous) {
      if constexpr (!kF32) {
        const uint4 w = *reinterpret_cast<const uint4*>(s);
        const std::uint32_t u[4] = {w.x, w.y, w.z, w.w};
        store8_bits(static_cast<std::uint16_t*>(e.y) + o0, u);
      } else {
        const float4 a = *reinterpret_cast<const float4*>(s);
        const float4 b = *reinterpret_cast<const float4*>(s + 4);
        float v[8] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w};
        float bias[8];
        if constexpr (nhwc) {
          load_bias8(e.bias, e.bias_type, k0, bias);
        } else {
          const float b = load_bias(e.bias, e.bias_type, k0);  // one filter per NCHW run
#pragma unroll
          for (int q = 0; q < 8; ++q) bias[q] = b;
        }
        if (clamp) {
#pragma unroll
          for (int q = 0; q < 8; ++q) v[q] = fc(bias[q], v[q]);
        } else {
          float z[8] = {0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f};
          if (e.z != nullptr) load8(e.z, e.z_type, o0, z);
#pragma unroll
          for (int q = 0; q < 8; ++q) {
            float t = e.alpha * v[q] + bias[q];
            if (e.z != nullptr) t += e.beta * z[q];
            v[q] = activate(t, e.act);
          }
        }
        store8(e.y, e.out_type, o0, v);
      }
      continue;
    }
    // element by element: the run's part inside the output (NHWC: filters < K; NCHW: rows < M,
    // the image's plane changing where the run crosses into the next image)
    std::int64_t o = o0;
    for (int q = 0; q < 8; ++q, ++o) {
      const std::int64_t m = m0 + (nhwc ? 0 : q);
      const int ko = k0 + (nhwc ? q : 0);
      if (m >= pr.m || ko >= pr.k) break;
      if constexpr (!nhwc) {
        if (rem == pq) {  // the next image: its plane of filter k0
          ++img;
          rem = 0;
          o = (img * pr.k + k0) * pq;
        }
        ++rem;
      }
      if constexpr (!kF32) {
        static_cast<std::uint16_t*>(e.y)[o] = s[q];
      } else {
        const float x = s[q];
        store_out(e.y, e.out_type, o,
                  clamp ? fc(load_bias(e.bias, e.bias_type, ko), x) : epilogue_value(e, o, ko, x));
      }
    }
  }
  return true;
}

/// Issues step `ks`'s A and B tiles into one cp.async stage.
template <TileConfig Cfg, class AIter, class BIter>
RDNACONV_DEVICE inline void fetch_stage(AIter& a, BIter& b, int ks, std::uint16_t* stage) {
  a.step(ks);
  b.step(ks);
  fetch_async<Cfg>(a, stage);
  fetch_async<Cfg>(b, stage + Cfg.block_m * Cfg.lds_row());
}
/// The first `Ahead` steps of a cp.async pipeline, one commit each (empty ones too).
template <TileConfig Cfg, int Ahead, class AIter, class BIter>
RDNACONV_DEVICE inline void fetch_prologue(AIter& a, BIter& b, int nsteps, std::uint16_t* smem) {
  constexpr int STAGE = (Cfg.block_m + Cfg.block_n) * Cfg.lds_row();
#pragma unroll
  for (int s = 0; s < Ahead; ++s) {
    if (s < nsteps) fetch_stage<Cfg>(a, b, s, smem + s * STAGE);
    arch::cp_async_commit();
  }
}

/// The reduction loop of a block: `nsteps` steps of block_k, A and B tiles from the iterators
/// through shared memory (cp.async multistage for stages >= 3, register-staged double buffer
/// for 2), products into `acc`; `hook(step, acc)` runs after each step's products (Winograd's
/// fused variant folds its output transform there).
template <TileConfig Cfg, class Atom, class AIter, class BIter, int AM, int AN, class Hook>
RDNACONV_DEVICE inline void mainloop(AIter& a, BIter& b, int nsteps, std::uint16_t* smem,
                                     float (&acc)[AM][AN][8], int wm, int wn, int lane,
                                     Hook&& hook) {
  constexpr int BM = Cfg.block_m, BN = Cfg.block_n, LD = Cfg.lds_row();
  constexpr int STAGE = (BM + BN) * LD;  // elements per pipeline stage
  if constexpr (Cfg.async_copy()) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
    static_assert(arch::kDeviceHasAsyncCopy,
                  "a tile with stages >= 3 needs cp.async (sm_80+): give this target a 2-stage "
                  "tile (tiles.hpp)");
#endif
    // cp.async multistage. A stage is refilled only once the products that read it are done:
    // atoms finish within their step, so stages-1 tiles are in flight; wgmma (Hopper) leaves P
    // groups running behind the step being issued, so the copies stay P steps further back.
    // One commit per step (empty ones too), so "at most AHEAD-1 groups pending" always means
    // "step ks has landed".
    static_assert(!Cfg.wgmma || std::is_same_v<std::decay_t<Hook>, NoHook>,
                  "a hook would read accumulators that wgmma is still writing");
    constexpr int S = Cfg.stages, P = Cfg.wgmma ? kWgmmaPending : 0, AHEAD = S - 1 - P;
    static_assert(AHEAD >= 1, "too few stages for the wgmma groups in flight");
    fetch_prologue<Cfg, AHEAD>(a, b, nsteps, smem);
    for (int ks = 0; ks < nsteps; ++ks) {
      arch::cp_async_wait<AHEAD - 1>();
      // wgmma reads shared memory through the async proxy: this thread's cp.async results (and
      // gather stores) of step ks are made visible to it before the barrier publishes them.
      if constexpr (Cfg.wgmma) arch::fence_proxy_async_smem();
      // After it: step ks visible to all, and every warp's products of step ks-1-P are done
      // (each waited for them before arriving), so their stage may be refilled.
      __syncthreads();
      const int next = ks + AHEAD;  // into stage (ks - 1 - P) % S
      if (next < nsteps) fetch_stage<Cfg>(a, b, next, smem + (next % S) * STAGE);
      arch::cp_async_commit();
      const std::uint16_t* as = smem + (ks % S) * STAGE;
      if constexpr (Cfg.wgmma) {
        multiply_wgmma<Cfg, Atom>(acc, as, as + BM * LD, wm / 4);
        arch::wgmma_wait<P>();
      } else {
        multiply<Cfg, Atom>(acc, as, as + BM * LD, wm, wn, lane);
        hook(ks, acc);
      }
    }
    if constexpr (Cfg.wgmma) {
      arch::wgmma_wait<0>();
      arch::fence_operands(acc[0]);
    }
    arch::cp_async_wait<0>();
  } else {
    // Register-staged double buffer (RDNA; portable): the next tile's global loads are in
    // flight while this one multiplies; one barrier per step. Every step but the last fetches,
    // so the last is peeled and the loop body is one straight block: with the fetch under an
    // `if`, the compiler sank the (pure) products past the branch, below the shared stores that
    // wait for the loads, or made the loop irreducible. The fence keeps the stores (and their
    // wait) after the products.
    Staged<AIter> ra;
    Staged<BIter> rb;
    a.step(0);
    b.step(0);
    fetch_regs(a, ra);
    fetch_regs(b, rb);
    store_regs<Cfg>(a, ra, smem);
    store_regs<Cfg>(b, rb, smem + BM * LD);
    __syncthreads();
    int ks = 0;
    for (; ks + 1 < nsteps; ++ks) {
      a.step(ks + 1);
      b.step(ks + 1);
      fetch_regs(a, ra);
      fetch_regs(b, rb);
      const std::uint16_t* as = smem + (ks & 1) * STAGE;
      multiply<Cfg, Atom>(acc, as, as + BM * LD, wm, wn, lane);
      hook(ks, acc);
      arch::schedule_fence();
      std::uint16_t* st = smem + ((ks + 1) & 1) * STAGE;  // last read before the previous barrier
      store_regs<Cfg>(a, ra, st);
      store_regs<Cfg>(b, rb, st + BM * LD);
      __syncthreads();
    }
    const std::uint16_t* as = smem + (ks & 1) * STAGE;
    multiply<Cfg, Atom>(acc, as, as + BM * LD, wm, wn, lane);
    hook(ks, acc);
  }
}

}  // namespace engine

/// The engine kernel. AIterTag names the family's A iterator; OutL the output layout (nhwc
/// is also the raw [batch][rows][K] layout of Winograd's M).
/// Launch bounds: the block size; on CUDA, blocks of 64 threads (the thin tile) also say one
/// block per SM is enough, else ptxas held the thin NCHW kernel to 128 registers and spilled;
/// cp.async blocks of 256 (the sm_80 main tile, 8 warps) ask for two per SM, i.e. at most 128
/// registers, which is what their 64 accumulators leave room for (tiles.hpp); 0, for the others
/// (the RDNA tiles run with emulated atoms on NVIDIA among them), is what they had (ptxas's
/// choice, checked with -Xptxas -v: held to 128 they spilled).
#if defined(__CUDACC__) && !defined(__HIP__)
#define RDNACONV_ENGINE_BOUNDS(c)                                           \
  __launch_bounds__(c.threads(), c.threads() <= 64                      ? 1 \
                                 : c.async_copy() && c.threads() >= 256 ? 2 \
                                                                        : 0)
#else
#define RDNACONV_ENGINE_BOUNDS(c) __launch_bounds__(c.threads())
#endif
/// One block of the engine kernel: conv_gemm (kSplit false, P = ConvGemmParams) and
/// conv_gemm_splitk (kSplit true, P = SplitGemmParams: this grid layer's share of the reduction
/// steps, partial sums at the output index + the layer's slice offset) share it.
template <class Tiles, DType T, AtomKind AK, class AIterTag, LayoutKind OutL, bool kSplit, class P>
RDNACONV_DEVICE RDNACONV_FORCEINLINE void conv_gemm_block(const P& pr) {
  constexpr TileConfig Cfg = Tiles::cfg;
  using Atom = arch::atom_t<AK, T>;
  using AIter = typename AIterTag::template iter<Tiles>;
  using BIter = DenseIter<Tiles, Cfg.block_n>;
  constexpr int AM = Cfg.warp_m() / 16, AN = Cfg.warp_n() / 16;

  extern __shared__ __align__(1024) uint4 smem_words[];  // wgmma's swizzle: 512-byte aligned
  std::uint16_t* smem = reinterpret_cast<std::uint16_t*>(smem_words);
  static_assert(!Cfg.wgmma || arch::kWgmmaTilesCompile, "wgmma tiles need the sm_90a target");
  static_assert(!Cfg.wgmma || !arch::kDeviceHasWgmma || std::is_same_v<Atom, arch::MmaSm80<T>>,
                "the wgmma accumulators are stored through mma.sync's C map");

  const engine::BlockCoords bc = engine::block_coords<Cfg>(pr.n_blocks);
  const int tid = bc.tid, lane = bc.lane, wm = bc.wm, wn = bc.wn;
  const std::int64_t m_block = bc.m_block;
  const int n_block = bc.n_block;
  const int batch = int(blockIdx.y);

  AIter a(pr, m_block, tid, batch);
  BIter b(pr.wpk + batch * pr.b_batch_stride + std::int64_t(n_block) * pr.k_total, pr.k_total,
          pr.k - n_block, tid);

  float acc[AM][AN][8];
#pragma unroll
  for (int i = 0; i < AM; ++i)
#pragma unroll
    for (int j = 0; j < AN; ++j)
#pragma unroll
      for (int v = 0; v < 8; ++v) acc[i][j][v] = 0.f;

  int nsteps = pr.k_total / Cfg.block_k;
  std::int64_t split_base = 0;
  if constexpr (kSplit) {  // this grid layer's share of the steps (the last may be shorter)
    const int s0 = int(blockIdx.z) * pr.split_steps;
    nsteps = nsteps - s0 < pr.split_steps ? nsteps - s0 : pr.split_steps;
    a.skip(s0);
    b.skip(s0);
    split_base = std::int64_t(blockIdx.z) * pr.split_stride;
  }
  engine::mainloop<Cfg, Atom>(a, b, nsteps, smem, acc, wm, wn, lane, engine::NoHook{});

  const std::int64_t out_base = batch * pr.out_batch_stride;
  if constexpr (!kSplit && engine::kStageF32<Cfg, OutL>) {
    engine::store_staged<Cfg, Atom, OutL>(pr, acc, smem, m_block, n_block, out_base, wm, wn, lane,
                                          tid);
    return;
  } else if constexpr (!kSplit && engine::kStageU16<Cfg, OutL>) {
    if (engine::store_staged<Cfg, Atom, OutL>(pr, acc, smem, m_block, n_block, out_base, wm, wn,
                                              lane, tid))
      return;
  }
  // Direct epilogue (the split kernel's partial sums; tiles whose shared memory holds no staged
  // form; u16-staged tiles on launches with a residual, another activation or f32 output):
  // straight from the accumulators through the atom's C map; `value(out, ko, acc)` is the
  // epilogue of one output. Two copies of the loop: the common case (no residual, a clamp
  // activation) and the general one, chosen once per launch.
  const std::int64_t pq = std::int64_t(pr.p) * pr.q;
  const auto store_tile = [&](const auto& value) {
#pragma unroll
    for (int i = 0; i < AM; ++i) {
#pragma unroll
      for (int v = 0; v < 8; ++v) {
        const std::int64_t m = m_block + wm * Cfg.warp_m() + i * 16 + Atom::c_row(lane, v);
        if (m >= pr.m) continue;
        std::int64_t img = 0, rem = 0;
        if constexpr (OutL == LayoutKind::nchw) {
          img = m / pq;
          rem = m - img * pq;
        }
#pragma unroll
        for (int j = 0; j < AN; ++j) {
          const int ko = n_block + wn * Cfg.warp_n() + j * 16 + Atom::c_col(lane, v);
          if (ko >= pr.k) continue;
          std::int64_t out =
              OutL == LayoutKind::nhwc ? out_base + m * pr.k + ko : (img * pr.k + ko) * pq + rem;
          if constexpr (kSplit) out += split_base;
          store_out(pr.epi.y, pr.epi.out_type, out, value(out, ko, acc[i][j][v]));
        }
      }
    }
  };
  if (epilogue_is_clamp(pr.epi)) {
    const ClampEpilogue f(pr.epi);
    store_tile([&](std::int64_t, int ko, float x) {
      return f(load_bias(pr.epi.bias, pr.epi.bias_type, ko), x);
    });
  } else {
    store_tile(
        [&](std::int64_t out, int ko, float x) { return epilogue_value(pr.epi, out, ko, x); });
  }
}

template <class Tiles, DType T, AtomKind AK, class AIterTag, LayoutKind OutL>
__global__ void RDNACONV_ENGINE_BOUNDS(Tiles::cfg)
    conv_gemm(const RDNACONV_GRID_CONSTANT ConvGemmParams pr) {
  conv_gemm_block<Tiles, T, AK, AIterTag, OutL, false>(pr);
}

/// Split-K (Conv2dOptions::split_k, or the router's rule for small grids): the same block over a
/// share of the reduction, fp32 partial sums into the workspace; splitk_reduce finishes.
template <class Tiles, DType T, AtomKind AK, class AIterTag, LayoutKind OutL>
__global__ void RDNACONV_ENGINE_BOUNDS(Tiles::cfg)
    conv_gemm_splitk(const RDNACONV_GRID_CONSTANT SplitGemmParams pr) {
  conv_gemm_block<Tiles, T, AK, AIterTag, OutL, true>(pr);
}

/// Host launcher of one engine configuration; `batches` > 1 for Winograd's 36 slices.
template <class Tiles, DType T, AtomKind AK, class AIterTag, LayoutKind OutL>
inline rt::error_t launch_conv_gemm(ConvGemmParams pr, int batches, rt::stream_t stream) {
  constexpr TileConfig Cfg = Tiles::cfg;
  const std::int64_t mb = ceil_div(pr.m, Cfg.block_m);
  pr.n_blocks = int(ceil_div(pr.k, Cfg.block_n));
  const std::int64_t blocks = mb * pr.n_blocks;
  if (blocks > INT_MAX) return rt::invalid_value;  // plan creation rejects such problems first
  detail::note_launch([&] {
    return "conv_gemm<" + AIterTag::name() + ">" +
           (batches > 1 ? " x" + std::to_string(batches) + " batches" : "");
  });
  detail::note_tile(Cfg);
  auto* kernel = &conv_gemm<Tiles, T, AK, AIterTag, OutL>;
  if constexpr (Cfg.lds_bytes() > 48 * 1024) {
    // Above the static 48 KiB the kernel must opt in; cheap, not a stream operation, so it is
    // legal inside graph capture.
    if (rt::error_t e = rt::set_max_dynamic_smem(kernel, Cfg.lds_bytes()); e != rt::success)
      return e;
  }
  kernel<<<dim3(unsigned(blocks), unsigned(batches)), Cfg.threads(), Cfg.lds_bytes(), stream>>>(pr);
  return rt::get_last_error();
}

/// Host launcher of the split-K engine kernel: ceil(steps / split_steps) grid layers.
template <class Tiles, DType T, AtomKind AK, class AIterTag, LayoutKind OutL>
inline rt::error_t launch_conv_gemm_splitk(SplitGemmParams pr, rt::stream_t stream) {
  constexpr TileConfig Cfg = Tiles::cfg;
  const std::int64_t mb = ceil_div(pr.m, Cfg.block_m);
  pr.n_blocks = int(ceil_div(pr.k, Cfg.block_n));
  const std::int64_t blocks = mb * pr.n_blocks;
  const std::int64_t splits = ceil_div(pr.k_total / Cfg.block_k, pr.split_steps);
  if (blocks > INT_MAX || pr.split_steps <= 0 || splits > 65535) return rt::invalid_value;
  detail::note_launch([&] { return "conv_gemm_splitk<" + AIterTag::name() + ">"; });
  detail::note_tile(Cfg);
  auto* kernel = &conv_gemm_splitk<Tiles, T, AK, AIterTag, OutL>;
  if constexpr (Cfg.lds_bytes() > 48 * 1024) {
    if (rt::error_t e = rt::set_max_dynamic_smem(kernel, Cfg.lds_bytes()); e != rt::success)
      return e;
  }
  kernel<<<dim3(unsigned(blocks), 1u, unsigned(splits)), Cfg.threads(), Cfg.lds_bytes(), stream>>>(
      pr);
  return rt::get_last_error();
}

/// Split-K's second kernel: y[i] = epilogue(sum over s of part[s * stride + i]) for every output
/// index i of the layout, the slices added in order s = 0, 1, ... (deterministic); k is i's
/// filter (NHWC: i % K; NCHW: (i / PQ) % K). Template only for vague linkage.
template <int = 0>
__global__ void splitk_reduce(const float* __restrict__ part, int splits, std::int64_t stride,
                              EpilogueParams epi, int k, std::int64_t pq, bool nhwc) {
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < stride;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    float acc = 0.f;
    for (int s = 0; s < splits; ++s) acc += part[s * stride + i];
    const std::int64_t ko = nhwc ? i % k : (i / pq) % k;
    store_out(epi.y, epi.out_type, i, epilogue_value(epi, i, ko, acc));
  }
}

inline rt::error_t launch_splitk_reduce(const float* part, int splits, std::int64_t stride,
                                        const EpilogueParams& epi, int k, std::int64_t pq,
                                        LayoutKind out_layout, rt::stream_t stream) {
  detail::note_launch([] { return std::string("splitk_reduce"); });
  const std::int64_t blocks = (stride + 255) / 256;
  splitk_reduce<><<<unsigned(blocks < 65536 ? blocks : 65536), 256, 0, stream>>>(
      part, splits, stride, epi, k, pq, out_layout == LayoutKind::nhwc);
  return rt::get_last_error();
}

/// Packs OIHW weights into the tap-major layout of layouts.hpp (zeros in the padding). The
/// same kernel serves every direct family; only c_pad and k_total differ.
/// (A template only so that the header-only kernel has vague linkage across translation units.)
template <int = 0>
__global__ void pack_tap_major(const std::uint16_t* __restrict__ w, std::uint16_t* __restrict__ wpk,
                               int k, int c, int r, int s, int c_pad, int k_total) {
  const std::int64_t total = std::int64_t(k) * k_total;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t ko = i / k_total;
    const int kk = int(i - ko * k_total);
    const int rs = kk / c_pad, ci = kk - rs * c_pad;
    std::uint16_t v = 0;
    if (rs < r * s && ci < c) {
      const int rr = rs / s, ss = rs - rr * s;
      v = w[((ko * c + ci) * r + rr) * s + ss];
    }
    wpk[i] = v;
  }
}

inline rt::error_t launch_pack_tap_major(const std::uint16_t* w, std::uint16_t* wpk,
                                         const ConvGemmParams& g, rt::stream_t stream) {
  detail::note_launch([] { return std::string("pack_tap_major"); });
  const std::int64_t total = std::int64_t(g.k) * g.k_total;
  const std::int64_t blocks = (total + 255) / 256;
  pack_tap_major<><<<unsigned(blocks < 65536 ? blocks : 65536), 256, 0, stream>>>(
      w, wpk, g.k, g.c, g.r, g.s, g.c_pad, g.k_total);
  return rt::get_last_error();
}

}  // namespace rdnaconv::kernels
