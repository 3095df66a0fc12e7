// SPDX-License-Identifier: MIT
/// @file device_stats.cpp The reduction adapter: cub::DeviceReduce (CUDA) or rocprim::reduce
/// (HIP). Temporary storage is grown on demand and kept (the harness owns this object).
#include "common/device_stats.hpp"

#if defined(RDNACONV_BACKEND_CUDA)
#include <cub/device/device_reduce.cuh>
#else
#include <iostream>  // rocPRIM 5.3 device_reduce.hpp uses std::cout without including it
#include <rocprim/device/device_reduce.hpp>
#endif

namespace rdnaconv::testing {

DeviceReducer::~DeviceReducer() {
  if (temp_) (void)rt::free(temp_);
  if (out_) (void)rt::free(out_);
}

rt::error_t DeviceReducer::reserve(std::size_t bytes) {
  if (!out_)
    if (rt::error_t e = rt::malloc(&out_, 16); e != rt::success) return e;
  if (bytes <= temp_bytes_) return rt::success;
  if (temp_) (void)rt::free(temp_);
  temp_ = nullptr;
  temp_bytes_ = 0;
  if (rt::error_t e = rt::malloc(&temp_, bytes); e != rt::success) return e;
  temp_bytes_ = bytes;
  return rt::success;
}

namespace {
struct MaxOp {
  __host__ __device__ float operator()(float a, float b) const { return a > b ? a : b; }
};
struct SumOp {
  __host__ __device__ unsigned long long operator()(unsigned long long a,
                                                    unsigned long long b) const {
    return a + b;
  }
};

template <class T, class Op>
rt::error_t reduce(void*& temp, std::size_t& temp_bytes, DeviceReducer& self,
                   rt::error_t (DeviceReducer::*reserve)(std::size_t), const T* in, std::int64_t n,
                   T init, T* out, rt::stream_t stream) {
  std::size_t need = 0;
#if defined(RDNACONV_BACKEND_CUDA)
  if (auto e = cub::DeviceReduce::Reduce(nullptr, need, in, out, n, Op{}, init, stream);
      e != cudaSuccess)
    return e;
#else
  if (auto e = rocprim::reduce(nullptr, need, in, out, init, std::size_t(n), Op{}, stream);
      e != hipSuccess)
    return e;
#endif
  if (rt::error_t e = (self.*reserve)(need); e != rt::success) return e;
#if defined(RDNACONV_BACKEND_CUDA)
  return cub::DeviceReduce::Reduce(temp, temp_bytes, in, out, n, Op{}, init, stream);
#else
  return rocprim::reduce(temp, temp_bytes, in, out, init, std::size_t(n), Op{}, stream);
#endif
}
}  // namespace

rt::error_t DeviceReducer::max(const float* in, std::int64_t n, float* result,
                               rt::stream_t stream) {
  if (rt::error_t e = reserve(0); e != rt::success) return e;
  float* out = static_cast<float*>(out_);
  if (rt::error_t e = reduce<float, MaxOp>(temp_, temp_bytes_, *this, &DeviceReducer::reserve, in,
                                           n, -1.f, out, stream);
      e != rt::success)
    return e;
  if (rt::error_t e = rt::stream_synchronize(stream); e != rt::success) return e;
  return rt::memcpy_d2h(result, out, sizeof(float));
}

rt::error_t DeviceReducer::sum(const unsigned long long* in, std::int64_t n,
                               unsigned long long* result, rt::stream_t stream) {
  if (rt::error_t e = reserve(0); e != rt::success) return e;
  auto* out = static_cast<unsigned long long*>(out_);
  if (rt::error_t e = reduce<unsigned long long, SumOp>(
          temp_, temp_bytes_, *this, &DeviceReducer::reserve, in, n, 0ull, out, stream);
      e != rt::success)
    return e;
  if (rt::error_t e = rt::stream_synchronize(stream); e != rt::success) return e;
  return rt::memcpy_d2h(result, out, sizeof(unsigned long long));
}

}  // namespace rdnaconv::testing
