// SPDX-License-Identifier: MIT
/// @file test_general.cpp The general family against the device reference: annotated edge list
/// plus 50 seeded random shapes, x fp16/bf16 x NCHW/NHWC x {native, emulated gfx11, emulated
/// gfx12} atoms x 4 activations x bias/no bias. Inputs are small integers, so every product and
/// partial sum is exact in fp32 and the comparison is bitwise. Outputs are poisoned (NaN) before
/// each run and guarded by canary bands before and after. Skipped where no GPU is present.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "rdnaconv/conv2d.hpp"
#include "rdnaconv/reference/device_conv.hpp"

using namespace rdnaconv;

namespace {

bool have_gpu() {
  int n = 0;
  return rt::device_count(&n) == rt::success && n > 0;
}

struct Case {
  const char* what;
  Conv2dProblem p;
};

Conv2dProblem asym(Conv2dProblem p, int t, int b, int l, int r) {
  p.pad_top = t; p.pad_bottom = b; p.pad_left = l; p.pad_right = r;
  return p;
}

std::vector<Case> edge_cases() {
  return {
      {"C=1", make_problem(2, 1, 9, 11, 7, 3, 3, 1, 1)},
      {"C=3 RGB stem 7x7 s2 p3", make_problem(1, 3, 33, 35, 64, 7, 7, 2, 3)},
      {"K not a multiple of the tile", make_problem(1, 16, 12, 12, 130, 3, 3, 1, 1)},
      {"1x1 with padding", make_problem(1, 24, 7, 9, 40, 1, 1, 1, 1)},
      {"1x1 stride 2 downsample", make_problem(2, 64, 14, 14, 96, 1, 1, 2, 0)},
      {"dilation 2", make_problem(1, 32, 20, 18, 48, 3, 3, 1, 2, 2)},
      {"VAE downsample pad (0,1,0,1) s2", asym(make_problem(1, 32, 16, 16, 32, 3, 3, 2, 0), 0, 1, 0, 1)},
      {"H, W smaller than the filter, padded", make_problem(1, 8, 2, 3, 8, 5, 5, 1, 2)},
      {"N > 1, odd sizes", make_problem(3, 13, 7, 5, 11, 3, 3, 1, 1)},
      {"M not a multiple of the tile, C%8!=0", make_problem(1, 20, 13, 17, 33, 3, 3, 1, 1)},
      {"long reduction", make_problem(1, 256, 8, 8, 64, 3, 3, 1, 1)},
      {"asymmetric rectangular filter", asym(make_problem(1, 9, 10, 12, 17, 2, 5, 1, 0), 1, 0, 2, 1)},
  };
}

std::vector<Case> random_cases(unsigned seed, int count) {
  std::mt19937 g(seed);
  auto u = [&](int a, int b) { return std::uniform_int_distribution<int>(a, b)(g); };
  std::vector<Case> out;
  while (int(out.size()) < count) {
    Conv2dProblem p = make_problem(u(1, 3), u(1, 72), u(1, 24), u(1, 24), u(1, 150), u(1, 5), u(1, 5),
                                   u(1, 3), 0, u(1, 2));
    p.pad_top = u(0, 2); p.pad_bottom = u(0, 2); p.pad_left = u(0, 2); p.pad_right = u(0, 2);
    if (!validate_problem(p).ok()) continue;
    out.push_back({"random", p});
  }
  return out;
}

constexpr std::uint16_t kCanary = 0x5a5a;
constexpr std::size_t kGuard = 256;  // words before and after y

template <class T, class L, AtomKind A>
struct Config {
  using type = T;
  using layout = L;
  static constexpr AtomKind atom = A;
};

template <class C>
class General : public ::testing::Test {};

using Configs = ::testing::Types<
    Config<fp16_t, NHWC, AtomKind::native>, Config<bf16_t, NHWC, AtomKind::native>,
    Config<fp16_t, NCHW, AtomKind::native>, Config<bf16_t, NCHW, AtomKind::native>,
    Config<fp16_t, NHWC, AtomKind::gfx11>, Config<bf16_t, NCHW, AtomKind::gfx11>,
    Config<bf16_t, NHWC, AtomKind::gfx12>, Config<fp16_t, NCHW, AtomKind::gfx12>>;

class Names {
 public:
  template <class C>
  static std::string GetName(int) {
    return std::string(dtype_of<typename C::type>() == DType::f16 ? "Fp16" : "Bf16") +
           (C::layout::kind == LayoutKind::nhwc ? "Nhwc" : "Nchw") + "_" + to_string(C::atom);
  }
};
TYPED_TEST_SUITE(General, Configs, Names);

#define RT_OK(expr) ASSERT_EQ((expr), rt::success) << #expr

/// Runs one problem through the plan (all activations, bias/no bias, one output type each)
/// and through the device reference; compares bitwise and checks the guard bands.
template <class C>
void check_problem(const Conv2dProblem& p, const char* what, unsigned seed) {
  using T = typename C::type;
  constexpr DType dt = dtype_of<T>();
  constexpr LayoutKind lk = C::layout::kind;
  SCOPED_TRACE(std::string(what) + " N=" + std::to_string(p.n) + " C=" + std::to_string(p.c) +
               " H=" + std::to_string(p.h) + " W=" + std::to_string(p.w) + " K=" + std::to_string(p.k) +
               " R=" + std::to_string(p.r) + " S=" + std::to_string(p.s) + " stride=" +
               std::to_string(p.stride_h) + " dil=" + std::to_string(p.dil_h) + " pads=" +
               std::to_string(p.pad_top) + std::to_string(p.pad_bottom) + std::to_string(p.pad_left) +
               std::to_string(p.pad_right) + " seed=" + std::to_string(seed));
  std::mt19937 g(seed);
  std::uniform_int_distribution<int> small(-3, 3);
  std::vector<std::uint16_t> hx(p.x_elems()), hw(p.w_elems());
  for (auto& v : hx) v = detail::float_to_bits(dt, float(small(g)));
  for (auto& v : hw) v = detail::float_to_bits(dt, float(small(g)));
  hx[0] = detail::float_to_bits(dt, 1.f);  // never all zeros
  std::vector<float> hb(p.k);
  for (auto& v : hb) v = float(small(g)) * 0.5f;
  std::vector<std::uint16_t> hb16(p.k);
  for (std::size_t i = 0; i < hb.size(); ++i) hb16[i] = detail::float_to_bits(dt, hb[i]);

  const std::size_t ny = std::size_t(p.y_elems());
  void *dx, *dw, *db, *db16, *dy, *dref, *dpk;
  RT_OK(rt::malloc(&dx, hx.size() * 2));
  RT_OK(rt::malloc(&dw, hw.size() * 2));
  RT_OK(rt::malloc(&db, hb.size() * 4));
  RT_OK(rt::malloc(&db16, hb.size() * 2));
  RT_OK(rt::malloc(&dy, (ny + 2 * kGuard) * 4));
  RT_OK(rt::malloc(&dref, ny * 4));
  RT_OK(rt::memcpy_h2d(dx, hx.data(), hx.size() * 2));
  RT_OK(rt::memcpy_h2d(dw, hw.data(), hw.size() * 2));
  RT_OK(rt::memcpy_h2d(db, hb.data(), hb.size() * 4));
  RT_OK(rt::memcpy_h2d(db16, hb16.data(), hb16.size() * 2));

  int variant = 0;
  for (Activation act : {Activation::none, Activation::relu, Activation::relu6, Activation::gelu})
    for (bool bias : {false, true}) {
      Conv2dOptions o;
      o.activation = act;
      o.has_bias = bias;
      o.bias_type = (variant & 2) ? dt : DType::f32;
      const DType outs[3] = {DType::same, DType::f32, dt == DType::f16 ? DType::bf16 : DType::f16};
      o.out_type = outs[variant % 3];
      o.method = Method::general;
      ++variant;
      const DType out = o.out_type == DType::same ? dt : o.out_type;
      const std::size_t ob = dtype_bytes(out);
      const void* bptr = bias ? (o.bias_type == DType::f32 ? db : db16) : nullptr;

      Plan<T, typename C::layout, C::atom> plan;
      ASSERT_TRUE((Plan<T, typename C::layout, C::atom>::create(plan, p, o).ok()));
      ASSERT_EQ(plan.method(), Method::general);
      RT_OK(rt::malloc(&dpk, plan.packed_weight_bytes() + 16));
      ASSERT_TRUE(plan.prepack(static_cast<const T*>(dw), dpk).ok());

      // guard bands + NaN poison (0xffff words are NaN in fp16, bf16 and, paired, fp32)
      std::vector<std::uint16_t> init((ny * ob) / 2 + 2 * kGuard, 0xffff);
      for (std::size_t i = 0; i < kGuard; ++i) init[i] = init[init.size() - 1 - i] = kCanary;
      RT_OK(rt::memcpy_h2d(dy, init.data(), init.size() * 2));
      void* y = static_cast<std::uint16_t*>(dy) + kGuard;
      const Status st = plan.run(static_cast<const T*>(dx), dpk, bptr, y, nullptr, 0);
      ASSERT_TRUE(st.ok()) << st.message();
      ASSERT_TRUE(reference::device_conv2d(p, dt, lk, dx, dw, o, bptr, dref, nullptr).ok());
      RT_OK(rt::synchronize());
      std::vector<std::uint16_t> got(init.size());
      std::vector<std::uint8_t> ref(ny * ob);
      RT_OK(rt::memcpy_d2h(got.data(), dy, got.size() * 2));
      RT_OK(rt::memcpy_d2h(ref.data(), dref, ref.size()));
      for (std::size_t i = 0; i < kGuard; ++i) {
        ASSERT_EQ(got[i], kCanary) << "guard before y overwritten at " << i;
        ASSERT_EQ(got[got.size() - 1 - i], kCanary) << "guard after y overwritten";
      }
      const auto* gy = reinterpret_cast<const std::uint8_t*>(got.data() + kGuard);
      std::size_t bad = 0, first = ny;
      for (std::size_t i = 0; i < ny; ++i)
        if (std::memcmp(gy + i * ob, ref.data() + i * ob, ob) != 0) {
          if (first == ny) first = i;
          ++bad;
        }
      EXPECT_EQ(bad, 0u) << "act=" << to_string(act) << " bias=" << bias << " out=" << to_string(out)
                         << ": " << bad << " of " << ny << " outputs differ, first at " << first;
      RT_OK(rt::free(dpk));
      if (bad) break;
    }
  RT_OK(rt::free(dx)); RT_OK(rt::free(dw)); RT_OK(rt::free(db)); RT_OK(rt::free(db16));
  RT_OK(rt::free(dy)); RT_OK(rt::free(dref));
}

}  // namespace

TYPED_TEST(General, EdgeList) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  unsigned seed = 1000;
  for (const Case& c : edge_cases()) check_problem<TypeParam>(c.p, c.what, seed++);
}

TYPED_TEST(General, Random50) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  const unsigned seed = 20261202;
  unsigned s = seed;
  for (const Case& c : random_cases(seed, 50)) check_problem<TypeParam>(c.p, c.what, s++);
}

TEST(GeneralErrors, NoKernelLaunchedOnError) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  Plan<fp16_t, NHWC> plan;
  ASSERT_TRUE((Plan<fp16_t, NHWC>::create(plan, make_problem(1, 8, 8, 8, 8, 3, 3, 1, 1)).ok()));
  std::vector<std::uint16_t> poison(512, 0x1234);
  void* dy;
  RT_OK(rt::malloc(&dy, 1024));
  RT_OK(rt::memcpy_h2d(dy, poison.data(), 1024));
  // null input: error status, y untouched
  const Status st = plan.run(nullptr, dy, nullptr, dy, nullptr, 0);
  EXPECT_EQ(st.code(), StatusCode::null_pointer);
  EXPECT_FALSE(st.message().empty());
  std::size_t ws = 0;
  ASSERT_TRUE((conv2d_workspace_bytes<fp16_t, NHWC>(make_problem(1, 8, 8, 8, 8, 3, 3, 1, 1), {}, &ws).ok()));
  EXPECT_EQ((conv2d<fp16_t, NHWC>(make_problem(1, 8, 8, 8, 8, 3, 3, 1, 1), static_cast<fp16_t*>(dy),
                                  static_cast<fp16_t*>(dy), nullptr, dy, dy, ws - 1))
                .code(),
            StatusCode::workspace_too_small);
  RT_OK(rt::synchronize());
  std::vector<std::uint16_t> after(512);
  RT_OK(rt::memcpy_d2h(after.data(), dy, 1024));
  EXPECT_EQ(after, poison);
  RT_OK(rt::free(dy));
}

TEST(GeneralOneShot, MatchesPlan) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  const Conv2dProblem p = make_problem(2, 16, 10, 10, 24, 3, 3, 1, 1);
  std::vector<std::uint16_t> hx(p.x_elems()), hw(p.w_elems());
  for (std::size_t i = 0; i < hx.size(); ++i) hx[i] = detail::float_to_bits(DType::bf16, float(int(i % 7) - 3));
  for (std::size_t i = 0; i < hw.size(); ++i) hw[i] = detail::float_to_bits(DType::bf16, float(int(i % 5) - 2));
  void *dx, *dw, *dy, *dr, *work;
  std::size_t ws = 0;
  ASSERT_TRUE((conv2d_workspace_bytes<bf16_t, NHWC>(p, {}, &ws).ok()));
  RT_OK(rt::malloc(&dx, hx.size() * 2)); RT_OK(rt::malloc(&dw, hw.size() * 2));
  RT_OK(rt::malloc(&dy, p.y_elems() * 2)); RT_OK(rt::malloc(&dr, p.y_elems() * 2)); RT_OK(rt::malloc(&work, ws));
  RT_OK(rt::memcpy_h2d(dx, hx.data(), hx.size() * 2)); RT_OK(rt::memcpy_h2d(dw, hw.data(), hw.size() * 2));
  const Status st = conv2d<bf16_t, NHWC>(p, static_cast<bf16_t*>(dx), static_cast<bf16_t*>(dw), nullptr, dy, work, ws);
  ASSERT_TRUE(st.ok()) << st.message();
  ASSERT_TRUE(reference::device_conv2d(p, DType::bf16, LayoutKind::nhwc, dx, dw, {}, nullptr, dr, nullptr).ok());
  std::vector<std::uint16_t> a(p.y_elems()), b(p.y_elems());
  RT_OK(rt::memcpy_d2h(a.data(), dy, a.size() * 2)); RT_OK(rt::memcpy_d2h(b.data(), dr, b.size() * 2));
  EXPECT_EQ(a, b);
  // and the device reference agrees with the host reference (double accumulation)
  const auto h = reference::host_conv2d(p, LayoutKind::nhwc, DType::bf16, hx.data(), hw.data(), {}, DType::bf16);
  for (std::size_t i = 0; i < b.size(); ++i) ASSERT_EQ(std::uint32_t(b[i]), h[i]) << i;
  RT_OK(rt::free(dx)); RT_OK(rt::free(dw)); RT_OK(rt::free(dy)); RT_OK(rt::free(dr)); RT_OK(rt::free(work));
}
