// SPDX-License-Identifier: MIT
/// @file test_padmodes.cpp Padding modes (PadMode reflect / replicate / circular, issue 17 item
/// 3) on a GPU, for every family that takes them (general on both layouts, nhwc3x3,
/// cblocked3x3, cblocked1x1 (its repack applies the mode), grouped on both layouts) and the
/// router, fp16 and bf16, every atom this build's harness covers:
///   ModeFamily.MatchesTheDeviceReference  the mode's cases (cases.hpp, padmode_cases: asymmetric
///        pads, stride 2, dilation 2, pads at the mode's limit, 1-pixel images, the gather paths,
///        the grouped kernels' paths), 8 epilogue variants each, integer data, bit for bit
///        against the device reference (which remaps through pad_source as the kernels do)
///   ModeFamily.RealData  real data against the tolerance model (the error scale S remaps too)
///   PadModes.PlanEqualsFloat64HostReference  through the public plan, bit for bit against the
///        float64 host reference (the oracle the host tests check against an explicitly padded
///        input), and the launch log: the remap kernel describe() names is the one that ran
/// First run on a GPU in the eighth session (docs/TESTING.md); skipped without a GPU.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "common/check.hpp"
#include "common/expect_cases.hpp"
#include "rdnaconv/arch/platform.hpp"
#include "rdnaconv/detail/launch_log.hpp"
#include "rdnaconv/reference/host_conv.hpp"
#include "rdnaconv/router.hpp"

using namespace rdnaconv;
using namespace rdnaconv::testing;

namespace {

/// The modes with a remap kernel, and the methods that take them (the router too: the modes
/// are routed from the eighth session).
constexpr PadMode kModes[] = {PadMode::reflect, PadMode::replicate, PadMode::circular};
constexpr Method kModeMethods[] = {Method::general,     Method::nhwc3x3, Method::cblocked3x3,
                                   Method::cblocked1x1, Method::grouped, Method::automatic};

struct Config {
  PadMode mode;
  Method method;
  DType type;
  LayoutKind layout;
  AtomKind atom;
};

std::vector<Config> configs() {
  std::vector<Config> out;
  for (PadMode m : kModes)
    for (Method method : kModeMethods)
      for (LayoutKind l : {LayoutKind::nhwc, LayoutKind::nchw}) {
        if (!method_runs_on(method, l)) continue;  // nhwc3x3: NHWC only
        for (DType t : {DType::f16, DType::bf16})
          for (AtomKind a : built_atoms()) out.push_back({m, method, t, l, a});
      }
  return out;
}

std::string config_name(const ::testing::TestParamInfo<Config>& i) {
  const Config& c = i.param;
  return std::string(to_string(c.mode)) + "_" +
         (c.method == Method::automatic ? "router" : to_string(c.method)) + "_" +
         (c.type == DType::f16 ? "Fp16" : "Bf16") +
         (c.layout == LayoutKind::nhwc ? "Nhwc" : "Nchw") + "_" + to_string(c.atom);
}

class ModeFamily : public ::testing::TestWithParam<Config> {
 protected:
  void SetUp() override {
    if (!have_gpu()) GTEST_SKIP() << "no GPU";
    entry_ = check_entry(GetParam().type, GetParam().layout, GetParam().atom);
    ASSERT_NE(entry_.check, nullptr) << "configuration not built";
  }

  /// The mode's cases the method can implement, checked; returns the variants compared.
  int run_cases(DataKind data, unsigned seed) {
    const Config& c = GetParam();
    return expect_cases_pass(entry_, padmode_cases(c.mode), c.method, c.layout, data,
                             standard_variants(c.type), seed);
  }

  CheckEntry entry_;
};

}  // namespace

TEST_P(ModeFamily, MatchesTheDeviceReference) {
  const int n = run_cases(DataKind::ints, 7000);
  // every family gets several of the mode's cases (host test PadModes.DeviceCaseListCoversEachMode)
  EXPECT_GE(n, 4 * 8) << "too few of the mode's cases apply";
}

TEST_P(ModeFamily, RealData) {
  if (GetParam().atom != AtomKind::native) GTEST_SKIP() << "native atom only";
  run_cases(DataKind::real, 7100);
}

INSTANTIATE_TEST_SUITE_P(PadModes, ModeFamily, ::testing::ValuesIn(configs()), config_name);

namespace {

std::vector<std::uint16_t> ints(std::size_t n, DType t, unsigned seed) {
  std::mt19937 g(seed);
  std::vector<std::uint16_t> v(n);
  for (auto& w : v) w = detail::float_to_bits(t, float(int(g() % 7) - 3));
  return v;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& k : v) s += (s.empty() ? "" : ", ") + k;
  return s;
}

struct DeviceMemory {
  void *x = nullptr, *w = nullptr, *y = nullptr, *packed = nullptr, *work = nullptr;
  std::size_t packed_cap = 0, work_cap = 0;
  ~DeviceMemory() {
    for (void* p : {x, w, y, packed, work})
      if (p) (void)rt::free(p);
  }
};

/// One case through the plan (method m, native atom), compared word for word with the float64
/// host reference; the launch log must be the prepack and then the kernels describe() names,
/// among them the remap kernel. Empty when it passes.
std::string plan_vs_host(const Conv2dProblem& p, DType t, LayoutKind l, Method m, unsigned seed) {
  const CheckEntry e = check_entry(t, l, AtomKind::native);
  if (e.plan_run == nullptr) return "configuration not built";
  const auto hx = ints(std::size_t(p.x_elems()), t, seed);
  const auto hw = ints(std::size_t(p.w_elems()), t, seed + 1);
  const std::size_t ny = std::size_t(p.y_elems());
  DeviceMemory d;
  if (rt::malloc(&d.x, hx.size() * 2) != rt::success ||
      rt::malloc(&d.w, hw.size() * 2) != rt::success || rt::malloc(&d.y, ny * 2) != rt::success ||
      rt::memcpy_h2d(d.x, hx.data(), hx.size() * 2) != rt::success ||
      rt::memcpy_h2d(d.w, hw.data(), hw.size() * 2) != rt::success ||
      rt::memset(d.y, 0xff, ny * 2) != rt::success)
    return "allocation or upload";
  PlanRun r;
  r.p = p;
  r.o.method = m;
  r.x = d.x;
  r.w = d.w;
  r.y = d.y;
  r.packed = &d.packed;
  r.packed_cap = &d.packed_cap;
  r.workspace = &d.work;
  r.workspace_cap = &d.work_cap;
  detail::LaunchLog log;
  Status s;
  {
    detail::ScopedLaunchLog scope(log);
    s = e.plan_run(r);
  }
  if (!s) return "plan or run: " + s.message();
  const std::string prepack = r.ran == Method::grouped ? "pack_grouped" : "pack_tap_major";
  if (joined(log.kernels) != prepack + ", " + r.kernels)
    return "launched [" + joined(log.kernels) + "], describe() names [" + r.kernels + "]";
  // the mode is applied by a remap kernel, or by cblocked1x1's repack (its GEMM then reads a
  // dense, unpadded problem: a zeros kernel)
  const char* applies = r.ran == Method::cblocked1x1 ? "repack_nchwc_1x1" : " remap>";
  if (r.kernels.find(applies) == std::string::npos)
    return std::string("no ") + applies + " kernel in [" + r.kernels + "]";
  std::vector<std::uint16_t> got(ny);
  if (rt::memcpy_d2h(got.data(), d.y, ny * 2) != rt::success) return "download";
  const std::vector<std::uint32_t> want =
      reference::host_conv2d(p, l, t, hx.data(), hw.data(), {}, t);
  std::int64_t bad = 0, first = -1;
  for (std::size_t i = 0; i < ny; ++i)
    if (got[i] != want[i]) {
      if (first < 0) first = std::int64_t(i);
      ++bad;
    }
  if (bad == 0) return {};
  return std::to_string(bad) + " of " + std::to_string(ny) + " outputs differ, first at " +
         std::to_string(first) + ": got bits " + std::to_string(got[std::size_t(first)]) +
         ", want " + std::to_string(want[std::size_t(first)]) + " (" + to_string(r.ran) + ", " +
         r.kernels + ")";
}

}  // namespace

TEST(PadModes, PlanEqualsFloat64HostReference) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  int checked = 0;
  unsigned seed = 300;
  for (PadMode mode : kModes)
    for (LayoutKind l : {LayoutKind::nhwc, LayoutKind::nchw})
      for (DType t : {DType::f16, DType::bf16})
        for (Method m : kModeMethods)
          for (const Case& c : padmode_cases(mode)) {
            if (m != Method::automatic && !can_implement(m, c.p, l)) continue;
            const std::string why = plan_vs_host(c.p, t, l, m, seed++);
            EXPECT_TRUE(why.empty())
                << c.what << " " << describe(c.p) << " " << to_string(l) << " " << to_string(t)
                << " " << (m == Method::automatic ? "router" : to_string(m)) << ": " << why;
            ++checked;
          }
  EXPECT_GT(checked, 300);
}
