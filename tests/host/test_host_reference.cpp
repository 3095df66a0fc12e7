// SPDX-License-Identifier: MIT
/// @file test_host_reference.cpp The host reference against hand-computed cases; conversions.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "rdnaconv/reference/host_conv.hpp"

using namespace rdnaconv;
using detail::float_to_bits;

namespace {
std::vector<std::uint16_t> words(DType t, std::initializer_list<float> v) {
  std::vector<std::uint16_t> out;
  for (float f : v) out.push_back(float_to_bits(t, f));
  return out;
}
float as_float(DType t, std::uint32_t w) {
  return t == DType::f32 ? detail::bits_float(w) : detail::bits_to_float(t, std::uint16_t(w));
}
}  // namespace

TEST(HostReference, ThreeByThreeWithPadding) {
  // x = 1..9 on a 3x3 image, w = all ones 3x3, pad 1: y[p][q] = sum of the 3x3 neighbourhood
  const Conv2dProblem p = make_problem(1, 1, 3, 3, 1, 3, 3, 1, 1);
  const auto x = words(DType::f16, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  const auto w = words(DType::f16, {1, 1, 1, 1, 1, 1, 1, 1, 1});
  const auto y =
      reference::host_conv2d(p, LayoutKind::nchw, DType::f16, x.data(), w.data(), {}, DType::f32);
  const float expect[9] = {12, 21, 16, 27, 45, 33, 24, 39, 28};
  for (int i = 0; i < 9; ++i) EXPECT_EQ(as_float(DType::f32, y[i]), expect[i]) << i;
}

TEST(HostReference, StrideDilationAsymmetricPad) {
  // 1 channel 4x4 ramp, 2x2 filter [1,0;0,-1] dilation 2, stride 2, pad (0,1,0,1)
  Conv2dProblem p = make_problem(1, 1, 4, 4, 1, 2, 2, 2, 0, 2);
  p.pad_bottom = p.pad_right = 1;
  ASSERT_EQ(p.p(), 2);
  std::vector<std::uint16_t> x;
  for (int i = 0; i < 16; ++i) x.push_back(float_to_bits(DType::bf16, float(i)));
  const auto w = words(DType::bf16, {1, 0, 0, -1});
  const auto y =
      reference::host_conv2d(p, LayoutKind::nhwc, DType::bf16, x.data(), w.data(), {}, DType::f32);
  // y[p][q] = x[2p][2q] - x[2p+2][2q+2] (zero outside)
  const float expect[4] = {0 - 10, 2 - 0, 8 - 0, 10 - 0};
  for (int i = 0; i < 4; ++i) EXPECT_EQ(as_float(DType::f32, y[i]), expect[i]) << i;
}

TEST(HostReference, LayoutsAgreeAndEpilogue) {
  // 2 channels in, 2 filters, 1x1: y = W x + b, then relu6 / gelu
  const Conv2dProblem p = make_problem(1, 2, 1, 2, 2, 1, 1);
  // x[c][w]: c0 = {1, -2}, c1 = {3, 4}; NCHW words in (c, w) order, NHWC in (w, c)
  const auto x_nchw = words(DType::f16, {1, -2, 3, 4});
  const auto x_nhwc = words(DType::f16, {1, 3, -2, 4});
  const auto w = words(DType::f16, {1, 2, -1, 1});  // k0 = x0 + 2 x1, k1 = -x0 + x1
  const float bias[2] = {0.5f, -1.f};
  reference::HostEpilogue e{bias, DType::f32, Activation::relu6};
  const auto a = reference::host_conv2d(p, LayoutKind::nchw, DType::f16, x_nchw.data(), w.data(), e,
                                        DType::f32);
  // k0: w0 = 1+6+0.5 = 7.5 -> 6; w1 = -2+8+0.5 = 6.5 -> 6; k1: w0 = -1+3-1 = 1; w1 = 2+4-1 = 5
  const float expect_nchw[4] = {6, 6, 1, 5};
  for (int i = 0; i < 4; ++i) EXPECT_EQ(as_float(DType::f32, a[i]), expect_nchw[i]);
  const auto b = reference::host_conv2d(p, LayoutKind::nhwc, DType::f16, x_nhwc.data(), w.data(), e,
                                        DType::f32);
  const float expect_nhwc[4] = {6, 1, 6, 5};
  for (int i = 0; i < 4; ++i) EXPECT_EQ(as_float(DType::f32, b[i]), expect_nhwc[i]);
  e.act = Activation::gelu;
  const auto g = reference::host_conv2d(p, LayoutKind::nchw, DType::f16, x_nchw.data(), w.data(), e,
                                        DType::f32);
  EXPECT_NEAR(as_float(DType::f32, g[2]), 0.8413447460685429, 1e-6);  // gelu(1) = Phi(1)
  e.act = Activation::silu;
  const auto si = reference::host_conv2d(p, LayoutKind::nchw, DType::f16, x_nchw.data(), w.data(),
                                         e, DType::f32);
  EXPECT_NEAR(as_float(DType::f32, si[2]), 0.7310585786300049, 1e-6);  // silu(1) = 1 sigmoid(1)
  EXPECT_NEAR(as_float(DType::f32, si[3]), 5 * 0.9933071490757153, 1e-5);
  e.act = Activation::sigmoid;
  const auto sg = reference::host_conv2d(p, LayoutKind::nchw, DType::f16, x_nchw.data(), w.data(),
                                         e, DType::f32);
  EXPECT_NEAR(as_float(DType::f32, sg[0]), 0.9994472213630764, 1e-6);  // sigmoid(7.5)
}

TEST(HostReference, Residual) {
  // the problem above, NCHW: conv + bias = {7.5, 6.5, 1, 5}; y = act(alpha conv + b + beta z)
  const Conv2dProblem p = make_problem(1, 2, 1, 2, 2, 1, 1);
  const auto x = words(DType::f16, {1, -2, 3, 4});
  const auto w = words(DType::f16, {1, 2, -1, 1});
  const float bias[2] = {0.5f, -1.f};
  const auto z = words(DType::bf16, {1, -4, 2, 0.5f});  // z in bf16 (y's type)
  reference::HostEpilogue e{bias, DType::f32, Activation::none, z.data(), DType::bf16, 2.0, -1.0};
  const auto y =
      reference::host_conv2d(p, LayoutKind::nchw, DType::f16, x.data(), w.data(), e, DType::f32);
  // conv = {7, 6, 2, 6}: 2 conv + b - z
  const float expect[4] = {14 + 0.5f - 1, 12 + 0.5f + 4, 4 - 1 - 2, 12 - 1 - 0.5f};
  for (int i = 0; i < 4; ++i) EXPECT_EQ(as_float(DType::f32, y[i]), expect[i]) << i;
  // the error scale is |alpha| sum |x w| + |b| + |beta z|
  std::vector<double> acc, sa;
  reference::host_conv2d_exact(p, LayoutKind::nchw, DType::f16, x.data(), w.data(), e, acc, &sa);
  EXPECT_EQ(sa[1], 2 * (2 + 8) + 0.5 + 4);
}

TEST(Numeric, RoundTripsAndRounding) {
  EXPECT_EQ(detail::float_to_f16_soft(1.0f), 0x3c00);
  EXPECT_EQ(detail::float_to_f16_soft(65504.f), 0x7bff);
  EXPECT_EQ(detail::float_to_f16_soft(1e6f), 0x7c00);
  EXPECT_EQ(detail::float_to_f16_soft(5.9604644775390625e-8f), 0x0001);  // smallest subnormal
  EXPECT_EQ(detail::float_to_f16_soft(1.0f + 1.0f / 2048), 0x3c00);      // tie to even
  EXPECT_EQ(detail::float_to_f16_soft(1.0f + 3.0f / 2048), 0x3c02);
  EXPECT_EQ(detail::float_to_bf16_soft(1.0f), 0x3f80);
  EXPECT_EQ(detail::float_to_bf16_soft(1.0f + 1.0f / 256), 0x3f80);  // tie to even
  EXPECT_TRUE(std::isnan(detail::bf16_to_float_soft(detail::float_to_bf16_soft(NAN))));
  for (std::uint32_t b = 0; b < 0x7c00; b += 7)
    EXPECT_EQ(detail::float_to_f16_soft(detail::f16_to_float_soft(std::uint16_t(b))), b);
}
