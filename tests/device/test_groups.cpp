// SPDX-License-Identifier: MIT
/// @file test_groups.cpp The grouped family (groups > 1) on a GPU, beyond what the registry-wide
/// suites give it (test_families.cpp: edge list, random shapes, every epilogue, real data,
/// stability; test_plan_truth.cpp; test_fuzz.cpp):
///   Paths       each kernel path its geometry and the call's buffers select (16-byte x loads
///               or element loads, x and y off 16-byte alignment, weights in shared memory or
///               not, the NCHW input strip staged or not, filter vectors crossing groups,
///               channel multipliers), bit for bit against the float64 host reference on
///               integer data, with a residual in place and an fp32 output too;
///   Window      the depthwise row-window kernel (Conv2dOptions::tile = window; forced only, not
///               yet run on a GPU): every filter width and stride it is built for, runs cut by
///               the row's end, padding, slices, batches; its launch and describe();
/// (Tensors over 2^31 elements: test_big.cpp, BigTensor.Grouped*.)
/// Through the harness's per-configuration plan (check_entry(...).plan_run), as test_splitk.cpp:
/// this unit instantiates no Plan. Not yet run on a GPU (kernels/grouped/README.md); skipped
/// without a GPU.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "common/check.hpp"
#include "common/dev_buf.hpp"
#include "common/expect_cases.hpp"
#include "rdnaconv/reference/host_conv.hpp"

using namespace rdnaconv;
using namespace rdnaconv::testing;

namespace {

struct PathCase {
  const char* what;
  Conv2dProblem p;
};

std::vector<PathCase> path_cases() {
  Conv2dProblem wide = make_problem(1, 4, 5, 3 * 4096 + 1, 4, 3, 1, 1, 1, 1, 4);
  wide.stride_w = 4096;  // the NCHW strip exceeds the shared-memory cap: x from global memory
  wide.pad_left = wide.pad_right = 0;
  return {
      {"depthwise C=K=32 3x3 (16-byte x loads, 16-byte y stores)",
       make_problem(2, 32, 7, 9, 32, 3, 3, 1, 1, 1, 32)},
      {"depthwise multiplier 2 (element x loads)",
       make_problem(1, 16, 6, 5, 32, 3, 3, 2, 1, 1, 16)},
      {"depthwise 61x61 filter (NHWC weights from global memory)",
       make_problem(1, 8, 40, 40, 8, 61, 61, 1, 30, 1, 8)},
      {"depthwise stride_w 4096 (NCHW strip not staged)", wide},
      {"depthwise small planes (NCHW: several planes per block), C=K=24, 5x5 image",
       make_problem(2, 24, 5, 5, 24, 3, 3, 1, 1, 1, 24)},
      {"depthwise C=K=40 (5 filter vectors in a slice of 8)",
       make_problem(1, 40, 4, 4, 40, 5, 5, 1, 2, 1, 40)},
      {"grouped C=15 K=30 G=5 (filter vectors cross groups)",
       make_problem(2, 15, 6, 7, 30, 3, 3, 1, 1, 1, 5)},
      {"grouped C=32 K=64 G=4 (vectors inside a group), dilation 2",
       make_problem(1, 32, 9, 9, 64, 3, 3, 1, 2, 2, 4)},
  };
}

struct PathVariant {
  std::size_t offset;  ///< bytes added to x and y (2, 4: off 16-byte alignment)
  Activation act;
  DType out;
  bool residual;  ///< in place (z == y)
};

std::vector<std::uint16_t> ints(std::size_t n, DType t, unsigned seed) {
  std::mt19937 g(seed);
  std::vector<std::uint16_t> v(n);
  for (auto& w : v) w = detail::float_to_bits(t, float(int(g() % 7) - 3));
  return v;
}

/// One case and variant through the harness's plan for (type, layout, native atom): no Plan is
/// instantiated in this unit (the whole suite's build on a 16-core GPU machine did not finish
/// this unit in 560 s when it did), compared word for word with the host reference.
std::string run_path(DType kT, LayoutKind kL, const Conv2dProblem& p, const PathVariant& v,
                     unsigned seed) {
  const CheckEntry entry = check_entry(kT, kL, AtomKind::native);
  if (entry.plan_run == nullptr) return "configuration not built";
  PlanRun r;
  r.p = p;
  r.o.has_bias = true;
  r.o.bias_type = DType::f32;
  r.o.activation = v.act;
  r.o.out_type = v.out;
  r.o.has_residual = v.residual;
  r.o.x_align = v.offset == 0 ? 16 : 2;
  const DType out = v.out == DType::same ? kT : v.out;
  const std::size_t eb = dtype_bytes(out), ny = std::size_t(p.y_elems());
  const auto hx = ints(std::size_t(p.x_elems()), kT, seed);
  const auto hw = ints(std::size_t(p.w_elems()), kT, seed + 1);
  std::vector<float> hb(std::size_t(p.k)), hz(ny);
  for (std::size_t i = 0; i < hb.size(); ++i) hb[i] = float(int(i % 5) - 2) * 0.5f;
  for (std::size_t i = 0; i < ny; ++i) hz[i] = float(int((i * 7) % 5) - 2);
  std::vector<std::uint8_t> zbytes(ny * eb);
  for (std::size_t i = 0; i < ny; ++i) {
    if (out == DType::f32) {
      std::memcpy(zbytes.data() + i * 4, &hz[i], 4);
    } else {
      const std::uint16_t b = detail::float_to_bits(out, hz[i]);
      std::memcpy(zbytes.data() + i * 2, &b, 2);
    }
  }
  DevBuf x(hx.size() * 2 + 16), w(hw.size() * 2), b(hb.size() * 4), y(ny * eb + 16);
  if (!x.ok() || !w.ok() || !b.ok() || !y.ok()) return "allocation";
  auto* xp = x.as<char>() + v.offset;
  auto* yp = y.as<char>() + v.offset;
  if (rt::memcpy_h2d(xp, hx.data(), hx.size() * 2) != rt::success ||
      rt::memcpy_h2d(w.p, hw.data(), hw.size() * 2) != rt::success ||
      rt::memcpy_h2d(b.p, hb.data(), hb.size() * 4) != rt::success ||
      rt::memset(yp, 0xff, ny * eb) != rt::success ||
      (v.residual && rt::memcpy_h2d(yp, zbytes.data(), zbytes.size()) != rt::success))
    return "upload";
  PlanScratch scratch(0);  // the packed weights and the workspace, grown by plan_run
  scratch.attach(r);
  r.x = xp;
  r.w = w.p;
  r.bias = b.p;
  r.y = yp;
  r.z = v.residual ? yp : nullptr;
  if (Status s = entry.plan_run(r); !s) return "plan: " + s.message();
  const std::string what = std::string(to_string(r.ran)) + " [" + r.kernels + "] tile " + r.tile;
  if (r.ran != Method::grouped) return "ran " + what;
  std::vector<std::uint8_t> got(ny * eb);
  if (rt::memcpy_d2h(got.data(), yp, got.size()) != rt::success) return "download";
  reference::HostEpilogue e;
  e.bias = hb.data();
  e.bias_type = DType::f32;
  e.act = v.act;
  if (v.residual) {
    e.z = hz.data();
    e.z_type = DType::f32;
  }
  const std::vector<std::uint32_t> want =
      reference::host_conv2d(p, kL, kT, hx.data(), hw.data(), e, out);
  std::int64_t bad = 0, first = -1;
  for (std::size_t i = 0; i < ny; ++i) {
    std::uint32_t g = 0;
    std::memcpy(&g, got.data() + i * eb, eb);
    if (g != want[i]) {
      if (first < 0) first = std::int64_t(i);
      ++bad;
    }
  }
  if (bad == 0) return {};
  std::uint32_t g = 0;
  std::memcpy(&g, got.data() + std::size_t(first) * eb, eb);
  return std::to_string(bad) + " of " + std::to_string(ny) + " outputs differ; first at " +
         std::to_string(first) + ": got bits " + std::to_string(g) + ", want " +
         std::to_string(want[std::size_t(first)]) + " (" + what + ")";
}

void check_paths(DType t, LayoutKind l) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  const PathVariant variants[] = {
      {0, Activation::none, DType::same, false}, {2, Activation::relu, DType::same, false},
      {0, Activation::relu6, DType::f32, true},  {4, Activation::none, DType::f32, true},
      {0, Activation::relu, DType::same, true},
  };
  unsigned seed = 17;
  for (const PathCase& c : path_cases())
    for (const PathVariant& v : variants) {
      const std::string why = run_path(t, l, c.p, v, seed++);
      EXPECT_TRUE(why.empty()) << c.what << " " << describe(c.p) << " offset " << v.offset
                               << " act " << to_string(v.act) << " out " << to_string(v.out)
                               << (v.residual ? " residual in place" : "") << ": " << why;
    }
}

}  // namespace

TEST(GroupedPaths, Fp16Nhwc) {
  check_paths(DType::f16, LayoutKind::nhwc);
}
TEST(GroupedPaths, Fp16Nchw) {
  check_paths(DType::f16, LayoutKind::nchw);
}
TEST(GroupedPaths, Bf16Nhwc) {
  check_paths(DType::bf16, LayoutKind::nhwc);
}
TEST(GroupedPaths, Bf16Nchw) {
  check_paths(DType::bf16, LayoutKind::nchw);
}

// ---- The depthwise row window (grouped_depthwise_window, Conv2dOptions::tile = window) ----

namespace {

/// Shapes for the row-window kernel: every filter width (3, 5, 7) and stride (1, 2; 7x7: 1) it is
/// built for; output rows that are not a multiple of its 4-pixel runs (1, 2, 3 pixels left);
/// padding that puts whole runs and whole filter rows outside the image; C below, at and above one
/// slice of 32 filter vectors (and not a power of two); batches > 1 (runs crossing images' rows).
std::vector<Case> window_cases() {
  return {
      {"window 3x3 s1 p1 C=8, 1x1 image", make_problem(1, 8, 1, 1, 8, 3, 3, 1, 1, 1, 8)},
      {"window 3x3 s1 p1 C=32, Q=9 (one pixel past two runs)",
       make_problem(2, 32, 7, 9, 32, 3, 3, 1, 1, 1, 32)},
      {"window 3x3 s2 p1 C=24 (MobileNetV2), Q=6",
       make_problem(1, 24, 11, 12, 24, 3, 3, 2, 1, 1, 24)},
      {"window 3x3 s2 VAE pad (0,1,0,1), C=16",
       with_pads(make_problem(2, 16, 10, 13, 16, 3, 3, 2, 0, 1, 16), 0, 1, 0, 1)},
      {"window 5x5 s1 p2 C=40 (5 vectors of a slice of 8)",
       make_problem(1, 40, 9, 10, 40, 5, 5, 1, 2, 1, 40)},
      {"window 5x5 s2 p2 C=264 (two slices, the second partly empty)",
       make_problem(1, 264, 13, 15, 264, 5, 5, 2, 2, 1, 264)},
      {"window 7x7 s1 p3 C=96 (ConvNeXt-T stage 1), Q=14",
       make_problem(1, 96, 14, 14, 96, 7, 7, 1, 3, 1, 96)},
      {"window 7x7 s1 p3 C=64, 3x7 image (filter rows outside it)",
       make_problem(3, 64, 3, 7, 64, 7, 7, 1, 3, 1, 64)},
      {"window 7x7 s1 p3 C=56, Q=13", make_problem(2, 56, 13, 13, 56, 7, 7, 1, 3, 1, 56)},
      {"window 7x7 s1 p0 (valid), C=8, Q=2", make_problem(1, 8, 9, 8, 8, 7, 7, 1, 0, 1, 8)},
      {"window 3x3 s1 pad 4 on a 3x3 image (outputs of pure padding), C=16",
       make_problem(1, 16, 3, 3, 16, 3, 3, 1, 4, 1, 16)},
      {"window 5x5 s2 p2 on a 9x1 image (W = 1: one pixel per run), C=8",
       make_problem(2, 8, 9, 1, 8, 5, 5, 2, 2, 1, 8)},
      {"window 3x3 s1 asymmetric pad (2,0,0,2), C=48",
       with_pads(make_problem(1, 48, 8, 11, 48, 3, 3, 1, 0, 1, 48), 2, 0, 0, 2)},
  };
}

}  // namespace

// Bit for bit on integer data, then real data against the tolerance model, fp16 and bf16, the 8
// standard epilogue variants (bias, activations, residual in place, fp32 output).
TEST(GroupedWindow, MatchesTheDeviceReference) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  const std::vector<Case> cases = window_cases();
  for (const Case& c : cases)
    ASSERT_TRUE(kernels::grouped_window_fits(c.p, LayoutKind::nhwc)) << c.what;
  expect_nhwc_cases_pass_both_types(cases, Method::grouped, 9100, 9200, TileChoice::window);
}

// The plan with tile = window launches the row-window kernel, as describe() says, and the
// automatic plan of the same problem does not (the router does not pick it before a device run
// has measured it).
TEST(GroupedWindow, LaunchesTheWindowKernel) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  PlanScratch b(std::size_t(1) << 20);
  ASSERT_TRUE(b.ok());
  const CheckEntry e = check_entry(DType::bf16, LayoutKind::nhwc, AtomKind::native);
  ASSERT_NE(e.plan_run, nullptr);
  for (const Case& c : window_cases())
    for (const TileChoice t : {TileChoice::window, TileChoice::automatic}) {
      PlanRun r;
      r.p = c.p;
      r.o.tile = t;
      b.attach(r);
      std::vector<std::string> kernels, tiles;
      const Status s = plan_run_logged(e, r, kernels, tiles);
      ASSERT_TRUE(s.ok()) << c.what << ": " << s.message();
      ASSERT_EQ(kernels.size(), 2u) << c.what;
      EXPECT_EQ(kernels[0], "pack_grouped") << c.what;
      const std::string want =
          t == TileChoice::window ? "grouped_depthwise_window<nhwc>" : "grouped_depthwise<nhwc>";
      EXPECT_EQ(kernels[1], want) << c.what;
      EXPECT_EQ(r.kernels, want) << c.what;
      ASSERT_EQ(tiles.size(), 1u) << c.what;
      EXPECT_EQ(tiles[0], r.tile) << c.what;
      EXPECT_EQ(r.tile.find("row window") != std::string::npos, t == TileChoice::window)
          << c.what << ": " << r.tile;
    }
}
