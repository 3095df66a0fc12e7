// SPDX-License-Identifier: MIT
/// @file test_epilogue_staged.cpp The engine's staged epilogue (kernels/common/engine.hpp,
/// store_staged) where the other device tests do not reach it: y (and z) at element offsets that
/// are not 16-byte aligned, so the runs of 8 go element by element, beside the aligned y; f32 and
/// 16-bit outputs; K and P*Q that are and are not multiples of 8. Integer data, so every direct
/// method equals the host reference bit for bit; the bytes before and after y keep their poison.
/// Through the harness's per-configuration plan (check_entry(...).plan_run): this unit
/// instantiates no Plan of its own.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/check.hpp"
#include "common/dev_buf.hpp"
#include "rdnaconv/reference/host_conv.hpp"

using namespace rdnaconv;
using namespace rdnaconv::testing;

namespace {

#define RT_OK(expr) ASSERT_EQ((expr), rt::success) << #expr

struct StagedCase {
  Conv2dProblem p;
  Method m;
  LayoutKind l;
};

enum class Epi { plain, bias_relu, residual_in_place };

/// One run: y at `offset` elements past a 256-byte aligned base (z, for the residual, is y).
void run_case(const StagedCase& c, DType out, Epi epi, int offset) {
  const Conv2dProblem& p = c.p;
  constexpr DType kT = DType::bf16;
  std::vector<std::uint16_t> hx(p.x_elems()), hw(p.w_elems());
  std::vector<float> hb(p.k);
  for (std::size_t i = 0; i < hx.size(); ++i)
    hx[i] = detail::float_to_bits(kT, float(int(i % 7) - 3));
  for (std::size_t i = 0; i < hw.size(); ++i)
    hw[i] = detail::float_to_bits(kT, float(int(i % 5) - 2));
  for (std::int64_t k = 0; k < p.k; ++k) hb[k] = float(int(k % 11) - 5);
  const std::size_t eb = out == DType::f32 ? 4 : 2;
  // z in y's type: integers, exact in every output type
  std::vector<std::uint8_t> hz(std::size_t(p.y_elems()) * eb);
  for (std::int64_t i = 0; i < p.y_elems(); ++i) {
    const float v = float(int(i % 9) - 4);
    if (out == DType::f32)
      reinterpret_cast<float*>(hz.data())[i] = v;
    else
      reinterpret_cast<std::uint16_t*>(hz.data())[i] = detail::float_to_bits(out, v);
  }

  PlanRun r;
  r.p = p;
  Conv2dOptions& o = r.o;
  o.method = c.m;
  o.out_type = out;
  if (epi != Epi::plain) {
    o.has_bias = true;
    o.bias_type = DType::f32;
    o.activation = Activation::relu;
  }
  if (epi == Epi::residual_in_place) {
    o.has_residual = true;
    o.alpha = 2.f;
    o.beta = 0.5f;
  }
  // through the harness's plan for (bf16, layout, native atom)
  const CheckEntry entry = check_entry(kT, c.l, AtomKind::native);
  ASSERT_NE(entry.plan_run, nullptr);

  constexpr std::size_t kGuard = 4096;  // bytes of poison before and after y
  const std::size_t y_bytes = std::size_t(p.y_elems()) * eb;
  DevBuf dx(hx.size() * 2), dw(hw.size() * 2), db(hb.size() * 4),
      dy(kGuard + offset * eb + y_bytes + kGuard);
  ASSERT_TRUE(dx.p && dw.p && db.p && dy.p);
  auto* y = static_cast<std::uint8_t*>(dy.p) + kGuard + offset * eb;
  RT_OK(rt::memcpy_h2d(dx.p, hx.data(), hx.size() * 2));
  RT_OK(rt::memcpy_h2d(dw.p, hw.data(), hw.size() * 2));
  RT_OK(rt::memcpy_h2d(db.p, hb.data(), hb.size() * 4));
  RT_OK(rt::memset(dy.p, 0x5a, kGuard + offset * eb + y_bytes + kGuard));
  if (epi == Epi::residual_in_place) RT_OK(rt::memcpy_h2d(y, hz.data(), y_bytes));
  PlanScratch scratch(0);  // the packed weights and the workspace, grown by plan_run
  scratch.attach(r);
  r.x = dx.p;
  r.w = dw.p;
  r.bias = epi != Epi::plain ? db.p : nullptr;
  r.y = y;
  r.z = epi == Epi::residual_in_place ? y : nullptr;
  const Status rs = entry.plan_run(r);  // prepack, run, synchronize
  ASSERT_TRUE(rs.ok()) << rs.message();
  const std::string what = std::string(to_string(r.ran)) + " [" + r.kernels + "] tile " + r.tile;
  ASSERT_EQ(r.ran, c.m) << what;
  std::vector<std::uint8_t> got(kGuard + offset * eb + y_bytes + kGuard);
  RT_OK(rt::memcpy_d2h(got.data(), dy.p, got.size()));
  for (std::size_t i = 0; i < kGuard + offset * eb; ++i)
    ASSERT_EQ(got[i], 0x5a) << "written before y at byte " << i << ": " << what;
  for (std::size_t i = kGuard + offset * eb + y_bytes; i < got.size(); ++i)
    ASSERT_EQ(got[i], 0x5a) << "written past y at byte " << i << ": " << what;

  reference::HostEpilogue e;
  if (epi != Epi::plain) {
    e.bias = hb.data();
    e.bias_type = DType::f32;
    e.act = Activation::relu;
  }
  if (epi == Epi::residual_in_place) {
    e.z = hz.data();
    e.z_type = out;
    e.alpha = 2;
    e.beta = 0.5;
  }
  const auto h = reference::host_conv2d(p, c.l, kT, hx.data(), hw.data(), e, out);
  const std::uint8_t* g = got.data() + kGuard + offset * eb;
  for (std::size_t i = 0; i < h.size(); ++i) {
    const std::uint32_t v = out == DType::f32 ? reinterpret_cast<const std::uint32_t*>(g)[i]
                                              : reinterpret_cast<const std::uint16_t*>(g)[i];
    ASSERT_EQ(v, h[i]) << "output " << i << ": " << what;
  }
}

}  // namespace

TEST(StagedEpilogue, UnalignedOutputsAndEveryRunShape) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  const std::vector<StagedCase> cases = {
      // K % 8 == 0 and P*Q % 8 == 0 (runs of 8 vectorized when y is aligned), two block rows
      {make_problem(2, 16, 12, 12, 40, 3, 3, 1, 1), Method::nhwc3x3, LayoutKind::nhwc},
      {make_problem(2, 16, 12, 12, 40, 3, 3, 1, 1), Method::nchw3x3, LayoutKind::nchw},
      {make_problem(2, 16, 12, 12, 40, 3, 3, 1, 1), Method::cblocked3x3, LayoutKind::nchw},
      {make_problem(2, 16, 12, 12, 136, 1, 1), Method::gemm1x1, LayoutKind::nhwc},
      {make_problem(2, 16, 12, 12, 136, 1, 1), Method::gemm1x1, LayoutKind::nchw},
      // K % 8 != 0, P*Q % 8 != 0 (runs split at K and across images)
      {make_problem(3, 24, 9, 11, 21, 3, 3, 2, 1), Method::general, LayoutKind::nhwc},
      {make_problem(3, 24, 9, 11, 21, 3, 3, 2, 1), Method::general, LayoutKind::nchw},
      {make_problem(3, 8, 5, 5, 130, 1, 1), Method::gemm1x1, LayoutKind::nchw},
      // the thin tile (K <= 32)
      {make_problem(2, 16, 12, 12, 24, 3, 3, 1, 1), Method::nhwc3x3, LayoutKind::nhwc},
      {make_problem(2, 16, 12, 12, 24, 1, 1), Method::gemm1x1, LayoutKind::nchw},
  };
  for (const StagedCase& c : cases)
    for (DType out : {DType::bf16, DType::f32})
      for (Epi epi : {Epi::plain, Epi::bias_relu, Epi::residual_in_place})
        for (int offset : {0, 1}) {
          SCOPED_TRACE(std::string(to_string(c.m)) + " " + to_string(c.l) +
                       " out=" + to_string(out) + " epi=" + std::to_string(int(epi)) +
                       " y offset=" + std::to_string(offset) + " " + detail::describe(c.p));
          run_case(c, out, epi, offset);
          if (::testing::Test::HasFatalFailure()) return;
        }
}
