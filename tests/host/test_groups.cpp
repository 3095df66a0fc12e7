// SPDX-License-Identifier: MIT
/// @file test_groups.cpp Groups (issue 17 item 2) on the host: the problem's sizes, validation and
/// its messages, the router (groups > 1 go to the grouped family, every other method refuses
/// them and says so), the grouped family's sizes, describe(), and the float64 host reference
/// (a grouped convolution is G dense convolutions on channel slices; depthwise by hand).
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "common/cases.hpp"
#include "rdnaconv/plan_desc.hpp"
#include "rdnaconv/reference/host_conv.hpp"

using namespace rdnaconv;

namespace {
const DeviceInfo kH200 = make_device_info(false, 90, 32);

Status plan(PlanDesc& d, const Conv2dProblem& p, LayoutKind l = LayoutKind::nhwc,
            Conv2dOptions o = {}) {
  return make_plan_desc(d, p, DType::f16, l, o, kH200);
}
bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}
std::vector<std::uint16_t> random_words(std::size_t n, DType t, unsigned seed) {
  std::mt19937 g(seed);
  std::vector<std::uint16_t> v(n);
  for (auto& w : v) w = detail::float_to_bits(t, float(int(g() % 7) - 3));
  return v;
}
}  // namespace

TEST(Groups, ProblemSizesFollowGroups) {
  const Conv2dProblem p = make_problem(2, 12, 5, 6, 18, 3, 3, 1, 1, 1, 3);
  EXPECT_EQ(p.groups, 3);
  EXPECT_EQ(p.c_per_group(), 4);
  EXPECT_EQ(p.k_per_group(), 6);
  EXPECT_EQ(p.gemm_k(), 4 * 9);
  EXPECT_EQ(p.w_elems(), 18 * 4 * 9);
  EXPECT_EQ(p.x_elems(), 2 * 12 * 5 * 6);
  EXPECT_EQ(p.y_elems(), 2 * 18 * 5 * 6);
  EXPECT_DOUBLE_EQ(p.flops(), 2.0 * double(2 * 5 * 6) * 18 * (4 * 9));
  // groups 1: the dense sizes, as before
  const Conv2dProblem d = make_problem(2, 12, 5, 6, 18, 3, 3, 1, 1);
  EXPECT_EQ(d.groups, 1);
  EXPECT_EQ(d.gemm_k(), 12 * 9);
  EXPECT_EQ(d.w_elems(), 18 * 12 * 9);
}

TEST(Groups, ValidationRefusesBadGroupsWithAMessage) {
  struct Bad {
    std::int64_t c, k, g;
    const char* says;
  };
  const Bad cases[] = {
      {8, 8, 0, "groups must be in [1, 2^31), got 0"},
      {8, 8, -2, "groups must be in [1, 2^31), got -2"},
      {8, 8, std::int64_t(1) << 31, "groups must be in [1, 2^31), got 2147483648"},
      {12, 8, 8, "groups must divide C and K, got groups=8 with C=12"},
      {8, 12, 8, "groups must divide C and K, got groups=8 with K=12"},
      {15, 12, 5, "groups must divide C and K, got groups=5 with K=12"},
  };
  for (const Bad& b : cases) {
    Conv2dProblem p = make_problem(1, b.c, 8, 8, b.k, 3, 3, 1, 1);
    p.groups = b.g;
    const Status s = validate_problem(p);
    EXPECT_EQ(s.code(), StatusCode::invalid_size) << b.says;
    EXPECT_TRUE(has(s.message(), b.says)) << s.message();
    PlanDesc d;
    EXPECT_EQ(plan(d, p).code(), StatusCode::invalid_size) << b.says;
  }
  // groups = C = K (depthwise) and groups dividing both are valid
  EXPECT_TRUE(validate_problem(make_problem(1, 15, 8, 8, 30, 3, 3, 1, 1, 1, 15)).ok());
  EXPECT_TRUE(validate_problem(make_problem(1, 15, 8, 8, 10, 3, 3, 1, 1, 1, 5)).ok());
}

TEST(Groups, DescribeNamesGroupsOnlyWhenNotOne) {
  EXPECT_TRUE(has(detail::describe(make_problem(1, 8, 8, 8, 8, 3, 3, 1, 1, 1, 4)), " groups=4"));
  EXPECT_FALSE(has(detail::describe(make_problem(1, 8, 8, 8, 8, 3, 3, 1, 1)), "groups"));
}

TEST(Groups, RouterSendsGroupsToTheGroupedFamilyOnly) {
  const Conv2dProblem probs[] = {
      make_problem(1, 32, 16, 16, 32, 3, 3, 1, 1, 1, 32),    // depthwise 3x3
      make_problem(2, 96, 14, 14, 192, 7, 7, 2, 3, 1, 96),   // depthwise, multiplier 2, s2
      make_problem(1, 64, 8, 8, 128, 1, 1, 1, 0, 1, 4),      // grouped 1x1
      make_problem(1, 128, 20, 20, 128, 3, 3, 1, 1, 1, 32),  // ResNeXt-style
      make_problem(1, 15, 9, 7, 15, 5, 3, 2, 1, 2, 5),       // odd C, dilation, stride
  };
  for (const Conv2dProblem& p : probs)
    for (ArchClass f :
         {ArchClass::rdna3, ArchClass::rdna4, ArchClass::sm80, ArchClass::sm90, ArchClass::generic})
      for (LayoutKind l : {LayoutKind::nchw, LayoutKind::nhwc})
        for (DType t : {DType::f16, DType::bf16}) {
          EXPECT_EQ(route(p, l, f, t), Method::grouped) << detail::describe(p);
          for (const MethodInfo& m : kMethods) {
            const bool ok = can_implement(m.method, p, l);
            EXPECT_EQ(ok, m.method == Method::grouped) << m.name << " " << detail::describe(p);
            if (m.method != Method::grouped)
              EXPECT_EQ(
                  why_not(m.method, p, l),
                  std::string(m.name) + " needs groups 1, got groups=" + std::to_string(p.groups));
          }
        }
  // and the grouped family takes no dense problem
  const Conv2dProblem dense = make_problem(1, 32, 16, 16, 32, 3, 3, 1, 1);
  EXPECT_FALSE(can_implement(Method::grouped, dense, LayoutKind::nhwc));
  EXPECT_EQ(why_not(Method::grouped, dense, LayoutKind::nchw),
            "grouped needs groups > 1, got groups=1");
  for (ArchClass f : {ArchClass::rdna3, ArchClass::sm80, ArchClass::sm90, ArchClass::generic})
    EXPECT_NE(route(dense, LayoutKind::nhwc, f), Method::grouped);
}

TEST(Groups, PlansNameTheGroupedKernelsAndRefuseForcedOthers) {
  PlanDesc d;
  const Conv2dProblem dw = make_problem(1, 32, 16, 16, 64, 3, 3, 1, 1, 1, 32);
  ASSERT_TRUE(plan(d, dw).ok());
  EXPECT_EQ(d.method, Method::grouped);
  std::string text = describe_plan(d);
  EXPECT_TRUE(has(text, "method=grouped kernels=[grouped_depthwise<nhwc>]")) << text;
  EXPECT_TRUE(has(text, "depthwise (C/G = 1)")) << text;
  EXPECT_TRUE(has(text, "groups=32")) << text;
  EXPECT_EQ(d.workspace_bytes, 0u);
  EXPECT_EQ(d.packed_weight_bytes, 9u * 1 * 64 * 2);  // [R*S][C/G][K_pad]
  ASSERT_TRUE(plan(d, dw, LayoutKind::nchw).ok());
  text = describe_plan(d);
  EXPECT_TRUE(has(text, "kernels=[grouped_depthwise<nchw>]")) << text;
  EXPECT_TRUE(has(text, "in shared memory")) << text;
  const Conv2dProblem gr = make_problem(1, 64, 10, 10, 20, 3, 3, 1, 1, 1, 4);
  ASSERT_TRUE(plan(d, gr, LayoutKind::nchw).ok());
  text = describe_plan(d);
  EXPECT_TRUE(has(text, "kernels=[grouped_direct<nchw>]")) << text;
  EXPECT_EQ(d.packed_weight_bytes, 9u * 16 * 24 * 2);  // K = 20 padded to 24
  // x_align below 16: still the grouped family (it decides vector loads per launch)
  Conv2dOptions o;
  o.x_align = 2;
  ASSERT_TRUE(plan(d, dw, LayoutKind::nhwc, o).ok());
  EXPECT_EQ(d.method, Method::grouped);
  // forcing another method names the rule
  o = {};
  o.method = Method::general;
  Status s = plan(d, gr, LayoutKind::nhwc, o);
  EXPECT_EQ(s.code(), StatusCode::method_not_applicable);
  EXPECT_TRUE(has(s.message(), "general needs groups 1, got groups=4")) << s.message();
  o.method = Method::grouped;
  s = plan(d, make_problem(1, 8, 8, 8, 8, 3, 3, 1, 1), LayoutKind::nhwc, o);
  EXPECT_EQ(s.code(), StatusCode::method_not_applicable);
  EXPECT_TRUE(has(s.message(), "grouped needs groups > 1, got groups=1")) << s.message();
  // no split-K: not a direct engine method
  o.split_k = 4;
  s = plan(d, gr, LayoutKind::nhwc, o);
  EXPECT_EQ(s.code(), StatusCode::method_not_applicable);
  EXPECT_TRUE(has(s.message(), "needs a direct engine method")) << s.message();
}

TEST(Groups, GeometryStaysInsideTheLimits) {
  using kernels::grouped_geometry;
  using kernels::GroupedGeometry;
  // depthwise NHWC: 8 filters per thread, a power-of-two slice of filter vectors, 256 threads
  GroupedGeometry g =
      grouped_geometry(make_problem(1, 960, 7, 7, 960, 7, 7, 1, 3, 1, 960), LayoutKind::nhwc);
  EXPECT_TRUE(g.depthwise);
  EXPECT_EQ(g.kv, 120);
  EXPECT_EQ(g.kvb, 32);
  EXPECT_EQ(g.ppb, 8);
  EXPECT_TRUE(g.w_smem);
  EXPECT_EQ(g.smem_bytes, 49 * 32 * 16);
  EXPECT_EQ(g.work, 4 * ((49 + 7) / 8));
  // a filter too large for the slice: fewer vectors, then weights from global memory
  g = grouped_geometry(make_problem(1, 64, 80, 80, 64, 61, 61, 1, 30, 1, 64), LayoutKind::nhwc);
  EXPECT_EQ(g.kvb, 1);
  EXPECT_FALSE(g.w_smem);
  EXPECT_EQ(g.smem_bytes, 0);
  // depthwise NCHW: threads along the columns, the strip within the cap
  g = grouped_geometry(make_problem(2, 32, 112, 112, 32, 3, 3, 1, 1, 1, 32), LayoutKind::nchw);
  EXPECT_EQ(g.bq, 64);
  EXPECT_EQ(g.bp, 4);
  EXPECT_EQ(g.bpl, 1);
  EXPECT_TRUE(g.staged);
  EXPECT_EQ(g.rows_in, 6);
  EXPECT_EQ(g.cols_in, 66);
  EXPECT_EQ(g.threads, 256);
  EXPECT_EQ(g.work, 2 * 32 * 28 * 2);
  // small planes: several planes per block
  g = grouped_geometry(make_problem(1, 16, 7, 7, 16, 3, 3, 1, 1, 1, 16), LayoutKind::nchw);
  EXPECT_EQ(g.bq, 8);
  EXPECT_EQ(g.bp, 8);
  EXPECT_EQ(g.bpl, 4);
  EXPECT_EQ(g.threads, 256);
  // a stride too large to stage: read from global memory
  g = grouped_geometry(
      [] {
        Conv2dProblem p = make_problem(1, 4, 3, 1 << 20, 4, 1, 1, 1, 0, 1, 4);
        p.stride_w = 4096;
        return p;
      }(),
      LayoutKind::nchw);
  EXPECT_FALSE(g.staged);
  EXPECT_EQ(g.smem_bytes, 0);
  for (const Conv2dProblem& p : {make_problem(1, 960, 7, 7, 960, 7, 7, 1, 3, 1, 960),
                                 make_problem(3, 15, 9, 7, 30, 5, 3, 2, 1, 2, 15),
                                 make_problem(1, 64, 80, 80, 64, 9, 9, 1, 4, 3, 64)})
    for (LayoutKind l : {LayoutKind::nchw, LayoutKind::nhwc}) {
      g = grouped_geometry(p, l);
      EXPECT_LE(g.smem_bytes, kernels::kGroupedSmemCap);
      EXPECT_LE(g.threads, kernels::kGroupedThreads);
      EXPECT_GT(g.work, 0);
    }
}

// The depthwise row window (Conv2dOptions::tile = window): forced only, on the problems it is
// built for; the plan names its kernel and tile and says it is not device-tested; everything
// else is refused with the rule; automatic plans never take it.
TEST(Groups, RowWindowIsForcedOnlyAndRefusedOutsideItsShapes) {
  using kernels::grouped_window_fits;
  const Conv2dProblem cnx = make_problem(1, 96, 56, 56, 96, 7, 7, 1, 3, 1, 96);     // ConvNeXt-T
  const Conv2dProblem mb2 = make_problem(1, 144, 56, 56, 144, 3, 3, 2, 1, 1, 144);  // MobileNetV2
  EXPECT_TRUE(grouped_window_fits(cnx, LayoutKind::nhwc));
  EXPECT_TRUE(grouped_window_fits(mb2, LayoutKind::nhwc));
  EXPECT_TRUE(grouped_window_fits(make_problem(2, 8, 5, 5, 8, 5, 5, 1, 2, 1, 8), LayoutKind::nhwc));
  // not built for: NCHW, multiplier 2, C % 8, 1x1 / 9x9 / 3x5 filters, stride 3 or 2x1,
  // dilation, a padding mode other than zeros, groups 1
  EXPECT_FALSE(grouped_window_fits(cnx, LayoutKind::nchw));
  EXPECT_FALSE(
      grouped_window_fits(make_problem(1, 16, 8, 8, 32, 3, 3, 1, 1, 1, 16), LayoutKind::nhwc));
  EXPECT_FALSE(
      grouped_window_fits(make_problem(1, 20, 8, 8, 20, 3, 3, 1, 1, 1, 20), LayoutKind::nhwc));
  for (const auto& [r, s] : {std::pair{1, 1}, {9, 9}, {3, 5}})
    EXPECT_FALSE(
        grouped_window_fits(make_problem(1, 16, 8, 8, 16, r, s, 1, 0, 1, 16), LayoutKind::nhwc));
  EXPECT_FALSE(
      grouped_window_fits(make_problem(1, 16, 9, 9, 16, 3, 3, 3, 1, 1, 16), LayoutKind::nhwc));
  EXPECT_FALSE(  // 7x7 stride 2: not built (its AMD code used scratch)
      grouped_window_fits(make_problem(1, 16, 13, 13, 16, 7, 7, 2, 3, 1, 16), LayoutKind::nhwc));
  EXPECT_TRUE(
      grouped_window_fits(make_problem(1, 16, 13, 13, 16, 5, 5, 2, 2, 1, 16), LayoutKind::nhwc));
  Conv2dProblem q = make_problem(1, 16, 9, 9, 16, 3, 3, 2, 1, 1, 16);
  q.stride_w = 1;
  EXPECT_FALSE(grouped_window_fits(q, LayoutKind::nhwc));
  EXPECT_FALSE(
      grouped_window_fits(make_problem(1, 16, 9, 9, 16, 3, 3, 1, 2, 2, 16), LayoutKind::nhwc));
  q = cnx;
  q.pad_mode = PadMode::reflect;
  EXPECT_FALSE(grouped_window_fits(q, LayoutKind::nhwc));
  EXPECT_FALSE(grouped_window_fits(make_problem(1, 16, 9, 9, 16, 3, 3, 1, 1), LayoutKind::nhwc));

  PlanDesc d;
  Conv2dOptions o;
  o.tile = TileChoice::window;
  ASSERT_TRUE(plan(d, cnx, LayoutKind::nhwc, o).ok());
  EXPECT_EQ(d.method, Method::grouped);
  EXPECT_EQ(d.options.tile, TileChoice::window);
  std::string text = describe_plan(d);
  EXPECT_TRUE(has(text, "kernels=[grouped_depthwise_window<nhwc>]")) << text;
  EXPECT_TRUE(has(text, "depthwise row window")) << text;
  EXPECT_TRUE(has(text, "4 consecutive output pixels of a row")) << text;
  EXPECT_TRUE(has(text, "each filter row's 10 input vectors")) << text;  // 3 + 7
  EXPECT_EQ(has(text, "[not device-tested]"), !kernels::kGroupedWindowDeviceTested) << text;
  EXPECT_EQ(d.workspace_bytes, 0u);
  EXPECT_EQ(d.packed_weight_bytes, 49u * 96 * 2);  // the plain kernel's packing
  ASSERT_TRUE(plan(d, mb2, LayoutKind::nhwc, o).ok());
  text = describe_plan(d);
  EXPECT_TRUE(has(text, "each filter row's 9 input vectors")) << text;  // 3 x 2 + 3
  // automatic: the plain depthwise kernel (the router does not pick the window before a device
  // run has measured it)
  for (const Conv2dProblem& p : {cnx, mb2}) {
    ASSERT_TRUE(plan(d, p).ok());
    EXPECT_EQ(d.options.tile, TileChoice::automatic);
    EXPECT_TRUE(has(describe_plan(d), "kernels=[grouped_depthwise<nhwc>]")) << describe_plan(d);
  }
  // refusals, each naming its rule
  Status s = plan(d, cnx, LayoutKind::nchw, o);
  EXPECT_EQ(s.code(), StatusCode::method_not_applicable);
  EXPECT_TRUE(has(s.message(), "tile=window (the depthwise row-window kernel) needs NHWC"))
      << s.message();
  s = plan(d, make_problem(1, 16, 9, 9, 16, 3, 3, 1, 2, 2, 16), LayoutKind::nhwc, o);
  EXPECT_EQ(s.code(), StatusCode::method_not_applicable);
  EXPECT_TRUE(has(s.message(), "no dilation")) << s.message();
  s = plan(d, make_problem(1, 16, 9, 9, 16, 3, 3, 1, 1), LayoutKind::nhwc, o);
  EXPECT_EQ(s.code(), StatusCode::method_not_applicable);
  EXPECT_TRUE(has(s.message(), "tile=window is the grouped family's")) << s.message();
  o.x_align = 8;
  s = plan(d, cnx, LayoutKind::nhwc, o);
  EXPECT_EQ(s.code(), StatusCode::method_not_applicable);
  EXPECT_TRUE(has(s.message(), "x_align = 16, not 8")) << s.message();
  // window on the other families' tiles is refused by them: tall, main and small are not
  // the grouped family's
  o = {};
  o.tile = TileChoice::small;
  EXPECT_EQ(plan(d, cnx, LayoutKind::nhwc, o).code(), StatusCode::method_not_applicable);
}

// The row window's geometry: runs of 4 pixels, the plain kernel's slices, weights in shared
// memory for every filter it is built for, work covering every run.
TEST(Groups, RowWindowGeometry) {
  using kernels::grouped_geometry;
  const Conv2dProblem p = make_problem(2, 768, 7, 7, 768, 7, 7, 1, 3, 1, 768);
  const kernels::GroupedGeometry g = grouped_geometry(p, LayoutKind::nhwc, true);
  EXPECT_TRUE(g.window);
  EXPECT_EQ(g.pw, kernels::kGroupedWindowPixels);
  EXPECT_EQ(g.kvb, 32);
  EXPECT_EQ(g.ppb, 8);
  EXPECT_TRUE(g.w_smem);
  EXPECT_EQ(g.smem_bytes, 49 * 32 * 16);
  const std::int64_t runs = 2 * 7 * 2;  // N x P x ceil(7 / 4)
  EXPECT_EQ(g.work, (96 / 32) * ((runs + 7) / 8));
  EXPECT_FALSE(grouped_geometry(p, LayoutKind::nhwc).window);
  for (int s : {3, 5, 7})
    for (int c : {8, 40, 1024}) {
      const kernels::GroupedGeometry h = grouped_geometry(
          make_problem(1, c, 9, 9, c, s, s, 1, s / 2, 1, c), LayoutKind::nhwc, true);
      EXPECT_TRUE(h.w_smem) << s << " " << c;
      EXPECT_LE(h.smem_bytes, kernels::kGroupedSmemCap);
      EXPECT_EQ(h.kvb * h.ppb, kernels::kGroupedThreads);
    }
}

// A grouped convolution is G dense convolutions: group g's filters on group g's channels.
TEST(Groups, HostReferenceEqualsSeparateConvolutionsOnSlices) {
  for (LayoutKind l : {LayoutKind::nchw, LayoutKind::nhwc}) {
    Conv2dProblem p = make_problem(2, 6, 5, 7, 9, 3, 2, 2, 1, 1, 3);
    p.pad_bottom = 0;
    p.pad_right = 2;
    const std::int64_t G = p.groups, cg = p.c_per_group(), kg = p.k_per_group();
    const auto x = random_words(std::size_t(p.x_elems()), DType::f16, 1);
    const auto w = random_words(std::size_t(p.w_elems()), DType::f16, 2);
    std::vector<double> full;
    reference::host_conv2d_exact(p, l, DType::f16, x.data(), w.data(), {}, full);
    Conv2dProblem s = p;
    s.groups = 1;
    s.c = cg;
    s.k = kg;
    for (std::int64_t g = 0; g < G; ++g) {
      std::vector<std::uint16_t> xs(std::size_t(s.x_elems()));
      for (std::int64_t n = 0; n < p.n; ++n)
        for (std::int64_t c = 0; c < cg; ++c)
          for (std::int64_t h = 0; h < p.h; ++h)
            for (std::int64_t ww = 0; ww < p.w; ++ww)
              xs[std::size_t(reference::x_index(s, l, n, c, h, ww))] =
                  x[std::size_t(reference::x_index(p, l, n, g * cg + c, h, ww))];
      // the group's filters are rows [g kg, (g+1) kg) of the [K][C/G][R][S] weights
      const std::vector<std::uint16_t> ws(w.begin() + g * kg * cg * p.r * p.s,
                                          w.begin() + (g + 1) * kg * cg * p.r * p.s);
      std::vector<double> part;
      reference::host_conv2d_exact(s, l, DType::f16, xs.data(), ws.data(), {}, part);
      for (std::int64_t n = 0; n < p.n; ++n)
        for (std::int64_t k = 0; k < kg; ++k)
          for (std::int64_t op = 0; op < p.p(); ++op)
            for (std::int64_t oq = 0; oq < p.q(); ++oq)
              ASSERT_EQ(full[std::size_t(reference::y_index(p, l, n, g * kg + k, op, oq))],
                        part[std::size_t(reference::y_index(s, l, n, k, op, oq))])
                  << "group " << g << " n " << n << " k " << k << " at " << op << "," << oq;
    }
  }
}

TEST(Groups, HostReferenceDepthwiseByHand) {
  // C = 2, K = 4 (channel multiplier 2), 2x2 filters, 3x3 images, stride 1, no padding:
  // filters 0, 1 read channel 0; filters 2, 3 read channel 1
  const Conv2dProblem p = make_problem(1, 2, 3, 3, 4, 2, 2, 1, 0, 1, 2);
  ASSERT_EQ(p.p(), 2);
  std::vector<std::uint16_t> x;  // NCHW: channel 0 = 1..9, channel 1 = 10 * (1..9)
  for (int c = 0; c < 2; ++c)
    for (int i = 1; i <= 9; ++i)
      x.push_back(detail::float_to_bits(DType::bf16, float(i * (c ? 10 : 1))));
  std::vector<std::uint16_t> w;          // [4][1][2][2]
  for (float v : {1.f, 0.f, 0.f, 0.f,    // k0: top-left tap
                  0.f, 0.f, 0.f, 1.f,    // k1: bottom-right tap
                  1.f, 1.f, 1.f, 1.f,    // k2: sum of the window
                  1.f, 0.f, 0.f, -1.f})  // k3: top-left minus bottom-right
    w.push_back(detail::float_to_bits(DType::bf16, v));
  const auto y =
      reference::host_conv2d(p, LayoutKind::nchw, DType::bf16, x.data(), w.data(), {}, DType::f32);
  const float expect[4][4] = {
      {1, 2, 4, 5}, {5, 6, 8, 9}, {120, 160, 240, 280}, {-40, -40, -40, -40}};
  for (int k = 0; k < 4; ++k)
    for (int i = 0; i < 4; ++i)
      EXPECT_EQ(detail::bits_float(y[std::size_t(k * 4 + i)]), expect[k][i]) << k << " " << i;
}

// The device harness's problem lists (tests/common/cases.hpp) give the grouped family cases on
// both layouts, and no other method any of them.
TEST(Groups, HarnessCasesReachTheGroupedFamily) {
  int grouped = 0;
  for (const rdnaconv::testing::Case& c : rdnaconv::testing::edge_cases()) {
    ASSERT_TRUE(validate_problem(c.p).ok()) << c.what;
    if (c.p.groups == 1) continue;
    ++grouped;
    for (LayoutKind l : {LayoutKind::nchw, LayoutKind::nhwc})
      for (const MethodInfo& m : kMethods)
        EXPECT_EQ(can_implement(m.method, c.p, l), m.method == Method::grouped) << c.what;
  }
  EXPECT_GE(grouped, 10);
  for (LayoutKind l : {LayoutKind::nchw, LayoutKind::nhwc}) {
    EXPECT_TRUE(rdnaconv::testing::method_runs_on(Method::grouped, l));
    int depthwise = 0;
    const auto cases = rdnaconv::testing::random_cases(Method::grouped, l, 5, 100);
    ASSERT_EQ(cases.size(), 100u);
    for (const rdnaconv::testing::Case& c : cases) {
      EXPECT_GT(c.p.groups, 1);
      EXPECT_TRUE(can_implement(Method::grouped, c.p, l));
      depthwise += c.p.c_per_group() == 1 ? 1 : 0;
    }
    EXPECT_GT(depthwise, 20);
    EXPECT_LT(depthwise, 80);
  }
}
