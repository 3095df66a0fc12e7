// SPDX-License-Identifier: MIT
/// @file test_router.cpp Router rules (static_assert and runtime), shape math, family mapping.
#include <gtest/gtest.h>

#include <vector>

#include "rdnaconv/arch/device_info.hpp"
#include "rdnaconv/plan_desc.hpp"
#include "rdnaconv/router.hpp"

using namespace rdnaconv;
using detail::describe;

namespace {
constexpr Conv2dProblem kRes1x1 = make_problem(32, 256, 56, 56, 64, 1, 1);
constexpr Conv2dProblem kVae3x3 = make_problem(1, 512, 128, 128, 512, 3, 3, 1, 1);
constexpr Conv2dProblem kSmall3x3 = make_problem(1, 64, 56, 56, 64, 3, 3, 1, 1);
constexpr Conv2dProblem kStem = make_problem(1, 3, 224, 224, 64, 7, 7, 2, 3);

static_assert(route(kRes1x1, LayoutKind::nhwc, ArchClass::sm80) == Method::gemm1x1);
static_assert(route(kVae3x3, LayoutKind::nhwc, ArchClass::rdna4) == Method::winograd);
static_assert(route(kSmall3x3, LayoutKind::nhwc, ArchClass::rdna3) == Method::nhwc3x3);
static_assert(route(kSmall3x3, LayoutKind::nchw, ArchClass::rdna3) == Method::cblocked3x3);
static_assert(route(kVae3x3, LayoutKind::nhwc, ArchClass::sm80) ==
              Method::nhwc3x3);  // measured: direct wins
static_assert(route(make_problem(1, 256, 64, 64, 128, 3, 3, 1, 1), LayoutKind::nhwc,
                    ArchClass::sm80) ==
              Method::winograd);  // small grid, moderate K: Winograd won the sweep
static_assert(route(kStem, LayoutKind::nchw, ArchClass::sm80) == Method::general);
// the VAE's output conv (C = 128 -> K = 3 at 512²): the fused Winograd beat the direct kernels
constexpr Conv2dProblem kVaeOut = make_problem(1, 128, 512, 512, 3, 3, 3, 1, 1);
static_assert(route(kVaeOut, LayoutKind::nhwc, ArchClass::sm80) == Method::winograd_fused);
static_assert(route(kVaeOut, LayoutKind::nchw, ArchClass::rdna3) == Method::winograd_fused);
static_assert(route(kVaeOut, LayoutKind::nchw, ArchClass::generic) == Method::cblocked3x3);
// the encoder's output conv (C = 512 -> K = 32 at 64²) stays in the unfused window, where it won
static_assert(route(make_problem(1, 512, 64, 64, 32, 3, 3, 1, 1), LayoutKind::nhwc,
                    ArchClass::sm80) == Method::winograd);
static_assert(route(kVae3x3, LayoutKind::nhwc, ArchClass::generic) == Method::nhwc3x3);
static_assert(kStem.p() == 112 && kStem.q() == 112);
}  // namespace

TEST(Router, RulesPerFamily) {
  for (ArchClass f : {ArchClass::rdna3, ArchClass::rdna4, ArchClass::sm80, ArchClass::sm90}) {
    const bool nv = f == ArchClass::sm80 || f == ArchClass::sm90;
    EXPECT_EQ(route(kRes1x1, LayoutKind::nchw, f), Method::gemm1x1);
    EXPECT_EQ(route(kVae3x3, LayoutKind::nchw, f), nv ? Method::cblocked3x3 : Method::winograd);
    EXPECT_EQ(route(kSmall3x3, LayoutKind::nhwc, f), Method::nhwc3x3);
    EXPECT_EQ(route(kStem, LayoutKind::nhwc, f), Method::general);
  }
}

TEST(Router, WinogradEligibility) {
  Conv2dProblem p = kVae3x3;
  p.stride_h = p.stride_w = 2;
  EXPECT_FALSE(winograd_eligible(p));
  EXPECT_EQ(route(p, LayoutKind::nhwc, ArchClass::sm80), Method::nhwc3x3);  // strided 3x3
  p = kVae3x3;
  p.dil_h = 2;
  EXPECT_FALSE(winograd_eligible(p));
  p = make_problem(1, 3, 64, 64, 512, 3, 3, 1, 1);
  EXPECT_FALSE(winograd_eligible(p));  // C < 4
  p = make_problem(1, 4, 64, 64, 512, 3, 3, 1, 1);
  EXPECT_TRUE(winograd_eligible(p));
  EXPECT_EQ(winograd_tiles(make_problem(2, 256, 10, 9, 256, 3, 3, 1, 1)), 2 * 3 * 3);
}

TEST(Router, PlanRunsWhatTheRouterPicks) {
  const DeviceInfo dev = make_device_info(false, 90, 32);
  for (const Conv2dProblem& p : {kRes1x1, kVae3x3, kSmall3x3, kStem})
    for (LayoutKind l : {LayoutKind::nchw, LayoutKind::nhwc}) {
      PlanDesc d;
      ASSERT_TRUE(make_plan_desc(d, p, DType::bf16, l, {}, dev).ok());
      // the device's own table: sm80, or sm90 in a build with sm_90a (hopper_tma's rule)
      EXPECT_EQ(d.routed, route(p, l, dev.family, DType::bf16));
      EXPECT_EQ(d.method, d.routed);
      EXPECT_TRUE(can_implement(d.method, p, l));
    }
}

TEST(Router, NeverWinogradForBf16) {
  // bf16's 8-bit significand: Winograd's error amplification gives errors of the order of the
  // outputs (kernels/winograd/README.md); fp16 keeps the measured Winograd windows
  for (ArchClass f :
       {ArchClass::rdna3, ArchClass::rdna4, ArchClass::sm80, ArchClass::sm90, ArchClass::generic})
    for (LayoutKind l : {LayoutKind::nchw, LayoutKind::nhwc})
      for (const Conv2dProblem& p : {kVae3x3, kVaeOut, make_problem(1, 512, 64, 64, 32, 3, 3, 1, 1),
                                     make_problem(1, 16, 3, 3, 8, 3, 3, 1, 4)})
        EXPECT_FALSE(is_winograd(route(p, l, f, DType::bf16)))
            << to_string(f) << " " << describe(p);
  EXPECT_EQ(route(kVaeOut, LayoutKind::nhwc, ArchClass::sm80, DType::f16), Method::winograd_fused);
  EXPECT_EQ(route(kVaeOut, LayoutKind::nhwc, ArchClass::sm80, DType::bf16), Method::nhwc3x3);
}

TEST(Router, PlanNamesWhatRunsAndWhy) {
  const DeviceInfo dev = make_device_info(false, 90, 32);
  PlanDesc d;
  // C % 8 != 0 on NHWC: the vector-reading 3x3 kernel cannot implement it; the plan says general
  const Conv2dProblem odd_c = make_problem(1, 20, 13, 17, 33, 3, 3, 1, 1);
  ASSERT_TRUE(make_plan_desc(d, odd_c, DType::f16, LayoutKind::nhwc, {}, dev).ok());
  EXPECT_FALSE(can_implement(Method::nhwc3x3, odd_c, LayoutKind::nhwc));
  EXPECT_EQ(d.method, Method::general);
  const std::string text = describe_plan(d);
  EXPECT_NE(text.find("method=general"), std::string::npos) << text;
  EXPECT_NE(text.find("nhwc3x3 needs C % 8 == 0, got C=20, so general"), std::string::npos) << text;
  EXPECT_NE(text.find("tile=128x128x32"), std::string::npos) << text;
  // forcing it is refused, with the reason
  Conv2dOptions o;
  o.method = Method::nhwc3x3;
  EXPECT_EQ(make_plan_desc(d, odd_c, DType::f16, LayoutKind::nhwc, o, dev).code(),
            StatusCode::method_not_applicable);
  EXPECT_EQ(make_plan_desc(d, odd_c, DType::f16, LayoutKind::nchw, {}, dev).code(), StatusCode::ok);
  // x_align below 16: no vector-reading method is planned
  const Conv2dProblem c64 = make_problem(1, 64, 16, 16, 64, 3, 3, 1, 1);
  o = {};
  o.x_align = 2;
  ASSERT_TRUE(make_plan_desc(d, c64, DType::bf16, LayoutKind::nhwc, o, dev).ok());
  EXPECT_EQ(d.routed, Method::nhwc3x3);
  EXPECT_EQ(d.method, Method::general);
  EXPECT_NE(describe_plan(d).find("got x_align=2, so general"), std::string::npos)
      << describe_plan(d);
  o.method = Method::nhwc3x3;
  EXPECT_EQ(make_plan_desc(d, c64, DType::bf16, LayoutKind::nhwc, o, dev).code(),
            StatusCode::method_not_applicable);
  o.method = Method::gemm1x1;
  EXPECT_EQ(make_plan_desc(d, kRes1x1, DType::bf16, LayoutKind::nhwc, o, dev).code(),
            StatusCode::method_not_applicable);
  EXPECT_TRUE(
      make_plan_desc(d, kRes1x1, DType::bf16, LayoutKind::nchw, o, dev).ok());  // NCHW gathers
  o = {};
  o.x_align = 3;
  EXPECT_EQ(make_plan_desc(d, c64, DType::bf16, LayoutKind::nhwc, o, dev).code(),
            StatusCode::invalid_option);
}

TEST(Router, SmallChannelCountsStayOnGeneral) {
  // tap families pad C to the 32-wide reduction step: for C = 3 or 8 that is 4-10x the work
  EXPECT_EQ(route(make_problem(1, 3, 64, 64, 128, 3, 3, 1, 1), LayoutKind::nhwc, ArchClass::sm80),
            Method::general);
  EXPECT_EQ(route(make_problem(1, 8, 64, 64, 128, 1, 1), LayoutKind::nchw, ArchClass::sm80),
            Method::general);
}

TEST(Router, EmulatedAtomsUseTheRdnaTables) {
  PlanDesc d;
  ASSERT_TRUE(make_plan_desc(d, kSmall3x3, DType::f16, LayoutKind::nhwc, {},
                             make_device_info(false, 90, 32), AtomKind::gfx11)
                  .ok());
  EXPECT_EQ(d.tiles, ArchClass::rdna3);
  ASSERT_TRUE(make_plan_desc(d, kSmall3x3, DType::f16, LayoutKind::nhwc, {},
                             make_device_info(false, 90, 32), AtomKind::gfx12)
                  .ok());
  EXPECT_EQ(d.tiles, ArchClass::rdna4);
}

TEST(Registry, OneRowPerMethodWithSizes) {
  EXPECT_EQ(kMethods.size(), 11u);
  for (const MethodInfo& m : kMethods) {
    EXPECT_EQ(find_method(m.method), &m);
    EXPECT_EQ(find_method(m.name), &m);
  }
  EXPECT_EQ(find_method("nope"), nullptr);
  const Conv2dProblem p = make_problem(2, 40, 20, 20, 70, 3, 3, 1, 1);
  // tap families: [K][9][C_pad], C_pad = 64 (40 rounded to the 32-wide step)
  EXPECT_EQ(find_method(Method::nhwc3x3)->packed_weight_bytes(p, ArchClass::sm80),
            70u * 9 * 64 * 2);
  EXPECT_EQ(find_method(Method::cblocked3x3)->workspace_bytes(p, LayoutKind::nchw, ArchClass::sm80),
            2u * 64 * 20 * 20 * 2);
  EXPECT_EQ(find_method(Method::nchw3x3)->workspace_bytes(p, LayoutKind::nchw, ArchClass::sm80),
            0u);
  // cblocked1x1: [K][C_pad] like gemm1x1; its repack holds the read pixels only, N x C_pad x P x Q
  // (stride 2, pad 1 on 21x20: 12 x 11 outputs)
  Conv2dProblem p1 = make_problem(2, 40, 21, 20, 70, 1, 1, 2, 1);
  EXPECT_EQ(find_method(Method::cblocked1x1)->packed_weight_bytes(p1, ArchClass::sm80),
            70u * 64 * 2);
  EXPECT_EQ(
      find_method(Method::cblocked1x1)->workspace_bytes(p1, LayoutKind::nchw, ArchClass::sm80),
      2u * 64 * 12 * 11 * 2);
  // Winograd: U [36][K][C_pad]; V [36][tiles][C_pad] + M [36][tiles][K] fp32, 5x5 tiles per image
  EXPECT_EQ(find_method(Method::winograd)->packed_weight_bytes(p, ArchClass::sm80),
            36u * 70 * 64 * 2);
  const auto wl = kernels::winograd_layout(p, LayoutKind::nhwc, 32);
  EXPECT_EQ(wl.tiles, 2 * 5 * 5);
  EXPECT_EQ(wl.v_off, 0u);
  EXPECT_EQ(wl.m_off, std::size_t(kernels::round_up(36 * 50 * 64 * 2, 256)));
  EXPECT_EQ(wl.workspace, wl.m_off + 36u * 50 * 70 * 4);
  const auto wn = kernels::winograd_layout(p, LayoutKind::nchw, 32);
  EXPECT_EQ(wn.v_off,
            std::size_t(kernels::round_up(2 * 64 * 20 * 20 * 2, 256)));  // after the NCHWc repack
  // the fused variant: the same U, and a workspace without M
  EXPECT_EQ(find_method(Method::winograd_fused)->packed_weight_bytes(p, ArchClass::sm80),
            36u * 70 * 64 * 2);
  EXPECT_EQ(
      find_method(Method::winograd_fused)->workspace_bytes(p, LayoutKind::nhwc, ArchClass::sm80),
      wl.m_off);
  EXPECT_EQ(
      find_method(Method::winograd_fused)->workspace_bytes(p, LayoutKind::nchw, ArchClass::sm80),
      wn.m_off);
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

TEST(ShapeMath, PackedLayouts) {
  const auto l = kernels::general_layout(make_problem(1, 3, 8, 8, 5, 7, 7), 32);
  EXPECT_EQ(l.c_pad, 3);
  EXPECT_EQ(l.k_total, 160);  // 147 rounded to 32
  const auto l2 = kernels::general_layout(make_problem(1, 12, 8, 8, 5, 3, 3), 32);
  EXPECT_EQ(l2.c_pad, 16);
  EXPECT_EQ(l2.k_total, 160);  // 144 -> 160
  const auto t = kernels::tap_layout(make_problem(1, 12, 8, 8, 5, 3, 3), 32);
  EXPECT_EQ(t.c_pad, 32);  // every step inside one tap
  EXPECT_EQ(t.k_total, 288);
  const auto t1 = kernels::tap_layout(make_problem(1, 256, 8, 8, 5, 1, 1), 32);
  EXPECT_EQ(t1.k_total, 256);
}

TEST(ShapeMath, TileTables) {
  for (ArchClass f : {ArchClass::rdna3, ArchClass::rdna4}) {
    const kernels::TileConfig t = kernels::tile_of(f, kernels::TileKind::conv3x3);
    EXPECT_LE(t.lds_bytes(), 64 * 1024);  // RDNA: 64 KiB of LDS per workgroup
    EXPECT_FALSE(t.async_copy());         // no async global->LDS copy on gfx11/gfx12
  }
  EXPECT_TRUE(kernels::tile_of(ArchClass::sm80, kernels::TileKind::general).async_copy());
  // Hopper: the main rows are wgmma tiles (two warpgroups of 64 x 128, unpadded swizzled rows);
  // thin and fused Winograd keep their mma.sync rows
  for (kernels::TileKind k : {kernels::TileKind::general, kernels::TileKind::gemm1x1,
                              kernels::TileKind::conv3x3, kernels::TileKind::winograd}) {
    const kernels::TileConfig t = kernels::tile_of(ArchClass::sm90, k);
    EXPECT_TRUE(t.wgmma && t.async_copy() && t.valid(227 * 1024));
    EXPECT_EQ(t.threads(), 256);
    EXPECT_EQ(t.lds_row(), t.block_k);
    EXPECT_EQ(t.block_k, kernels::tile_of(ArchClass::sm80, k).block_k);  // same packing
  }
  EXPECT_FALSE(kernels::tile_of(ArchClass::sm90, kernels::TileKind::thin).wgmma);
  EXPECT_FALSE(kernels::tile_of(ArchClass::sm90, kernels::TileKind::winograd_fused).wgmma);
}

TEST(ShapeMath, Sm90SwizzleIsAPermutationOfEachRow) {
  // the 64-byte swizzle keeps every 16-byte vector inside its own 64-byte row, and the 32 vectors
  // of 8 rows fill their 512 bytes exactly once
  const kernels::TileConfig t = kernels::tile_of(ArchClass::sm90, kernels::TileKind::general);
  for (int g = 0; g < t.block_m / 8; ++g) {
    std::vector<int> seen(32, 0);
    for (int r = 8 * g; r < 8 * g + 8; ++r)
      for (int kv = 0; kv < 4; ++kv) {
        const int off = t.lds_offset(r, kv);
        EXPECT_EQ(off / t.block_k, r);
        ++seen[(off - 8 * g * t.block_k) / 8];
      }
    for (int c : seen) EXPECT_EQ(c, 1);
  }
  EXPECT_EQ(t.lds_offset(0, 3), 24);
  EXPECT_EQ(t.lds_offset(2, 0), 2 * 32 + 8);   // rows 2-3: chunk c at c ^ 1
  EXPECT_EQ(t.lds_offset(7, 1), 7 * 32 + 16);  // rows 6-7: c ^ 3
}

TEST(ShapeMath, ThinLayersRunTheThinTile) {
  // K <= the thin row's block_n: the direct families plan the thin tile (same packing);
  // Winograd keeps its own; K one above runs the family's main tile
  const DeviceInfo dev = make_device_info(false, 90, 32);
  for (std::int64_t k : {3, 32, 33}) {
    const Conv2dProblem p = make_problem(1, 128, 64, 64, k, 3, 3, 1, 1);
    for (Method m : {Method::nhwc3x3, Method::general, Method::winograd_fused}) {
      Conv2dOptions o;
      o.method = m;
      PlanDesc d;
      ASSERT_TRUE(make_plan_desc(d, p, DType::bf16, LayoutKind::nhwc, o, dev).ok());
      const bool thin = k <= 32 && !is_winograd(m);
      EXPECT_EQ(d.tile, thin ? kernels::TileKind::thin : find_method(m)->tile_kind)
          << to_string(m) << " K=" << k;
      const std::string text = describe_plan(d);
      const std::string want = is_winograd(m) ? "tile=32x32x32"
                               : thin         ? "tile=64x32x32"
                                              : "tile=128x128x32";
      EXPECT_NE(text.find(want), std::string::npos) << text;
      EXPECT_EQ(d.packed_weight_bytes, find_method(m)->packed_weight_bytes(p, d.tiles));
    }
  }
  for (ArchClass f : {ArchClass::rdna3, ArchClass::rdna4, ArchClass::sm80})
    EXPECT_EQ(kernels::tile_of(f, kernels::TileKind::thin).block_k,
              kernels::tile_of(f, kernels::TileKind::conv3x3).block_k);
}

TEST(DeviceFamily, Mapping) {
  EXPECT_EQ(family_from_gfx(1100), ArchClass::rdna3);
  EXPECT_EQ(family_from_gfx(1151), ArchClass::rdna3);
  EXPECT_EQ(family_from_gfx(1201), ArchClass::rdna4);
  EXPECT_EQ(family_from_gfx(1030), ArchClass::generic);
  EXPECT_EQ(family_from_cuda_cc(90, false), ArchClass::sm80);
  EXPECT_EQ(family_from_cuda_cc(90, true), ArchClass::sm90);   // the build carries sm_90a
  EXPECT_EQ(family_from_cuda_cc(100, true), ArchClass::sm80);  // sm_90a code runs on 9.0 only
  EXPECT_EQ(family_from_cuda_cc(80, true), ArchClass::sm80);
  EXPECT_EQ(family_from_cuda_cc(75), ArchClass::generic);
}

// The Hopper family (issue 15): its output boxes, step width and stages, its rules, plans only
// on the sm90 table, and the sm90 router's rule for it.
TEST(Hopper, GeometryRulesAndPlans) {
  using kernels::hopper_geometry;
  // a VAE layer: 128 columns per box, one row; K = 512 in two 256-wide filter blocks
  auto g = hopper_geometry(make_problem(1, 512, 128, 128, 512, 3, 3, 1, 1));
  EXPECT_EQ(g.bw * g.bh * g.bni, 128);
  EXPECT_EQ(g.bw, 128);
  EXPECT_EQ(g.bh, 1);
  EXPECT_EQ(g.bn, 256);
  EXPECT_EQ(g.bk, 64);  // C = 512: 64-channel steps, 128-byte swizzle
  EXPECT_EQ(g.stages, 4);
  EXPECT_EQ(g.blocks(), 128 * 2);
  // ResNet-50 7x7 at batch 32: 8x8 boxes, two images each; K = 128 -> 128-wide blocks
  g = hopper_geometry(make_problem(32, 512, 7, 7, 128, 1, 1, 1, 0));
  EXPECT_EQ(g.bw, 8);
  EXPECT_EQ(g.bh, 8);
  EXPECT_EQ(g.bni, 2);
  EXPECT_EQ(g.tiles_n, 16);
  EXPECT_EQ(g.bn, 128);
  EXPECT_EQ(g.bk, 64);
  EXPECT_EQ(g.stages, 4);
  // C = 96 (C_pad 96, not a multiple of 64): 32-channel steps, 8 of them in flight
  g = hopper_geometry(make_problem(1, 96, 32, 32, 128, 3, 3, 1, 1));
  EXPECT_EQ(g.bk, 32);
  EXPECT_EQ(g.stages, 8);
  g = hopper_geometry(make_problem(1, 40, 32, 32, 256, 3, 3, 1, 1));  // C_pad 64
  EXPECT_EQ(g.bk, 64);
  EXPECT_EQ(g.bn, 256);
  // 14x14: 16 columns x 8 rows, two boxes down the image
  g = hopper_geometry(make_problem(1, 256, 14, 14, 256, 3, 3, 1, 1));
  EXPECT_EQ(g.bw, 16);
  EXPECT_EQ(g.bh, 8);
  EXPECT_EQ(g.tiles_p, 2);
  EXPECT_EQ(g.n_blocks, 1);
  // stride 2 at 56x56: a 28x28 output, 32 x 4 boxes
  g = hopper_geometry(make_problem(1, 128, 56, 56, 128, 3, 3, 2, 1));
  EXPECT_EQ(g.bw, 32);
  EXPECT_EQ(g.bh, 4);
  EXPECT_EQ(g.tiles_p, 7);

  const Conv2dProblem p = make_problem(2, 40, 20, 20, 300, 3, 3, 1, 1);
  EXPECT_TRUE(can_implement(Method::hopper_tma, p, LayoutKind::nhwc));
  EXPECT_EQ(why_not(Method::hopper_tma, p, LayoutKind::nchw),
            "hopper_tma needs NHWC, got layout=nchw");
  EXPECT_EQ(
      why_not(Method::hopper_tma, make_problem(1, 3, 20, 20, 8, 3, 3, 1, 1), LayoutKind::nhwc),
      "hopper_tma needs C % 8 == 0, got C=3");
  EXPECT_EQ(
      why_not(Method::hopper_tma, make_problem(1, 8, 20, 20, 8, 3, 3, 3, 1), LayoutKind::nhwc),
      "hopper_tma needs stride 1 or 2, got stride=3x3");
  EXPECT_EQ(why_not(Method::hopper_tma, p, LayoutKind::nhwc, 2),
            "hopper_tma needs x_align 16 (it reads x in 16-byte vectors), got x_align=2");
  // packed like the tap families: [K][9][C_pad], C_pad = 64
  EXPECT_EQ(find_method(Method::hopper_tma)->packed_weight_bytes(p, ArchClass::sm90),
            300u * 9 * 64 * 2);
  EXPECT_EQ(find_method(Method::hopper_tma)->k_steps(p, ArchClass::sm90), 0);  // no split-K

  Conv2dOptions o;
  o.method = Method::hopper_tma;
  DeviceInfo h = make_device_info(false, 90, 32, 132);
  h.family = family_from_cuda_cc(90, true);  // a build with sm_90a
  PlanDesc d;
  ASSERT_TRUE(make_plan_desc(d, p, DType::bf16, LayoutKind::nhwc, o, h).ok());
  EXPECT_EQ(d.method, Method::hopper_tma);
  EXPECT_EQ(d.split_k, 1);
  const std::string text = describe_plan(d);
  EXPECT_NE(text.find("kernels=[hopper_tma_conv<nhwc>]"), std::string::npos) << text;
  EXPECT_NE(text.find("tile=128x256x64 wgmma, TMA, warp-specialized"), std::string::npos) << text;
  EXPECT_NE(text.find("output box 1x4x32"), std::string::npos) << text;  // 20x20: 32 x 4, 1 image
  EXPECT_EQ(text.find("not device-tested"), std::string::npos) << text;
  // off the sm90 table: refused, naming the table
  for (AtomKind a : {AtomKind::native, AtomKind::gfx11}) {
    const DeviceInfo dev = a == AtomKind::native ? make_device_info(false, 80, 32, 108) : h;
    const Status s = make_plan_desc(d, p, DType::bf16, LayoutKind::nhwc, o, dev, a);
    EXPECT_EQ(s.code(), StatusCode::method_not_applicable);
    EXPECT_NE(
        s.message().find(a == AtomKind::native ? "the sm80 tile table" : "the rdna3 tile table"),
        std::string::npos)
        << s.message();
  }
  // the sm90 router: the big NHWC 3x3 layers (K, C >= 256 at >= 128x128 output pixels; one
  // side 128, the other >= 256 at >= 256x256; K = 128 at >= 256x256 on the tall block), not the
  // small ones, not 1x1, not NCHW, not on sm80
  o.method = Method::automatic;
  const Conv2dProblem big = make_problem(1, 512, 128, 128, 512, 3, 3, 1, 1);
  ASSERT_TRUE(make_plan_desc(d, big, DType::bf16, LayoutKind::nhwc, o, h).ok());
  EXPECT_EQ(d.method, Method::hopper_tma) << d.reason;
  EXPECT_NE(d.reason.find("hopper_min_pixels"), std::string::npos) << d.reason;
  ASSERT_TRUE(make_plan_desc(d, big, DType::f16, LayoutKind::nhwc, o, h).ok());
  EXPECT_EQ(d.method, Method::hopper_tma) << d.reason;
  ASSERT_TRUE(make_plan_desc(d, make_problem(1, 128, 256, 256, 256, 3, 3, 1, 1), DType::bf16,
                             LayoutKind::nhwc, o, h)
                  .ok());  // enc.down1
  EXPECT_EQ(d.method, Method::hopper_tma) << d.reason;
  EXPECT_NE(d.reason.find("hopper_narrow_min_pixels"), std::string::npos) << d.reason;
  // dec.up3 (K = 128): the tall block's rule comes first (Hopper.TallRule)
  ASSERT_TRUE(make_plan_desc(d, make_problem(1, 256, 512, 512, 128, 3, 3, 1, 1), DType::bf16,
                             LayoutKind::nhwc, o, h)
                  .ok());
  EXPECT_EQ(d.method, Method::hopper_tma) << d.reason;
  EXPECT_NE(d.reason.find("hopper_tall_min_k"), std::string::npos) << d.reason;
  struct Off {
    Conv2dProblem q;
    LayoutKind l;
    DeviceInfo dev;
  };
  for (const Off& c : {Off{p, LayoutKind::nhwc, h},  // C = 40
                       Off{make_problem(1, 512, 64, 64, 512, 3, 3, 1, 1), LayoutKind::nhwc, h},
                       Off{make_problem(1, 512, 128, 128, 128, 3, 3, 1, 1), LayoutKind::nhwc, h},
                       Off{make_problem(1, 128, 128, 128, 256, 3, 3, 1, 1), LayoutKind::nhwc, h},
                       Off{make_problem(32, 1024, 14, 14, 256, 1, 1, 1, 0), LayoutKind::nhwc, h},
                       Off{big, LayoutKind::nchw, h},
                       Off{big, LayoutKind::nhwc, make_device_info(false, 80, 32, 108)}}) {
    ASSERT_TRUE(make_plan_desc(d, c.q, DType::bf16, c.l, o, c.dev).ok());
    EXPECT_NE(d.method, Method::hopper_tma) << describe_plan(d);
  }
}

// hopper_tma's tall block (version 4; Conv2dOptions::tile = tall): 256-pixel boxes whose sides
// stay within TMA's 256 elements at stride 2, 128 filters, forced only (never routed), K <= 128.
TEST(Hopper, TallBlock) {
  using kernels::hopper_geometry;
  // FLUX.2 enc.down0 (C = K = 128 at 1024x1024): 128 columns x 2 rows
  auto g = hopper_geometry(make_problem(1, 128, 1024, 1024, 128, 3, 3, 1, 1), true);
  EXPECT_EQ(g.bm, 256);
  EXPECT_EQ(g.bw * g.bh * g.bni, 256);
  EXPECT_EQ(g.bw, 128);
  EXPECT_EQ(g.bh, 2);
  EXPECT_EQ(g.bn, 128);
  EXPECT_EQ(g.bk, 64);
  EXPECT_EQ(g.stages, 4);  // 4 x 48 KiB, as the 128 x 256 block
  EXPECT_EQ(g.blocks(), 8 * 512);
  EXPECT_EQ(hopper_geometry(make_problem(1, 128, 1024, 1024, 128, 3, 3, 1, 1)).bm, 128);
  // a one-column output: the rows stop at 128 (TMA's box side at stride 2), images fill the rest
  g = hopper_geometry(make_problem(4, 64, 600, 1, 64, 3, 1, 1, 0), true);
  EXPECT_EQ(g.bw, 1);
  EXPECT_EQ(g.bh, 128);
  EXPECT_EQ(g.bni, 2);
  // 7x7 at batch 32: 8 x 8 boxes of 4 images; C = 96: 32-channel steps, 6 stages
  g = hopper_geometry(make_problem(32, 96, 7, 7, 96, 3, 3, 1, 1), true);
  EXPECT_EQ(g.bni, 4);
  EXPECT_EQ(g.bk, 32);
  EXPECT_EQ(g.stages, 6);
  // K > 128 would need the 256-wide filter block too: not built
  EXPECT_FALSE(kernels::hopper_tall_fits(make_problem(1, 128, 64, 64, 129, 3, 3, 1, 1)));
  EXPECT_TRUE(kernels::hopper_tall_fits(make_problem(1, 128, 64, 64, 128, 3, 3, 1, 1)));

  DeviceInfo h = make_device_info(false, 90, 32, 132);
  h.family = family_from_cuda_cc(90, true);  // a build with sm_90a
  Conv2dOptions o;
  o.method = Method::hopper_tma;
  o.tile = TileChoice::tall;
  PlanDesc d;
  const Conv2dProblem p = make_problem(1, 128, 512, 512, 128, 3, 3, 1, 1);
  ASSERT_TRUE(make_plan_desc(d, p, DType::bf16, LayoutKind::nhwc, o, h).ok());
  std::string text = describe_plan(d);
  EXPECT_NE(text.find("tile=256x128x64 wgmma"), std::string::npos) << text;
  EXPECT_NE(text.find("output box 1x2x128"), std::string::npos) << text;
  EXPECT_EQ(text.find("not device-tested"), std::string::npos) << text;  // the H100 run
  EXPECT_EQ(plan_own_tile(d).rfind("256x128x64 ", 0), 0u);
  // tile = main: the 128 x 128 block, no note
  o.tile = TileChoice::main;
  ASSERT_TRUE(make_plan_desc(d, p, DType::bf16, LayoutKind::nhwc, o, h).ok());
  text = describe_plan(d);
  EXPECT_NE(text.find("tile=128x128x64 wgmma"), std::string::npos) << text;
  EXPECT_EQ(text.find("tall"), std::string::npos) << text;
  EXPECT_EQ(d.options.tile, TileChoice::main);
  // tile automatic, forced method or the router's own, one block per tile: the router's tall
  // rule (K = 128, C >= 128, >= 256 x 256 outputs), which the plan reports and records in its
  // options (with the schedule automatic too, the ping-pong rule may take its place:
  // Hopper.PingpongSchedule)
  o.schedule = Schedule::per_tile;
  for (Method m : {Method::hopper_tma, Method::automatic}) {
    o.method = m;
    o.tile = TileChoice::automatic;
    ASSERT_TRUE(make_plan_desc(d, p, DType::bf16, LayoutKind::nhwc, o, h).ok()) << to_string(m);
    EXPECT_EQ(d.method, Method::hopper_tma);
    EXPECT_EQ(d.options.tile, TileChoice::tall) << to_string(m);
    text = describe_plan(d);
    EXPECT_NE(text.find("tile=256x128x64 wgmma"), std::string::npos) << text;
    EXPECT_NE(text.find("tall block"), std::string::npos) << text;  // the reason says why
  }
  // refused: K > 128, another method (forced or routed)
  o.schedule = Schedule::automatic;
  o.method = Method::hopper_tma;
  o.tile = TileChoice::tall;
  Status s = make_plan_desc(d, make_problem(1, 128, 512, 512, 256, 3, 3, 1, 1), DType::bf16,
                            LayoutKind::nhwc, o, h);
  EXPECT_EQ(s.code(), StatusCode::method_not_applicable);
  EXPECT_NE(s.message().find("needs K <= 128"), std::string::npos) << s.message();
  const Conv2dProblem small = make_problem(1, 128, 64, 64, 128, 3, 3, 1, 1);  // router: nhwc3x3
  for (Method m : {Method::nhwc3x3, Method::automatic}) {
    o.method = m;
    s = make_plan_desc(d, m == Method::automatic ? small : p, DType::bf16, LayoutKind::nhwc, o, h);
    EXPECT_EQ(s.code(), StatusCode::method_not_applicable) << to_string(m);
    EXPECT_NE(s.message().find("Conv2dOptions::tile=tall"), std::string::npos) << s.message();
  }
}

TEST(Hopper, PersistentSchedule) {
  // Conv2dOptions::schedule: persistent is hopper_tma's version 6 (forced only), recorded in the
  // plan's options, named by describe() with its kernel; automatic runs (and records) per_tile
  DeviceInfo h = make_device_info(false, 90, 32, 132);
  h.family = family_from_cuda_cc(90, true);
  const Conv2dProblem p = make_problem(1, 512, 128, 128, 512, 3, 3, 1, 1);
  Conv2dOptions o;
  PlanDesc d;
  ASSERT_TRUE(make_plan_desc(d, p, DType::bf16, LayoutKind::nhwc, o, h).ok());
  EXPECT_EQ(d.method, Method::hopper_tma);  // the router's (the big 3x3 rule)
  // automatic: per tile, or the ping-pong walk where its rule takes the layer
  const bool pp = hopper_pingpong_routed(p, router_thresholds(ArchClass::sm90), h.sms);
  EXPECT_EQ(d.options.schedule, pp ? Schedule::pingpong : Schedule::per_tile);
  std::string text = describe_plan(d);
  EXPECT_NE(
      text.find(pp ? "kernels=[hopper_tma_pingpong<nhwc>]" : "kernels=[hopper_tma_conv<nhwc>]"),
      std::string::npos)
      << text;
  EXPECT_EQ(text.find("persistent"), std::string::npos) << text;
  for (Method m : {Method::hopper_tma, Method::automatic}) {
    o.method = m;
    o.schedule = Schedule::persistent;
    ASSERT_TRUE(make_plan_desc(d, p, DType::bf16, LayoutKind::nhwc, o, h).ok()) << to_string(m);
    EXPECT_EQ(d.options.schedule, Schedule::persistent);
    text = describe_plan(d);
    EXPECT_NE(text.find("kernels=[hopper_tma_persistent<nhwc>]"), std::string::npos) << text;
    EXPECT_NE(text.find("tile=128x256x64 wgmma"), std::string::npos) << text;
    // 128 x 128 outputs in boxes of 1 x 1 x 128: 128 x 2 tiles
    EXPECT_NE(text.find("persistent (one block per multiprocessor walking the 256 tiles"),
              std::string::npos)
        << text;
    EXPECT_EQ(text.find("not device-tested") != std::string::npos,
              !kernels::kHopperPersistentDeviceTested)
        << text;
  }
  // with the tall block: both choices in the tile string
  o.method = Method::hopper_tma;
  o.tile = TileChoice::tall;
  const Conv2dProblem k128 = make_problem(1, 128, 512, 512, 128, 3, 3, 1, 1);
  ASSERT_TRUE(make_plan_desc(d, k128, DType::bf16, LayoutKind::nhwc, o, h).ok());
  EXPECT_EQ(plan_own_tile(d).rfind("256x128x64 ", 0), 0u);
  EXPECT_NE(plan_own_tile(d).find("persistent"), std::string::npos);
  // per_tile forced: the per-tile kernel
  o.tile = TileChoice::automatic;
  o.schedule = Schedule::per_tile;
  ASSERT_TRUE(make_plan_desc(d, p, DType::bf16, LayoutKind::nhwc, o, h).ok());
  EXPECT_NE(describe_plan(d).find("kernels=[hopper_tma_conv<nhwc>]"), std::string::npos);
  // refused: another method, forced or routed (a small NHWC 3x3 layer goes to nhwc3x3)
  o.schedule = Schedule::persistent;
  for (Method m : {Method::nhwc3x3, Method::automatic}) {
    o.method = m;
    const Status s = make_plan_desc(d, make_problem(1, 64, 32, 32, 64, 3, 3, 1, 1), DType::bf16,
                                    LayoutKind::nhwc, o, h);
    EXPECT_EQ(s.code(), StatusCode::method_not_applicable) << to_string(m);
    EXPECT_NE(s.message().find("Conv2dOptions::schedule=persistent"), std::string::npos)
        << s.message();
  }
  // an out-of-range value: invalid_option
  o.method = Method::automatic;
  o.schedule = static_cast<Schedule>(4);
  const Status s = make_plan_desc(d, p, DType::bf16, LayoutKind::nhwc, o, h);
  EXPECT_EQ(s.code(), StatusCode::invalid_option);
  EXPECT_NE(s.message().find("Conv2dOptions::schedule"), std::string::npos) << s.message();
}

TEST(Hopper, PingpongSchedule) {
  // Conv2dOptions::schedule = pingpong: hopper_tma's version 8 (forced only): 128 x 128 tiles per
  // consumer warpgroup whatever K, the router's tall rule off, its own stage count, named by
  // describe() with its kernel; refused on other methods and with a forced tall block
  DeviceInfo h = make_device_info(false, 90, 32, 132);
  h.family = family_from_cuda_cc(90, true);
  Conv2dOptions o;
  o.schedule = Schedule::pingpong;
  PlanDesc d;
  const Conv2dProblem p = make_problem(1, 512, 128, 128, 512, 3, 3, 1, 1);
  for (Method m : {Method::hopper_tma, Method::automatic}) {
    o.method = m;
    ASSERT_TRUE(make_plan_desc(d, p, DType::bf16, LayoutKind::nhwc, o, h).ok()) << to_string(m);
    EXPECT_EQ(d.method, Method::hopper_tma);
    EXPECT_EQ(d.options.schedule, Schedule::pingpong);
    const std::string text = describe_plan(d);
    EXPECT_NE(text.find("kernels=[hopper_tma_pingpong<nhwc>]"), std::string::npos) << text;
    // K = 512 in filter blocks of 128 (not the 128 x 256 block), 6 stages of 32 KiB
    EXPECT_NE(text.find("tile=128x128x64 per consumer warpgroup wgmma"), std::string::npos) << text;
    EXPECT_NE(text.find("stages=6"), std::string::npos) << text;
    // 128 x 128 outputs in boxes of 1 x 1 x 128: 128 x 4 tiles
    EXPECT_NE(text.find("ping-pong (one block per multiprocessor walking the 512 tiles"),
              std::string::npos)
        << text;
    EXPECT_EQ(text.find("not device-tested") != std::string::npos,
              !kernels::kHopperPingpongDeviceTested)
        << text;
  }
  // the geometry: 32-channel steps take 12 stages of 16 KiB; K <= 128 keeps 128 filters
  kernels::HopperGeometry g =
      kernels::hopper_geometry(make_problem(1, 96, 64, 64, 256, 3, 3, 1, 1), false, true);
  EXPECT_EQ(g.bm, 128);
  EXPECT_EQ(g.bn, 128);
  EXPECT_EQ(g.bk, 32);
  EXPECT_EQ(g.stages, 12);
  EXPECT_EQ(g.n_blocks, 2);
  // tile left automatic on a layer the router gives the tall block one block per tile: the
  // ping-pong's tile, forced or by the router's ping-pong rule (8192 tiles on 132
  // multiprocessors), which the reason names
  const Conv2dProblem k128 = make_problem(1, 128, 1024, 1024, 128, 3, 3, 1, 1);
  o.method = Method::automatic;
  o.schedule = Schedule::per_tile;
  ASSERT_TRUE(make_plan_desc(d, k128, DType::bf16, LayoutKind::nhwc, o, h).ok());
  ASSERT_EQ(d.options.tile, TileChoice::tall);  // the router's tall rule (docs/ROUTER.md)
  for (Schedule sc : {Schedule::pingpong, Schedule::automatic}) {
    o.schedule = sc;
    ASSERT_TRUE(make_plan_desc(d, k128, DType::bf16, LayoutKind::nhwc, o, h).ok());
    if (sc == Schedule::automatic &&
        !hopper_pingpong_routed(k128, router_thresholds(ArchClass::sm90), h.sms)) {
      EXPECT_EQ(d.options.tile, TileChoice::tall);  // the rule is off in the table
      continue;
    }
    EXPECT_EQ(d.options.schedule, Schedule::pingpong) << to_string(sc);
    EXPECT_NE(d.options.tile, TileChoice::tall);
    EXPECT_EQ(plan_own_tile(d).rfind("128x128x64 per consumer warpgroup", 0), 0u)
        << plan_own_tile(d);
    EXPECT_EQ(d.reason.find("ping-pong walk: 8192 tiles") != std::string::npos,
              sc == Schedule::automatic)
        << d.reason;
  }
  // the rule with the value its first device run is to try (off in the table until then):
  // both warpgroups busy, 2 tiles per multiprocessor (ResNet-50's small grids stay on one block
  // per tile); no multiprocessor count (a plan made without a device): never
  RouterThresholds on = router_thresholds(ArchClass::sm90);
  on.hopper_pingpong_min_tiles_per_sm = 2;
  EXPECT_TRUE(hopper_pingpong_routed(k128, on, 132));
  // 264 rows of 128 columns: 264 tiles, 2 per multiprocessor; one row fewer: not
  EXPECT_TRUE(hopper_pingpong_routed(make_problem(1, 64, 264, 128, 128, 3, 3, 1, 1), on, 132));
  EXPECT_FALSE(hopper_pingpong_routed(make_problem(1, 64, 263, 128, 128, 3, 3, 1, 1), on, 132));
  EXPECT_FALSE(hopper_pingpong_routed(make_problem(1, 512, 7, 7, 512, 3, 3, 1, 1), on, 132));
  EXPECT_FALSE(hopper_pingpong_routed(k128, on, 0));
  EXPECT_FALSE(hopper_pingpong_routed(k128, RouterThresholds{}, 132));  // kNoLimit: never
  o.schedule = Schedule::pingpong;
  // refused: a forced tall block, another method (forced or routed), hopper_halo
  o.method = Method::hopper_tma;
  o.tile = TileChoice::tall;
  Status s = make_plan_desc(d, k128, DType::bf16, LayoutKind::nhwc, o, h);
  EXPECT_EQ(s.code(), StatusCode::method_not_applicable);
  EXPECT_NE(s.message().find("schedule=pingpong"), std::string::npos) << s.message();
  o.tile = TileChoice::automatic;
  for (Method m : {Method::nhwc3x3, Method::automatic, Method::hopper_halo}) {
    o.method = m;
    s = make_plan_desc(
        d, m == Method::hopper_halo ? k128 : make_problem(1, 64, 32, 32, 64, 3, 3, 1, 1),
        DType::bf16, LayoutKind::nhwc, o, h);
    EXPECT_EQ(s.code(), StatusCode::method_not_applicable) << to_string(m);
    EXPECT_NE(s.message().find("Conv2dOptions::schedule=pingpong"), std::string::npos)
        << s.message();
  }
}

TEST(Hopper, HaloFamily) {
  using kernels::hopper_halo_geometry;
  // the tall block for K <= 128 with 128-column boxes: 2 rows, a 4 x 130 halo (66,560 bytes),
  // four 16 KiB weight stages; the whole block within 227 KiB
  kernels::HopperHaloGeometry g =
      hopper_halo_geometry(make_problem(1, 128, 1024, 1024, 128, 3, 3, 1, 1));
  EXPECT_EQ(g.bm, 256);
  EXPECT_EQ(g.bn, 128);
  EXPECT_EQ(g.bw, 128);
  EXPECT_EQ(g.bh, 2);
  EXPECT_EQ(g.hw, 130);
  EXPECT_EQ(g.hh, 4);
  EXPECT_EQ(g.a_bytes, 66560);
  EXPECT_EQ(g.b_stages, 4);
  EXPECT_LE(g.smem, kernels::kHopperSmemMax);
  EXPECT_EQ(g.blocks(), 512 * 8);
  // K > 128: 128 x 256 blocks, one-row boxes, three 32 KiB weight stages
  g = hopper_halo_geometry(make_problem(1, 512, 128, 128, 512, 3, 3, 1, 1));
  EXPECT_EQ(g.bm, 128);
  EXPECT_EQ(g.bn, 256);
  EXPECT_EQ(g.bh, 1);
  EXPECT_EQ(g.hh, 3);
  EXPECT_EQ(g.a_bytes, 50176);  // 3 x 130 x 128 = 49,920, rounded up to 1024
  EXPECT_EQ(g.b_stages, 3);
  EXPECT_LE(g.smem, kernels::kHopperSmemMax);
  EXPECT_EQ(g.blocks(), 128 * 2);
  // outputs narrower than 128 columns: 64-column boxes (a slab is one box row either way)
  g = hopper_halo_geometry(make_problem(1, 256, 64, 64, 256, 3, 3, 1, 1));
  EXPECT_EQ(g.bw, 64);
  EXPECT_EQ(g.bh, 2);
  EXPECT_EQ(g.hw, 66);
  EXPECT_LE(g.smem, kernels::kHopperSmemMax);
  // every shape the rule takes fits shared memory (the largest boxes: 3x3, tall and wide)
  for (int k : {64, 128, 129, 512})
    for (int w : {1, 64, 127, 128, 4096})
      EXPECT_LE(hopper_halo_geometry(make_problem(1, 64, 8, w, k, 3, 3, 1, 1)).smem,
                kernels::kHopperSmemMax);
  // the rule
  const auto nhwc = LayoutKind::nhwc;
  EXPECT_TRUE(
      can_implement(Method::hopper_halo, make_problem(1, 128, 64, 64, 128, 3, 3, 1, 1), nhwc));
  EXPECT_TRUE(can_implement(Method::hopper_halo, make_problem(1, 64, 64, 64, 8, 1, 3, 1, 0), nhwc));
  EXPECT_FALSE(
      can_implement(Method::hopper_halo, make_problem(1, 96, 64, 64, 128, 3, 3, 1, 1), nhwc));
  EXPECT_FALSE(
      can_implement(Method::hopper_halo, make_problem(1, 128, 64, 64, 128, 3, 3, 2, 1), nhwc));
  EXPECT_FALSE(can_implement(Method::hopper_halo, make_problem(1, 128, 64, 64, 128, 1, 1), nhwc));
  EXPECT_FALSE(
      can_implement(Method::hopper_halo, make_problem(1, 128, 64, 64, 128, 5, 5, 1, 2), nhwc));
  EXPECT_FALSE(
      can_implement(Method::hopper_halo, make_problem(1, 128, 64, 64, 128, 3, 3, 1, 2, 2), nhwc));
  EXPECT_FALSE(can_implement(Method::hopper_halo, make_problem(1, 128, 64, 64, 128, 3, 3, 1, 1),
                             LayoutKind::nchw));
  Conv2dProblem refl = make_problem(1, 128, 64, 64, 128, 3, 3, 1, 1);
  refl.pad_mode = PadMode::reflect;
  EXPECT_FALSE(can_implement(Method::hopper_halo, refl, nhwc));
  EXPECT_NE(why_not(Method::hopper_halo, make_problem(1, 96, 64, 64, 128, 3, 3, 1, 1), nhwc)
                .find("C % 64 == 0"),
            std::string::npos);

  // plans: forced only (the router never names it), sm90 table only, persistent, described
  DeviceInfo h = make_device_info(false, 90, 32, 132);
  h.family = family_from_cuda_cc(90, true);
  const Conv2dProblem p = make_problem(1, 128, 512, 512, 128, 3, 3, 1, 1);
  Conv2dOptions o;
  PlanDesc d;
  ASSERT_TRUE(make_plan_desc(d, p, DType::bf16, nhwc, o, h).ok());
  EXPECT_NE(d.method, Method::hopper_halo);
  o.method = Method::hopper_halo;
  ASSERT_TRUE(make_plan_desc(d, p, DType::bf16, nhwc, o, h).ok());
  EXPECT_EQ(d.options.schedule, Schedule::persistent);
  const std::string text = describe_plan(d);
  EXPECT_NE(text.find("kernels=[hopper_halo_conv<nhwc>]"), std::string::npos) << text;
  EXPECT_NE(text.find("tile=256x128x64 wgmma, TMA halo box 4x130"), std::string::npos) << text;
  EXPECT_EQ(text.find("not device-tested") != std::string::npos, !kernels::kHopperHaloDeviceTested)
      << text;
  EXPECT_EQ(d.packed_weight_bytes, std::size_t(128) * 9 * 128 * 2);
  EXPECT_EQ(d.workspace_bytes, 0u);
  o.schedule = Schedule::persistent;  // what it does: accepted
  EXPECT_TRUE(make_plan_desc(d, p, DType::bf16, nhwc, o, h).ok());
  o.schedule = Schedule::per_tile;  // what it does not do: refused
  Status s = make_plan_desc(d, p, DType::bf16, nhwc, o, h);
  EXPECT_EQ(s.code(), StatusCode::method_not_applicable);
  EXPECT_NE(s.message().find("persistent only"), std::string::npos) << s.message();
  o.schedule = Schedule::automatic;
  o.tile = TileChoice::small;  // it tiles itself
  EXPECT_EQ(make_plan_desc(d, p, DType::bf16, nhwc, o, h).code(),
            StatusCode::method_not_applicable);
  o.tile = TileChoice::automatic;
  DeviceInfo a = make_device_info(false, 80, 32, 108);  // an sm_80 table: not there
  a.family = family_from_cuda_cc(80, false);
  s = make_plan_desc(d, p, DType::bf16, nhwc, o, a);
  EXPECT_EQ(s.code(), StatusCode::method_not_applicable);
}

TEST(Hopper, TallRule) {
  // RouterThresholds::hopper_tall_*: the sm90 table only; NHWC 3x3, 128 <= K <= 128,
  // C >= 128, >= 256 x 256 output pixels (the VAEs' K = 128 layers, measured 1.06-1.19x)
  const RouterThresholds t = router_thresholds(ArchClass::sm90);
  const auto nhwc = LayoutKind::nhwc;
  EXPECT_TRUE(hopper_tall_routed(make_problem(1, 128, 512, 512, 128, 3, 3, 1, 1), nhwc, t));
  EXPECT_TRUE(hopper_tall_routed(make_problem(1, 256, 1024, 1024, 128, 3, 3, 1, 1), nhwc, t));
  EXPECT_TRUE(hopper_tall_routed(make_problem(1, 128, 512, 512, 128, 3, 3, 2, 1), nhwc, t));
  EXPECT_FALSE(
      hopper_tall_routed(make_problem(1, 128, 512, 512, 128, 3, 3, 1, 1), LayoutKind::nchw, t));
  EXPECT_FALSE(hopper_tall_routed(make_problem(1, 128, 128, 128, 128, 3, 3, 1, 1), nhwc, t));
  EXPECT_FALSE(hopper_tall_routed(make_problem(1, 512, 128, 128, 64, 3, 3, 1, 1), nhwc, t));
  EXPECT_FALSE(hopper_tall_routed(make_problem(1, 128, 512, 512, 3, 3, 3, 1, 1), nhwc, t));
  EXPECT_FALSE(hopper_tall_routed(make_problem(1, 256, 512, 512, 128, 1, 1), nhwc, t));
  EXPECT_FALSE(hopper_tall_routed(make_problem(1, 64, 512, 512, 128, 3, 3, 1, 1), nhwc, t));
  for (ArchClass f : {ArchClass::rdna3, ArchClass::rdna4, ArchClass::sm80, ArchClass::generic})
    EXPECT_FALSE(hopper_tall_routed(make_problem(1, 128, 512, 512, 128, 3, 3, 1, 1), nhwc,
                                    router_thresholds(f)))
        << to_string(f);
  // route(): C = K = 128 at 512 x 512 leaves nhwc3x3 for hopper_tma on sm90 only
  const Conv2dProblem v = make_problem(1, 128, 512, 512, 128, 3, 3, 1, 1);
  EXPECT_EQ(route(v, nhwc, ArchClass::sm90, DType::bf16), Method::hopper_tma);
  EXPECT_EQ(route(v, nhwc, ArchClass::sm80, DType::bf16), Method::nhwc3x3);
}
