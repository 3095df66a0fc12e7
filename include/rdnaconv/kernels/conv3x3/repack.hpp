// SPDX-License-Identifier: MIT
/// @file repack.hpp NCHW -> NCHWc repack (cb = the tile's block_k), run on every call of the
/// channel-blocked 3x3 variant and of Winograd on NCHW, into the plan's workspace:
///   xc[((n*CB + cb)*H*W + pixel)*BK + ci] = x[n][cb*BK + ci][pixel], zeros for channels >= C.
#pragma once

#include <cstdint>

#include "rdnaconv/arch/platform.hpp"
#include "rdnaconv/detail/launch_log.hpp"

namespace rdnaconv::kernels {

/// One thread per 8-channel vector of one pixel, the vector index fastest: the 16-byte stores
/// of a warp are contiguous; each of the 8 loads of a warp touches 8 pixels x 4 channels.
template <int BK>
__global__ void repack_nchwc(const std::uint16_t* __restrict__ x, std::uint16_t* __restrict__ xc,
                             int n, int c, int c_pad, std::int64_t hw) {
  constexpr int KV = BK / 8;
  const std::int64_t total = std::int64_t(n) * (c_pad / 8) * hw;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    const int kv = int(i % KV);
    const std::int64_t rest = i / KV;  // (n, cb, pixel)
    const std::int64_t pix = rest % hw;
    const std::int64_t ncb = rest / hw;
    const int cb = int(ncb % (c_pad / BK));
    const std::int64_t img = ncb / (c_pad / BK);
    const int c0 = cb * BK + kv * 8;
    std::uint32_t wv[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const int ca = c0 + 2 * j, cb2 = ca + 1;
      const std::uint16_t lo = ca < c ? x[(img * c + ca) * hw + pix] : std::uint16_t(0);
      const std::uint16_t hi = cb2 < c ? x[(img * c + cb2) * hw + pix] : std::uint16_t(0);
      wv[j] = std::uint32_t(lo) | (std::uint32_t(hi) << 16);
    }
    *reinterpret_cast<uint4*>(xc + i * 8) = make_uint4(wv[0], wv[1], wv[2], wv[3]);
  }
}

template <int BK>
inline rt::error_t launch_repack_nchwc(const std::uint16_t* x, std::uint16_t* xc, int n, int c,
                                       int c_pad, std::int64_t hw, rt::stream_t stream) {
  detail::note_launch([] { return std::string("repack_nchwc"); });
  const std::int64_t total = std::int64_t(n) * (c_pad / 8) * hw;
  const std::int64_t blocks = (total + 255) / 256;
  repack_nchwc<BK>
      <<<unsigned(blocks < 65536 ? blocks : 65536), 256, 0, stream>>>(x, xc, n, c, c_pad, hw);
  return rt::get_last_error();
}

}  // namespace rdnaconv::kernels
