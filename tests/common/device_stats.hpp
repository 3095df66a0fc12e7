// SPDX-License-Identifier: MIT
/// @file device_stats.hpp Device-wide reductions of the harness's per-output error arrays, so
/// that model-size checks never copy outputs to the host: CUB on NVIDIA, rocPRIM on AMD,
/// behind one small adapter (device_stats.cpp, its own translation unit: Debian's rocPRIM 5.3
/// compiles for gfx1030 only under clang-19, so CI builds it for that target alone).
#pragma once

#include <cstddef>
#include <cstdint>

#include "rdnaconv/arch/platform.hpp"

namespace rdnaconv::testing {

class DeviceReducer {
 public:
  DeviceReducer() = default;
  DeviceReducer(const DeviceReducer&) = delete;
  DeviceReducer& operator=(const DeviceReducer&) = delete;
  ~DeviceReducer();
  /// max of n floats (n > 0), synchronously to the host.
  rt::error_t max(const float* in, std::int64_t n, float* result, rt::stream_t stream);
  /// sum of n counters, synchronously to the host.
  rt::error_t sum(const unsigned long long* in, std::int64_t n, unsigned long long* result,
                  rt::stream_t stream);

 private:
  rt::error_t reserve(std::size_t bytes);
  void* temp_ = nullptr;
  std::size_t temp_bytes_ = 0;
  void* out_ = nullptr;  // 8 bytes of device memory for the result
};

}  // namespace rdnaconv::testing
