// SPDX-License-Identifier: MIT
/// @file ceilings.hpp The ceilings of rdnaconv_bench's `ceiling/...` rows: what the GPU present
/// does at most, measured by the bench itself on the same device and in the same process as the
/// layer rows, so that each layer row can say which fraction of its ceiling it reaches.
///   - matrix instruction peaks, registers (or one shared tile) only, no memory traffic:
///     NVIDIA mma.sync.aligned.m16n8k16 (f16 or bf16 in, f32 accumulate; sm_80+), Hopper's
///     wgmma.mma_async m64n128k16 from shared memory (sm_90a builds on a 9.0 device only: the
///     library's arch/wgmma.hpp wrapper, the shape its engine issues), AMD's
///     v_wmma_f32_16x16x16_{f16,bf16} (gfx11 / gfx12 only: the library's atoms, arch/atoms.hpp).
///     Each warp (wave) runs several independent accumulator chains so the matrix pipe never
///     waits on one result; enough blocks to fill every SM (CU) several times. The sums of the
///     accumulators feed a store guarded by a runtime condition that never holds (the sum equals
///     a negative sentinel the host passes; every input is positive), so the compiler cannot drop
///     the work, and the store never happens.
///   - copy bandwidth: out = in, 16-byte loads and stores, four in flight per thread, over two
///     buffers of 32 x the L2 size each (clamped to [256 MiB, 1 GiB], at most a quarter of the
///     free memory each); bytes counted = read + written.
/// Only kernels and launchers live here; the bench times them like its layer rows (warm-up,
/// graph replay, the median of 7 timed batches: time_calls in bench_layers.cpp).
/// Status: compiled (nvcc sm_80, sm_90a; clang-19 HIP gfx1030/gfx1100/gfx1201), not yet run on a
/// GPU: there are no ceiling figures yet.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "rdnaconv/arch/atoms.hpp"
#include "rdnaconv/arch/device_query.hpp"
#include "rdnaconv/arch/platform.hpp"
#include "rdnaconv/arch/wgmma.hpp"

namespace rdnaconv::bench::ceil {

/// Which matrix instruction a peak kernel issues.
enum class Matrix { mma_sync, wgmma, wmma };

inline const char* to_string(Matrix m) {
  return m == Matrix::mma_sync ? "mma_sync" : m == Matrix::wgmma ? "wgmma" : "wmma";
}

/// Independent accumulator chains per warp (wave) of the register-only kernels.
inline constexpr int kChains = 8;
/// Threads per block of every ceiling kernel: 8 warps (waves of 32), or two warpgroups.
inline constexpr int kThreads = 256;
/// wgmma (m64n128k16, both operands from one 12 KiB shared tile: A 64 rows, B 128 rows, 32 k
/// each, the 64-byte swizzled layout of arch/wgmma.hpp) per commit group; two groups in flight.
inline constexpr int kWgmmaPerGroup = 8;

/// A 32-bit word of two 16-bit values in [1, 1.12): 1.0 (f16 0x3c00, bf16 0x3f80) with low
/// mantissa bits from `bits`. Positive and finite, so no sum of products is ever negative.
RDNACONV_HD inline std::uint32_t ones_word(bool bf16, std::uint32_t bits) {
  const std::uint32_t one = bf16 ? 0x3f803f80u : 0x3c003c00u;
  return one | (bits & 0x000f000fu);
}

#if defined(RDNACONV_BACKEND_CUDA)
/// One mma.sync.aligned.m16n8k16 (row.col, f32 accumulate): c += a x b.
template <bool Bf16>
RDNACONV_DEVICE inline void mma_m16n8k16(float (&c)[4], const std::uint32_t (&a)[4],
                                         const std::uint32_t (&b)[2]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if constexpr (Bf16)
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  else
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
  (void)c;
  (void)a;
  (void)b;
#endif
}

/// mma.sync peak: every warp runs kChains chains of `iters` m16n8k16 each.
template <bool Bf16>
__global__ void __launch_bounds__(kThreads) mma_sync_peak(float* sink, int iters, float never) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const std::uint32_t h = (threadIdx.x + 1) * 2654435761u;
  std::uint32_t a[4], b[2];
#pragma unroll
  for (int i = 0; i < 4; ++i) a[i] = ones_word(Bf16, h >> (4 * i));
#pragma unroll
  for (int i = 0; i < 2; ++i) b[i] = ones_word(Bf16, h >> (4 * i + 16));
  float c[kChains][4] = {};
#pragma unroll 2
  for (int it = 0; it < iters; ++it)
#pragma unroll
    for (int j = 0; j < kChains; ++j) mma_m16n8k16<Bf16>(c[j], a, b);
  float s = 0;
#pragma unroll
  for (int j = 0; j < kChains; ++j) s += c[j][0] + c[j][1] + c[j][2] + c[j][3];
  if (s == never) sink[blockIdx.x * blockDim.x + threadIdx.x] = s;
#else
  (void)sink;
  (void)iters;
  (void)never;
#endif
}

/// wgmma peak: each of the block's two warpgroups issues `iters` groups of kWgmmaPerGroup
/// m64n128k16 into its 64 x 128 accumulator (the hardware chains same-accumulator wgmma).
template <bool Bf16>
__global__ void __launch_bounds__(kThreads) wgmma_peak(float* sink, int iters, float never) {
#if defined(RDNACONV_WGMMA_ASM)
  __shared__ __align__(1024) std::uint16_t tile[(64 + 128) * 32];
  for (int i = threadIdx.x; i < (64 + 128) * 32; i += blockDim.x)
    tile[i] = std::uint16_t(ones_word(Bf16, std::uint32_t(i) * 40503u) & 0xffffu);
  arch::fence_proxy_async_smem();
  __syncthreads();
  const std::uint64_t da = arch::smem_desc_sw64(tile);
  const std::uint64_t db = arch::smem_desc_sw64(tile + 64 * 32);
  float d[8][8] = {};
  arch::fence_operands(d);
  arch::wgmma_fence();
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int k = 0; k < kWgmmaPerGroup; ++k) arch::wgmma_m64n128k16<Bf16, 8>(d, da, db);
    arch::wgmma_commit();
    arch::wgmma_wait<1>();
  }
  arch::wgmma_wait<0>();
  arch::fence_operands(d);
  float s = 0;
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) s += d[i][j];
  if (s == never) sink[blockIdx.x * blockDim.x + threadIdx.x] = s;
#else
  (void)sink;
  (void)iters;
  (void)never;
#endif
}
#endif  // RDNACONV_BACKEND_CUDA

#if defined(RDNACONV_BACKEND_HIP)
/// WMMA peak (wave32): every wave runs kChains chains of `iters` 16x16x16 WMMA each, through the
/// library's atoms. Empty on targets without WMMA (gfx1030): the bench never launches it there.
template <bool Bf16>
__global__ void __launch_bounds__(kThreads) wmma_peak(float* sink, int iters, float never) {
#if defined(__GFX11__) || defined(__GFX12__)
  constexpr DType T = Bf16 ? DType::bf16 : DType::f16;
#if defined(__GFX11__)
  using Atom = arch::WmmaGfx11<T>;
#else
  using Atom = arch::WmmaGfx12<T>;
#endif
  const int lane = int(threadIdx.x % 32);
  const std::uint32_t h = (threadIdx.x + 1) * 2654435761u;
  typename Atom::AFrag a;
  typename Atom::BFrag b;
  constexpr int kWords = int(sizeof(a.v) / sizeof(a.v[0]));
#pragma unroll
  for (int i = 0; i < kWords; ++i) {
    a.v[i] = ones_word(Bf16, h >> (i % 8));
    b.v[i] = ones_word(Bf16, h >> (i % 8 + 8));
  }
  float c[kChains][8] = {};
  for (int it = 0; it < iters; ++it)
#pragma unroll
    for (int j = 0; j < kChains; ++j) Atom::mma(c[j], a, b, lane);
  float s = 0;
#pragma unroll
  for (int j = 0; j < kChains; ++j)
#pragma unroll
    for (int v = 0; v < 8; ++v) s += c[j][v];
  if (s == never) sink[blockIdx.x * blockDim.x + threadIdx.x] = s;
#else
  (void)sink;
  (void)iters;
  (void)never;
#endif
}
#endif  // RDNACONV_BACKEND_HIP

/// out = in over n 16-byte words: grid-stride, four loads in flight per thread, then the stores.
__global__ void __launch_bounds__(kThreads)
    copy16(const uint4* __restrict__ in, uint4* __restrict__ out, std::size_t n) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + 3 * stride < n; i += 4 * stride) {
    const uint4 v0 = in[i], v1 = in[i + stride], v2 = in[i + 2 * stride], v3 = in[i + 3 * stride];
    out[i] = v0;
    out[i + stride] = v1;
    out[i + 2 * stride] = v2;
    out[i + 3 * stride] = v3;
  }
  for (; i < n; i += stride) out[i] = in[i];
}

// ---------------------------------------------------------------------------------------------
// Host side
// ---------------------------------------------------------------------------------------------

#define RDNACONV_CEIL_CHECK(expr)                                                                \
  do {                                                                                           \
    if (rt::error_t e_ = (expr); e_ != rt::success)                                              \
      throw std::runtime_error(std::string("ceilings: ") + #expr + ": " + rt::error_string(e_)); \
  } while (0)

/// What the ceilings need to know of the current device.
struct Device {
  DeviceInfo info;
  int sms = 0;               ///< SMs (CUDA) or compute units (HIP)
  std::size_t l2_bytes = 0;  ///< 0 where the runtime does not say
  std::size_t free_bytes = 0;
};

inline Device current_device() {
  Device d;
  int dev = 0;
  RDNACONV_CEIL_CHECK(rt::get_device(&dev));
  RDNACONV_CEIL_CHECK(arch::query_device(dev, d.info));
  int sms = 0, l2 = 0;
  std::size_t free_b = 0, total_b = 0;
#if defined(RDNACONV_BACKEND_CUDA)
  RDNACONV_CEIL_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  RDNACONV_CEIL_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
  RDNACONV_CEIL_CHECK(cudaMemGetInfo(&free_b, &total_b));
#else
  RDNACONV_CEIL_CHECK(hipDeviceGetAttribute(&sms, hipDeviceAttributeMultiprocessorCount, dev));
  RDNACONV_CEIL_CHECK(hipDeviceGetAttribute(&l2, hipDeviceAttributeL2CacheSize, dev));
  RDNACONV_CEIL_CHECK(hipMemGetInfo(&free_b, &total_b));
#endif
  d.sms = std::max(sms, 1);
  d.l2_bytes = std::size_t(std::max(l2, 0));
  d.free_bytes = free_b;
  return d;
}

/// True where this build and device have the matrix instruction: mma_sync on any NVIDIA device
/// the library runs on (sm_80+), wgmma where the library itself uses it (an sm_90a build on a
/// 9.0 device: ArchClass::sm90), wmma on gfx11 / gfx12.
inline bool has_matrix(Matrix m, const DeviceInfo& d) {
  switch (m) {
    case Matrix::mma_sync:
      return !d.amd && (d.family == ArchClass::sm80 || d.family == ArchClass::sm90);
    case Matrix::wgmma:
      return !d.amd && d.family == ArchClass::sm90;
    case Matrix::wmma:
      return d.amd && (d.family == ArchClass::rdna3 || d.family == ArchClass::rdna4);
  }
  return false;
}

/// The matrix peak that binds the library's kernels on this device: wgmma where the plan selects
/// the sm90 (wgmma) tiles, else mma_sync on NVIDIA, wmma on gfx11 / gfx12; false where there is
/// none (the FMA path of other AMD targets).
inline bool binding_matrix(const DeviceInfo& d, Matrix* out) {
  for (Matrix m : {Matrix::wgmma, Matrix::mma_sync, Matrix::wmma})
    if (has_matrix(m, d)) {
      *out = m;
      return true;
    }
  return false;
}

/// One matrix peak kernel, ready to launch on a stream: flops per launch and what it runs.
class MatrixPeak {
 public:
  MatrixPeak(Matrix m, bool bf16, const Device& d) : m_(m), bf16_(bf16) {
    if (!has_matrix(m, d.info))
      throw std::runtime_error(std::string("ceilings: no ") + to_string(m) + " on this device");
    RDNACONV_CEIL_CHECK(rt::malloc(&sink_, std::size_t(kThreads) * 4 * std::size_t(d.sms) * 8));
    const char* t = bf16 ? "bf16" : "f16";
    double per_instr = 0, instr_per_block = 0;
    switch (m) {
      case Matrix::mma_sync:  // 4 blocks of 8 warps per SM, kChains chains per warp
        blocks_ = 4 * d.sms;
        iters_ = 4096;
        per_instr = 2.0 * 16 * 8 * 16;
        instr_per_block = double(kThreads / 32) * kChains * iters_;
        what_ = std::string("mma.sync.aligned.m16n8k16.row.col.f32.") + t + "." + t +
                ".f32, registers only, " + std::to_string(kChains) + " chains x 8 warps x " +
                std::to_string(blocks_) + " blocks";
        break;
      case Matrix::wgmma:  // 2 blocks of 2 warpgroups per SM
        blocks_ = 2 * d.sms;
        iters_ = 1024;
        per_instr = 2.0 * 64 * 128 * 16;
        instr_per_block = 2.0 * kWgmmaPerGroup * iters_;
        what_ = std::string("wgmma.mma_async m64n128k16.f32.") + t + "." + t +
                ", A and B from shared memory, 2 warpgroups x " + std::to_string(blocks_) +
                " blocks, " + std::to_string(kWgmmaPerGroup) + " per commit group";
        break;
      case Matrix::wmma:  // 8 blocks of 8 waves per CU, kChains chains per wave
        blocks_ = 8 * d.sms;
        iters_ = 512;
        per_instr = 2.0 * 16 * 16 * 16;
        instr_per_block = double(kThreads / 32) * kChains * iters_;
        what_ = std::string("v_wmma_f32_16x16x16_") + t + " (wave32), registers only, " +
                std::to_string(kChains) + " chains x 8 waves x " + std::to_string(blocks_) +
                " blocks";
        break;
    }
    flops_ = per_instr * instr_per_block * blocks_;
  }
  ~MatrixPeak() { (void)rt::free(sink_); }
  MatrixPeak(const MatrixPeak&) = delete;
  MatrixPeak& operator=(const MatrixPeak&) = delete;

  double flops() const { return flops_; }
  const std::string& what() const { return what_; }

  /// Enqueues one launch on `s`; returns the launch's error.
  rt::error_t launch(rt::stream_t s) const {
    float* out = static_cast<float*>(sink_);
    constexpr float kNever = -1.f;  // every sum is positive: the guarded store never happens
    switch (m_) {
#if defined(RDNACONV_BACKEND_CUDA)
      case Matrix::mma_sync:
        if (bf16_)
          mma_sync_peak<true><<<blocks_, kThreads, 0, s>>>(out, iters_, kNever);
        else
          mma_sync_peak<false><<<blocks_, kThreads, 0, s>>>(out, iters_, kNever);
        break;
      case Matrix::wgmma:
        if (bf16_)
          wgmma_peak<true><<<blocks_, kThreads, 0, s>>>(out, iters_, kNever);
        else
          wgmma_peak<false><<<blocks_, kThreads, 0, s>>>(out, iters_, kNever);
        break;
#else
      case Matrix::wmma:
        if (bf16_)
          wmma_peak<true><<<blocks_, kThreads, 0, s>>>(out, iters_, kNever);
        else
          wmma_peak<false><<<blocks_, kThreads, 0, s>>>(out, iters_, kNever);
        break;
#endif
      default:
        return rt::invalid_value;
    }
    return rt::get_last_error();
  }

 private:
  Matrix m_;
  bool bf16_;
  void* sink_ = nullptr;
  int blocks_ = 0, iters_ = 0;
  double flops_ = 0;
  std::string what_;
};

/// The copy kernel on two device buffers, ready to launch: bytes per launch (read + written).
class CopyPeak {
 public:
  explicit CopyPeak(const Device& d) {
    constexpr std::size_t kMiB = std::size_t(1) << 20;
    std::size_t want = std::clamp<std::size_t>(32 * d.l2_bytes, 256 * kMiB, 1024 * kMiB);
    want = std::min(want, d.free_bytes / 4) / kMiB * kMiB;
    if (want < 64 * kMiB)
      throw std::runtime_error("ceilings: under 4 x 64 MiB of free device memory for the copy");
    bytes_ = want;
    RDNACONV_CEIL_CHECK(rt::malloc(&in_, bytes_));
    RDNACONV_CEIL_CHECK(rt::malloc(&out_, bytes_));
    RDNACONV_CEIL_CHECK(rt::memset(in_, 0x3c, bytes_));
    RDNACONV_CEIL_CHECK(rt::memset(out_, 0, bytes_));
    RDNACONV_CEIL_CHECK(rt::synchronize());
    blocks_ = 8 * d.sms;
    what_ = "out = in, 16-byte loads/stores, 2 x " + std::to_string(bytes_ / kMiB) + " MiB (L2 " +
            std::to_string(d.l2_bytes / kMiB) + " MiB), " + std::to_string(blocks_) +
            " blocks; bytes = read + written";
  }
  ~CopyPeak() {
    (void)rt::free(in_);
    (void)rt::free(out_);
  }
  CopyPeak(const CopyPeak&) = delete;
  CopyPeak& operator=(const CopyPeak&) = delete;

  double bytes() const { return 2.0 * double(bytes_); }
  const std::string& what() const { return what_; }
  rt::error_t launch(rt::stream_t s) const {
    copy16<<<blocks_, kThreads, 0, s>>>(static_cast<const uint4*>(in_), static_cast<uint4*>(out_),
                                        bytes_ / 16);
    return rt::get_last_error();
  }

 private:
  void* in_ = nullptr;
  void* out_ = nullptr;
  std::size_t bytes_ = 0;
  int blocks_ = 0;
  std::string what_;
};

#undef RDNACONV_CEIL_CHECK

}  // namespace rdnaconv::bench::ceil
