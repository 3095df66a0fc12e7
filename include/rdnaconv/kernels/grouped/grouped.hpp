// SPDX-License-Identifier: MIT
/// @file grouped.hpp The grouped family's kernels (groups > 1), direct, fp32 accumulation, no
/// matrix atoms (README.md beside this file gives the roofline reasoning):
///   grouped_depthwise_nhwc  C/G = 1 on NHWC: 8 consecutive filters of one output pixel per
///                           thread, x in 16-byte vectors along C (channel multiplier 1, C % 8,
///                           x aligned) or element loads, the block's weights in shared memory;
///   grouped_depthwise_nchw  C/G = 1 on NCHW: one output per thread, threads along the output
///                           columns of a strip of rows of one (n, k) plane, the input rows the
///                           strip reads staged in shared memory (zeros for the padding);
///   grouped_direct          any C/G on either layout: 8 consecutive filters of one output
///                           pixel per thread, weights read as 16-byte vectors;
///   pack_grouped            OIHW [K][C/G][R][S] -> [R*S][C/G][K_pad] (grouped_desc.hpp).
/// Each convolution kernel takes `Remap`: false pads with zeros; true (the padding modes other
/// than zeros, GroupedParams::pad_mode) sends every input coordinate through pad_source, so all
/// taps read the input. A flag of the template, not of the launch: the zeros kernels' code is
/// what it was before the modes existed (a body shared through a force-inlined function changed
/// the NCHW depthwise kernel's sm_90a code; the flag in the template left it byte-identical).
/// Every kernel strides over its work (grid capped, 64-bit work indices and offsets), so any
/// tensor size within validation's limits runs in one launch.
#pragma once

#include <cstdint>

#include "rdnaconv/arch/convert.hpp"
#include "rdnaconv/arch/copy.hpp"
#include "rdnaconv/arch/platform.hpp"
#include "rdnaconv/detail/launch_log.hpp"
#include "rdnaconv/epilogue.hpp"
#include "rdnaconv/kernels/common/conv_params.hpp"
#include "rdnaconv/kernels/grouped/grouped_desc.hpp"

namespace rdnaconv::kernels {

/// What a grouped kernel reads: the problem's sizes, the group sizes, the geometry, operands.
struct GroupedParams : ConvDims {
  int cg, kg;  ///< channels and filters per group
  int k_pad, kv;
  int kvb, ppb, bq, bp, bpl, rows_in, cols_in;  ///< GroupedGeometry
  bool w_smem, staged;
  bool vec_x;  ///< NHWC x read in 16-byte vectors (C % 8 == 0, x 16-byte aligned, K == C)
  bool vec_y;  ///< NHWC y written in 16-byte vectors (16-bit output, K % 8 == 0, y aligned)
  /// What the padding reads; only the Remap kernels look at it. In the alignment gap before
  /// `work`, so that no other member moves (the zeros kernels read the same offsets).
  PadMode pad_mode;
  std::int64_t work;
  const std::uint16_t* x;
  const std::uint16_t* wpk;
  EpilogueParams epi;
};

namespace grouped {

/// The 8 16-bit words of a 16-byte vector, as floats.
template <DType T>
RDNACONV_DEVICE inline void unpack8(const uint4& v, float (&f)[8]) {
  const std::uint32_t w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    f[2 * i] = arch::to_float<T>(std::uint16_t(w[i] & 0xffffu));
    f[2 * i + 1] = arch::to_float<T>(std::uint16_t(w[i] >> 16));
  }
}

/// The epilogue of 8 consecutive filters k0..k0+7 (those below K) of one output pixel: output
/// k0 + j at y index y0 + j * k_stride (NHWC: 1, NCHW: P*Q), through epilogue.hpp as every
/// family applies it. `vec`: NHWC with a 16-bit output, K % 8 == 0 and y 16-byte aligned, so
/// the 8 outputs are one 16-byte store.
RDNACONV_DEVICE inline void store8(const EpilogueParams& e, std::int64_t y0, std::int64_t k_stride,
                                   int k0, int k, bool vec, const float (&acc)[8]) {
  if (vec) {
    std::uint32_t w[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const float lo = epilogue_value(e, y0 + 2 * i, k0 + 2 * i, acc[2 * i]);
      const float hi = epilogue_value(e, y0 + 2 * i + 1, k0 + 2 * i + 1, acc[2 * i + 1]);
      const std::uint16_t a =
          e.out_type == DType::bf16 ? arch::float_to_bf16(lo) : arch::float_to_f16(lo);
      const std::uint16_t b =
          e.out_type == DType::bf16 ? arch::float_to_bf16(hi) : arch::float_to_f16(hi);
      w[i] = std::uint32_t(a) | (std::uint32_t(b) << 16);
    }
    *reinterpret_cast<uint4*>(static_cast<std::uint16_t*>(e.y) + y0) =
        make_uint4(w[0], w[1], w[2], w[3]);
    return;
  }
#pragma unroll
  for (int j = 0; j < 8; ++j)
    if (k0 + j < k) {
      const std::int64_t yi = y0 + j * k_stride;
      store_out(e.y, e.out_type, yi, epilogue_value(e, yi, k0 + j, acc[j]));
    }
}

/// Output pixel m (n, p, q) of the N*P*Q pixels.
struct Pixel {
  std::int64_t n;
  int p, q;
};
RDNACONV_DEVICE inline Pixel pixel_of(const GroupedParams& g, std::int64_t m) {
  const std::int64_t pq = std::int64_t(g.p) * g.q;
  const std::int64_t n = m / pq;
  const int rest = int(m - n * pq);
  return {n, rest / g.q, rest - (rest / g.q) * g.q};
}

/// Calls f(r, s, ih, iw) for each filter tap (r, s) of output pixel px whose input (ih, iw) lies
/// inside the image: the padding adds nothing to the sum. Remap: (ih, iw) through pad_source
/// first, so under reflect / replicate / circular every tap reads an input pixel.
template <bool Remap, class F>
RDNACONV_DEVICE RDNACONV_FORCEINLINE void for_each_tap(const GroupedParams& g, const Pixel& px,
                                                       F&& f) {
  const int ih0 = px.p * g.stride_h - g.pad_top, iw0 = px.q * g.stride_w - g.pad_left;
  for (int r = 0; r < g.r; ++r) {
    int ih = ih0 + r * g.dil_h;
    if constexpr (Remap) ih = pad_source(ih, g.h, g.pad_mode);
    if (ih < 0 || ih >= g.h) continue;
    for (int s = 0; s < g.s; ++s) {
      int iw = iw0 + s * g.dil_w;
      if constexpr (Remap) iw = pad_source(iw, g.w, g.pad_mode);
      if (iw < 0 || iw >= g.w) continue;
      f(r, s, ih, iw);
    }
  }
}

}  // namespace grouped

/// Depthwise on NHWC. Work item = (slice of kvb filter vectors, block of ppb output pixels),
/// slice-major; thread t of the block: filter vector t % kvb of the slice, pixel t / kvb. The
/// slice's weights [R*S][kvb] 16-byte vectors are loaded into shared memory when the slice
/// changes (once per block for a grid as large as the work).
template <DType T, bool Remap>
__global__ void __launch_bounds__(kGroupedThreads)
    grouped_depthwise_nhwc(const RDNACONV_GRID_CONSTANT GroupedParams g) {
  extern __shared__ uint4 grouped_w_smem[];
  const int taps = g.r * g.s;
  const int tv = int(threadIdx.x) % g.kvb, tp = int(threadIdx.x) / g.kvb;
  const std::int64_t pix_blocks = (std::int64_t(g.n) * g.p * g.q + g.ppb - 1) / g.ppb;
  std::int64_t loaded = -1;
  for (std::int64_t item = blockIdx.x; item < g.work; item += gridDim.x) {
    const std::int64_t slice = item / pix_blocks;
    const std::int64_t pb = item - slice * pix_blocks;
    if (g.w_smem && slice != loaded) {  // block-uniform
      __syncthreads();                  // the previous slice's readers are done
      for (int i = int(threadIdx.x); i < taps * g.kvb; i += blockDim.x) {
        const int tap = i / g.kvb;
        const std::int64_t kvi = slice * g.kvb + (i - tap * g.kvb);
        grouped_w_smem[i] = kvi < g.kv
                                ? arch::load_global16(g.wpk + std::int64_t(tap) * g.k_pad + kvi * 8)
                                : make_uint4(0, 0, 0, 0);
      }
      __syncthreads();
      loaded = slice;
    }
    const std::int64_t kvi = slice * g.kvb + tv;
    const std::int64_t m = pb * g.ppb + tp;
    if (kvi >= g.kv || m >= std::int64_t(g.n) * g.p * g.q) continue;
    const int k0 = int(kvi) * 8;
    const grouped::Pixel px = grouped::pixel_of(g, m);
    float acc[8] = {0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f};
    int ch[8];  // the input channel of each filter: k / (K/G), as C/G = 1
#pragma unroll
    for (int j = 0; j < 8; ++j) ch[j] = (k0 + j < g.k ? k0 + j : g.k - 1) / g.kg;
    grouped::for_each_tap<Remap>(g, px, [&](int r, int s, int ih, int iw) RDNACONV_INLINE_LAMBDA {
      const int tap = r * g.s + s;
      float wf[8], xf[8];
      grouped::unpack8<T>(g.w_smem ? grouped_w_smem[tap * g.kvb + tv]
                                   : arch::load_global16(g.wpk + std::int64_t(tap) * g.k_pad + k0),
                          wf);
      const std::uint16_t* xp = g.x + ((px.n * g.h + ih) * g.w + iw) * g.c;
      if (g.vec_x) {
        grouped::unpack8<T>(arch::load_global16(xp + k0), xf);
      } else {
#pragma unroll
        for (int j = 0; j < 8; ++j) xf[j] = arch::to_float<T>(arch::load_global2(xp + ch[j]));
      }
#pragma unroll
      for (int j = 0; j < 8; ++j) acc[j] = fmaf(xf[j], wf[j], acc[j]);
    });
    grouped::store8(g.epi, m * g.k + k0, 1, k0, g.k, g.vec_y, acc);
  }
}

/// Depthwise on NHWC, the row window (README.md "Row window"; grouped_window_fits: K = C,
/// C % 8 == 0, x 16-byte aligned, an S x S filter, stride ST both ways, no dilation, zero
/// padding). Work item = (slice of kvb filter vectors, block of ppb runs), slice-major; a run is
/// PW consecutive output pixels of one row (the last run of a row may be shorter); thread t:
/// filter vector t % kvb of the slice, run t / kvb. Per filter row the thread loads the
/// (PW - 1) ST + S input vectors its PW pixels read, all issued before any is used (the plain
/// kernel issues one load per tap and waits on it), then does the row's S x PW vector products
/// from the registers. The slice's weights [S*S][kvb] sit in shared memory as in the plain
/// kernel.
template <DType T, int S, int ST>
__global__ void __launch_bounds__(kGroupedThreads)
    grouped_depthwise_window(const RDNACONV_GRID_CONSTANT GroupedParams g) {
  constexpr int PW = kGroupedWindowPixels;
  constexpr int SPAN = (PW - 1) * ST + S;  // input vectors of one filter row
  extern __shared__ uint4 grouped_w_smem[];
  const int tv = int(threadIdx.x) % g.kvb, tr = int(threadIdx.x) / g.kvb;
  const int runs_q = (g.q + PW - 1) / PW;  // runs per output row
  const std::int64_t runs = std::int64_t(g.n) * g.p * runs_q;
  const std::int64_t run_blocks = (runs + g.ppb - 1) / g.ppb;
  std::int64_t loaded = -1;
  for (std::int64_t item = blockIdx.x; item < g.work; item += gridDim.x) {
    const std::int64_t slice = item / run_blocks;
    const std::int64_t rb = item - slice * run_blocks;
    if (slice != loaded) {  // block-uniform
      __syncthreads();      // the previous slice's readers are done
      for (int i = int(threadIdx.x); i < S * S * g.kvb; i += blockDim.x) {
        const int tap = i / g.kvb;
        const std::int64_t kvi = slice * g.kvb + (i - tap * g.kvb);
        grouped_w_smem[i] = kvi < g.kv
                                ? arch::load_global16(g.wpk + std::int64_t(tap) * g.k_pad + kvi * 8)
                                : make_uint4(0, 0, 0, 0);
      }
      __syncthreads();
      loaded = slice;
    }
    const std::int64_t kvi = slice * g.kvb + tv;
    const std::int64_t run = rb * g.ppb + tr;
    if (kvi >= g.kv || run >= runs) continue;
    const int k0 = int(kvi) * 8;
    const std::int64_t row = run / runs_q;  // n * P + p
    const int q0 = int(run - row * runs_q) * PW;
    const std::int64_t n = row / g.p;
    const int op = int(row - n * g.p);
    const int ih0 = op * ST - g.pad_top, iw0 = q0 * ST - g.pad_left;
    const std::uint16_t* xn = g.x + n * g.h * std::int64_t(g.w) * g.c + k0;
    float acc[PW][8];
#pragma unroll
    for (int o = 0; o < PW; ++o)
#pragma unroll
      for (int j = 0; j < 8; ++j) acc[o][j] = 0.f;
#pragma unroll
    for (int r = 0; r < S; ++r) {
      const int ih = ih0 + r;
      if (ih < 0 || ih >= g.h) continue;  // the padding adds nothing
      const std::uint16_t* xr = xn + std::int64_t(ih) * g.w * g.c;
      uint4 xv[SPAN];
#pragma unroll
      for (int j = 0; j < SPAN; ++j) {
        const int iw = iw0 + j;
        xv[j] = iw >= 0 && iw < g.w ? arch::load_global16(xr + std::int64_t(iw) * g.c)
                                    : make_uint4(0, 0, 0, 0);
      }
#pragma unroll
      for (int s = 0; s < S; ++s) {
        float wf[8];
        grouped::unpack8<T>(grouped_w_smem[(r * S + s) * g.kvb + tv], wf);
#pragma unroll
        for (int o = 0; o < PW; ++o) {
          float xf[8];
          grouped::unpack8<T>(xv[o * ST + s], xf);
#pragma unroll
          for (int j = 0; j < 8; ++j) acc[o][j] = fmaf(xf[j], wf[j], acc[o][j]);
        }
      }
    }
#pragma unroll
    for (int o = 0; o < PW; ++o)
      if (q0 + o < g.q)
        grouped::store8(g.epi, (row * g.q + q0 + o) * g.k + k0, 1, k0, g.k, g.vec_y, acc[o]);
  }
}

/// Depthwise on NCHW. Work item = (group of bpl planes (n, k), strip of bp output rows, strip of
/// bq output columns); thread t: column t % bq, row (t / bq) % bp, plane t / (bq bp). Staged:
/// the block first copies the rows_in x cols_in input window of each plane into shared memory
/// (zeros outside the image; Remap: the pixels the padding mode reads), then every thread reads
/// its taps there without bounds checks.
template <DType T, bool Remap>
__global__ void __launch_bounds__(kGroupedThreads)
    grouped_depthwise_nchw(const RDNACONV_GRID_CONSTANT GroupedParams g) {
  extern __shared__ uint4 grouped_x_smem_words[];
  std::uint16_t* xs = reinterpret_cast<std::uint16_t*>(grouped_x_smem_words);
  const std::int64_t planes = std::int64_t(g.n) * g.k;
  const std::int64_t col_strips = (g.q + g.bq - 1) / g.bq;
  const std::int64_t row_strips = (g.p + g.bp - 1) / g.bp;
  const int tq = int(threadIdx.x) % g.bq;
  const int tp = (int(threadIdx.x) / g.bq) % g.bp;
  const int tl = int(threadIdx.x) / (g.bq * g.bp);
  const int win = g.rows_in * g.cols_in;
  for (std::int64_t item = blockIdx.x; item < g.work; item += gridDim.x) {
    const std::int64_t cs = item % col_strips;
    const std::int64_t rs = (item / col_strips) % row_strips;
    const std::int64_t pg = item / (col_strips * row_strips);
    const int p0 = int(rs) * g.bp, q0 = int(cs) * g.bq;
    const int ih0 = p0 * g.stride_h - g.pad_top, iw0 = q0 * g.stride_w - g.pad_left;
    if (g.staged) {
      __syncthreads();  // the previous item's readers are done
      for (int i = int(threadIdx.x); i < g.bpl * win; i += blockDim.x) {
        const int pl = i / win;
        const int rr = (i - pl * win) / g.cols_in;
        const int cc = i - pl * win - rr * g.cols_in;
        const std::int64_t plane = pg * g.bpl + pl;
        int ih = ih0 + rr, iw = iw0 + cc;
        if constexpr (Remap) {
          ih = pad_source(ih, g.h, g.pad_mode);
          iw = pad_source(iw, g.w, g.pad_mode);
        }
        std::uint16_t v = 0;
        if (plane < planes && ih >= 0 && ih < g.h && iw >= 0 && iw < g.w) {
          const std::int64_t n = plane / g.k;
          const int c = int(plane - n * g.k) / g.kg;
          v = arch::load_global2(g.x + ((n * g.c + c) * g.h + ih) * std::int64_t(g.w) + iw);
        }
        xs[i] = v;
      }
      __syncthreads();
    }
    const std::int64_t plane = pg * g.bpl + tl;
    const int op = p0 + tp, oq = q0 + tq;
    if (plane >= planes || op >= g.p || oq >= g.q) continue;
    const std::int64_t n = plane / g.k;
    const int k = int(plane - n * g.k);
    const std::uint16_t* wk = g.wpk + k;  // tap t at wk[t * k_pad]
    float acc = 0.f;
    if (g.staged) {
      const std::uint16_t* base = xs + tl * win + (tp * g.stride_h) * g.cols_in + tq * g.stride_w;
      for (int r = 0; r < g.r; ++r)
        for (int s = 0; s < g.s; ++s)
          acc = fmaf(
              arch::to_float<T>(base[r * g.dil_h * g.cols_in + s * g.dil_w]),
              arch::to_float<T>(arch::load_global2(wk + std::int64_t(r * g.s + s) * g.k_pad)), acc);
    } else {
      const std::uint16_t* xp = g.x + (n * g.c + k / g.kg) * g.h * std::int64_t(g.w);
      grouped::for_each_tap<Remap>(
          g, {n, op, oq}, [&](int r, int s, int ih, int iw) RDNACONV_INLINE_LAMBDA {
            acc = fmaf(
                arch::to_float<T>(arch::load_global2(xp + std::int64_t(ih) * g.w + iw)),
                arch::to_float<T>(arch::load_global2(wk + std::int64_t(r * g.s + s) * g.k_pad)),
                acc);
          });
    }
    const std::int64_t yi = ((n * g.k + k) * g.p + op) * std::int64_t(g.q) + oq;
    store_out(g.epi.y, g.epi.out_type, yi, epilogue_value(g.epi, yi, k, acc));
  }
}

/// Any C/G, either layout: thread = (output pixel, 8 consecutive filters). NHWC: the filter
/// vector fastest (a warp reads neighbouring channels of a pixel); NCHW: the pixel fastest (a
/// warp reads along W). Where the 8 filters share a group (K/G % 8 == 0, or the vector does not
/// cross a group's edge), each x value is loaded once for all 8.
template <DType T, LayoutKind L, bool Remap>
__global__ void __launch_bounds__(kGroupedThreads)
    grouped_direct(const RDNACONV_GRID_CONSTANT GroupedParams g) {
  const std::int64_t pq = std::int64_t(g.p) * g.q;
  const std::int64_t total = std::int64_t(g.n) * pq * g.kv;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    std::int64_t m;
    int kvi;
    if constexpr (L == LayoutKind::nhwc) {
      m = i / g.kv;
      kvi = int(i - m * g.kv);
    } else {
      const std::int64_t rest = i / pq;  // (n, kv)
      const std::int64_t n = rest / g.kv;
      kvi = int(rest - n * g.kv);
      m = n * pq + (i - rest * pq);
    }
    const grouped::Pixel px = grouped::pixel_of(g, m);
    const int k0 = kvi * 8;
    const int k_last = (k0 + 7 < g.k ? k0 + 7 : g.k - 1);
    int cb[8];  // first input channel of each filter's group
#pragma unroll
    for (int j = 0; j < 8; ++j) cb[j] = ((k0 + j <= k_last ? k0 + j : k_last) / g.kg) * g.cg;
    const bool one_group = cb[0] == cb[7];
    // x[n][c][ih][iw] = xn[c * cstride + ih * hstride + iw * wstride]
    const std::int64_t cstride = L == LayoutKind::nhwc ? 1 : std::int64_t(g.h) * g.w;
    const std::int64_t hstride = L == LayoutKind::nhwc ? std::int64_t(g.w) * g.c : g.w;
    const std::int64_t wstride = L == LayoutKind::nhwc ? g.c : 1;
    const std::uint16_t* xn = g.x + px.n * g.c * std::int64_t(g.h) * g.w;
    float acc[8] = {0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f};
    grouped::for_each_tap<Remap>(g, px, [&](int r, int s, int ih, int iw) RDNACONV_INLINE_LAMBDA {
      const std::uint16_t* xt = xn + ih * hstride + iw * wstride;
      const std::uint16_t* wt = g.wpk + std::int64_t(r * g.s + s) * g.cg * g.k_pad + k0;
      for (int ci = 0; ci < g.cg; ++ci) {
        float wf[8];
        grouped::unpack8<T>(arch::load_global16(wt + std::int64_t(ci) * g.k_pad), wf);
        if (one_group) {
          const float xv = arch::to_float<T>(arch::load_global2(xt + (cb[0] + ci) * cstride));
#pragma unroll
          for (int j = 0; j < 8; ++j) acc[j] = fmaf(xv, wf[j], acc[j]);
        } else {
#pragma unroll
          for (int j = 0; j < 8; ++j)
            acc[j] = fmaf(arch::to_float<T>(arch::load_global2(xt + (cb[j] + ci) * cstride)), wf[j],
                          acc[j]);
        }
      }
    });
    if constexpr (L == LayoutKind::nhwc)
      grouped::store8(g.epi, m * g.k + k0, 1, k0, g.k, g.vec_y, acc);
    else
      grouped::store8(g.epi, (px.n * g.k + k0) * pq + std::int64_t(px.p) * g.q + px.q, pq, k0, g.k,
                      false, acc);
  }
}

/// OIHW [K][C/G][R][S] -> [R*S][C/G][K_pad], zeros for k >= K.
template <int = 0>
__global__ void pack_grouped(const std::uint16_t* __restrict__ w, std::uint16_t* __restrict__ wpk,
                             int k, int cg, int r, int s, int k_pad) {
  const std::int64_t total = std::int64_t(r) * s * cg * k_pad;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t row = i / k_pad;  // (tap, ci)
    const int ko = int(i - row * k_pad);
    const int tap = int(row / cg), ci = int(row - std::int64_t(tap) * cg);
    wpk[i] =
        ko < k ? w[((std::int64_t(ko) * cg + ci) * r + tap / s) * s + tap % s] : std::uint16_t(0);
  }
}

/// The grid of a kernel striding over `items` blocks of work: at most 2^20 blocks (HIP counts a
/// grid in 32-bit threads).
inline unsigned grouped_grid(std::int64_t items) {
  const std::int64_t cap = std::int64_t(1) << 20;
  return unsigned(items < 1 ? 1 : items < cap ? items : cap);
}

inline rt::error_t launch_pack_grouped(const Conv2dProblem& p, const std::uint16_t* w,
                                       std::uint16_t* wpk, rt::stream_t stream) {
  detail::note_launch([] { return std::string("pack_grouped"); });
  const std::int64_t k_pad = round_up(p.k, 8);
  const std::int64_t total = p.r * p.s * p.c_per_group() * k_pad;
  pack_grouped<><<<grouped_grid((total + 255) / 256), 256, 0, stream>>>(
      w, wpk, int(p.k), int(p.c_per_group()), int(p.r), int(p.s), int(k_pad));
  return rt::get_last_error();
}

/// One convolution: the kernel the geometry names (grouped_geometry), noted in the launch log
/// by the branch that launches it, with the family's tile (GroupedFamily::tile_str).
/// window: the row-window kernel (Conv2dOptions::tile = window; the plan checked
/// grouped_window_fits and x_align 16).
template <DType T, LayoutKind L>
inline rt::error_t launch_grouped(const Conv2dProblem& p, const std::uint16_t* x,
                                  const std::uint16_t* wpk, const EpilogueParams& epi,
                                  rt::stream_t stream, bool window = false) {
  const GroupedGeometry geo = grouped_geometry(p, L, window);
  struct Tile {  // the launch log's tile: what describe() prints (GroupedFamily::tile_str)
    const Conv2dProblem& p;
    bool window;
    std::string str() const { return GroupedFamily::tile_str(p, L, window); }
  };
  GroupedParams g{};
  static_cast<ConvDims&>(g) = conv_dims(p);
  g.cg = int(p.c_per_group());
  g.kg = int(p.k_per_group());
  g.k_pad = geo.k_pad;
  g.kv = geo.kv;
  g.kvb = geo.kvb;
  g.ppb = geo.ppb;
  g.bq = geo.bq;
  g.bp = geo.bp;
  g.bpl = geo.bpl;
  g.rows_in = geo.rows_in;
  g.cols_in = geo.cols_in;
  g.w_smem = geo.w_smem;
  g.staged = geo.staged;
  const auto aligned16 = [](const void* v) {
    return reinterpret_cast<std::uintptr_t>(v) % 16 == 0;
  };
  g.vec_x = L == LayoutKind::nhwc && p.k == p.c && p.c % 8 == 0 && aligned16(x);
  g.vec_y = L == LayoutKind::nhwc && epi.out_type != DType::f32 && p.k % 8 == 0 && aligned16(epi.y);
  g.x = x;
  g.wpk = wpk;
  g.epi = epi;
  g.work = geo.work;
  g.pad_mode = p.pad_mode;
  const unsigned blocks = grouped_grid(geo.work);
  const std::size_t smem = std::size_t(geo.smem_bytes);
  // the Remap kernels for a padding mode other than zeros (launch log: "<layout remap>")
  const bool remap = p.pad_mode != PadMode::zeros;
  const std::string tag = std::string(to_string(L)) + (remap ? " remap>" : ">");
  if (!geo.depthwise) {
    detail::note_launch([&] { return "grouped_direct<" + tag; });
    detail::note_tile(Tile{p, false});
    auto* kernel = remap ? &grouped_direct<T, L, true> : &grouped_direct<T, L, false>;
    kernel<<<blocks, kGroupedThreads, 0, stream>>>(g);
  } else if constexpr (L == LayoutKind::nhwc) {
    if (geo.window) {
      detail::note_launch([] { return std::string("grouped_depthwise_window<nhwc>"); });
      detail::note_tile(Tile{p, true});
      const auto pick = [&p]() -> void (*)(GroupedParams) {
        const bool s2 = p.stride_w == 2;
        switch (p.s) {
          case 3:
            return s2 ? &grouped_depthwise_window<T, 3, 2> : &grouped_depthwise_window<T, 3, 1>;
          case 5:
            return s2 ? &grouped_depthwise_window<T, 5, 2> : &grouped_depthwise_window<T, 5, 1>;
          default:  // 7x7: stride 1 only (grouped_window_fits)
            return &grouped_depthwise_window<T, 7, 1>;
        }
      };
      pick()<<<blocks, kGroupedThreads, smem, stream>>>(g);
      return rt::get_last_error();
    }
    detail::note_launch([&] { return "grouped_depthwise<" + tag; });
    detail::note_tile(Tile{p, false});
    auto* kernel = remap ? &grouped_depthwise_nhwc<T, true> : &grouped_depthwise_nhwc<T, false>;
    kernel<<<blocks, kGroupedThreads, smem, stream>>>(g);
  } else {
    detail::note_launch([&] { return "grouped_depthwise<" + tag; });
    detail::note_tile(Tile{p, false});
    auto* kernel = remap ? &grouped_depthwise_nchw<T, true> : &grouped_depthwise_nchw<T, false>;
    kernel<<<blocks, unsigned(geo.threads), smem, stream>>>(g);
  }
  return rt::get_last_error();
}

}  // namespace rdnaconv::kernels
