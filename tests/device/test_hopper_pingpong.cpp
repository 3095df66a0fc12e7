// SPDX-License-Identifier: MIT
/// @file test_hopper_pingpong.cpp hopper_tma's version 8, the ping-pong walk
/// (Conv2dOptions::schedule = Schedule::pingpong; kernels/hopper/README.md), on a Hopper GPU
/// with an sm_90a build:
///   HopperPingpong.MatchesTheDeviceReference  the edge list's NHWC cases hopper_tma takes and
///        the walk's own: tile counts below, at and above twice the multiprocessors (blocks
///        whose second warpgroup has no tile, one tile fewer than the first, several turns
///        each), K > 128 (two or more filter blocks of 128), 32- and 64-channel steps, reductions
///        shorter and longer than the ring, 8 epilogue variants each, fp16 and bf16, integer
///        data bit for bit against the device reference, then real data against the tolerance
///        model
///   HopperPingpong.LaunchesThePingpongKernel  the launch log: the kernel describe() names
///        (hopper_tma_pingpong<nhwc>) on the tile describe() names
/// Skipped where hopper_tma does not run (not a Hopper GPU, or a build without sm_90a).
#include <gtest/gtest.h>

#include <vector>

#include "common/check.hpp"
#include "common/expect_cases.hpp"

using namespace rdnaconv;
using namespace rdnaconv::testing;

namespace {

std::vector<Case> pingpong_cases() {
  std::vector<Case> out;
  for (const Case& c : edge_cases())
    if (can_implement(Method::hopper_tma, c.p, LayoutKind::nhwc)) out.push_back(c);
  const std::vector<Case> own = {
      // 1024 tiles of 128 x 128: about 8 per block on an H100, 4 turns per warpgroup
      {"C = 64, K = 512 at 128x128, 2 images (1024 tiles)",
       make_problem(2, 64, 128, 128, 512, 3, 3, 1, 1)},
      // 32-channel steps (C_pad = 96: 12 stages of 16 KiB), 27 steps per tile
      {"C = 96, K = 128 at 96x96, 2 images (144 tiles)",
       make_problem(2, 96, 96, 96, 128, 3, 3, 1, 1)},
      // an odd tile count a little above the multiprocessors: second warpgroups mostly idle
      {"C = 128, K = 128 at 136x128 (17 x 8 = 136 tiles)",
       make_problem(1, 128, 136, 128, 128, 3, 3, 1, 1)},
      // 2 x 132 + 1 tiles: one block's first warpgroup has a third tile
      {"C = 64, K = 128 at 265x128 (265 tiles)", make_problem(1, 64, 265, 128, 128, 3, 3, 1, 1)},
      // a long reduction (C = 512: 72 steps per tile, 12 laps of the ring) on few tiles
      {"C = 512, K = 256 at 32x32 (16 tiles)", make_problem(1, 512, 32, 32, 256, 3, 3, 1, 1)},
      // a reduction shorter than the ring (1 step per tile): the skip wraps within a lap
      {"1x1, C = 64, K = 128 at 64x64, 4 images", make_problem(4, 64, 64, 64, 128, 1, 1)},
      {"1x1, C = 256, K = 320 (3 filter blocks, the last partial)",
       make_problem(2, 256, 24, 24, 320, 1, 1)},
      {"VAE-like C = K = 128, 3x3 at 40x70", make_problem(1, 128, 40, 70, 128, 3, 3, 1, 1)},
      {"one output column, 3 images", make_problem(3, 64, 150, 1, 64, 3, 1, 1, 0)},
      {"stride 2, K = 200, C = 96", make_problem(2, 96, 37, 45, 200, 3, 3, 2, 1)},
      {"7x7 at batch 40: several images per box", make_problem(40, 64, 7, 7, 256, 3, 3, 1, 1)},
      {"K = 13 (element stores)", make_problem(1, 32, 20, 20, 13, 3, 3, 1, 1)},
  };
  for (const Case& c : own) out.push_back(c);
  return out;
}

bool pingpong_runs_here() {
  return have_gpu() && method_runs_here(Method::hopper_tma, AtomKind::native);
}

}  // namespace

TEST(HopperPingpong, MatchesTheDeviceReference) {
  if (!pingpong_runs_here()) GTEST_SKIP() << "hopper_tma does not run here";
  const std::vector<Case> cases = pingpong_cases();
  ASSERT_GE(cases.size(), 20u);
  expect_nhwc_cases_pass_both_types(cases, Method::hopper_tma, 10100, 10200, TileChoice::automatic,
                                    Schedule::pingpong);
}

TEST(HopperPingpong, LaunchesThePingpongKernel) {
  if (!pingpong_runs_here()) GTEST_SKIP() << "hopper_tma does not run here";
  Conv2dOptions o;
  o.method = Method::hopper_tma;
  o.schedule = Schedule::pingpong;
  // y of the 1024-tile case: 16.8M elements; every tile 128 x 128 per consumer warpgroup
  expect_hopper_launches(pingpong_cases(), o, "hopper_tma_pingpong<nhwc>", "128x128x",
                         std::size_t(1) << 25, true);
  if (HasFailure()) return;
  expect_hopper_launches(pingpong_cases(), o, "hopper_tma_pingpong<nhwc>", "ping-pong",
                         std::size_t(1) << 25);
}
