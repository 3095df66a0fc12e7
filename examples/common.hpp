// SPDX-License-Identifier: MIT
/// @file common.hpp What the examples share: a checked runtime call, random 16-bit data, and
/// a float64 host convolution to compare with (small problems only).
#pragma once

#include <rdnaconv/conv2d.hpp>
#include <rdnaconv/reference/host_conv.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#define CHECK_RT(expr)                                                         \
  do {                                                                         \
    if (auto e_ = (expr); e_ != rdnaconv::rt::success) {                       \
      std::fprintf(stderr, "%s: %s\n", #expr, rdnaconv::rt::error_string(e_)); \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)
#define CHECK_OK(expr)                                               \
  do {                                                               \
    if (rdnaconv::Status s_ = (expr); !s_) {                         \
      std::fprintf(stderr, "%s: %s\n", #expr, s_.message().c_str()); \
      std::exit(1);                                                  \
    }                                                                \
  } while (0)

/// n values uniform in [-scale, scale), as 16-bit words of type t.
inline std::vector<std::uint16_t> random_words(std::size_t n, rdnaconv::DType t, float scale,
                                               unsigned seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> u(-scale, scale);
  std::vector<std::uint16_t> v(n);
  for (auto& x : v) x = rdnaconv::detail::float_to_bits(t, u(g));
  return v;
}

/// Device copy of a host vector.
template <class V>
void* to_device(const V& v) {
  void* p = nullptr;
  CHECK_RT(rdnaconv::rt::malloc(&p, v.size() * sizeof(v[0])));
  CHECK_RT(rdnaconv::rt::memcpy_h2d(p, v.data(), v.size() * sizeof(v[0])));
  return p;
}

/// Largest |y - reference| over y (16-bit words of type `out`), reference in float64.
inline double max_error(const std::vector<std::uint16_t>& y, rdnaconv::DType out,
                        const std::vector<double>& ref) {
  double m = 0;
  for (std::size_t i = 0; i < y.size(); ++i)
    m = std::fmax(m, std::fabs(double(rdnaconv::detail::bits_to_float(out, y[i])) - ref[i]));
  return m;
}
