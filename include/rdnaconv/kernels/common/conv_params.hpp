// SPDX-License-Identifier: MIT
/// @file conv_params.hpp The parameter block of the shared implicit-GEMM engine.
#pragma once

#include <cstddef>
#include <cstdint>

#include "rdnaconv/epilogue.hpp"
#include "rdnaconv/kernels/common/layouts.hpp"
#include "rdnaconv/problem.hpp"

namespace rdnaconv::kernels {

/// Everything a launch of the engine needs, with the 32-bit per-dimension sizes it indexes with
/// (validation guarantees each dimension < 2^31; offsets across tensors are 64-bit).
struct ConvGemmParams {
  int n, c, h, w, k, r, s, p, q;
  int stride_h, stride_w, dil_h, dil_w, pad_top, pad_left;
  int c_pad;                 ///< channels per tap in the packed reduction
  int k_total;               ///< packed reduction length, a multiple of block_k
  std::int64_t m;            ///< GEMM rows: N*P*Q output pixels, or Winograd tiles
  int n_blocks;              ///< block columns (set by the launcher)
  const std::uint16_t* x;    ///< the A source: input, its NCHWc repack, or Winograd V
  const std::uint16_t* wpk;  ///< packed B rows [k][k_total] (16-byte aligned)
  EpilogueParams epi;
  bool vec_x;  ///< A vectors may be read as aligned 16-byte loads (layout, C % 8, alignment)
  // Batched GEMM (Winograd): blockIdx.y selects the batch.
  std::int64_t a_batch_stride, b_batch_stride, out_batch_stride;
};

inline ConvGemmParams make_conv_params(const Conv2dProblem& p, const ReductionLayout& l) {
  ConvGemmParams g{};
  g.n = int(p.n);
  g.c = int(p.c);
  g.h = int(p.h);
  g.w = int(p.w);
  g.k = int(p.k);
  g.r = int(p.r);
  g.s = int(p.s);
  g.p = int(p.p());
  g.q = int(p.q());
  g.stride_h = int(p.stride_h);
  g.stride_w = int(p.stride_w);
  g.dil_h = int(p.dil_h);
  g.dil_w = int(p.dil_w);
  g.pad_top = int(p.pad_top);
  g.pad_left = int(p.pad_left);
  g.c_pad = int(l.c_pad);
  g.k_total = int(l.k_total);
  g.m = p.gemm_m();
  return g;
}

}  // namespace rdnaconv::kernels
