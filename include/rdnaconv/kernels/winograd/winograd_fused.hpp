// SPDX-License-Identifier: MIT
/// @file winograd_fused.hpp Winograd F(4x4, 3x3), fused variant: the 36 GEMMs of one block tile
/// (32 tiles x 32 filters) run back to back through one shared-memory pipeline, and the output
/// transform is accumulated on the fly, so M is never stored:
///   for each column b of the 6x6 transform domain:
///     for each row a:   M = Σ_c V[a,b][tile][c] U[a,b][k][c]     (the engine's main loop)
///                       T[i] += Aᵀ[i][a] M                       (column transform, i < 4)
///     Y[i][j] += T[i] Aᵀ[j][b]                                     (row transform, j < 4)
/// then bias, activation and the output type, written in the user's layout. Per lane that is
/// 8 (M) + 32 (T) + 128 (Y) fp32 accumulators for a 16x16 warp tile, which is why the warp tile
/// is one atom and the block 2x2 warps (tiles.hpp, winograd_fused row).
/// V and U are the unfused variant's (winograd.hpp: same transforms, layouts and fp16 scaling);
/// the workspace has no M.
#pragma once

#include <cstdint>

#include "rdnaconv/arch/atoms.hpp"
#include "rdnaconv/arch/static_for.hpp"
#include "rdnaconv/epilogue.hpp"
#include "rdnaconv/kernels/common/engine.hpp"
#include "rdnaconv/kernels/winograd/winograd.hpp"

namespace rdnaconv::kernels {

namespace winograd {
/// Aᵀ[i][a] for F(4x4, 3x3), points 0, 1, -1, 2, -2, ∞: x_a^i for a < 5; column 5 is (0,0,0,1).
/// (Selects, not a table: a run-time index into a local array would live in scratch memory.)
RDNACONV_HD constexpr float at_coef(int i, int a) {
  if (a == 5) return i == 3 ? 1.f : 0.f;
  const float x = a == 0 ? 0.f : a == 1 ? 1.f : a == 2 ? -1.f : a == 3 ? 2.f : -2.f;
  float v = 1.f;
  for (int e = 0; e < i; ++e) v *= x;
  return v;
}

/// Dense operand of the fused GEMM: rows of V (or U) for one block; step s of the 36 x nc
/// sequence reads transform element α(s) at channel step s % nc, where the sequence walks the
/// transform domain column by column (b outer, a inner).
template <class Tiles, int Rows>
struct FusedIter : DenseIter<Tiles, Rows> {
  std::int64_t alpha_stride;
  int nc;
  RDNACONV_DEVICE FusedIter(const std::uint16_t* first_row, std::int64_t ld, std::int64_t rows_left,
                            int tid_, std::int64_t alpha_stride_, int nc_)
      : DenseIter<Tiles, Rows>(first_row, ld, rows_left, tid_),
        alpha_stride(alpha_stride_),
        nc(nc_) {}
  RDNACONV_DEVICE void step(int s) {
    const int q = s / nc;
    const int a = q % 6, b = q / 6;
    this->kofs = (a * 6 + b) * alpha_stride + std::int64_t(s - q * nc) * Tiles::cfg.block_k;
  }
};
}  // namespace winograd

/// One block: 32 tiles x 32 filters (tiles.hpp); grid = 1-D raster, filters fastest.
template <class Tiles, DType T, AtomKind AK, LayoutKind OutL>
__global__ void __launch_bounds__(Tiles::cfg.threads())
    winograd_fused(const RDNACONV_GRID_CONSTANT WinogradParams wp,
                   const std::uint16_t* __restrict__ u, int n_blocks) {
  constexpr TileConfig Cfg = Tiles::cfg;
  static_assert(Cfg.warp_m() == 16 && Cfg.warp_n() == 16,
                "one atom per warp: the accumulators need the registers");
  using Atom = arch::atom_t<AK, T>;
  using It = winograd::FusedIter<Tiles, Cfg.block_m>;
  using ItB = winograd::FusedIter<Tiles, Cfg.block_n>;

  extern __shared__ __align__(1024) uint4 smem_words[];
  std::uint16_t* smem = reinterpret_cast<std::uint16_t*>(smem_words);

  const engine::BlockCoords bc = engine::block_coords<Cfg>(n_blocks);
  const int tid = bc.tid, lane = bc.lane, wm = bc.wm, wn = bc.wn;
  const std::int64_t m_block = bc.m_block;
  const int n_block = bc.n_block;
  const int nc = wp.c_pad / Cfg.block_k;

  It a(wp.v + m_block * wp.c_pad, wp.c_pad, wp.tiles - m_block, tid, wp.tiles * wp.c_pad, nc);
  ItB b(u + std::int64_t(n_block) * wp.c_pad, wp.c_pad, wp.k - n_block, tid,
        std::int64_t(wp.k) * wp.c_pad, nc);

  float m[1][1][8];
  float t[4][8];
  float y[4][4][8];
#pragma unroll
  for (int v = 0; v < 8; ++v) {
    m[0][0][v] = 0.f;
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      t[i][v] = 0.f;
#pragma unroll
      for (int j = 0; j < 4; ++j) y[i][j][v] = 0.f;
    }
  }

  // after the last channel step of each transform element: fold M into T, and T into Y at the
  // end of a column
  auto fold = [&](int s, float(&acc)[1][1][8]) {
    if ((s + 1) % nc != 0) return;
    const int q = s / nc;
    const int ea = q % 6, eb = q / 6;
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const float c = winograd::at_coef(i, ea);
#pragma unroll
      for (int v = 0; v < 8; ++v) t[i][v] += c * acc[0][0][v];
    }
#pragma unroll
    for (int v = 0; v < 8; ++v) acc[0][0][v] = 0.f;
    if (ea == 5) {
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const float c = winograd::at_coef(j, eb);
#pragma unroll
        for (int i = 0; i < 4; ++i)
#pragma unroll
          for (int v = 0; v < 8; ++v) y[i][j][v] += t[i][v] * c;
      }
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int v = 0; v < 8; ++v) t[i][v] = 0.f;
    }
  };
  engine::mainloop<Cfg, Atom>(a, b, 36 * nc, smem, m, wm, wn, lane, fold);

  // epilogue: each lane owns 8 (tile, filter) pairs through the atom's C map, 16 outputs each.
  // static_for, not #pragma unroll: with the residual and six activations in each output the
  // unrolled loop passes clang's pragma threshold, stays a loop, and y goes to scratch.
  static_for<8>([&](auto vc) RDNACONV_INLINE_LAMBDA {
    constexpr int v = decltype(vc)::value;
    const std::int64_t tile = m_block + wm * 16 + Atom::c_row(lane, v);
    const int ko = n_block + wn * 16 + Atom::c_col(lane, v);
    if (tile >= wp.tiles || ko >= wp.k) return;
    const winograd::TileOrigin to = winograd::tile_origin(wp, tile);
    const float bias = load_bias(wp.epi.bias, wp.epi.bias_type, ko);
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const float row[4] = {y[i][0][v], y[i][1][v], y[i][2][v], y[i][3][v]};
      winograd::store_row<OutL>(wp, to, i, ko, bias, row);
    }
  });
}

template <class Tiles, DType T, AtomKind AK, LayoutKind OutL>
inline rt::error_t launch_winograd_fused(const WinogradParams& wp, const std::uint16_t* u,
                                         rt::stream_t stream) {
  constexpr TileConfig Cfg = Tiles::cfg;
  const int n_blocks = int(ceil_div(wp.k, Cfg.block_n));
  const std::int64_t blocks = ceil_div(wp.tiles, Cfg.block_m) * n_blocks;
  if (blocks > INT_MAX) return rt::invalid_value;  // plan creation rejects such problems first
  detail::note_launch([] { return std::string("winograd_fused"); });
  detail::note_tile(Cfg);
  auto* kernel = &winograd_fused<Tiles, T, AK, OutL>;
  if constexpr (Cfg.lds_bytes() > 48 * 1024)
    if (rt::error_t e = rt::set_max_dynamic_smem(kernel, Cfg.lds_bytes()); e != rt::success)
      return e;
  kernel<<<unsigned(blocks), Cfg.threads(), Cfg.lds_bytes(), stream>>>(wp, u, n_blocks);
  return rt::get_last_error();
}

}  // namespace rdnaconv::kernels
