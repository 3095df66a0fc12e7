// SPDX-License-Identifier: MIT
/// @file test_splitk.cpp Split-K on a GPU (Conv2dOptions::split_k, forced; the router does not
/// pick it yet): for each direct family on its layouts, integer data with a bias, relu and a
/// residual, the split plan's output equals the host reference bit for bit (the fp32 partial
/// sums of integers are exact, so the order of the sum cannot show) and the unsplit plan's, the
/// launches are the family's kernel then splitk_reduce, and nothing outside y is written (a
/// guard band after y keeps its poison).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "common/check.hpp"
#include "common/dev_buf.hpp"
#include "rdnaconv/conv2d.hpp"
#include "rdnaconv/detail/launch_log.hpp"
#include "rdnaconv/reference/host_conv.hpp"

using namespace rdnaconv;
using namespace rdnaconv::testing;

namespace {

#define RT_OK(expr) ASSERT_EQ((expr), rt::success) << #expr

struct SplitCase {
  Conv2dProblem p;
  Method m;
  LayoutKind l;
};

template <class L>
void run_case(const SplitCase& c, int split) {
  const Conv2dProblem& p = c.p;
  constexpr DType kT = DType::bf16;
  std::vector<std::uint16_t> hx(p.x_elems()), hw(p.w_elems()), hz(p.y_elems());
  std::vector<float> hb(p.k);
  for (std::size_t i = 0; i < hx.size(); ++i)
    hx[i] = detail::float_to_bits(kT, float(int(i % 7) - 3));
  for (std::size_t i = 0; i < hw.size(); ++i)
    hw[i] = detail::float_to_bits(kT, float(int(i % 5) - 2));
  for (std::size_t i = 0; i < hz.size(); ++i)
    hz[i] = detail::float_to_bits(kT, float(int(i % 9) - 4));
  for (std::int64_t k = 0; k < p.k; ++k) hb[k] = float(int(k % 11) - 5);

  // through the harness's plan for (bf16, layout, native atom): no plan is instantiated here
  const CheckEntry entry = check_entry(kT, c.l, AtomKind::native);
  ASSERT_NE(entry.plan_run, nullptr);
  constexpr std::size_t kGuard = 4096;  // bytes of poison after y
  const std::size_t y_bytes = std::size_t(p.y_elems()) * 2;
  DevBuf dx(hx.size() * 2), dw(hw.size() * 2), dz(hz.size() * 2), db(hb.size() * 4),
      dy(y_bytes + kGuard);
  ASSERT_TRUE(dx.p && dw.p && dz.p && db.p && dy.p);
  RT_OK(rt::memcpy_h2d(dx.p, hx.data(), hx.size() * 2));
  RT_OK(rt::memcpy_h2d(dw.p, hw.data(), hw.size() * 2));
  RT_OK(rt::memcpy_h2d(dz.p, hz.data(), hz.size() * 2));
  RT_OK(rt::memcpy_h2d(db.p, hb.data(), hb.size() * 4));
  RT_OK(rt::memset(dy.p, 0x5a, y_bytes + kGuard));
  PlanScratch b(0);  // packed weights and workspace only: x, w, y, z are the buffers above
  // a workspace larger than any of these plans needs, filled with stale partials (NaN-ish): the
  // split kernels must overwrite every partial they add
  const std::size_t ws = std::size_t(64) * std::size_t(p.y_elems()) * 4 + (std::size_t(1) << 20);
  RT_OK(rt::malloc(&b.work, ws));
  b.work_cap = ws;
  RT_OK(rt::memset(b.work, 0x7f, ws));
  PlanRun r;
  r.p = p;
  r.o.method = c.m;
  r.o.has_bias = true;
  r.o.bias_type = DType::f32;
  r.o.activation = Activation::relu;
  r.o.has_residual = true;
  r.o.split_k = split;
  b.attach(r);
  r.x = dx.p;
  r.w = dw.p;
  r.bias = db.p;
  r.y = dy.p;
  r.z = dz.p;
  std::vector<std::string> kernels, tiles;
  const Status rs = plan_run_logged(entry, r, kernels, tiles);
  ASSERT_TRUE(rs.ok()) << rs.message();
  const std::string what = std::string(to_string(r.ran)) + " [" + r.kernels + "] tile " + r.tile;
  if (split >= 2) ASSERT_NE(r.kernels.find("splitk_reduce"), std::string::npos) << what;
  std::vector<std::uint8_t> got(y_bytes + kGuard);
  RT_OK(rt::memcpy_d2h(got.data(), dy.p, got.size()));
  for (std::size_t i = y_bytes; i < got.size(); ++i)
    ASSERT_EQ(got[i], 0x5a) << "written past y at byte " << i - y_bytes << ": " << what;

  reference::HostEpilogue e;
  e.bias = hb.data();
  e.bias_type = DType::f32;
  e.act = Activation::relu;
  e.z = hz.data();
  e.z_type = kT;
  const auto h = reference::host_conv2d(p, c.l, kT, hx.data(), hw.data(), e, kT);
  const auto* y16 = reinterpret_cast<const std::uint16_t*>(got.data());
  for (std::size_t i = 0; i < h.size(); ++i)
    ASSERT_EQ(std::uint32_t(y16[i]), h[i]) << "output " << i << ": " << what;
  // what ran is the prepack, then what describe() names (the split-K engine kernel, then the
  // reduction)
  std::string ran;
  for (const std::string& k : kernels) ran += (ran.empty() ? "" : ", ") + k;
  EXPECT_EQ(ran, "pack_tap_major, " + r.kernels) << what;
  if (split >= 2) {
    ASSERT_FALSE(kernels.empty()) << what;
    EXPECT_EQ(kernels.back(), "splitk_reduce") << what;
    EXPECT_EQ(std::count(kernels.begin(), kernels.end(), "splitk_reduce"), 1) << what;
  }
}

}  // namespace

TEST(SplitK, EveryDirectFamilyEqualsTheReference) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  const std::vector<SplitCase> cases = {
      // ResNet-50 layer4.0.conv2-like (small grid), padding and stride
      {make_problem(1, 64, 7, 7, 96, 3, 3, 1, 1), Method::nhwc3x3, LayoutKind::nhwc},
      {make_problem(2, 40, 9, 11, 72, 3, 3, 2, 1), Method::general, LayoutKind::nhwc},
      {make_problem(1, 96, 14, 14, 130, 1, 1), Method::gemm1x1, LayoutKind::nhwc},
      {make_problem(1, 96, 14, 14, 24, 1, 1), Method::gemm1x1, LayoutKind::nhwc},  // thin tile
      {make_problem(1, 64, 7, 7, 96, 3, 3, 1, 1), Method::nchw3x3, LayoutKind::nchw},
      {make_problem(1, 64, 7, 7, 96, 3, 3, 1, 1), Method::cblocked3x3, LayoutKind::nchw},
      {make_problem(2, 40, 9, 11, 72, 3, 3, 2, 1), Method::general, LayoutKind::nchw},
      {make_problem(1, 96, 14, 14, 130, 1, 1), Method::gemm1x1, LayoutKind::nchw},
  };
  for (const SplitCase& c : cases)
    for (int split : {1, 2, 3, 7, 64}) {
      SCOPED_TRACE(std::string(to_string(c.m)) + " " + to_string(c.l) +
                   " split_k=" + std::to_string(split) + " " + detail::describe(c.p));
      if (c.l == LayoutKind::nhwc)
        run_case<NHWC>(c, split);
      else
        run_case<NCHW>(c, split);
      if (::testing::Test::HasFatalFailure()) return;
    }
}
