// SPDX-License-Identifier: MIT
/// @file implicit_gemm.hpp The general family: implicit GEMM for any R, S, stride, padding and
/// dilation, both layouts, on the atom layer. M = N*P*Q (output pixels), N = K, K = C*R*S.
/// See README.md beside this file.
#pragma once

#include <cstdint>

#include "rdnaconv/arch/atoms.hpp"
#include "rdnaconv/arch/platform.hpp"
#include "rdnaconv/epilogue.hpp"
#include "rdnaconv/kernels/implicit_gemm/implicit_gemm_desc.hpp"
#include "rdnaconv/problem.hpp"

namespace rdnaconv::kernels {

/// Everything a launch needs, with the 32-bit per-dimension sizes the kernel indexes with.
struct GemmConvParams {
  int n, c, h, w, k, r, s, p, q;
  int stride_h, stride_w, dil_h, dil_w, pad_top, pad_left;
  int c_pad, k_total;
  std::int64_t m;  // N*P*Q
  const std::uint16_t* x;
  const std::uint16_t* wpk;
  EpilogueParams epi;
  bool vec_x;  // NHWC, C % 8 == 0 and x 16-byte aligned: 16-byte loads along C
  bool vec_w;  // packed weights 16-byte aligned
};

inline GemmConvParams make_gemm_params(const Conv2dProblem& p, int block_k) {
  GemmConvParams g{};
  g.n = int(p.n); g.c = int(p.c); g.h = int(p.h); g.w = int(p.w); g.k = int(p.k);
  g.r = int(p.r); g.s = int(p.s); g.p = int(p.p()); g.q = int(p.q());
  g.stride_h = int(p.stride_h); g.stride_w = int(p.stride_w);
  g.dil_h = int(p.dil_h); g.dil_w = int(p.dil_w);
  g.pad_top = int(p.pad_top); g.pad_left = int(p.pad_left);
  const GeneralLayout l = general_layout(p, block_k);
  g.c_pad = int(l.c_pad);
  g.k_total = int(l.k_total);
  g.m = p.gemm_m();
  return g;
}

/// Packs OIHW weights into the general layout (implicit_gemm_desc.hpp), zeros in the padding.
/// (A template only so that the header-only kernel has vague linkage across translation units.)
template <int = 0>
__global__ void pack_general_weights(const std::uint16_t* __restrict__ w, std::uint16_t* __restrict__ wpk,
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

template <class Tiles, DType T, LayoutKind L, AtomKind AK>
__global__ void __launch_bounds__(Tiles::cfg.threads()) implicit_gemm_conv(GemmConvParams pr) {
  constexpr TileConfig Cfg = Tiles::cfg;
  using Atom = arch::atom_t<AK, T>;
  constexpr int BM = Cfg.block_m, BN = Cfg.block_n, BK = Cfg.block_k;
  constexpr int LD = Cfg.lds_row();
  constexpr int NT = Cfg.threads();
  constexpr int KV = BK / 8;                 // 8-element vectors per tile row
  constexpr int A_IT = BM * KV / NT, B_IT = BN * KV / NT;
  constexpr int AM = Cfg.warp_m() / 16, AN = Cfg.warp_n() / 16;
  constexpr bool kNhwc = L == LayoutKind::nhwc;

  alignas(16) __shared__ std::uint16_t smem[2 * (BM + BN) * LD];

  const int tid = int(threadIdx.x);
  const int lane = tid % 32, warp = tid / 32;
  const int wm = warp % Cfg.warps_m, wn = warp / Cfg.warps_m;
  const std::int64_t m_block = std::int64_t(blockIdx.x) * BM;
  const int n_block = int(blockIdx.y) * BN;
  const int pq = pr.p * pr.q;
  const int rs_count = pr.r * pr.s;
  const std::int64_t hw = std::int64_t(pr.h) * pr.w;

  // A rows owned by this thread, fixed for the whole reduction. NHWC: 4 threads cover one
  // pixel's 32 channels (16-byte loads); NCHW: 32 threads cover 32 consecutive pixels of one
  // channel group (each scalar load is coalesced along W).
  int a_row[A_IT], a_kv[A_IT], a_ih0[A_IT], a_iw0[A_IT];
  std::int64_t a_base[A_IT];
  bool a_ok[A_IT];
#pragma unroll
  for (int i = 0; i < A_IT; ++i) {
    const int idx = tid + i * NT;
    a_row[i] = kNhwc ? idx / KV : idx % BM;
    a_kv[i] = kNhwc ? idx % KV : idx / BM;
    const std::int64_t m = m_block + a_row[i];
    a_ok[i] = m < pr.m;
    const std::int64_t mm = a_ok[i] ? m : 0;
    const std::int64_t img = mm / pq;
    const int rem = int(mm - img * pq);
    const int op = rem / pr.q, oq = rem - op * pr.q;
    a_ih0[i] = op * pr.stride_h - pr.pad_top;
    a_iw0[i] = oq * pr.stride_w - pr.pad_left;
    a_base[i] = img * pr.c * hw;
  }

  std::uint32_t ra[A_IT][4], rb[B_IT][4];

  auto x_at = [&](int i, int kidx) -> std::uint16_t {  // one element of the A tile
    const int rs = kidx / pr.c_pad, ci = kidx - rs * pr.c_pad;
    if (!a_ok[i] || rs >= rs_count || ci >= pr.c) return 0;
    const int rr = rs / pr.s, ss = rs - rr * pr.s;
    const int ih = a_ih0[i] + rr * pr.dil_h, iw = a_iw0[i] + ss * pr.dil_w;
    if (ih < 0 || ih >= pr.h || iw < 0 || iw >= pr.w) return 0;
    const std::int64_t off = kNhwc ? a_base[i] + (std::int64_t(ih) * pr.w + iw) * pr.c + ci
                                   : a_base[i] + ci * hw + std::int64_t(ih) * pr.w + iw;
    return pr.x[off];
  };

  auto load_tiles = [&](int kstep) {
#pragma unroll
    for (int i = 0; i < A_IT; ++i) {
      const int kidx = kstep * BK + a_kv[i] * 8;
      std::uint16_t e[8];
      if (pr.c_pad % 8 == 0) {
        // the 8 elements share one tap (r, s): decode it once, mask channels
        const int rs = kidx / pr.c_pad, c0 = kidx - rs * pr.c_pad;
        const int rr = rs / pr.s, ss = rs - rr * pr.s;
        const int ih = a_ih0[i] + rr * pr.dil_h, iw = a_iw0[i] + ss * pr.dil_w;
        const bool ok = a_ok[i] && rs < rs_count && ih >= 0 && ih < pr.h && iw >= 0 && iw < pr.w;
        if (kNhwc) {
          const std::int64_t off = a_base[i] + (std::int64_t(ih) * pr.w + iw) * pr.c + c0;
          if (ok && pr.vec_x) {
            const uint4 v = *reinterpret_cast<const uint4*>(pr.x + off);
            ra[i][0] = v.x; ra[i][1] = v.y; ra[i][2] = v.z; ra[i][3] = v.w;
            continue;
          }
#pragma unroll
          for (int j = 0; j < 8; ++j) e[j] = (ok && c0 + j < pr.c) ? pr.x[off + j] : 0;
        } else {
          const std::int64_t off = a_base[i] + c0 * hw + std::int64_t(ih) * pr.w + iw;
#pragma unroll
          for (int j = 0; j < 8; ++j) e[j] = (ok && c0 + j < pr.c) ? pr.x[off + j * hw] : 0;
        }
      } else {
#pragma unroll
        for (int j = 0; j < 8; ++j) e[j] = x_at(i, kidx + j);
      }
#pragma unroll
      for (int j = 0; j < 4; ++j) ra[i][j] = std::uint32_t(e[2 * j]) | (std::uint32_t(e[2 * j + 1]) << 16);
    }
#pragma unroll
    for (int i = 0; i < B_IT; ++i) {
      const int idx = tid + i * NT;
      const int row = idx / KV, kv = idx % KV;
      const int ko = n_block + row;
      const std::int64_t off = std::int64_t(ko) * pr.k_total + kstep * BK + kv * 8;
      if (ko < pr.k && pr.vec_w) {
        const uint4 v = *reinterpret_cast<const uint4*>(pr.wpk + off);
        rb[i][0] = v.x; rb[i][1] = v.y; rb[i][2] = v.z; rb[i][3] = v.w;
      } else {
#pragma unroll
        for (int j = 0; j < 4; ++j)
          rb[i][j] = ko < pr.k ? std::uint32_t(pr.wpk[off + 2 * j]) |
                                     (std::uint32_t(pr.wpk[off + 2 * j + 1]) << 16)
                               : 0u;
      }
    }
  };

  auto store_tiles = [&](int buf) {
    std::uint16_t* as = smem + buf * (BM + BN) * LD;
    std::uint16_t* bs = as + BM * LD;
#pragma unroll
    for (int i = 0; i < A_IT; ++i)
      *reinterpret_cast<uint4*>(as + a_row[i] * LD + a_kv[i] * 8) =
          make_uint4(ra[i][0], ra[i][1], ra[i][2], ra[i][3]);
#pragma unroll
    for (int i = 0; i < B_IT; ++i) {
      const int idx = tid + i * NT;
      *reinterpret_cast<uint4*>(bs + (idx / KV) * LD + (idx % KV) * 8) =
          make_uint4(rb[i][0], rb[i][1], rb[i][2], rb[i][3]);
    }
  };

  float acc[AM][AN][8];
#pragma unroll
  for (int i = 0; i < AM; ++i)
#pragma unroll
    for (int j = 0; j < AN; ++j)
#pragma unroll
      for (int v = 0; v < 8; ++v) acc[i][j][v] = 0.f;

  const int nsteps = pr.k_total / BK;
  load_tiles(0);
  store_tiles(0);
  __syncthreads();
  for (int ks = 0; ks < nsteps; ++ks) {
    const bool more = ks + 1 < nsteps;
    if (more) load_tiles(ks + 1);  // global loads in flight while this step multiplies
    const std::uint16_t* as = smem + (ks & 1) * (BM + BN) * LD;
    const std::uint16_t* bs = as + BM * LD;
#pragma unroll
    for (int kk = 0; kk < BK; kk += 16) {
      typename Atom::AFrag af[AM];
      typename Atom::BFrag bf[AN];
#pragma unroll
      for (int i = 0; i < AM; ++i) Atom::load_a(af[i], as + (wm * Cfg.warp_m() + i * 16) * LD + kk, LD, lane);
#pragma unroll
      for (int j = 0; j < AN; ++j) Atom::load_b(bf[j], bs + (wn * Cfg.warp_n() + j * 16) * LD + kk, LD, lane);
#pragma unroll
      for (int i = 0; i < AM; ++i)
#pragma unroll
        for (int j = 0; j < AN; ++j) Atom::mma(acc[i][j], af[i], bf[j], lane);
    }
    if (more) store_tiles((ks + 1) & 1);  // the other buffer: last read before the previous barrier
    __syncthreads();
  }

  // Epilogue straight from the accumulators, through the atom's C map.
#pragma unroll
  for (int i = 0; i < AM; ++i) {
#pragma unroll
    for (int v = 0; v < 8; ++v) {
      const std::int64_t m = m_block + wm * Cfg.warp_m() + i * 16 + Atom::c_row(lane, v);
      if (m >= pr.m) continue;
      const std::int64_t img = m / pq;
      const std::int64_t rem = m - img * pq;
#pragma unroll
      for (int j = 0; j < AN; ++j) {
        const int ko = n_block + wn * Cfg.warp_n() + j * 16 + Atom::c_col(lane, v);
        if (ko >= pr.k) continue;
        const std::int64_t out = kNhwc ? m * pr.k + ko : (img * pr.k + ko) * pq + rem;
        epilogue_store(pr.epi, out, ko, acc[i][j][v]);
      }
    }
  }
}

/// Host launcher for one configuration; returns the launch error.
template <class Tiles, DType T, LayoutKind L, AtomKind AK>
inline rt::error_t launch_implicit_gemm(const GemmConvParams& pr, rt::stream_t stream) {
  constexpr TileConfig Cfg = Tiles::cfg;
  const dim3 grid(unsigned((pr.m + Cfg.block_m - 1) / Cfg.block_m),
                  unsigned((pr.k + Cfg.block_n - 1) / Cfg.block_n));
  implicit_gemm_conv<Tiles, T, L, AK><<<grid, Cfg.threads(), 0, stream>>>(pr);
  return rt::get_last_error();
}

inline rt::error_t launch_pack_general(const std::uint16_t* w, std::uint16_t* wpk,
                                       const GemmConvParams& g, rt::stream_t stream) {
  const std::int64_t total = std::int64_t(g.k) * g.k_total;
  const std::int64_t blocks = (total + 255) / 256;
  pack_general_weights<><<<unsigned(blocks < 65536 ? blocks : 65536), 256, 0, stream>>>(
      w, wpk, g.k, g.c, g.r, g.s, g.c_pad, g.k_total);
  return rt::get_last_error();
}

}  // namespace rdnaconv::kernels
