// SPDX-License-Identifier: MIT
/// @file repack1x1.hpp cblocked1x1's repack (gemm1x1_desc.hpp): for every output pixel of a 1x1
/// convolution, the input pixel its filter reads, channel-blocked (cb = the tile's block_k):
///   xc[((n*CB + cb)*P*Q + op*Q + oq)*BK + ci] = x[n][cb*BK + ci][ih][iw],
///   ih = pad_source(op*stride_h - pad_top), iw = pad_source(oq*stride_w - pad_left),
/// zeros for channels >= C and where the padding reads zeros. Run on every call into the plan's
/// workspace; the engine then runs the dense problem cblocked1x1_gemm_problem.
#pragma once

#include <cstdint>

#include "rdnaconv/arch/platform.hpp"
#include "rdnaconv/detail/launch_log.hpp"
#include "rdnaconv/problem.hpp"

namespace rdnaconv::kernels {

struct Repack1x1Params {
  const std::uint16_t* x;
  std::uint16_t* xc;
  std::int64_t n, c, c_pad, h, w, p, q;
  std::int64_t stride_h, stride_w, pad_top, pad_left;
  PadMode pad_mode;
};

/// One thread per 8-channel vector of one output pixel, the vector index fastest (as
/// repack_nchwc): a warp's 16-byte stores are contiguous.
template <int BK>
__global__ void repack_nchwc_1x1(const Repack1x1Params a) {
  constexpr int KV = BK / 8;
  const std::int64_t pq = a.p * a.q, hw = a.h * a.w, cbs = a.c_pad / BK;
  const std::int64_t total = a.n * (a.c_pad / 8) * pq;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    const int kv = int(i % KV);
    const std::int64_t rest = i / KV;  // (n, cb, output pixel)
    const std::int64_t pix = rest % pq;
    const std::int64_t ncb = rest / pq;
    const std::int64_t cb = ncb % cbs;
    const std::int64_t img = ncb / cbs;
    const std::int64_t op = pix / a.q, oq = pix - op * a.q;
    const std::int64_t ih = pad_source(op * a.stride_h - a.pad_top, a.h, a.pad_mode);
    const std::int64_t iw = pad_source(oq * a.stride_w - a.pad_left, a.w, a.pad_mode);
    const bool in = ih >= 0 && iw >= 0;  // pad_source: -1 where the padding reads zeros
    const std::int64_t c0 = cb * BK + kv * 8;
    const std::int64_t base = (img * a.c + c0) * hw + (in ? ih * a.w + iw : 0);
    std::uint32_t wv[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const std::int64_t ca = c0 + 2 * j;  // read only where ca < C: base may pass x's end
      const std::uint16_t lo = in && ca < a.c ? a.x[base + 2 * j * hw] : std::uint16_t(0);
      const std::uint16_t hi = in && ca + 1 < a.c ? a.x[base + (2 * j + 1) * hw] : std::uint16_t(0);
      wv[j] = std::uint32_t(lo) | (std::uint32_t(hi) << 16);
    }
    *reinterpret_cast<uint4*>(a.xc + i * 8) = make_uint4(wv[0], wv[1], wv[2], wv[3]);
  }
}

template <int BK>
inline rt::error_t launch_repack_nchwc_1x1(const Repack1x1Params& a, rt::stream_t stream) {
  detail::note_launch([] { return std::string("repack_nchwc_1x1"); });
  const std::int64_t total = a.n * (a.c_pad / 8) * a.p * a.q;
  const std::int64_t blocks = (total + 255) / 256;
  if (blocks == 0) return rt::success;  // unreachable: validation refuses empty outputs
  repack_nchwc_1x1<BK><<<unsigned(blocks < 65536 ? blocks : 65536), 256, 0, stream>>>(a);
  return rt::get_last_error();
}

}  // namespace rdnaconv::kernels
