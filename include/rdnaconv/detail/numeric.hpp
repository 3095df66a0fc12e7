// SPDX-License-Identifier: MIT
/// @file numeric.hpp Portable (bit-level) conversions between float and fp16/bf16 storage.
/// Used by the host reference and host tests; device code uses arch/convert.hpp, which may
/// call the target's instructions instead.
#pragma once

#include <cstdint>
#include <cstring>

#include "rdnaconv/arch/macros.hpp"
#include "rdnaconv/types.hpp"

namespace rdnaconv::detail {

RDNACONV_HD inline std::uint32_t float_bits(float f) {
  std::uint32_t u;
  __builtin_memcpy(&u, &f, 4);
  return u;
}
RDNACONV_HD inline float bits_float(std::uint32_t u) {
  float f;
  __builtin_memcpy(&f, &u, 4);
  return f;
}

RDNACONV_HD inline float bf16_to_float_soft(std::uint16_t b) {
  return bits_float(std::uint32_t(b) << 16);
}

/// Round to nearest even; NaN stays NaN (quiet).
RDNACONV_HD inline std::uint16_t float_to_bf16_soft(float f) {
  std::uint32_t u = float_bits(f);
  if ((u & 0x7f800000u) == 0x7f800000u && (u & 0x007fffffu)) return std::uint16_t((u >> 16) | 0x40);
  u += 0x7fffu + ((u >> 16) & 1u);
  return std::uint16_t(u >> 16);
}

RDNACONV_HD inline float f16_to_float_soft(std::uint16_t h) {
  const std::uint32_t sign = std::uint32_t(h & 0x8000u) << 16;
  std::uint32_t exp = (h >> 10) & 0x1fu;
  std::uint32_t man = h & 0x3ffu;
  if (exp == 0x1f) return bits_float(sign | 0x7f800000u | (man << 13));
  if (exp == 0) {
    if (man == 0) return bits_float(sign);
    // subnormal: value = man * 2^-24
    float v = float(man) * 5.9604644775390625e-8f;
    return sign ? -v : v;
  }
  return bits_float(sign | ((exp + 112u) << 23) | (man << 13));
}

/// Round to nearest even, with overflow to infinity and gradual underflow.
RDNACONV_HD inline std::uint16_t float_to_f16_soft(float f) {
  const std::uint32_t u = float_bits(f);
  const std::uint16_t sign = std::uint16_t((u >> 16) & 0x8000u);
  const std::uint32_t absu = u & 0x7fffffffu;
  if (absu >= 0x7f800000u)
    return std::uint16_t(sign | 0x7c00u | (absu > 0x7f800000u ? 0x200u : 0u));
  if (absu >= 0x477ff000u) return std::uint16_t(sign | 0x7c00u);  // >= 65520 rounds to inf
  if (absu < 0x38800000u) {                                       // below 2^-14: subnormal
    // value / 2^-24 rounded to nearest even integer
    const float a = bits_float(absu) * 16777216.0f;  // exact: a power-of-two scale
    std::uint32_t i = std::uint32_t(a);
    const float frac = a - float(i);
    if (frac > 0.5f || (frac == 0.5f && (i & 1u))) ++i;
    return std::uint16_t(sign | std::uint16_t(i));
  }
  std::uint32_t m = absu + 0xfffu + ((absu >> 13) & 1u);
  return std::uint16_t(sign | ((m - 0x38000000u) >> 13));
}

inline float bits_to_float(DType t, std::uint16_t b) {
  return t == DType::bf16 ? bf16_to_float_soft(b) : f16_to_float_soft(b);
}
inline std::uint16_t float_to_bits(DType t, float f) {
  return t == DType::bf16 ? float_to_bf16_soft(f) : float_to_f16_soft(f);
}

/// Unit roundoff of a storage type (half an ulp at 1).
RDNACONV_HD constexpr double unit_roundoff(DType t) {
  return t == DType::bf16 ? 1.0 / 256.0 : (t == DType::f16 ? 1.0 / 2048.0 : 1.0 / 16777216.0);
}

}  // namespace rdnaconv::detail
