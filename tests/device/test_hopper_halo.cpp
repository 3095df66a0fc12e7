// SPDX-License-Identifier: MIT
/// @file test_hopper_halo.cpp The Hopper halo family (Method::hopper_halo, version 7:
/// kernels/hopper/README.md), on a Hopper GPU with an sm_90a build:
///   HopperHalo.MatchesTheDeviceReference  the edge list's cases it takes and its own: both
///        blocks (256 x 128 for K <= 128, 128 x 256 above, K past one filter block), both box
///        widths (64 and 128 columns, outputs narrower and wider, a partial last box), 2x2,
///        1x3, 3x1 and 3x3 filters, asymmetric and oversized padding, several images, C = 64
///        to 256 (one to four halo boxes per tile), more tiles than multiprocessors; 8 epilogue
///        variants each, fp16 and bf16, integer data bit for bit against the device reference,
///        then real data against the tolerance model
///   HopperHalo.LaunchesTheHaloKernel  the launch log: the kernel and tile describe() names
/// The Family suites (test_families.cpp) run it too (edge list, 100 random shapes, epilogues,
/// real data, stability). Skipped where it does not run (not a Hopper GPU, or a build without
/// sm_90a).
#include <gtest/gtest.h>

#include <vector>

#include "common/check.hpp"
#include "common/expect_cases.hpp"

using namespace rdnaconv;
using namespace rdnaconv::testing;

namespace {

std::vector<Case> halo_cases() {
  std::vector<Case> out;
  for (const Case& c : edge_cases())
    if (can_implement(Method::hopper_halo, c.p, LayoutKind::nhwc)) out.push_back(c);
  const std::vector<Case> own = {
      {"VAE-like C = K = 128 at 40x150 (128-column boxes, a partial one)",
       make_problem(1, 128, 40, 150, 128, 3, 3, 1, 1)},
      {"C = 256, K = 256 at 33x70 (128 x 256 blocks, 64-column boxes)",
       make_problem(1, 256, 33, 70, 256, 3, 3, 1, 1)},
      {"K = 300: two filter blocks of 256", make_problem(2, 64, 12, 20, 300, 3, 3, 1, 1)},
      {"K = 13 (element stores)", make_problem(1, 64, 20, 20, 13, 3, 3, 1, 1)},
      {"K = 136, C = 192 (three halo boxes per tile)",
       make_problem(1, 192, 17, 129, 136, 3, 3, 1, 1)},
      {"2x2 filter, no padding", make_problem(2, 64, 15, 65, 64, 2, 2, 1, 0)},
      {"1x3 filter", make_problem(1, 128, 9, 200, 96, 1, 3, 1, 0)},
      {"3x1 filter, 3 images", make_problem(3, 64, 30, 7, 128, 3, 1, 1, 0)},
      {"one-row image", make_problem(1, 64, 1, 300, 128, 3, 3, 1, 1)},
      {"one-column image", make_problem(2, 64, 70, 1, 64, 3, 3, 1, 1)},
      {"more tiles than multiprocessors (C = 64, K = 128 at 256x256, 256 tiles)",
       make_problem(1, 64, 256, 256, 128, 3, 3, 1, 1)},
  };
  for (const Case& c : own) out.push_back(c);
  Case asym{"asymmetric padding (0 top, 2 bottom, 2 left, 1 right)",
            make_problem(1, 128, 19, 67, 64, 3, 3, 1, 0)};
  asym.p = with_pads(asym.p, 0, 2, 2, 1);
  out.push_back(asym);
  Case wide{"padding past the filter (3 per side)", make_problem(1, 64, 10, 12, 40, 3, 3, 1, 0)};
  wide.p = with_pads(wide.p, 3, 3, 3, 3);
  out.push_back(wide);
  return out;
}

bool halo_runs_here() {
  return have_gpu() && method_runs_here(Method::hopper_halo, AtomKind::native);
}

}  // namespace

TEST(HopperHalo, MatchesTheDeviceReference) {
  if (!halo_runs_here()) GTEST_SKIP() << "hopper_halo does not run here";
  const std::vector<Case> cases = halo_cases();
  ASSERT_GE(cases.size(), 15u);
  for (const Case& c : cases)
    ASSERT_TRUE(can_implement(Method::hopper_halo, c.p, LayoutKind::nhwc)) << c.what;
  expect_nhwc_cases_pass_both_types(cases, Method::hopper_halo, 9900, 9950);
}

TEST(HopperHalo, LaunchesTheHaloKernel) {
  if (!halo_runs_here()) GTEST_SKIP() << "hopper_halo does not run here";
  Conv2dOptions o;
  o.method = Method::hopper_halo;
  expect_hopper_launches(halo_cases(), o, "hopper_halo_conv<nhwc>", "halo box",
                         std::size_t(1) << 24);
}
