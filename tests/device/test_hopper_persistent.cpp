// SPDX-License-Identifier: MIT
/// @file test_hopper_persistent.cpp hopper_tma's version 6, the persistent tile walk
/// (Conv2dOptions::schedule = Schedule::persistent; kernels/hopper/README.md), on a Hopper GPU
/// with an sm_90a build:
///   HopperPersistent.MatchesTheDeviceReference  the edge list's NHWC cases hopper_tma takes
///        and the family's own box shapes, on the 128-row blocks (both filter widths, 32- and
///        64-channel steps) and on the tall block where K <= 128, plus layers with more tiles
///        than the GPU has multiprocessors (each block walks several tiles, the stage ring
///        running on across them), 8 epilogue variants each, fp16 and bf16, integer data bit
///        for bit against the device reference, then real data against the tolerance model
///   HopperPersistent.LaunchesThePersistentKernel  the launch log: the kernel describe() names
///        (hopper_tma_persistent<nhwc>) on the tile describe() names
/// Skipped where hopper_tma does not run (not a Hopper GPU, or a build without sm_90a).
#include <gtest/gtest.h>

#include <vector>

#include "common/check.hpp"
#include "common/expect_cases.hpp"

using namespace rdnaconv;
using namespace rdnaconv::testing;

namespace {

std::vector<Case> persistent_cases() {
  std::vector<Case> out;
  for (const Case& c : edge_cases())
    if (can_implement(Method::hopper_tma, c.p, LayoutKind::nhwc)) out.push_back(c);
  const std::vector<Case> own = {
      // more tiles than multiprocessors: 128 x 256 blocks, 64-channel steps, 256 x 2 tiles
      {"C = 64, K = 512 at 128x128, 2 images (512 tiles)",
       make_problem(2, 64, 128, 128, 512, 3, 3, 1, 1)},
      // 128 x 128 blocks, 32-channel steps (C_pad = 96), K = 128 (8 stages of 16 KiB)
      {"C = 96, K = 128 at 96x96, 2 images (192 tiles)",
       make_problem(2, 96, 96, 96, 128, 3, 3, 1, 1)},
      {"VAE-like C = K = 128, 3x3 at 40x70", make_problem(1, 128, 40, 70, 128, 3, 3, 1, 1)},
      {"one output column, 3 images", make_problem(3, 64, 150, 1, 64, 3, 1, 1, 0)},
      {"one output row", make_problem(1, 64, 1, 300, 96, 1, 3, 1, 0)},
      {"stride 2, K = 200, C = 96", make_problem(2, 96, 37, 45, 200, 3, 3, 2, 1)},
      {"7x7 at batch 40: several images per box", make_problem(40, 64, 7, 7, 256, 3, 3, 1, 1)},
      {"K = 13 (element stores)", make_problem(1, 32, 20, 20, 13, 3, 3, 1, 1)},
      {"1x1, C = 256, K = 320", make_problem(2, 256, 24, 24, 320, 1, 1)},
  };
  for (const Case& c : own) out.push_back(c);
  return out;
}

bool persistent_runs_here() {
  return have_gpu() && method_runs_here(Method::hopper_tma, AtomKind::native);
}

}  // namespace

TEST(HopperPersistent, MatchesTheDeviceReference) {
  if (!persistent_runs_here()) GTEST_SKIP() << "hopper_tma does not run here";
  const std::vector<Case> cases = persistent_cases();
  ASSERT_GE(cases.size(), 20u);
  std::vector<Case> tall;
  for (const Case& c : cases)
    if (kernels::hopper_tall_fits(c.p)) tall.push_back(c);
  ASSERT_GE(tall.size(), 8u);
  for (TileChoice tile : {TileChoice::main, TileChoice::tall}) {
    SCOPED_TRACE(to_string(tile));
    expect_nhwc_cases_pass_both_types(tile == TileChoice::tall ? tall : cases, Method::hopper_tma,
                                      9700, 9800, tile, Schedule::persistent);
    if (HasFailure()) return;
  }
}

TEST(HopperPersistent, LaunchesThePersistentKernel) {
  if (!persistent_runs_here()) GTEST_SKIP() << "hopper_tma does not run here";
  Conv2dOptions o;
  o.method = Method::hopper_tma;
  o.schedule = Schedule::persistent;
  // y of the 512-tile case: 16.8M elements
  expect_hopper_launches(persistent_cases(), o, "hopper_tma_persistent<nhwc>", "persistent",
                         std::size_t(1) << 25);
}
