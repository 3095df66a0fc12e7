// SPDX-License-Identifier: MIT
/// @file winograd.hpp Winograd F(4x4, 3x3) transforms. Y = Aᵀ [ (G g Gᵀ) ⊙ (Bᵀ d B) ] A per 6x6
/// input patch d (stride 4) and 3x3 filter g, with the interpolation points 0, ±1, ±2, ∞
/// (derivation and error analysis in docs/DESIGN.md). The 36 element-wise products summed over
/// C are 36 independent GEMMs, run by the engine (engine.hpp) as one batched launch:
///   M[α][tile][k] = Σ_c V[α][tile][c] U[α][k][c].
/// All transform arithmetic is fp32; U and V are stored in T because the matrix atoms take T.
#pragma once

#include <cstdint>

#include "rdnaconv/arch/convert.hpp"
#include "rdnaconv/arch/platform.hpp"
#include "rdnaconv/detail/launch_log.hpp"
#include "rdnaconv/epilogue.hpp"
#include "rdnaconv/kernels/common/iterators.hpp"

namespace rdnaconv::kernels {

/// fp16 has a narrow range: |Bᵀ d B| reaches 100 |d|, so V is stored scaled by 1/16 and U by
/// 16 (exact powers of two; the product is unchanged). V then overflows only for |x| > 10480
/// and U for |w| > 4094 (docs/DESIGN.md). bf16 has fp32's range and needs no scaling.
template <DType T>
inline constexpr float kWinogradVScale = T == DType::f16 ? 1.f / 16.f : 1.f;

namespace winograd {
/// Applies a column transform f (6 values in, N out) to each of the 6 columns of m.
template <int N, class F>
RDNACONV_HD inline void transform_columns(const float (&m)[6][6], float (&out)[N][6], F f) {
#pragma unroll
  for (int b = 0; b < 6; ++b) {
    const float col[6] = {m[0][b], m[1][b], m[2][b], m[3][b], m[4][b], m[5][b]};
    float o[N];
    f(col, o);
#pragma unroll
    for (int r = 0; r < N; ++r) out[r][b] = o[r];
  }
}

/// G g for one column g of 3 taps: 6 values.
RDNACONV_HD inline void g_col(const float (&g)[3], float (&o)[6]) {
  o[0] = 0.25f * g[0];
  o[1] = -(g[0] + g[1] + g[2]) * (1.f / 6.f);
  o[2] = -(g[0] - g[1] + g[2]) * (1.f / 6.f);
  o[3] = g[0] * (1.f / 24.f) + g[1] * (1.f / 12.f) + g[2] * (1.f / 6.f);
  o[4] = g[0] * (1.f / 24.f) - g[1] * (1.f / 12.f) + g[2] * (1.f / 6.f);
  o[5] = g[2];
}
/// Bᵀ v for one column of 6 inputs.
RDNACONV_HD inline void bt_col(const float (&v)[6], float (&o)[6]) {
  o[0] = 4.f * v[0] - 5.f * v[2] + v[4];
  o[1] = -4.f * (v[1] + v[2]) + v[3] + v[4];
  o[2] = 4.f * (v[1] - v[2]) - v[3] + v[4];
  o[3] = 2.f * (v[3] - v[1]) - v[2] + v[4];
  o[4] = 2.f * (v[1] - v[3]) - v[2] + v[4];
  o[5] = 4.f * v[1] - 5.f * v[3] + v[5];
}
/// Aᵀ m for one column of 6 products.
RDNACONV_HD inline void at_col(const float (&m)[6], float (&o)[4]) {
  const float s12 = m[1] + m[2], d12 = m[1] - m[2], s34 = m[3] + m[4], d34 = m[3] - m[4];
  o[0] = m[0] + s12 + s34;
  o[1] = d12 + 2.f * d34;
  o[2] = s12 + 4.f * s34;
  o[3] = d12 + 8.f * d34 + m[5];
}
}  // namespace winograd

/// U[α][k][c] = (G g Gᵀ)[α] * 16 (fp16) for c < C, zeros up to c_pad. One thread per (k, c).
template <DType T>
__global__ void winograd_filter_transform(const std::uint16_t* __restrict__ w,
                                          std::uint16_t* __restrict__ u, int k, int c, int c_pad) {
  const std::int64_t total = std::int64_t(k) * c_pad;
  const std::int64_t slice = total;  // elements per α
  const float scale = 1.f / kWinogradVScale<T>;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t ko = i / c_pad;
    const int ci = int(i - ko * c_pad);
    float g[3][3] = {};
    if (ci < c)
      for (int r = 0; r < 3; ++r)
        for (int s = 0; s < 3; ++s) g[r][s] = arch::to_float<T>(w[((ko * c + ci) * 3 + r) * 3 + s]);
    float t[6][3];  // G g: columns s
    for (int s = 0; s < 3; ++s) {
      const float col[3] = {g[0][s], g[1][s], g[2][s]};
      float o[6];
      winograd::g_col(col, o);
      for (int a = 0; a < 6; ++a) t[a][s] = o[a];
    }
    for (int a = 0; a < 6; ++a) {
      const float row[3] = {t[a][0], t[a][1], t[a][2]};
      float o[6];
      winograd::g_col(row, o);  // (G g) Gᵀ: the row transformed by G
      for (int b = 0; b < 6; ++b) u[(a * 6 + b) * slice + i] = arch::from_float<T>(o[b] * scale);
    }
  }
}

/// Parameters of the input and output transforms.
struct WinogradParams : ConvDims {
  int c_pad;
  int tiles_h, tiles_w;
  std::int64_t tiles;
  const std::uint16_t* x;  // NHWC input, or its NCHWc repack (cb = BK)
  std::uint16_t* v;        // [36][tiles][c_pad]
  float* m;                // [36][tiles][K]
  EpilogueParams epi;
};

namespace winograd {
/// Output tile t = (image, tile row, tile column); its outputs start at (4 ty, 4 tx).
struct TileOrigin {
  std::int64_t img;
  int oh0, ow0;
};
RDNACONV_HD inline TileOrigin tile_origin(const WinogradParams& wp, std::int64_t t) {
  const std::int64_t per_img = std::int64_t(wp.tiles_h) * wp.tiles_w;
  const std::int64_t img = t / per_img;
  const int rem = int(t - img * per_img);
  const int ty = rem / wp.tiles_w;
  return {img, ty * 4, (rem - ty * wp.tiles_w) * 4};
}

/// Stores row i of a 4x4 output tile of filter ko: act(alpha y + bias + beta z), outputs past
/// P, Q skipped. An output whose 3x3 window lies wholly in the padding is act(bias + beta z)
/// exactly, as every direct
/// method gives it: the transforms would leave there the rounding error of the tile's other
/// inputs (the 6x6 patch reaches up to 5 pixels away), which for bf16 is of the order of the
/// outputs themselves (README.md, "Padding beyond the filter's reach").
template <LayoutKind OutL>
RDNACONV_DEVICE RDNACONV_FORCEINLINE void store_row(const WinogradParams& wp, const TileOrigin& to,
                                                    int i, int ko, float bias,
                                                    const float (&y)[4]) {
  const int oh = to.oh0 + i;
  if (oh >= wp.p) return;
  const int ih = oh - wp.pad_top;
  const bool row_in = ih > -3 && ih < wp.h;
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    const int ow = to.ow0 + j;
    if (ow >= wp.q) break;
    const int iw = ow - wp.pad_left;
    const bool in = row_in && iw > -3 && iw < wp.w;
    const std::int64_t out = OutL == LayoutKind::nhwc
                                 ? ((to.img * wp.p + oh) * std::int64_t(wp.q) + ow) * wp.k + ko
                                 : ((to.img * wp.k + ko) * std::int64_t(wp.p) + oh) * wp.q + ow;
    store_out(wp.epi.y, wp.epi.out_type, out, epilogue_apply(wp.epi, out, bias, in ? y[j] : 0.f));
  }
}
}  // namespace winograd

/// V[α][tile][c] = (Bᵀ d B)[α] / 16 (fp16) from the 6x6 patch d of channel c. One thread per
/// (tile, c), c fastest, so both the patch loads and the 36 stores of a warp are contiguous.
template <DType T, InLayout IL, int BK>
__global__ void winograd_input_transform(const RDNACONV_GRID_CONSTANT WinogradParams wp) {
  const std::int64_t total = wp.tiles * wp.c_pad;
  const std::int64_t hw = std::int64_t(wp.h) * wp.w;
  const float scale = kWinogradVScale<T>;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t t = i / wp.c_pad;
    const int ci = int(i - t * wp.c_pad);
    const winograd::TileOrigin to = winograd::tile_origin(wp, t);
    const std::int64_t img = to.img;
    const int ih0 = to.oh0 - wp.pad_top, iw0 = to.ow0 - wp.pad_left;
    float d[6][6];
#pragma unroll
    for (int a = 0; a < 6; ++a)
#pragma unroll
      for (int b = 0; b < 6; ++b) {
        const int ih = ih0 + a, iw = iw0 + b;
        float v = 0.f;
        if (ih >= 0 && ih < wp.h && iw >= 0 && iw < wp.w && ci < wp.c) {
          const std::int64_t sp = std::int64_t(ih) * wp.w + iw;
          const std::int64_t off =
              IL == InLayout::nhwc ? (img * hw + sp) * wp.c + ci
                                   : img * wp.c_pad * hw + (ci / BK) * hw * BK + sp * BK + ci % BK;
          v = arch::to_float<T>(wp.x[off]);
        }
        d[a][b] = v;
      }
    float t1[6][6];  // Bᵀ d: columns b
    winograd::transform_columns(d, t1, winograd::bt_col);
    const std::int64_t slice = wp.tiles * wp.c_pad;
#pragma unroll
    for (int a = 0; a < 6; ++a) {
      float o[6];
      winograd::bt_col(t1[a], o);  // (Bᵀ d) B: the row transformed by Bᵀ
#pragma unroll
      for (int b = 0; b < 6; ++b) wp.v[(a * 6 + b) * slice + i] = arch::from_float<T>(o[b] * scale);
    }
  }
}

/// Y = Aᵀ M A for one (tile, k), k fastest (M loads and NHWC stores contiguous), with bias,
/// activation and the output type fused; outputs past P, Q are not written.
template <LayoutKind OutL>
__global__ void winograd_output_transform(const RDNACONV_GRID_CONSTANT WinogradParams wp) {
  const std::int64_t total = wp.tiles * wp.k;
  const std::int64_t slice = wp.tiles * wp.k;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t t = i / wp.k;
    const int ko = int(i - t * wp.k);
    float mv[6][6];
#pragma unroll
    for (int a = 0; a < 6; ++a)
#pragma unroll
      for (int b = 0; b < 6; ++b) mv[a][b] = wp.m[(a * 6 + b) * slice + i];
    float t1[4][6];  // Aᵀ M: columns b
    winograd::transform_columns(mv, t1, winograd::at_col);
    const winograd::TileOrigin to = winograd::tile_origin(wp, t);
    const float bias = load_bias(wp.epi.bias, wp.epi.bias_type, ko);
#pragma unroll
    for (int r = 0; r < 4; ++r) {
      float y[4];
      winograd::at_col(t1[r], y);
      winograd::store_row<OutL>(wp, to, r, ko, bias, y);
    }
  }
}

namespace winograd {
inline unsigned grid_for(std::int64_t total) {
  const std::int64_t blocks = (total + 255) / 256;
  return unsigned(blocks < 65536 ? blocks : 65536);
}
}  // namespace winograd

template <DType T>
inline rt::error_t launch_winograd_filter(const std::uint16_t* w, std::uint16_t* u, int k, int c,
                                          int c_pad, rt::stream_t stream) {
  detail::note_launch([] { return std::string("winograd_filter_transform"); });
  winograd_filter_transform<T>
      <<<winograd::grid_for(std::int64_t(k) * c_pad), 256, 0, stream>>>(w, u, k, c, c_pad);
  return rt::get_last_error();
}

template <DType T, InLayout IL, int BK>
inline rt::error_t launch_winograd_input(const WinogradParams& wp, rt::stream_t stream) {
  detail::note_launch([] { return std::string("winograd_input_transform"); });
  winograd_input_transform<T, IL, BK>
      <<<winograd::grid_for(wp.tiles * wp.c_pad), 256, 0, stream>>>(wp);
  return rt::get_last_error();
}

template <LayoutKind OutL>
inline rt::error_t launch_winograd_output(const WinogradParams& wp, rt::stream_t stream) {
  detail::note_launch([] { return std::string("winograd_output_transform"); });
  winograd_output_transform<OutL><<<winograd::grid_for(wp.tiles * wp.k), 256, 0, stream>>>(wp);
  return rt::get_last_error();
}

}  // namespace rdnaconv::kernels
