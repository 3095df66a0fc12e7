// SPDX-License-Identifier: MIT
/// @file test_big.cpp Tensors over 2^31 elements: fp16, N = 1, C = 128, H = W = 4200 (x has
/// 2.26e9 elements; with K = 128 so has y) through the general, 3x3 and 1x1 families (and
/// cblocked1x1's repack), the
/// grouped family (depthwise on both layouts, 32 groups on NCHW; their grids also stride over
/// more blocks of work than the 2^20 they launch) and, on a Hopper GPU, the TMA family (its
/// N = 2 case puts the second image past 2^31 elements), checked
/// against the device reference on a seeded sample of 2^22 outputs plus the first and last
/// 4096 (integer data: bitwise), and the TMA family's tall block likewise. Needs about 14 GB
/// of device memory; skipped without a GPU.
#include <gtest/gtest.h>

#include "common/check.hpp"

using namespace rdnaconv;
using namespace rdnaconv::testing;

namespace {
void check_big(Method m, LayoutKind l, const Conv2dProblem& p, DType t = DType::f16,
               TileChoice tile = TileChoice::automatic, Schedule schedule = Schedule::automatic) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  if (!method_runs_here(m, AtomKind::native))
    GTEST_SKIP() << to_string(m) << " does not run on this GPU's tile table";
  ASSERT_GT(p.x_elems(), std::int64_t(1) << 31);
  const CheckEntry e = check_entry(t, l, AtomKind::native);
  CheckRequest rq;
  rq.c = {"over 2^31 elements", p};
  rq.method = m;
  rq.tile = tile;
  rq.schedule = schedule;
  rq.data = DataKind::ints;
  rq.seed = 31;
  rq.variants = {Variant{Activation::relu, true, DType::f32, DType::same}};
  const std::vector<Outcome> res = e.check(rq);
  ASSERT_EQ(res.size(), 1u);
  EXPECT_FALSE(res[0].skipped) << res[0].skip_reason;
  EXPECT_TRUE(res[0].pass) << to_string(m) << " " << describe(p) << ": " << res[0].detail;
  EXPECT_GE(res[0].checked, std::uint64_t(1) << 22);
}
}  // namespace

TEST(BigTensor, General3x3Nhwc) {
  check_big(Method::general, LayoutKind::nhwc, make_problem(1, 128, 4200, 4200, 128, 3, 3, 1, 1));
}
TEST(BigTensor, Nhwc3x3) {
  check_big(Method::nhwc3x3, LayoutKind::nhwc, make_problem(1, 128, 4200, 4200, 128, 3, 3, 1, 1));
}
TEST(BigTensor, Gemm1x1Nchw) {
  check_big(Method::gemm1x1, LayoutKind::nchw, make_problem(1, 128, 4200, 4200, 128, 1, 1));
}
// cblocked1x1: x and its repack (x's read pixels, channel-blocked, 4.5 GB of workspace) both past
// 2^31 elements; then stride 2 with padding 1, whose repack gathers a quarter of x.
TEST(BigTensor, CBlocked1x1Nchw) {
  check_big(Method::cblocked1x1, LayoutKind::nchw, make_problem(1, 128, 4200, 4200, 128, 1, 1));
  check_big(Method::cblocked1x1, LayoutKind::nchw,
            make_problem(1, 128, 4200, 4200, 128, 1, 1, 2, 1));
}
// The TMA family: 4-D boxes whose coordinates are per dimension (32-bit), output offsets 64-bit.
// N = 2, C = 128 at 2900² (x: 2.15e9 elements) and K = 256 (the 256-wide variant; y: 4.3e9
// elements, its second image past 2^31); bf16 (the routed type).
TEST(BigTensor, HopperTmaNhwc) {  // one block per tile (the schedule forced: the ping-pong rule)
  check_big(Method::hopper_tma, LayoutKind::nhwc, make_problem(2, 128, 2900, 2900, 256, 3, 3, 1, 1),
            DType::bf16, TileChoice::automatic, Schedule::per_tile);
}
TEST(BigTensor, GroupedDepthwiseNhwc) {
  check_big(Method::grouped, LayoutKind::nhwc,
            make_problem(1, 128, 4200, 4200, 128, 3, 3, 1, 1, 1, 128));
}
TEST(BigTensor, GroupedDepthwiseNchw) {
  check_big(Method::grouped, LayoutKind::nchw,
            make_problem(1, 128, 4200, 4200, 128, 3, 3, 1, 1, 1, 128));
}
TEST(BigTensor, Grouped32Nchw) {
  check_big(Method::grouped, LayoutKind::nchw,
            make_problem(1, 128, 4200, 4200, 128, 3, 3, 1, 1, 1, 32));
}
// hopper_tma's tall block (256 x 128, K <= 128; the router's choice for K = 128 at >= 256x256
// outputs): N = 2, C = K = 128 at 2900² (x and y 2.15e9 elements each, the second image past
// 2^31); forced with tile = tall so that it runs whatever the rule says.
TEST(BigTensor, HopperTallNhwc) {
  check_big(Method::hopper_tma, LayoutKind::nhwc, make_problem(2, 128, 2900, 2900, 128, 3, 3, 1, 1),
            DType::bf16, TileChoice::tall);
}
// hopper_tma's persistent walk (version 6: Conv2dOptions::schedule = persistent) on the
// HopperTmaNhwc problem: 128 x 256 blocks, each walking about 1000 of the 133k tiles, the
// epilogue's 64-bit output offsets from the registers.
TEST(BigTensor, HopperPersistentNhwc) {
  check_big(Method::hopper_tma, LayoutKind::nhwc, make_problem(2, 128, 2900, 2900, 256, 3, 3, 1, 1),
            DType::bf16, TileChoice::automatic, Schedule::persistent);
}
// hopper_tma's version 8 (Schedule::pingpong) on the same problem: 128 x 128 tiles per consumer
// warpgroup, K = 256 in two filter blocks, the second image past 2^31 elements.
TEST(BigTensor, HopperPingpongNhwc) {
  check_big(Method::hopper_tma, LayoutKind::nhwc, make_problem(2, 128, 2900, 2900, 256, 3, 3, 1, 1),
            DType::bf16, TileChoice::automatic, Schedule::pingpong);
}
// hopper_halo (version 7): its tall block (K = 128) on the HopperTallNhwc problem: the halo box's
// 4-D coordinates, the second image past 2^31 elements, 64-bit output offsets.
TEST(BigTensor, HopperHaloNhwc) {
  check_big(Method::hopper_halo, LayoutKind::nhwc,
            make_problem(2, 128, 2900, 2900, 128, 3, 3, 1, 1), DType::bf16);
}
