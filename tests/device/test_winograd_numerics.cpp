// SPDX-License-Identifier: MIT
/// @file test_winograd_numerics.cpp Winograd F(4x4,3x3) accuracy against a float64 host
/// reference, as a multiple of the error of the naive same-precision kernel (the device
/// reference, fp32 accumulation, output rounded to T), per docs/DESIGN.md "Winograd numerics":
///   random data: RMS error ratio <= 2 x sqrt(1 + 2 kappa_rms^2) = 30.5 (kappa_rms = 10.77, the
///                RMS over the 16 outputs of a tile of the transform amplification)
///   adversarial (large magnitudes, alternating signs): ratio <= 2 x 256 = 512 (256 = (48/3)^2,
///                the worst-case L1 amplification at Y[3][3])
/// and never a NaN or Inf where the direct convolution has none. The per-element deterministic
/// bound is checked by the family suite (test_families.cpp, RealData) and the CLI. Through the
/// harness's per-configuration plan (check_entry(...).plan_run): no Plan instantiated here.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "common/check.hpp"
#include "rdnaconv/reference/device_conv.hpp"

using namespace rdnaconv;
using namespace rdnaconv::testing;

namespace {

#define RT_OK(expr) ASSERT_EQ((expr), rt::success) << #expr

struct Errors {
  double wino_rms = 0, naive_rms = 0;
  int nonfinite = 0;
};

void measure(DType dt, const Conv2dProblem& p, DataKind kind, Method method, Errors& out) {
  std::mt19937 g(7);
  std::uniform_real_distribution<float> u(0.f, 1.f);
  const double crs = double(p.c * 9);
  const float xmag = kind == DataKind::real ? 1.f : (dt == DType::f16 ? 1000.f : 30000.f);
  const float wmag = kind == DataKind::real ? float(1 / std::sqrt(crs))
                                            : float(std::min(1.0, 4096.0 / (crs * xmag)));
  std::vector<std::uint16_t> hx(p.x_elems()), hw(p.w_elems());
  auto gen = [&](std::size_t i, float mag) {
    return kind == DataKind::real ? (2 * u(g) - 1) * mag
                                  : ((i & 1) ? -1.f : 1.f) * mag * (0.5f + 0.5f * u(g));
  };
  for (std::size_t i = 0; i < hx.size(); ++i) hx[i] = detail::float_to_bits(dt, gen(i, xmag));
  for (std::size_t i = 0; i < hw.size(); ++i) hw[i] = detail::float_to_bits(dt, gen(i, wmag));
  std::vector<double> exact;
  reference::host_conv2d_exact(p, LayoutKind::nhwc, dt, hx.data(), hw.data(), {}, exact);

  // through the harness's plan for (T, NHWC, native atom)
  const CheckEntry entry = check_entry(dt, LayoutKind::nhwc, AtomKind::native);
  ASSERT_NE(entry.plan_run, nullptr);
  PlanRun r;
  r.p = p;
  r.o.method = method;
  PlanScratch scratch(0);  // the packed weights and the workspace, grown by plan_run
  scratch.attach(r);
  void *dx, *dw, *dy, *dn;
  RT_OK(rt::malloc(&dx, hx.size() * 2));
  RT_OK(rt::malloc(&dw, hw.size() * 2));
  RT_OK(rt::malloc(&dy, p.y_elems() * 2));
  RT_OK(rt::malloc(&dn, p.y_elems() * 2));
  RT_OK(rt::memcpy_h2d(dx, hx.data(), hx.size() * 2));
  RT_OK(rt::memcpy_h2d(dw, hw.data(), hw.size() * 2));
  r.x = dx;
  r.w = dw;
  r.y = dy;
  const Status rs = entry.plan_run(r);  // prepack, run, synchronize
  ASSERT_TRUE(rs.ok()) << rs.message();
  ASSERT_EQ(r.ran, method);
  ASSERT_TRUE(
      reference::device_conv2d(p, dt, LayoutKind::nhwc, dx, dw, {}, nullptr, dn, nullptr).ok());
  std::vector<std::uint16_t> y(p.y_elems()), n(p.y_elems());
  RT_OK(rt::memcpy_d2h(y.data(), dy, y.size() * 2));
  RT_OK(rt::memcpy_d2h(n.data(), dn, n.size() * 2));
  double ew = 0, en = 0;
  for (std::size_t i = 0; i < y.size(); ++i) {
    const double a = detail::bits_to_float(dt, y[i]), b = detail::bits_to_float(dt, n[i]);
    if (!std::isfinite(a) && std::isfinite(b)) ++out.nonfinite;
    ew += (a - exact[i]) * (a - exact[i]);
    en += (b - exact[i]) * (b - exact[i]);
  }
  out.wino_rms = std::sqrt(ew / double(y.size()));
  out.naive_rms = std::sqrt(en / double(y.size()));
  RT_OK(rt::free(dx));
  RT_OK(rt::free(dw));
  RT_OK(rt::free(dy));
  RT_OK(rt::free(dn));
}

void check_kind(DType dt, DataKind kind, double multiple) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  const Conv2dProblem shapes[2] = {make_problem(1, 64, 20, 20, 32, 3, 3, 1, 1),
                                   make_problem(2, 256, 9, 13, 16, 3, 3, 1, 1)};
  for (int i = 0; i < 4; ++i) {
    const Method m = i < 2 ? Method::winograd : Method::winograd_fused;  // both variants
    const Conv2dProblem& p = shapes[i % 2];
    Errors e;
    measure(dt, p, kind, m, e);
    EXPECT_EQ(e.nonfinite, 0);
    ASSERT_GT(e.naive_rms, 0.0);
    const double ratio = e.wino_rms / e.naive_rms;
    ::testing::Test::RecordProperty(
        std::string(to_string(m)) + "_" + to_string(kind) + "_C" + std::to_string(p.c) + "_ratio",
        std::to_string(ratio));
    EXPECT_LE(ratio, multiple) << to_string(m) << " " << describe(p) << " winograd rms "
                               << e.wino_rms << " naive rms " << e.naive_rms;
    std::printf(
        "[ numerics ] %s %s %s C=%lld: winograd rms err %.3g, naive %.3g, ratio %.2f (limit "
        "%.1f)\n",
        to_string(m), to_string(dt), to_string(kind), (long long)p.c, e.wino_rms, e.naive_rms,
        ratio, multiple);
  }
}

}  // namespace

TEST(WinogradNumerics, Fp16Random) {
  check_kind(DType::f16, DataKind::real, 30.5);
}
TEST(WinogradNumerics, Bf16Random) {
  check_kind(DType::bf16, DataKind::real, 30.5);
}
TEST(WinogradNumerics, Fp16Adversarial) {
  check_kind(DType::f16, DataKind::adversarial, 512);
}
TEST(WinogradNumerics, Bf16Adversarial) {
  check_kind(DType::bf16, DataKind::adversarial, 512);
}
