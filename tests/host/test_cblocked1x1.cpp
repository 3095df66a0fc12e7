// SPDX-License-Identifier: MIT
/// @file test_cblocked1x1.cpp cblocked1x1's host half (kernels/gemm1x1/gemm1x1_desc.hpp): the
/// dense problem its engine runs after the repack, its shape rule, its sizes, how a plan runs it
/// (tile rows, split-K, the padding modes) and the sm90 router's rule for it.
#include <gtest/gtest.h>

#include <string>

#include "common/model_layers.hpp"
#include "rdnaconv/plan_desc.hpp"

using namespace rdnaconv;
using kernels::TileKind;

namespace {
constexpr DeviceInfo kH100 = make_device_info(false, 90, 32, 132);

bool has(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

Conv2dOptions forced(TileChoice t = TileChoice::automatic, int split = 0) {
  Conv2dOptions o;
  o.method = Method::cblocked1x1;
  o.tile = t;
  o.split_k = split;
  return o;
}
}  // namespace

TEST(CBlocked1x1, GemmProblemIsTheDenseOneOverTheOutputPixels) {
  // ResNet-50's stride-2 downsample: the repack gathers every other pixel of 56x56
  Conv2dProblem p = make_problem(2, 256, 56, 56, 512, 1, 1, 2, 0);
  Conv2dProblem g = kernels::cblocked1x1_gemm_problem(p);
  EXPECT_EQ(g.h, 28);
  EXPECT_EQ(g.w, 28);
  EXPECT_EQ(g.stride_h, 1);
  EXPECT_EQ(g.stride_w, 1);
  EXPECT_EQ(g.pad_top + g.pad_bottom + g.pad_left + g.pad_right, 0);
  EXPECT_EQ(g.p(), p.p());
  EXPECT_EQ(g.q(), p.q());
  EXPECT_EQ(g.gemm_m(), p.gemm_m());
  EXPECT_EQ(g.gemm_k(), p.gemm_k());
  EXPECT_EQ(g.y_elems(), p.y_elems());
  // asymmetric pads, strides 3x2 and a padding mode: the output grid is kept, the mode dropped
  p = make_problem(1, 24, 13, 15, 40, 1, 1, 3, 0);
  p.stride_w = 2;
  p.pad_top = 1;
  p.pad_right = 2;
  p.pad_mode = PadMode::reflect;
  ASSERT_TRUE(validate_problem(p).ok());
  g = kernels::cblocked1x1_gemm_problem(p);
  EXPECT_EQ(g.h, p.p());
  EXPECT_EQ(g.w, p.q());
  EXPECT_EQ(g.p(), p.p());
  EXPECT_EQ(g.q(), p.q());
  EXPECT_EQ(g.pad_mode, PadMode::zeros);
  EXPECT_TRUE(validate_problem(g).ok());
}

TEST(CBlocked1x1, RuleIsNchw1x1DenseAnyPaddingMode) {
  const Conv2dProblem p = make_problem(1, 20, 9, 9, 30, 1, 1, 2, 1);
  EXPECT_TRUE(can_implement(Method::cblocked1x1, p, LayoutKind::nchw));
  EXPECT_TRUE(can_implement(Method::cblocked1x1, p, LayoutKind::nchw, 2))
      << "x is gathered with 2-byte loads: no alignment needed";
  EXPECT_EQ(why_not(Method::cblocked1x1, p, LayoutKind::nhwc),
            "cblocked1x1 needs NCHW, got layout=nhwc");
  EXPECT_EQ(why_not(Method::cblocked1x1, make_problem(1, 20, 9, 9, 30, 3, 3), LayoutKind::nchw),
            "cblocked1x1 needs a 1x1 filter, got RxS=3x3");
  EXPECT_EQ(why_not(Method::cblocked1x1, make_problem(1, 20, 9, 9, 30, 1, 1, 1, 0, 1, 2),
                    LayoutKind::nchw),
            "cblocked1x1 needs groups 1, got groups=2");
  for (PadMode m : kPadModes) {
    Conv2dProblem q = p;
    q.pad_mode = m;
    ASSERT_TRUE(validate_problem(q).ok()) << to_string(m);
    EXPECT_TRUE(can_implement(Method::cblocked1x1, q, LayoutKind::nchw)) << to_string(m);
  }
}

TEST(CBlocked1x1, PlanRunsTheRepackThenTheEngineOnGemm1x1sRows) {
  // ResNet-50 layer2.0.conv1 at N1 (C = 256, K = 128, 56²): the NCHW layer the method is for
  const Conv2dProblem p = make_problem(1, 256, 56, 56, 128, 1, 1);
  PlanDesc d;
  ASSERT_TRUE(make_plan_desc(d, p, DType::bf16, LayoutKind::nchw, forced(), kH100).ok());
  EXPECT_EQ(d.method, Method::cblocked1x1);
  EXPECT_EQ(d.packed_weight_bytes, 128u * 256 * 2);
  const std::size_t repack = 256u * 56 * 56 * 2;
  EXPECT_GE(d.workspace_bytes, repack);
  const std::string text = describe_plan(d);
  EXPECT_TRUE(has(text, "repack_nchwc_1x1, conv_gemm")) << text;
  EXPECT_TRUE(has(text, "TapIter nchwc 1x1")) << text;
  EXPECT_FALSE(has(text, "not device-tested")) << text;  // device suite passed (H100)
  // the small tile and split-K, forced: the split partials after the repack
  ASSERT_TRUE(
      make_plan_desc(d, p, DType::bf16, LayoutKind::nchw, forced(TileChoice::small, 2), kH100)
          .ok());
  EXPECT_EQ(d.tile, TileKind::small);
  EXPECT_EQ(d.split_k, 2);
  EXPECT_GE(d.split_offset, repack);
  EXPECT_EQ(d.split_offset % 256, 0u);
  EXPECT_EQ(d.workspace_bytes, d.split_offset + 2u * std::size_t(p.y_elems()) * 4);
  EXPECT_TRUE(has(describe_plan(d), "conv_gemm_splitk<TapIter nchwc 1x1>, splitk_reduce"))
      << describe_plan(d);
  // a stride-2 layer's repack holds the read pixels only: a quarter of x
  const Conv2dProblem s2 = make_problem(1, 256, 56, 56, 512, 1, 1, 2, 0);
  ASSERT_TRUE(
      make_plan_desc(d, s2, DType::bf16, LayoutKind::nchw, forced(TileChoice::main, 1), kH100)
          .ok());
  EXPECT_EQ(d.workspace_bytes, 256u * 28 * 28 * 2);
  // K <= the thin row's block: the thin row, as on gemm1x1
  ASSERT_TRUE(make_plan_desc(d, make_problem(1, 64, 32, 32, 3, 1, 1), DType::f16, LayoutKind::nchw,
                             forced(), kH100)
                  .ok());
  EXPECT_EQ(d.tile, TileKind::thin);
}

TEST(CBlocked1x1, PaddingModesRunTheMainTileUnsplit) {
  Conv2dProblem p = make_problem(1, 64, 14, 14, 64, 1, 1, 1, 1);
  p.pad_mode = PadMode::replicate;
  PlanDesc d;
  ASSERT_TRUE(make_plan_desc(d, p, DType::bf16, LayoutKind::nchw, forced(), kH100).ok());
  EXPECT_EQ(d.tile, TileKind::gemm1x1);
  EXPECT_EQ(d.split_k, 1);
  // the repack applies the mode: the engine kernel is the zeros one (no " remap" in its name)
  EXPECT_FALSE(has(describe_plan(d), "remap")) << describe_plan(d);
}

// The sm90 table's rule (router.hpp, docs/ROUTER.md "cblocked1x1"), on the layers it was
// measured on: ResNet-50's NCHW 1x1 layers at N1 and N32 and the VAEs' shortcuts.
TEST(CBlocked1x1, Sm90RouterTakesItWhereTheSweepSaysSo) {
  const auto nchw = [](const Conv2dProblem& p, ArchClass f = ArchClass::sm90) {
    return route(p, LayoutKind::nchw, f, DType::bf16);
  };
  // N1: small grids, C >= 256 (layer1.1.conv1, layer2.0.conv1, the downsamples, ...)
  EXPECT_EQ(nchw(make_problem(1, 256, 56, 56, 64, 1, 1)), Method::cblocked1x1);
  EXPECT_EQ(nchw(make_problem(1, 256, 56, 56, 512, 1, 1, 2, 0)), Method::cblocked1x1);
  EXPECT_EQ(nchw(make_problem(1, 1024, 14, 14, 256, 1, 1)), Method::cblocked1x1);
  // N1 with C = 64 (layer1.0.conv1 / conv3): the gather stays
  EXPECT_EQ(nchw(make_problem(1, 64, 56, 56, 64, 1, 1)), Method::gemm1x1);
  EXPECT_EQ(nchw(make_problem(1, 64, 56, 56, 256, 1, 1)), Method::gemm1x1);
  // N32: K >= 512 or C >= 1024 (layer2.0.conv3, layer3.1.conv1), not K <= 256 with C <= 512
  EXPECT_EQ(nchw(make_problem(32, 128, 28, 28, 512, 1, 1)), Method::cblocked1x1);
  EXPECT_EQ(nchw(make_problem(32, 1024, 14, 14, 256, 1, 1)), Method::cblocked1x1);
  EXPECT_EQ(nchw(make_problem(32, 256, 56, 56, 128, 1, 1)), Method::gemm1x1);
  EXPECT_EQ(nchw(make_problem(32, 512, 28, 28, 256, 1, 1)), Method::gemm1x1);
  // VAE shortcuts: K = 512 takes it; K = 128 / 256 at large images and the C = 64 quant conv do not
  EXPECT_EQ(nchw(make_problem(1, 256, 128, 128, 512, 1, 1)), Method::cblocked1x1);
  EXPECT_EQ(nchw(make_problem(1, 256, 1024, 1024, 128, 1, 1)), Method::gemm1x1);
  EXPECT_EQ(nchw(make_problem(1, 512, 512, 512, 256, 1, 1)), Method::gemm1x1);
  EXPECT_EQ(nchw(make_problem(1, 64, 128, 128, 64, 1, 1)), Method::gemm1x1);
  // NHWC reads vectors already; thin C goes to general; the other tables were not measured
  EXPECT_EQ(route(make_problem(1, 256, 56, 56, 512, 1, 1), LayoutKind::nhwc, ArchClass::sm90),
            Method::gemm1x1);
  EXPECT_EQ(nchw(make_problem(1, 8, 56, 56, 512, 1, 1)), Method::general);
  for (ArchClass f : {ArchClass::sm80, ArchClass::rdna3, ArchClass::rdna4, ArchClass::generic})
    EXPECT_EQ(nchw(make_problem(32, 1024, 14, 14, 2048, 1, 1), f), Method::gemm1x1) << to_string(f);
  // the routed plan is the forced one: same tile row and split (the sm90 table whatever this
  // build's targets)
  DeviceInfo h100 = kH100;
  h100.family = family_from_cuda_cc(90, true);
  const Conv2dProblem p = make_problem(1, 256, 56, 56, 128, 1, 1);
  PlanDesc routed, forced_plan;
  ASSERT_TRUE(make_plan_desc(routed, p, DType::bf16, LayoutKind::nchw, {}, h100).ok());
  ASSERT_TRUE(make_plan_desc(forced_plan, p, DType::bf16, LayoutKind::nchw, forced(), h100).ok());
  EXPECT_EQ(routed.method, Method::cblocked1x1);
  EXPECT_EQ(routed.tile, forced_plan.tile);
  EXPECT_EQ(routed.split_k, forced_plan.split_k);
  EXPECT_EQ(routed.workspace_bytes, forced_plan.workspace_bytes);
  EXPECT_TRUE(has(describe_plan(routed), "channel-blocked repack")) << describe_plan(routed);
}
