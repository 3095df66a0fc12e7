// SPDX-License-Identifier: MIT
/// @file conv_params.hpp The parameter block of the shared implicit-GEMM engine.
#pragma once

#include <cstddef>
#include <cstdint>

#include "rdnaconv/epilogue.hpp"
#include "rdnaconv/kernels/common/layouts.hpp"
#include "rdnaconv/problem.hpp"

namespace rdnaconv::kernels {

/// The problem's sizes as the kernels index them: 32-bit per dimension (validation keeps each
/// dimension < 2^31; offsets across tensors are 64-bit). Shared by the engine's parameter
/// block and Winograd's transforms; built by conv_dims() alone.
struct ConvDims {
  int n, c, h, w, k, r, s, p, q;
  int stride_h, stride_w, dil_h, dil_w, pad_top, pad_left;
};

constexpr ConvDims conv_dims(const Conv2dProblem& p) {
  return {int(p.n),        int(p.c),     int(p.h),     int(p.w),       int(p.k),
          int(p.r),        int(p.s),     int(p.p()),   int(p.q()),     int(p.stride_h),
          int(p.stride_w), int(p.dil_h), int(p.dil_w), int(p.pad_top), int(p.pad_left)};
}

/// Everything a launch of the engine needs: the problem's sizes, the GEMM view of its packed
/// reduction, the operands and the epilogue.
struct ConvGemmParams : ConvDims {
  int c_pad;    ///< channels per tap in the packed reduction
  int k_total;  ///< packed reduction length, a multiple of block_k
  /// What the padding reads; only the remap iterators (PadRemapTag) look at it. Here, in the
  /// alignment gap before `m`, so that no other member moves: the zeros kernels' code reads
  /// the block at the same offsets as before the field existed.
  PadMode pad_mode;
  std::int64_t m;            ///< GEMM rows: N*P*Q output pixels, or Winograd tiles
  int n_blocks;              ///< block columns (set by the launcher)
  const std::uint16_t* x;    ///< the A source: input, its NCHWc repack, or Winograd V
  const std::uint16_t* wpk;  ///< packed B rows [k][k_total] (16-byte aligned)
  EpilogueParams epi;
  bool vec_x;  ///< A vectors may be read as aligned 16-byte loads (layout, C % 8, alignment)
  // Batched GEMM (Winograd): blockIdx.y selects the batch.
  std::int64_t a_batch_stride, b_batch_stride, out_batch_stride;
};

/// The split-K engine kernel's parameters (conv_gemm_splitk; the plain kernel keeps its own
/// block): grid layer blockIdx.z = s runs reduction steps [s * split_steps, (s + 1) *
/// split_steps) (the last layer fewer) and writes its fp32 partial sums, through epi (f32, no
/// bias, no activation, no residual), at the output index + s * split_stride; splitk_reduce adds
/// the slices and applies the real epilogue.
struct SplitGemmParams : ConvGemmParams {
  int split_steps;
  std::int64_t split_stride;
};

/// The engine's parameter block of a direct convolution with packed reduction layout `l`
/// (operands, epilogue and n_blocks are the launcher's).
inline ConvGemmParams make_conv_params(const Conv2dProblem& p, const ReductionLayout& l) {
  ConvGemmParams g{};
  static_cast<ConvDims&>(g) = conv_dims(p);
  g.c_pad = int(l.c_pad);
  g.k_total = int(l.k_total);
  g.pad_mode = p.pad_mode;
  g.m = p.gemm_m();
  return g;
}

/// The engine's parameter block of a plain batched GEMM (Winograd's 36 products), batch b =
/// blockIdx.y: out[b] (rows x cols, fp32, row-major) = A[b] (rows x red) * B[b]^T (cols x red),
/// A, B and out each dense and batch after batch.
inline ConvGemmParams make_batched_gemm_params(std::int64_t rows, int cols, int red,
                                               const std::uint16_t* a, const std::uint16_t* b,
                                               float* out) {
  ConvGemmParams g{};
  g.k = cols;
  g.p = g.q = 1;
  g.c_pad = g.k_total = red;
  g.m = rows;
  g.x = a;
  g.wpk = b;
  g.epi.y = out;
  g.epi.out_type = DType::f32;
  g.a_batch_stride = rows * red;
  g.b_batch_stride = std::int64_t(cols) * red;
  g.out_batch_stride = rows * cols;
  return g;
}

}  // namespace rdnaconv::kernels
