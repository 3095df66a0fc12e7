// SPDX-License-Identifier: MIT
/// @file test_small_tile.cpp The small tile row (kernels/common/tiles.hpp, ArchTiles::small;
/// Conv2dOptions::tile = small) on a GPU, for every direct engine family on its layouts, fp16 and
/// bf16, every atom this build's harness covers (the RDNA rows run emulated on NVIDIA):
///   SmallTileFamily.MatchesTheDeviceReference  the edge list and small-grid cases (ResNet-50's
///        7x7 / 14x14 layers, narrowed), 8 epilogue variants each, integer data, bit for bit
///        against the device reference; unsplit, with the plan's own split-K on the small grid,
///        and with a forced split of 3 parts
///   SmallTileFamily.RealData  real data against the tolerance model (native atom)
///   SmallTile.LaunchesTheSmallTile  through the public plan: the launch log names the kernels
///        describe() names, on the 64 x 64 tile, split or not
/// These passed on an H100 in the eighth session; the sm90 router takes the tile since
/// (RouterThresholds::small_below_sm_fraction, router.hpp). Skipped without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "common/check.hpp"
#include "common/expect_cases.hpp"

using namespace rdnaconv;
using namespace rdnaconv::testing;

namespace {

constexpr Method kDirect[] = {Method::general, Method::gemm1x1, Method::nhwc3x3, Method::nchw3x3,
                              Method::cblocked3x3};

struct Config {
  Method method;
  DType type;
  LayoutKind layout;
  AtomKind atom;
};

std::vector<Config> configs() {
  std::vector<Config> out;
  for (Method m : kDirect)
    for (LayoutKind l : {LayoutKind::nhwc, LayoutKind::nchw}) {
      if (!method_runs_on(m, l)) continue;  // the layout-bound 3x3 variants
      for (DType t : {DType::f16, DType::bf16})
        for (AtomKind a : built_atoms()) out.push_back({m, t, l, a});
    }
  return out;
}

std::string config_name(const ::testing::TestParamInfo<Config>& i) {
  const Config& c = i.param;
  return std::string(to_string(c.method)) + "_" + (c.type == DType::f16 ? "Fp16" : "Bf16") +
         (c.layout == LayoutKind::nhwc ? "Nhwc" : "Nchw") + "_" + to_string(c.atom);
}

/// Small grids the tile is for: ResNet-50's batch-1 layers at 7x7 and 14x14 with C and K cut so
/// that the naive reference stays quick, K not a multiple of 64, pixel counts not multiples of 8.
std::vector<Case> small_grid_cases() {
  return {
      {"layer4 3x3 at 7x7, narrowed", make_problem(1, 128, 7, 7, 160, 3, 3, 1, 1)},
      {"layer4 1x1 at 7x7, narrowed", make_problem(1, 512, 7, 7, 96, 1, 1)},
      {"layer3 1x1 at 14x14, K = 70", make_problem(1, 256, 14, 14, 70, 1, 1)},
      {"layer3 3x3 stride 2, N2", make_problem(2, 64, 14, 14, 72, 3, 3, 2, 1)},
      {"one output pixel", make_problem(1, 96, 1, 1, 65, 1, 1)},
  };
}

class SmallTileFamily : public ::testing::TestWithParam<Config> {
 protected:
  void SetUp() override {
    if (!have_gpu()) GTEST_SKIP() << "no GPU";
    entry_ = check_entry(GetParam().type, GetParam().layout, GetParam().atom);
    ASSERT_NE(entry_.check, nullptr) << "configuration not built";
  }
  int run(const std::vector<Case>& cases, DataKind data, unsigned seed, int split_k) {
    const Config& c = GetParam();
    return expect_cases_pass(entry_, cases, c.method, c.layout, data, standard_variants(c.type),
                             seed, TileChoice::small, split_k);
  }
  CheckEntry entry_;
};

}  // namespace

TEST_P(SmallTileFamily, MatchesTheDeviceReference) {
  std::vector<Case> cases = edge_cases();
  for (const Case& c : small_grid_cases()) cases.push_back(c);
  int n = 0;
  for (int split : {1, 0, 3}) {  // unsplit, the plan's own split-K, forced 3 parts
    SCOPED_TRACE("split_k=" + std::to_string(split));
    n += run(cases, DataKind::ints, 9000 + unsigned(split), split);
    if (HasFailure()) return;
  }
  EXPECT_GE(n, 3 * 4 * 8) << "too few cases apply";
}

TEST_P(SmallTileFamily, RealData) {
  if (GetParam().atom != AtomKind::native) GTEST_SKIP() << "native atom only";
  run(small_grid_cases(), DataKind::real, 9100, 0);
}

INSTANTIATE_TEST_SUITE_P(SmallTile, SmallTileFamily, ::testing::ValuesIn(configs()), config_name);

namespace {
std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& k : v) s += (s.empty() ? "" : ", ") + k;
  return s;
}
}  // namespace

TEST(SmallTile, LaunchesTheSmallTile) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  PlanScratch b(std::size_t(1) << 20);
  ASSERT_TRUE(b.ok());
  int checked = 0;
  for (AtomKind a : built_atoms())
    for (LayoutKind l : {LayoutKind::nhwc, LayoutKind::nchw}) {
      const CheckEntry e = check_entry(DType::bf16, l, a);
      ASSERT_NE(e.plan_run, nullptr);
      for (Method m : kDirect)
        for (const Case& c : small_grid_cases())
          for (int split : {1, 0, 3}) {
            if (!can_implement(m, c.p, l)) continue;
            ASSERT_LE(std::size_t(std::max({c.p.x_elems(), c.p.w_elems(), c.p.y_elems()})),
                      b.elems);
            PlanRun r;
            r.p = c.p;
            r.o.method = m;
            r.o.tile = TileChoice::small;
            r.o.split_k = split;
            b.attach(r);
            std::vector<std::string> kernels, tiles;
            const Status s = plan_run_logged(e, r, kernels, tiles);
            const std::string what = std::string(to_string(m)) + " " + to_string(l) + " " +
                                     to_string(a) + " split_k=" + std::to_string(split) + " " +
                                     c.what + " " + describe(c.p);
            ASSERT_TRUE(s.ok()) << what << ": " << s.message();
            EXPECT_EQ(joined(kernels), "pack_tap_major, " + r.kernels) << what;
            EXPECT_EQ(joined(tiles), r.tile) << what;
            EXPECT_EQ(r.tile.rfind("64x64x32 warps=2x2 ", 0), 0u) << what << ": " << r.tile;
            if (split == 3) EXPECT_NE(r.kernels.find("splitk_reduce"), std::string::npos) << what;
            ++checked;
          }
    }
  EXPECT_GE(checked, 60);
}
