// SPDX-License-Identifier: MIT
/// @file convert.hpp Device-side conversions between 16-bit storage words and float, using the
/// target's conversion instructions where it has them. Storage is always a raw 16-bit word.
#pragma once

#include <cstdint>

#include "rdnaconv/arch/macros.hpp"
#include "rdnaconv/arch/platform.hpp"
#include "rdnaconv/detail/numeric.hpp"
#include "rdnaconv/types.hpp"

namespace rdnaconv::arch {

RDNACONV_HD inline float f16_to_float(std::uint16_t b) {
#if defined(__CUDA_ARCH__)
  return __half2float(__ushort_as_half(b));
#elif defined(__HIP_DEVICE_COMPILE__)
  return float(__builtin_bit_cast(_Float16, b));
#else
  return detail::f16_to_float_soft(b);
#endif
}

RDNACONV_HD inline std::uint16_t float_to_f16(float f) {
#if defined(__CUDA_ARCH__)
  return __half_as_ushort(__float2half_rn(f));
#elif defined(__HIP_DEVICE_COMPILE__)
  return __builtin_bit_cast(std::uint16_t, _Float16(f));
#else
  return detail::float_to_f16_soft(f);
#endif
}

RDNACONV_HD inline float bf16_to_float(std::uint16_t b) {
  return detail::bf16_to_float_soft(b);
}
RDNACONV_HD inline std::uint16_t float_to_bf16(float f) {
  return detail::float_to_bf16_soft(f);
}

template <DType T>
RDNACONV_HD inline float to_float(std::uint16_t b) {
  if constexpr (T == DType::bf16)
    return bf16_to_float(b);
  else
    return f16_to_float(b);
}
template <DType T>
RDNACONV_HD inline std::uint16_t from_float(float f) {
  if constexpr (T == DType::bf16)
    return float_to_bf16(f);
  else
    return float_to_f16(f);
}

/// Lane `src` of the 32-lane group reads word v.
RDNACONV_DEVICE inline std::uint32_t shfl32(std::uint32_t v, int src) {
#if defined(RDNACONV_BACKEND_CUDA)
  return __shfl_sync(0xffffffffu, v, src, 32);
#else
  return static_cast<std::uint32_t>(__shfl(static_cast<int>(v), src, 32));
#endif
}

}  // namespace rdnaconv::arch
