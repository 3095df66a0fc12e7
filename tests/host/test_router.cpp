// SPDX-License-Identifier: MIT
/// @file test_router.cpp Router rules (static_assert and runtime), shape math, family mapping.
#include <gtest/gtest.h>

#include "rdnaconv/arch/device_info.hpp"
#include "rdnaconv/plan_desc.hpp"
#include "rdnaconv/router.hpp"

using namespace rdnaconv;

namespace {
constexpr Conv2dProblem kRes1x1 = make_problem(32, 256, 56, 56, 64, 1, 1);
constexpr Conv2dProblem kVae3x3 = make_problem(1, 512, 128, 128, 512, 3, 3, 1, 1);
constexpr Conv2dProblem kSmall3x3 = make_problem(1, 64, 56, 56, 64, 3, 3, 1, 1);
constexpr Conv2dProblem kStem = make_problem(1, 3, 224, 224, 64, 7, 7, 2, 3);

static_assert(route(kRes1x1, LayoutKind::nhwc, ArchFamily::sm80) == Method::gemm1x1);
static_assert(route(kVae3x3, LayoutKind::nhwc, ArchFamily::rdna4) == Method::winograd);
static_assert(route(kSmall3x3, LayoutKind::nhwc, ArchFamily::rdna3) == Method::nhwc3x3);
static_assert(route(kSmall3x3, LayoutKind::nchw, ArchFamily::rdna3) == Method::cblocked3x3);
static_assert(route(kStem, LayoutKind::nchw, ArchFamily::sm80) == Method::general);
static_assert(route(kVae3x3, LayoutKind::nhwc, ArchFamily::generic) == Method::nhwc3x3);
static_assert(kStem.p() == 112 && kStem.q() == 112);
}  // namespace

TEST(Router, RulesPerFamily) {
  for (ArchFamily f : {ArchFamily::rdna3, ArchFamily::rdna4, ArchFamily::sm80}) {
    EXPECT_EQ(route(kRes1x1, LayoutKind::nchw, f), Method::gemm1x1);
    EXPECT_EQ(route(kVae3x3, LayoutKind::nchw, f), Method::winograd);
    EXPECT_EQ(route(kSmall3x3, LayoutKind::nhwc, f), Method::nhwc3x3);
    EXPECT_EQ(route(kStem, LayoutKind::nhwc, f), Method::general);
  }
}

TEST(Router, WinogradEligibility) {
  Conv2dProblem p = kVae3x3;
  p.stride_h = p.stride_w = 2;
  EXPECT_FALSE(winograd_eligible(p));
  EXPECT_EQ(route(p, LayoutKind::nhwc, ArchFamily::sm80), Method::nhwc3x3);  // strided 3x3
  p = kVae3x3;
  p.dil_h = 2;
  EXPECT_FALSE(winograd_eligible(p));
  p = make_problem(1, 3, 64, 64, 512, 3, 3, 1, 1);
  EXPECT_FALSE(winograd_eligible(p));  // C < 4
  p = make_problem(1, 4, 64, 64, 512, 3, 3, 1, 1);
  EXPECT_TRUE(winograd_eligible(p));
  EXPECT_EQ(winograd_tiles(make_problem(2, 256, 10, 9, 256, 3, 3, 1, 1)), 2 * 3 * 3);
}

TEST(Router, UnbuiltFamiliesFallThroughToGeneral) {
  const DeviceInfo dev = make_device_info(false, 90, 32);
  for (const Conv2dProblem& p : {kRes1x1, kVae3x3, kSmall3x3, kStem}) {
    PlanDesc d;
    ASSERT_TRUE(make_plan_desc(d, p, DType::bf16, LayoutKind::nhwc, {}, dev, false).ok());
    EXPECT_EQ(d.routed, route(p, LayoutKind::nhwc, ArchFamily::sm80));
    EXPECT_TRUE(can_implement(d.method, p, LayoutKind::nhwc));
    EXPECT_EQ(d.method, find_method(d.routed)->built ? d.routed : Method::general);
  }
}

TEST(ShapeMath, OutputSizes) {
  // VAE downsample: (0,1,0,1) padding, stride 2, pad 0 otherwise: 512 -> 256
  Conv2dProblem p = make_problem(1, 128, 512, 512, 128, 3, 3, 2, 0);
  p.pad_bottom = p.pad_right = 1;
  EXPECT_EQ(p.p(), 256);
  EXPECT_EQ(p.q(), 256);
  // dilation 2, pad 2 keeps the size
  EXPECT_EQ(make_problem(1, 8, 17, 13, 8, 3, 3, 1, 2, 2).p(), 17);
  EXPECT_EQ(make_problem(1, 8, 17, 13, 8, 3, 3, 1, 2, 2).q(), 13);
  // H smaller than the filter, rescued by padding
  EXPECT_EQ(make_problem(1, 8, 2, 2, 8, 5, 5, 1, 2).p(), 2);
  EXPECT_EQ(kRes1x1.gemm_m(), 32 * 56 * 56);
  EXPECT_EQ(kVae3x3.gemm_k(), 512 * 9);
  EXPECT_DOUBLE_EQ(kVae3x3.flops(), 2.0 * 128 * 128 * 512 * 512 * 9);
}

TEST(ShapeMath, GeneralPackedLayout) {
  const auto l = kernels::general_layout(make_problem(1, 3, 8, 8, 5, 7, 7), 32);
  EXPECT_EQ(l.c_pad, 3);
  EXPECT_EQ(l.k_total, 160);  // 147 rounded to 32
  const auto l2 = kernels::general_layout(make_problem(1, 12, 8, 8, 5, 3, 3), 32);
  EXPECT_EQ(l2.c_pad, 16);
  EXPECT_EQ(l2.k_total, 160);  // 144 -> 160
}

TEST(DeviceFamily, Mapping) {
  EXPECT_EQ(family_from_gfx(1100), ArchFamily::rdna3);
  EXPECT_EQ(family_from_gfx(1151), ArchFamily::rdna3);
  EXPECT_EQ(family_from_gfx(1201), ArchFamily::rdna4);
  EXPECT_EQ(family_from_gfx(1030), ArchFamily::generic);
  EXPECT_EQ(family_from_cuda_cc(90), ArchFamily::sm80);
  EXPECT_EQ(family_from_cuda_cc(75), ArchFamily::generic);
}
