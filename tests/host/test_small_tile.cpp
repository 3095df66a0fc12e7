// SPDX-License-Identifier: MIT
/// @file test_small_tile.cpp The small tile row's host half (kernels/common/tiles.hpp,
/// ArchTiles::small; Conv2dOptions::tile): the rows themselves, which plans run it (forced on
/// every direct family, refused elsewhere with a message), what describe() says, the router's
/// rule (the sm90 table's, from the H100 sweep; off on the others) and split-K counted on the
/// small tile's grid.
#include <gtest/gtest.h>

#include <string>

#include "common/model_layers.hpp"
#include "rdnaconv/plan_desc.hpp"

using namespace rdnaconv;
using kernels::TileKind;

namespace {
constexpr DeviceInfo kH100 = make_device_info(false, 90, 32, 132);

Status plan(PlanDesc& d, const Conv2dProblem& p, const Conv2dOptions& o, LayoutKind l,
            const DeviceInfo& dev = kH100, AtomKind atom = AtomKind::native) {
  return make_plan_desc(d, p, DType::bf16, l, o, dev, atom);
}

Conv2dOptions forced(Method m, TileChoice t, int split = 0) {
  Conv2dOptions o;
  o.method = m;
  o.tile = t;
  o.split_k = split;
  return o;
}

struct DirectCase {
  Method m;
  LayoutKind l;
  Conv2dProblem p;
};

std::vector<DirectCase> direct_cases() {
  const Conv2dProblem c3 = make_problem(1, 512, 7, 7, 512, 3, 3, 1, 1);   // ResNet-50 layer4 3x3
  const Conv2dProblem c1 = make_problem(1, 2048, 7, 7, 512, 1, 1);        // layer4 1x1
  const Conv2dProblem g7 = make_problem(1, 3, 224, 224, 64, 7, 7, 2, 3);  // the stem
  return {{Method::general, LayoutKind::nhwc, g7},     {Method::general, LayoutKind::nchw, g7},
          {Method::gemm1x1, LayoutKind::nhwc, c1},     {Method::gemm1x1, LayoutKind::nchw, c1},
          {Method::nhwc3x3, LayoutKind::nhwc, c3},     {Method::nchw3x3, LayoutKind::nchw, c3},
          {Method::cblocked3x3, LayoutKind::nchw, c3}, {Method::cblocked1x1, LayoutKind::nchw, c1}};
}
}  // namespace

TEST(SmallTile, RowsAreQuarterBlocksOnTheMainPacking) {
  for (ArchClass f :
       {ArchClass::rdna3, ArchClass::rdna4, ArchClass::sm80, ArchClass::sm90, ArchClass::generic}) {
    const kernels::TileConfig s = kernels::tile_of(f, TileKind::small);
    const kernels::TileConfig m = kernels::tile_of(f, TileKind::general);
    EXPECT_EQ(s.block_m, 64) << to_string(f);
    EXPECT_EQ(s.block_n, 64) << to_string(f);
    EXPECT_EQ(s.block_k, m.block_k) << to_string(f) << ": the packing must not depend on the tile";
    EXPECT_EQ(s.threads(), 128) << to_string(f);
    EXPECT_FALSE(s.wgmma) << to_string(f);
    EXPECT_EQ(s.async_copy(), m.async_copy()) << to_string(f);
  }
}

TEST(SmallTile, ForcedOnEveryDirectFamily) {
  for (const DirectCase& c : direct_cases())
    for (DeviceInfo dev :
         {kH100, make_device_info(false, 80, 32, 108), make_device_info(true, 1100, 32, 48)}) {
      SCOPED_TRACE(std::string(to_string(c.m)) + " " + to_string(c.l) + " arch " +
                   std::to_string(dev.arch));
      PlanDesc d;
      const Status s = plan(d, c.p, forced(c.m, TileChoice::small), c.l, dev);
      ASSERT_TRUE(s.ok()) << s.message();
      EXPECT_EQ(d.method, c.m);
      EXPECT_EQ(d.tile, TileKind::small);
      const std::string what = describe_plan(d);
      EXPECT_NE(what.find("tile=64x64x32 warps=2x2"), std::string::npos) << what;
      // device-tested (H100: the native atom and the emulated RDNA atoms)
      EXPECT_EQ(what.find("not device-tested"), std::string::npos) << what;
      // the packing is the main tile's: same packed size as a main-tile plan of the method
      PlanDesc m;
      ASSERT_TRUE(plan(m, c.p, forced(c.m, TileChoice::main), c.l, dev).ok());
      EXPECT_EQ(d.packed_weight_bytes, m.packed_weight_bytes);
      EXPECT_NE(m.tile, TileKind::small);
      EXPECT_EQ(describe_plan(m).find("small tile"), std::string::npos);
    }
}

TEST(SmallTile, ForcedMainOverridesTheThinRow) {
  const Conv2dProblem thin = make_problem(1, 96, 14, 14, 24, 1, 1);  // K = 24 <= 32
  PlanDesc a, m;
  ASSERT_TRUE(plan(a, thin, forced(Method::gemm1x1, TileChoice::automatic), LayoutKind::nhwc).ok());
  EXPECT_EQ(a.tile, TileKind::thin);
  ASSERT_TRUE(plan(m, thin, forced(Method::gemm1x1, TileChoice::main), LayoutKind::nhwc).ok());
  EXPECT_EQ(m.tile, find_method(Method::gemm1x1)->tile_kind);
}

TEST(SmallTile, RefusedWhereTheFamilyTilesItself) {
  const Conv2dProblem p = make_problem(1, 256, 32, 32, 256, 3, 3, 1, 1);
  const Conv2dProblem g = [] {
    Conv2dProblem q = make_problem(1, 64, 16, 16, 64, 3, 3, 1, 1);
    q.groups = 64;
    return q;
  }();
  struct Refused {
    Method m;
    Conv2dProblem p;
    bool main_too;  // main refused as well (hopper_tma takes main: its 128 x 128 block)
  };
  std::vector<Refused> refused = {
      {Method::winograd, p, true}, {Method::winograd_fused, p, true}, {Method::grouped, g, true}};
#if defined(RDNACONV_SM90A)
  // its own tile table exists in sm_90a builds only (Hopper.TallBlock checks tile = main there)
  refused.push_back({Method::hopper_tma, p, false});
#endif
  for (const Refused& r : refused)
    for (TileChoice t : {TileChoice::small, TileChoice::main}) {
      if (t == TileChoice::main && !r.main_too) continue;
      PlanDesc d;
      const Status s = plan(d, r.p, forced(r.m, t), LayoutKind::nhwc);
      EXPECT_EQ(s.code(), StatusCode::method_not_applicable)
          << to_string(r.m) << " " << s.message();
      EXPECT_NE(s.message().find(std::string("Conv2dOptions::tile=") + to_string(t)),
                std::string::npos)
          << s.message();
    }
}

TEST(SmallTile, PaddingModesKeepTheMainTile) {
  Conv2dProblem p = make_problem(1, 32, 9, 9, 48, 3, 3, 1, 1);
  p.pad_mode = PadMode::reflect;
  PlanDesc d;
  const Status s = plan(d, p, forced(Method::general, TileChoice::small), LayoutKind::nhwc);
  EXPECT_EQ(s.code(), StatusCode::method_not_applicable) << s.message();
  EXPECT_NE(s.message().find("pad_mode reflect"), std::string::npos) << s.message();
  ASSERT_TRUE(plan(d, p, forced(Method::general, TileChoice::main), LayoutKind::nhwc).ok());
  EXPECT_EQ(d.tile, find_method(Method::general)->tile_kind);
}

TEST(SmallTile, OptionOutOfRangeIsInvalid) {
  Conv2dOptions o;
  o.tile = static_cast<TileChoice>(7);
  PlanDesc d;
  const Status s = plan(d, make_problem(1, 16, 8, 8, 16, 3, 3, 1, 1), o, LayoutKind::nhwc);
  EXPECT_EQ(s.code(), StatusCode::invalid_option);
  EXPECT_NE(s.message().find("Conv2dOptions::tile"), std::string::npos) << s.message();
}

TEST(SmallTile, RouterRuleOnTheModelLayers) {
  // the sm90 table's rule (H100 sweep, docs/ROUTER.md "Small tile"); the other tables are not
  // measured and keep it off
  for (ArchClass f : {ArchClass::rdna3, ArchClass::rdna4, ArchClass::sm80, ArchClass::generic})
    EXPECT_EQ(router_thresholds(f).small_below_sm_fraction, 0.0) << to_string(f);
  EXPECT_EQ(router_thresholds(ArchClass::sm90).small_below_sm_fraction, 1.0);
  DeviceInfo h100 = kH100;
  h100.family = family_from_cuda_cc(90, true);
  ASSERT_EQ(tile_family(AtomKind::native, h100.family), ArchClass::sm90);
  const auto small_layers = [&](const char* model, int n, LayoutKind l, const DeviceInfo& dev,
                                AtomKind atom) {
    std::vector<models::ModelLayer> all = models::model(model);
    for (auto& x : all) x.p.n = n;
    int picked = 0;
    for (const auto& u : models::unique_layers(all)) {
      PlanDesc d;
      EXPECT_TRUE(plan(d, u.p, {}, l, dev, atom).ok()) << model << " " << u.names.front();
      if (d.tile != TileKind::small) continue;
      ++picked;
      EXPECT_NE(d.reason.find("small tile: "), std::string::npos) << d.reason;
      EXPECT_EQ(describe_plan(d).find("not device-tested"), std::string::npos);
    }
    return picked;
  };
  // ResNet-50 N1 NHWC: every layer's grid is below one main block per SM and small (the sweep:
  // 20 of 23 faster, the other 3 within 4% once the small tile splits like the main one)
  std::vector<models::ModelLayer> r50 = models::model("resnet50_224");
  const int r50_unique = int(models::unique_layers(r50).size());
  EXPECT_EQ(small_layers("resnet50_224", 1, LayoutKind::nhwc, h100, AtomKind::native), r50_unique);
  // NCHW: every layer too since the ninth session. The 1x1 layers gemm1x1's NCHW split rule
  // splits (which keep its main tile) all have C >= 256 and go to cblocked1x1 now, which reads
  // vectors and takes the small tile like NHWC; the two C = 64 layers stay on gemm1x1 and
  // take it as well (unsplit). The exception itself: RouterRuleWhenATableSetsIt.
  EXPECT_EQ(small_layers("resnet50_224", 1, LayoutKind::nchw, h100, AtomKind::native), r50_unique);
  // batch 32 and the VAEs: too much work per SM for the small tile (it lost on every layer of
  // those the sweep ran but the 2-step 1x1 at 56x56, which the rule does not reach)
  EXPECT_EQ(small_layers("resnet50_224", 32, LayoutKind::nhwc, h100, AtomKind::native), 0);
  EXPECT_EQ(small_layers("sd35_vae_512", 1, LayoutKind::nhwc, h100, AtomKind::native), 0);
  // the sm80 table and the RDNA tables (no sweep: no Ampere / Ada or AMD GPU here) never take it
  DeviceInfo sm80_table = kH100;
  sm80_table.family = family_from_cuda_cc(90, false);  // a build without sm_90a
  EXPECT_EQ(small_layers("resnet50_224", 1, LayoutKind::nhwc, sm80_table, AtomKind::native), 0);
  EXPECT_EQ(small_layers("resnet50_224", 1, LayoutKind::nhwc, h100, AtomKind::gfx11), 0);
  EXPECT_EQ(small_layers("resnet50_224", 1, LayoutKind::nhwc, make_device_info(true, 1100, 32, 48),
                         AtomKind::native),
            0);
}

TEST(SmallTile, RouterRuleWhenATableSetsIt) {
  RouterThresholds t = router_thresholds(ArchClass::sm90);
  t.small_below_sm_fraction = 0.5;
  const MethodInfo& conv3 = *find_method(Method::nhwc3x3);
  const MethodInfo& one = *find_method(Method::gemm1x1);
  const Conv2dProblem l4 = make_problem(1, 512, 7, 7, 512, 3, 3, 1, 1);     // 4 main blocks
  const Conv2dProblem big = make_problem(1, 512, 64, 64, 512, 3, 3, 1, 1);  // 128
  const Conv2dProblem thin = make_problem(1, 96, 14, 14, 24, 1, 1);
  EXPECT_TRUE(auto_small_tile(l4, conv3, conv3.tile_kind, ArchClass::sm90, t, 132));
  EXPECT_FALSE(auto_small_tile(big, conv3, conv3.tile_kind, ArchClass::sm90, t, 132));
  EXPECT_FALSE(auto_small_tile(l4, conv3, conv3.tile_kind, ArchClass::sm90, t, 0));
  EXPECT_FALSE(auto_small_tile(thin, one, TileKind::thin, ArchClass::sm90, t, 132));
  // below half of 132 multiprocessors: 65 blocks yes, 66 no
  const Conv2dProblem b65 = make_problem(1, 128, 1, 65 * 128, 128, 1, 1);
  const Conv2dProblem b66 = make_problem(1, 128, 1, 66 * 128, 128, 1, 1);
  EXPECT_EQ(main_tile_blocks(b65, one, ArchClass::sm90), 65);
  EXPECT_TRUE(auto_small_tile(b65, one, one.tile_kind, ArchClass::sm90, t, 132));
  EXPECT_FALSE(auto_small_tile(b66, one, one.tile_kind, ArchClass::sm90, t, 132));
  t.small_below_sm_fraction = 0;
  EXPECT_FALSE(auto_small_tile(l4, conv3, conv3.tile_kind, ArchClass::sm90, t, 132));
}

TEST(SmallTile, SplitKCountsTheSmallGrid) {
  const RouterThresholds t = router_thresholds(ArchClass::sm90);
  const MethodInfo& one = *find_method(Method::gemm1x1);
  // 1x1 1024 -> 256 at 14x14, N1: 2 x 2 main blocks, 4 x 4 small ones; 32 steps
  const Conv2dProblem s14 = make_problem(1, 1024, 14, 14, 256, 1, 1);
  EXPECT_EQ(tile_blocks(s14, ArchClass::sm90, TileKind::small), 16);
  // main: min(16, 132 / 4, 32 / 4) = 8; small: 32 steps >= small_split_min_steps_per_block
  // (1.0) x 16 blocks, min(16, 132 / 16, 32 / 4) = 8; with the main tile's 2.5 steps per
  // block, none
  EXPECT_EQ(auto_split_k(s14, one, one.tile_kind, ArchClass::sm90, t, 132), 8);
  EXPECT_EQ(auto_split_k(s14, one, TileKind::small, ArchClass::sm90, t, 132), 8);
  RouterThresholds main_bound = t;
  main_bound.small_split_min_steps_per_block = 0;
  EXPECT_EQ(auto_split_k(s14, one, TileKind::small, ArchClass::sm90, main_bound, 132), 1);
  // layer4 1x1 2048 -> 512 at 7x7: 4 main blocks, 8 small; 64 steps
  const Conv2dProblem c1 = make_problem(1, 2048, 7, 7, 512, 1, 1);
  EXPECT_EQ(auto_split_k(c1, one, one.tile_kind, ArchClass::sm90, t, 132), 16);
  EXPECT_EQ(auto_split_k(c1, one, TileKind::small, ArchClass::sm90, t, 132), 16);
  // a grid the small tile nearly fills is not split: 3x3 512 -> 512 at 28x28 gives 7 x 4 = 28
  // main blocks (4 parts) but 13 x 8 = 104 small ones, split_fill x 132 / 104 = 1 part
  const MethodInfo& conv3 = *find_method(Method::nhwc3x3);
  const Conv2dProblem c28 = make_problem(1, 512, 28, 28, 512, 3, 3, 1, 1);
  EXPECT_EQ(auto_split_k(c28, conv3, conv3.tile_kind, ArchClass::sm90, t, 132), 4);
  EXPECT_EQ(auto_split_k(c28, conv3, TileKind::small, ArchClass::sm90, t, 132), 1);

  // the plan: forced small with the automatic split, and with a forced split
  PlanDesc d;
  ASSERT_TRUE(plan(d, c1, forced(Method::gemm1x1, TileChoice::small), LayoutKind::nhwc).ok());
  EXPECT_EQ(d.tile, TileKind::small);
  EXPECT_EQ(d.split_k, 16);
  EXPECT_NE(d.reason.find("split_k=16: 8 blocks on 132"), std::string::npos) << d.reason;
  EXPECT_NE(plan_kernels(d).find("conv_gemm_splitk<"), std::string::npos);
  ASSERT_TRUE(plan(d, c1, forced(Method::gemm1x1, TileChoice::small, 3), LayoutKind::nchw).ok());
  EXPECT_EQ(d.tile, TileKind::small);
  EXPECT_EQ(d.split_k, 3);
  EXPECT_GE(d.workspace_bytes, std::size_t(3) * std::size_t(c1.y_elems()) * 4);
  // a forced split on the thin row still moves it to the main tile (no thin split kernel)
  const Conv2dProblem thin = make_problem(1, 960, 14, 14, 24, 1, 1);
  ASSERT_TRUE(
      plan(d, thin, forced(Method::gemm1x1, TileChoice::automatic, 4), LayoutKind::nhwc).ok());
  EXPECT_EQ(d.tile, one.tile_kind);
  ASSERT_TRUE(plan(d, thin, forced(Method::gemm1x1, TileChoice::small, 4), LayoutKind::nhwc).ok());
  EXPECT_EQ(d.tile, TileKind::small);
}
