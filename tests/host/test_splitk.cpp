// SPDX-License-Identifier: MIT
/// @file test_splitk.cpp Split-K's host half: the parts a forced Conv2dOptions::split_k gives,
/// the workspace they take, what describe() says, and the errors (no GPU needed).
#include <gtest/gtest.h>

#include <string>

#include "rdnaconv/plan_desc.hpp"

using namespace rdnaconv;

namespace {
const DeviceInfo kH200 = make_device_info(false, 90, 32);

PlanDesc plan_or_fail(const Conv2dProblem& p, Conv2dOptions o, LayoutKind l = LayoutKind::nhwc,
                      AtomKind atom = AtomKind::native) {
  PlanDesc d;
  const Status s = make_plan_desc(d, p, DType::f16, l, o, kH200, atom);
  EXPECT_TRUE(s.ok()) << s.message();
  return d;
}
}  // namespace

TEST(SplitK, PartsOfAReduction) {
  // each part ceil(steps / want) steps, none empty, fewer parts when the reduction is short
  EXPECT_EQ(split_k_parts(10, 4).parts, 4);
  EXPECT_EQ(split_k_parts(10, 4).steps, 3);  // 3 + 3 + 3 + 1
  EXPECT_EQ(split_k_parts(10, 6).parts, 5);  // 2 x 5: a sixth part would be empty
  EXPECT_EQ(split_k_parts(10, 6).steps, 2);
  EXPECT_EQ(split_k_parts(144, 16).parts, 16);
  EXPECT_EQ(split_k_parts(144, 16).steps, 9);
  EXPECT_EQ(split_k_parts(3, 64).parts, 3);
  EXPECT_EQ(split_k_parts(3, 64).steps, 1);
  EXPECT_EQ(split_k_parts(1, 8).parts, 1);
  EXPECT_EQ(split_k_parts(50, 1).parts, 1);
  for (int steps = 1; steps <= 200; ++steps)
    for (int want = 1; want <= 64; ++want) {
      const SplitK s = split_k_parts(steps, want);
      ASSERT_GE(s.parts, 1);
      ASSERT_LE(s.parts, want);
      ASSERT_LT(std::int64_t(s.parts - 1) * s.steps, steps)
          << steps << " in " << want;  // last non-empty
      ASSERT_GE(std::int64_t(s.parts) * s.steps, steps) << steps << " in " << want;  // all covered
    }
}

TEST(SplitK, AutomaticAndOneMeanNoSplit) {
  // ResNet-50 layer4 3x3 at batch 1: the small grid split-K is for; not split unless forced
  const Conv2dProblem p = make_problem(1, 512, 7, 7, 512, 3, 3, 1, 1);
  for (int k : {0, 1}) {
    Conv2dOptions o;
    o.split_k = k;
    const PlanDesc d = plan_or_fail(p, o);
    EXPECT_EQ(d.split_k, 1);
    EXPECT_EQ(d.split_steps, 0);
    EXPECT_EQ(describe_plan(d).find("split_k"), std::string::npos);
    EXPECT_EQ(plan_kernels(d).find("splitk_reduce"), std::string::npos);
  }
}

TEST(SplitK, ForcedOnTheDirectFamilies) {
  // 3x3 512 -> 512 at 7x7, N = 1: 9 taps x 512 channels = 144 steps of 32 on the sm90 table
  const Conv2dProblem p = make_problem(1, 512, 7, 7, 512, 3, 3, 1, 1);
  for (Method m : {Method::nhwc3x3, Method::general}) {
    Conv2dOptions o;
    o.method = m;
    const PlanDesc plain = plan_or_fail(p, o);
    o.split_k = 16;
    const PlanDesc d = plan_or_fail(p, o);
    const MethodInfo* mi = find_method(m);
    const std::int64_t steps = mi->k_steps(p, d.tiles);
    ASSERT_GT(steps, 1);
    const SplitK sk = split_k_parts(steps, 16);
    EXPECT_EQ(d.split_k, sk.parts) << to_string(m);
    EXPECT_EQ(d.split_steps, sk.steps);
    // the family's workspace first, the fp32 slices after it, 256-byte aligned
    EXPECT_EQ(d.split_offset % 256, 0u);
    EXPECT_GE(d.split_offset, plain.workspace_bytes);
    EXPECT_EQ(d.workspace_bytes,
              d.split_offset + std::size_t(sk.parts) * std::size_t(p.y_elems()) * 4);
    EXPECT_EQ(d.method, m);
    const std::string s = describe_plan(d);
    EXPECT_NE(s.find("split_k=" + std::to_string(sk.parts)), std::string::npos) << s;
    EXPECT_EQ(s.find("not device-tested"), std::string::npos) << s;  // device suite, 61c66d3
    EXPECT_NE(plan_kernels(d).find("splitk_reduce"), std::string::npos);
  }
  // 1x1 1024 -> 256 at 14x14 (ResNet-50 layer3.1.conv1): 32 steps of 32
  Conv2dOptions o;
  o.method = Method::gemm1x1;
  o.split_k = 8;
  const PlanDesc d = plan_or_fail(make_problem(1, 1024, 14, 14, 256, 1, 1), o);
  EXPECT_EQ(d.split_k, 8);
  EXPECT_EQ(d.split_steps, 4);
  EXPECT_EQ(d.split_offset, 0u);  // gemm1x1 has no workspace of its own
  // the NCHW families too; the channel-blocked one keeps its repack before the slices
  o.method = Method::cblocked3x3;
  o.split_k = 4;
  const Conv2dProblem q = make_problem(1, 256, 14, 14, 256, 3, 3, 1, 1);
  const PlanDesc c = plan_or_fail(q, o, LayoutKind::nchw);
  EXPECT_EQ(c.split_k, 4);
  EXPECT_GT(c.split_offset, 0u);
  o.split_k = 0;
  const PlanDesc unsplit = plan_or_fail(q, o, LayoutKind::nchw);
  EXPECT_GT(unsplit.workspace_bytes, 0u);  // the NCHWc repack
  EXPECT_EQ(c.split_offset, std::size_t((unsplit.workspace_bytes + 255) / 256 * 256));
}

TEST(SplitK, RunsOnTheFamilysMainTile) {
  // K = 24 fits the thin tile, which the unsplit plan takes; the split kernel exists for the
  // family's main tile only, and the plan says which it runs
  const Conv2dProblem p = make_problem(1, 256, 14, 14, 24, 1, 1);
  Conv2dOptions o;
  o.method = Method::gemm1x1;
  EXPECT_EQ(plan_or_fail(p, o).tile, kernels::TileKind::thin);
  o.split_k = 4;
  const PlanDesc d = plan_or_fail(p, o);
  EXPECT_EQ(d.split_k, 4);
  EXPECT_EQ(d.tile, kernels::TileKind::gemm1x1);
  EXPECT_NE(plan_kernels(d).find("conv_gemm_splitk<"), std::string::npos) << plan_kernels(d);
}

TEST(SplitK, ShortReductionGivesFewerParts) {
  // C = 32, 1x1: one step of 32, nothing to split
  Conv2dOptions o;
  o.method = Method::gemm1x1;
  o.split_k = 8;
  const PlanDesc d = plan_or_fail(make_problem(1, 32, 14, 14, 256, 1, 1), o);
  EXPECT_EQ(d.split_k, 1);
  EXPECT_EQ(d.split_steps, 0);
  EXPECT_EQ(d.workspace_bytes, 0u);
}

TEST(SplitK, RefusedWhereTheMethodCannotSplit) {
  Conv2dOptions o;
  o.method = Method::winograd;
  o.split_k = 4;
  PlanDesc d;
  const Status s = make_plan_desc(d, make_problem(1, 256, 32, 32, 256, 3, 3, 1, 1), DType::f16,
                                  LayoutKind::nhwc, o, kH200);
  EXPECT_EQ(s.code(), StatusCode::method_not_applicable);
  EXPECT_NE(s.message().find("split_k=4"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("winograd"), std::string::npos) << s.message();
}

TEST(SplitK, OutOfRangeIsAnInvalidOption) {
  for (int k : {-1, kMaxSplitK + 1, 1000}) {
    Conv2dOptions o;
    o.split_k = k;
    PlanDesc d;
    const Status s = make_plan_desc(d, make_problem(1, 64, 8, 8, 64, 1, 1), DType::f16,
                                    LayoutKind::nhwc, o, kH200);
    EXPECT_EQ(s.code(), StatusCode::invalid_option) << k;
    EXPECT_NE(s.message().find("split_k"), std::string::npos) << s.message();
  }
}

TEST(SplitK, EmulatedAtomsUseTheirOwnTables) {
  // the RDNA tables (gfx11 / gfx12 emulation) split their own steps
  const Conv2dProblem p = make_problem(1, 256, 14, 14, 256, 3, 3, 1, 1);
  Conv2dOptions o;
  o.method = Method::nhwc3x3;
  o.split_k = 3;
  for (AtomKind a : {AtomKind::gfx11, AtomKind::gfx12}) {
    const PlanDesc d = plan_or_fail(p, o, LayoutKind::nhwc, a);
    const SplitK sk = split_k_parts(find_method(Method::nhwc3x3)->k_steps(p, d.tiles), 3);
    EXPECT_EQ(d.split_k, sk.parts);
    EXPECT_EQ(d.split_steps, sk.steps);
  }
}

TEST(SplitK, RouterRuleArithmetic) {
  // the rule of RouterThresholds (plan_desc.hpp auto_split_k) on the sm90 tiles, with a table
  // that splits: S = min(max parts, fill * SMs / blocks, steps / min steps), only below one
  // block per multiprocessor
  RouterThresholds t = router_thresholds(ArchClass::sm90);
  t.split_max_parts = 16;
  t.split_fill = 2;
  t.split_min_steps = 4;
  t.split_min_total_steps = 0;  // the formula alone first; the work bounds below
  t.split_min_steps_per_block = 0;
  const MethodInfo& conv3 = *find_method(Method::nhwc3x3);
  const MethodInfo& one = *find_method(Method::gemm1x1);
  const auto k3 = conv3.tile_kind;
  // ResNet-50 layer4 3x3 at N1: 1 x 4 blocks of 128x128, 144 steps -> 16 parts
  const Conv2dProblem l4 = make_problem(1, 512, 7, 7, 512, 3, 3, 1, 1);
  EXPECT_EQ(main_tile_blocks(l4, conv3, ArchClass::sm90), 4);
  EXPECT_EQ(auto_split_k(l4, conv3, k3, ArchClass::sm90, t, 132), 16);
  // 1x1 1024 -> 256 at 14x14: 2 x 2 blocks, 32 steps -> 8 parts (4 steps each)
  const Conv2dProblem s14 = make_problem(1, 1024, 14, 14, 256, 1, 1);
  EXPECT_EQ(auto_split_k(s14, one, one.tile_kind, ArchClass::sm90, t, 132), 8);
  // the fill bounds it: 512 at 32x32 has 8 x 4 = 32 blocks -> 2 * 132 / 32 = 8
  const Conv2dProblem m32 = make_problem(1, 512, 32, 32, 512, 3, 3, 1, 1);
  EXPECT_EQ(auto_split_k(m32, conv3, k3, ArchClass::sm90, t, 132), 8);
  // a full grid (>= one block per multiprocessor) is never split
  const Conv2dProblem big = make_problem(1, 512, 64, 64, 512, 3, 3, 1, 1);  // 128 blocks
  EXPECT_EQ(auto_split_k(big, conv3, k3, ArchClass::sm90, t, 128), 1);
  EXPECT_EQ(auto_split_k(big, conv3, k3, ArchClass::sm90, t, 132), 2);
  // short reductions: 1x1 with C = 64 has 2 steps, fewer than 2 x min steps
  const Conv2dProblem c64 = make_problem(1, 64, 14, 14, 256, 1, 1);
  EXPECT_EQ(auto_split_k(c64, one, one.tile_kind, ArchClass::sm90, t, 132), 1);
  // unknown multiprocessor count, another tile (thin), a table that never splits: no split
  EXPECT_EQ(auto_split_k(l4, conv3, k3, ArchClass::sm90, t, 0), 1);
  EXPECT_EQ(auto_split_k(l4, conv3, kernels::TileKind::thin, ArchClass::sm90, t, 132), 1);
  t.split_max_parts = 0;
  EXPECT_EQ(auto_split_k(l4, conv3, k3, ArchClass::sm90, t, 132), 1);
  // the work bounds: at least 32 steps, at least 2.5 steps per block of the unsplit grid
  t.split_max_parts = 16;
  t.split_min_total_steps = 32;
  t.split_min_steps_per_block = 2.5;
  EXPECT_EQ(auto_split_k(big, conv3, k3, ArchClass::sm90, t, 132), 1);           // 144 / 128 blocks
  EXPECT_EQ(auto_split_k(s14, one, one.tile_kind, ArchClass::sm90, t, 132), 8);  // 32 / 4
  const Conv2dProblem s16 = make_problem(1, 512, 14, 14, 256, 1, 1);             // 16 steps
  EXPECT_EQ(auto_split_k(s16, one, one.tile_kind, ArchClass::sm90, t, 132), 1);
  // Winograd has no engine reduction steps to split
  t.split_max_parts = 16;
  const MethodInfo& wino = *find_method(Method::winograd);
  EXPECT_EQ(auto_split_k(l4, wino, wino.tile_kind, ArchClass::sm90, t, 132), 1);
}

TEST(SplitK, Sm90TableSplitsSmallGridsOnly) {
  // the sweep's rule (docs/ROUTER.md) on a 132-SM device: ResNet-50 layer4 3x3 at N1 (4 blocks,
  // 144 steps) splits 16 ways; the 16-step 1x1 layers, the full grids and a device of unknown
  // size do not split; RDNA tables never split (not measured)
  // the sm90 table whatever this build's targets (a host build has no sm_90a: sm80's table)
  DeviceInfo h100 = make_device_info(false, 90, 32, 132);
  h100.family = family_from_cuda_cc(90, true);
  // on the family's main tile (Conv2dOptions::tile = main): the small tile's rule, which takes
  // several of these grids, is test_small_tile.cpp's
  Conv2dOptions main_tile;
  main_tile.tile = TileChoice::main;
  const auto split_of = [&](const Conv2dProblem& p, const DeviceInfo& dev, LayoutKind l) {
    PlanDesc d;
    EXPECT_TRUE(make_plan_desc(d, p, DType::f16, l, main_tile, dev).ok());
    return d.split_k;
  };
  for (LayoutKind l : {LayoutKind::nhwc, LayoutKind::nchw}) {
    // 1x1 layers: on NCHW these go to cblocked1x1 (ninth session), which reads vectors and
    // splits by the general rule as NHWC does; gemm1x1's NCHW 1x1 rule is the next test's
    EXPECT_EQ(split_of(make_problem(1, 512, 7, 7, 512, 3, 3, 1, 1), h100, l), 16);
    EXPECT_EQ(split_of(make_problem(1, 1024, 14, 14, 256, 1, 1), h100, l),
              8);  // 4 blocks, 32 steps
    EXPECT_EQ(split_of(make_problem(1, 512, 7, 7, 2048, 1, 1), h100, l),
              1);  // 16 blocks, 16 steps
    EXPECT_EQ(split_of(make_problem(1, 1024, 14, 14, 2048, 1, 1, 2, 0), h100, l),
              1);  // 16 blocks, 32 steps: 2 per block
    EXPECT_EQ(split_of(make_problem(32, 512, 7, 7, 512, 3, 3, 1, 1), h100, l), 2);   // 52 blocks
    EXPECT_EQ(split_of(make_problem(1, 512, 64, 64, 512, 3, 3, 1, 1), h100, l), 1);  // 128 blocks
    EXPECT_EQ(
        split_of(make_problem(1, 512, 7, 7, 512, 3, 3, 1, 1), make_device_info(false, 90, 32), l),
        1);
  }
  PlanDesc d;
  ASSERT_TRUE(make_plan_desc(d, make_problem(1, 512, 7, 7, 512, 3, 3, 1, 1), DType::f16,
                             LayoutKind::nhwc, Conv2dOptions{},
                             make_device_info(true, 1100, 32, 48))
                  .ok());
  EXPECT_EQ(d.split_k, 1);
  // what describe() says: the split and why
  ASSERT_TRUE(make_plan_desc(d, make_problem(1, 512, 7, 7, 512, 3, 3, 1, 1), DType::f16,
                             LayoutKind::nhwc, main_tile, h100)
                  .ok());
  const std::string s = describe_plan(d);
  EXPECT_NE(s.find("split_k=16 (9 steps each"), std::string::npos) << s;
  EXPECT_NE(s.find("4 blocks on 132 multiprocessors"), std::string::npos) << s;
  EXPECT_NE(plan_kernels(d).find("splitk_reduce"), std::string::npos);
}

// The NCHW 1x1 rule of the sm90 table (H100 sweep, 2026-12-06 fourth session): grids of at most
// half the multiprocessors with >= 8 steps split into parts of >= 2 steps; not NHWC, not 3x3,
// not the sm80 table (not measured there), not past half the multiprocessors or under 8 steps.
TEST(SplitK, Nchw1x1RuleOfTheSm90Table) {
  const RouterThresholds t = router_thresholds(ArchClass::sm90);
  EXPECT_EQ(t.split_nchw1x1_min_total_steps, 8);
  EXPECT_EQ(t.split_nchw1x1_min_steps, 2);
  EXPECT_EQ(router_thresholds(ArchClass::sm80).split_nchw1x1_min_total_steps, 0);
  const MethodInfo& one = *find_method(Method::gemm1x1);
  const MethodInfo& conv3 = *find_method(Method::cblocked3x3);
  auto split = [&](const Conv2dProblem& p, const MethodInfo& m, LayoutKind l, ArchClass f) {
    return auto_split_k(p, m, m.tile_kind, f, router_thresholds(f), 132, l);
  };
  const auto nchw = LayoutKind::nchw;
  // ResNet-50 N1 layer3.0.downsample: 1x1 512 -> 1024 at 14x14 (stride 2 from 28x28): 2 x 8 =
  // 16 blocks, 16 steps -> min(16, 132 / 16, 16 / 2) = 8 parts (measured best: 8, 1.80x)
  const Conv2dProblem ds = make_problem(1, 512, 28, 28, 1024, 1, 1, 2, 0);
  EXPECT_EQ(main_tile_blocks(ds, one, ArchClass::sm90), 16);
  EXPECT_EQ(one.k_steps(ds, ArchClass::sm90), 16);
  EXPECT_EQ(split(ds, one, nchw, ArchClass::sm90), 8);
  // layer2.1.conv1: 512 -> 128 at 28x28, 7 blocks, 16 steps -> 8 (measured 1.58x)
  EXPECT_EQ(split(make_problem(1, 512, 28, 28, 128, 1, 1), one, nchw, ArchClass::sm90), 8);
  // layer1.1.conv1: 256 -> 64 at 56x56, 25 blocks, 8 steps -> 4 (1.05x)
  EXPECT_EQ(split(make_problem(1, 256, 56, 56, 64, 1, 1), one, nchw, ArchClass::sm90), 4);
  // N8 layer4.0.downsample: 1024 -> 2048 at 7x7 (from 14x14), 4 x 16 = 64 blocks, 32 steps -> 2
  EXPECT_EQ(split(make_problem(8, 1024, 14, 14, 2048, 1, 1, 2, 0), one, nchw, ArchClass::sm90), 2);
  // N8 layer3.0.conv1: 512 -> 256 at 28x28, 49 x 2 = 98 blocks (> 132 / 2): no (0.74x measured)
  EXPECT_EQ(split(make_problem(8, 512, 28, 28, 256, 1, 1), one, nchw, ArchClass::sm90), 1);
  // layer2.0.conv3: 128 -> 512 at 28x28, 28 blocks, 4 steps: no (0.79x)
  EXPECT_EQ(split(make_problem(1, 128, 28, 28, 512, 1, 1), one, nchw, ArchClass::sm90), 1);
  // the same 16 x 16 layer on NHWC, on the sm80 table, and a 3x3 NCHW layer of 18 steps: the
  // general rule (>= 32 steps) says no
  EXPECT_EQ(split(ds, one, LayoutKind::nhwc, ArchClass::sm90), 1);
  EXPECT_EQ(split(ds, one, nchw, ArchClass::sm80), 1);
  EXPECT_EQ(split(make_problem(1, 64, 56, 56, 64, 3, 3, 1, 1), conv3, nchw, ArchClass::sm90), 1);
  // and through a plan on gemm1x1 (forced: the router sends this layer to cblocked1x1 since
  // the ninth session): describe() names the split
  DeviceInfo h = make_device_info(false, 90, 32, 132);
  h.family = family_from_cuda_cc(90, true);
  Conv2dOptions on_gemm1x1;
  on_gemm1x1.method = Method::gemm1x1;
  PlanDesc d;
  ASSERT_TRUE(make_plan_desc(d, ds, DType::bf16, nchw, on_gemm1x1, h).ok());
  EXPECT_EQ(d.method, Method::gemm1x1);
  EXPECT_EQ(d.split_k, 8);
  EXPECT_NE(describe_plan(d).find("split_k=8"), std::string::npos) << describe_plan(d);
}
