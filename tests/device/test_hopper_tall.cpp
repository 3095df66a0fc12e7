// SPDX-License-Identifier: MIT
/// @file test_hopper_tall.cpp hopper_tma's tall block (version 4: 256 pixels x 128 filters,
/// Conv2dOptions::tile = TileChoice::tall, K <= 128) on a Hopper GPU with an sm_90a build:
///   HopperTall.MatchesTheDeviceReference  the edge list and the family's own cases with
///        K <= 128 (box shapes: one-column and one-row outputs, stride 2, several images per box,
///        32- and 64-channel steps, K not a multiple of 8), 8 epilogue variants each, fp16 and
///        bf16, integer data bit for bit against the device reference, then real data against
///        the tolerance model
///   HopperTall.LaunchesTheTallBlock  the launch log: the kernel describe() names, on the
///        256 x 128 tile
/// Skipped where hopper_tma does not run (not a Hopper GPU, or a build without sm_90a).
#include <gtest/gtest.h>

#include <vector>

#include "common/check.hpp"
#include "common/expect_cases.hpp"

using namespace rdnaconv;
using namespace rdnaconv::testing;

namespace {

std::vector<Case> tall_cases() {
  std::vector<Case> out;
  for (const Case& c : edge_cases())
    if (can_implement(Method::hopper_tma, c.p, LayoutKind::nhwc) && kernels::hopper_tall_fits(c.p))
      out.push_back(c);
  const std::vector<Case> own = {
      {"VAE-like C = K = 128, 3x3 at 40x70", make_problem(1, 128, 40, 70, 128, 3, 3, 1, 1)},
      {"one output column, 3 images", make_problem(3, 64, 150, 1, 64, 3, 1, 1, 0)},
      {"one output row", make_problem(1, 64, 1, 300, 96, 1, 3, 1, 0)},
      {"stride 2, K = 72, C = 96 (32-channel steps)", make_problem(2, 96, 37, 45, 72, 3, 3, 2, 1)},
      {"7x7 at batch 9: several images per box", make_problem(9, 64, 7, 7, 128, 3, 3, 1, 1)},
      {"K = 13 (element stores)", make_problem(1, 32, 20, 20, 13, 3, 3, 1, 1)},
      {"1x1, C = 256", make_problem(2, 256, 24, 24, 128, 1, 1)},
  };
  for (const Case& c : own) out.push_back(c);
  return out;
}

bool tall_runs_here() {
  return have_gpu() && method_runs_here(Method::hopper_tma, AtomKind::native);
}

}  // namespace

TEST(HopperTall, MatchesTheDeviceReference) {
  if (!tall_runs_here()) GTEST_SKIP() << "hopper_tma does not run here";
  const std::vector<Case> cases = tall_cases();
  ASSERT_GE(cases.size(), 12u);
  expect_nhwc_cases_pass_both_types(cases, Method::hopper_tma, 9500, 9600, TileChoice::tall);
}

TEST(HopperTall, LaunchesTheTallBlock) {
  if (!tall_runs_here()) GTEST_SKIP() << "hopper_tma does not run here";
  Conv2dOptions o;
  o.method = Method::hopper_tma;
  o.tile = TileChoice::tall;
  expect_hopper_launches(tall_cases(), o, "hopper_tma_conv<nhwc>", "256x128x", std::size_t(1) << 22,
                         true);
}
