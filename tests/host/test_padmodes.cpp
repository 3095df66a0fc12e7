// SPDX-License-Identifier: MIT
/// @file test_padmodes.cpp Padding modes (PadMode, issue 17 item 3) on the host:
///   - pad_source, exhaustively on small axes, against the padded axis built the way PyTorch's
///     F.pad describes it (slices of the input, not the index formula);
///   - the reach of a convolution's input coordinate (p*stride - pad_before + r*dil) stays
///     within the pads for every stride and dilation, which is what lets one reflection or wrap
///     suffice;
///   - the float64 host reference with a mode equals the zeros-mode reference on an explicitly
///     padded copy of x (both layouts, groups, stride, dilation, asymmetric pads);
///   - validation's limits (reflect: pad < size; circular: pad <= size) and their messages;
///   - which families take which modes, the router, the plan (main tile or thin row, no
///     split-K) and the remap kernel describe() names;
///   - the device suite's case list (cases.hpp, padmode_cases) has what it claims to have.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "common/cases.hpp"
#include "rdnaconv/plan_desc.hpp"
#include "rdnaconv/reference/host_conv.hpp"

using namespace rdnaconv;
using detail::describe;

namespace {

const DeviceInfo kH100 = make_device_info(false, 90, 32, 132);

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

/// Which input index each position of a padded axis holds (-1: a zero), built as F.pad's
/// definition reads: the reflected, replicated or wrapped slices put before and after [0, n).
std::vector<std::int64_t> padded_axis(std::int64_t n, std::int64_t before, std::int64_t after,
                                      PadMode m) {
  std::vector<std::int64_t> mid;
  for (std::int64_t i = 0; i < n; ++i) mid.push_back(i);
  std::vector<std::int64_t> lo, hi;
  switch (m) {
    case PadMode::zeros:
      lo.assign(std::size_t(before), -1);
      hi.assign(std::size_t(after), -1);
      break;
    case PadMode::reflect:  // x[before], ..., x[1] | x | x[n-2], ..., x[n-1-after]
      for (std::int64_t k = before; k >= 1; --k) lo.push_back(mid[std::size_t(k)]);
      for (std::int64_t k = 1; k <= after; ++k) hi.push_back(mid[std::size_t(n - 1 - k)]);
      break;
    case PadMode::replicate:
      lo.assign(std::size_t(before), mid.front());
      hi.assign(std::size_t(after), mid.back());
      break;
    case PadMode::circular:  // the last `before` elements, x, the first `after`
      lo.assign(mid.end() - before, mid.end());
      hi.assign(mid.begin(), mid.begin() + after);
      break;
  }
  std::vector<std::int64_t> out = lo;
  out.insert(out.end(), mid.begin(), mid.end());
  out.insert(out.end(), hi.begin(), hi.end());
  return out;
}

/// The largest pad validation allows on an axis of n for mode m (replicate and zeros: any; here
/// capped for the exhaustive loops).
std::int64_t max_pad(std::int64_t n, PadMode m) {
  return m == PadMode::reflect ? n - 1 : m == PadMode::circular ? n : n + 3;
}

/// x padded explicitly (N x C x (H + pads) x (W + pads), p's layout) as the modes define it.
std::vector<std::uint16_t> pad_explicitly(const Conv2dProblem& p, LayoutKind l,
                                          const std::vector<std::uint16_t>& x,
                                          Conv2dProblem& padded) {
  padded = p;
  padded.h = p.h + p.pad_top + p.pad_bottom;
  padded.w = p.w + p.pad_left + p.pad_right;
  padded.pad_top = padded.pad_bottom = padded.pad_left = padded.pad_right = 0;
  padded.pad_mode = PadMode::zeros;
  const auto rows = padded_axis(p.h, p.pad_top, p.pad_bottom, p.pad_mode);
  const auto cols = padded_axis(p.w, p.pad_left, p.pad_right, p.pad_mode);
  std::vector<std::uint16_t> out(std::size_t(padded.x_elems()), 0);
  for (std::int64_t n = 0; n < p.n; ++n)
    for (std::int64_t c = 0; c < p.c; ++c)
      for (std::int64_t i = 0; i < padded.h; ++i)
        for (std::int64_t j = 0; j < padded.w; ++j) {
          const std::int64_t si = rows[std::size_t(i)], sj = cols[std::size_t(j)];
          if (si >= 0 && sj >= 0)
            out[std::size_t(reference::x_index(padded, l, n, c, i, j))] =
                x[std::size_t(reference::x_index(p, l, n, c, si, sj))];
        }
  return out;
}

Status plan(PlanDesc& d, const Conv2dProblem& p, LayoutKind l, Conv2dOptions o = {},
            DType t = DType::f16, DeviceInfo dev = kH100) {
  return make_plan_desc(d, p, t, l, o, dev);
}

Conv2dProblem with_mode(Conv2dProblem p, PadMode m) {
  p.pad_mode = m;
  return p;
}

Conv2dProblem with_pads_of(Conv2dProblem p, std::int64_t top, std::int64_t bottom,
                           std::int64_t left, std::int64_t right, PadMode m) {
  p.pad_top = top;
  p.pad_bottom = bottom;
  p.pad_left = left;
  p.pad_right = right;
  p.pad_mode = m;
  return p;
}

}  // namespace

TEST(PadModes, SourceMatchesTheExplicitlyPaddedAxis) {
  static_assert(pad_source(-2, 5, PadMode::reflect) == 2 &&
                pad_source(5, 5, PadMode::reflect) == 3);
  static_assert(pad_source(-3, 4, PadMode::circular) == 1 && pad_source(-1, 4, PadMode::zeros) < 0);
  int axes = 0;
  for (PadMode m : kPadModes)
    for (std::int64_t n = 1; n <= 9; ++n)
      for (std::int64_t before = 0; before <= max_pad(n, m); ++before)
        for (std::int64_t after = 0; after <= max_pad(n, m); ++after) {
          const std::vector<std::int64_t> want = padded_axis(n, before, after, m);
          ASSERT_EQ(std::int64_t(want.size()), before + n + after);
          for (std::int64_t i = -before; i < n + after; ++i) {
            ASSERT_EQ(pad_source(i, n, m), want[std::size_t(i + before)])
                << to_string(m) << " n=" << n << " pads " << before << "," << after << " i=" << i;
            ASSERT_EQ(pad_source(int(i), int(n), m), int(want[std::size_t(i + before)]));
          }
          ++axes;
        }
  EXPECT_GT(axes, 800);
}

// Every input coordinate a convolution reads, p*stride - pad_before + r*dil, lies in
// [-pad_before, n - 1 + pad_after] for any stride and dilation: the output size's formula
// bounds it, so one reflection (pads < n) or one wrap (pads <= n) always lands inside.
TEST(PadModes, InputCoordinatesStayWithinThePads) {
  int axes = 0;
  for (std::int64_t n = 1; n <= 7; ++n)
    for (std::int64_t k = 1; k <= 5; ++k)
      for (std::int64_t stride = 1; stride <= 3; ++stride)
        for (std::int64_t dil = 1; dil <= 3; ++dil)
          for (std::int64_t before = 0; before <= 7; ++before)
            for (std::int64_t after = 0; after <= 7; ++after) {
              Conv2dProblem p = make_problem(1, 1, n, 1, 1, k, 1, 1, 0, 1);
              p.stride_h = stride;
              p.dil_h = dil;
              p.pad_top = before;
              p.pad_bottom = after;
              if (!validate_problem(p).ok()) continue;
              for (std::int64_t o = 0; o < p.p(); ++o)
                for (std::int64_t r = 0; r < k; ++r) {
                  const std::int64_t i = o * stride - before + r * dil;
                  ASSERT_GE(i, -before);
                  ASSERT_LE(i, n - 1 + after);
                }
              ++axes;
            }
  EXPECT_GT(axes, 10000);
}

// The host reference reads the padding through pad_source; the same convolution with zeros
// padding of 0 on x padded explicitly (padded_axis, rows then columns) must give the same
// doubles: same products, same order of summation.
TEST(PadModes, HostReferenceEqualsConvolutionOfThePaddedInput) {
  std::mt19937 g(17);
  auto u = [&](int a, int b) { return std::uniform_int_distribution<int>(a, b)(g); };
  int checked = 0;
  while (checked < 300) {
    const PadMode m = kPadModes[u(1, 3)];
    const int groups = u(0, 3) == 0 ? 2 : 1;
    Conv2dProblem p = make_problem(u(1, 2), groups * u(1, 3), u(1, 7), u(1, 7), groups * u(1, 3),
                                   u(1, 4), u(1, 4), 1, 0, 1, groups);
    p.stride_h = u(1, 2);
    p.stride_w = u(1, 2);
    p.dil_h = u(1, 2);
    p.dil_w = u(1, 2);
    p.pad_mode = m;
    p.pad_top = u(0, int(max_pad(p.h, m)));
    p.pad_bottom = u(0, int(max_pad(p.h, m)));
    p.pad_left = u(0, int(max_pad(p.w, m)));
    p.pad_right = u(0, int(max_pad(p.w, m)));
    if (!validate_problem(p).ok()) continue;
    const LayoutKind l = u(0, 1) ? LayoutKind::nhwc : LayoutKind::nchw;
    std::vector<std::uint16_t> x(std::size_t(p.x_elems())), w(std::size_t(p.w_elems()));
    for (auto& v : x) v = detail::float_to_bits(DType::bf16, float(u(-8, 8)));
    for (auto& v : w) v = detail::float_to_bits(DType::bf16, float(u(-3, 3)) * 0.25f);
    Conv2dProblem q;
    const std::vector<std::uint16_t> xp = pad_explicitly(p, l, x, q);
    ASSERT_TRUE(validate_problem(q).ok()) << describe(q);
    ASSERT_EQ(q.p(), p.p());
    ASSERT_EQ(q.q(), p.q());
    std::vector<double> got, want;
    reference::host_conv2d_exact(p, l, DType::bf16, x.data(), w.data(), {}, got);
    reference::host_conv2d_exact(q, l, DType::bf16, xp.data(), w.data(), {}, want);
    ASSERT_EQ(got, want) << describe(p) << " " << to_string(l);
    ++checked;
  }
}

// Not a tautology of the test above: a mode's reference differs from the zeros one where the
// window leaves the image (reflect of a 1..9 image, 3x3 ones, pad 1, by hand).
TEST(PadModes, HostReferenceByHand) {
  Conv2dProblem p = make_problem(1, 1, 3, 3, 1, 3, 3, 1, 1);
  std::vector<std::uint16_t> x, w(9, detail::float_to_bits(DType::f16, 1.f));
  for (int i = 1; i <= 9; ++i) x.push_back(detail::float_to_bits(DType::f16, float(i)));
  const auto sum_at = [&](PadMode m, int o) {
    std::vector<double> y;
    reference::host_conv2d_exact(with_mode(p, m), LayoutKind::nchw, DType::f16, x.data(), w.data(),
                                 {}, y);
    return y[std::size_t(o)];
  };
  // corner (0, 0): reflect reads rows (1, 0, 1) and columns (1, 0, 1) of [[1,2,3],[4,5,6],[7,8,9]]
  EXPECT_EQ(sum_at(PadMode::zeros, 0), 1 + 2 + 4 + 5);
  EXPECT_EQ(sum_at(PadMode::reflect, 0), 5 + 4 + 5 + 2 + 1 + 2 + 5 + 4 + 5);
  EXPECT_EQ(sum_at(PadMode::replicate, 0), 1 + 1 + 2 + 1 + 1 + 2 + 4 + 4 + 5);
  EXPECT_EQ(sum_at(PadMode::circular, 0), 9 + 7 + 8 + 3 + 1 + 2 + 6 + 4 + 5);
  EXPECT_EQ(sum_at(PadMode::circular, 4), 45);  // the centre reads the image only
}

TEST(PadModes, ValidationLimitsAndMessages) {
  const Conv2dProblem base = make_problem(1, 8, 4, 6, 8, 3, 3, 1, 0);
  Conv2dProblem p = with_pads_of(base, 3, 3, 5, 5, PadMode::reflect);  // pad = size - 1
  EXPECT_TRUE(validate_problem(p).ok()) << validate_problem(p).message();
  p.pad_bottom = 4;  // = H
  Status s = validate_problem(p);
  EXPECT_EQ(s.code(), StatusCode::invalid_size);
  EXPECT_TRUE(has(s.message(), "pad_bottom must be < H=4 with pad_mode reflect, got 4"))
      << s.message();
  EXPECT_TRUE(has(s.message(), "pad_mode=reflect")) << s.message();
  p = with_pads_of(base, 0, 0, 6, 0, PadMode::reflect);  // = W
  s = validate_problem(p);
  EXPECT_TRUE(has(s.message(), "pad_left must be < W=6 with pad_mode reflect, got 6"))
      << s.message();
  p = with_pads_of(base, 4, 4, 6, 6, PadMode::circular);  // = size: one full wrap
  EXPECT_TRUE(validate_problem(p).ok()) << validate_problem(p).message();
  p.pad_right = 7;
  s = validate_problem(p);
  EXPECT_EQ(s.code(), StatusCode::invalid_size);
  EXPECT_TRUE(has(s.message(), "pad_right must be <= W=6 with pad_mode circular, got 7"))
      << s.message();
  // replicate: any pad, a 1-pixel-wide image included
  p = with_pads_of(make_problem(1, 8, 1, 1, 8, 3, 3, 1, 0), 9, 2, 5, 1, PadMode::replicate);
  EXPECT_TRUE(validate_problem(p).ok()) << validate_problem(p).message();
  // reflect on a 1-pixel axis: only pad 0 (PyTorch's rule)
  p = with_pads_of(make_problem(1, 8, 1, 5, 8, 1, 3, 1, 0), 0, 0, 1, 1, PadMode::reflect);
  EXPECT_TRUE(validate_problem(p).ok());
  p.pad_top = 1;
  EXPECT_EQ(validate_problem(p).code(), StatusCode::invalid_size);
  // an enumerator outside PadMode
  p = base;
  p.pad_mode = static_cast<PadMode>(7);
  s = validate_problem(p);
  EXPECT_EQ(s.code(), StatusCode::invalid_option);
  EXPECT_TRUE(has(s.message(), "Conv2dProblem::pad_mode has no enumerator 7")) << s.message();
  // zeros keeps the problem's text as it was (messages, traces)
  EXPECT_FALSE(has(describe(base), "pad_mode"));
  EXPECT_TRUE(has(describe(with_mode(base, PadMode::circular)), " pad_mode=circular"));
}

// The families with a remap kernel (general, nhwc3x3, cblocked3x3, grouped) take every mode; the
// others say
// which rule the mode breaks when forced.
TEST(PadModes, FamiliesTakeTheirModes) {
  const Conv2dProblem p3 = make_problem(1, 64, 16, 16, 64, 3, 3, 1, 1);
  const Conv2dProblem p1 = make_problem(1, 64, 16, 16, 64, 1, 1, 1, 1);
  const Conv2dProblem dw = make_problem(1, 32, 16, 16, 32, 3, 3, 1, 1, 1, 32);
  for (PadMode m : {PadMode::reflect, PadMode::replicate, PadMode::circular}) {
    for (LayoutKind l : {LayoutKind::nhwc, LayoutKind::nchw}) {
      EXPECT_TRUE(can_implement(Method::general, with_mode(p3, m), l));
      EXPECT_TRUE(can_implement(Method::general, with_mode(p1, m), l));
      EXPECT_TRUE(can_implement(Method::grouped, with_mode(dw, m), l));
    }
    EXPECT_TRUE(can_implement(Method::nhwc3x3, with_mode(p3, m), LayoutKind::nhwc));
    EXPECT_TRUE(can_implement(Method::cblocked3x3, with_mode(p3, m), LayoutKind::nchw));
    struct Refused {
      Method method;
      Conv2dProblem p;
      LayoutKind l;
      const char* rule;
    };
    const Refused refused[] = {
        {Method::gemm1x1, p1, LayoutKind::nhwc, "gemm1x1 needs pad_mode zeros (no remap kernel"},
        {Method::gemm1x1, p1, LayoutKind::nchw, "gemm1x1 needs pad_mode zeros"},
        {Method::nchw3x3, p3, LayoutKind::nchw, "nchw3x3 needs pad_mode zeros (no remap kernel"},
        {Method::winograd, p3, LayoutKind::nhwc, "winograd needs pad_mode zeros (its input "},
        {Method::winograd_fused, p3, LayoutKind::nchw, "winograd_fused needs pad_mode zeros"},
        {Method::hopper_tma, p3, LayoutKind::nhwc,
         "hopper_tma needs pad_mode zeros (TMA fills the padding with zeros)"},
    };
    for (const Refused& r : refused) {
      const Conv2dProblem q = with_mode(r.p, m);
      ASSERT_TRUE(can_implement(r.method, r.p, r.l)) << to_string(r.method);  // zeros: it runs
      EXPECT_FALSE(can_implement(r.method, q, r.l)) << to_string(r.method);
      const std::string why = why_not(r.method, q, r.l);
      EXPECT_TRUE(has(why, r.rule)) << why;
      EXPECT_TRUE(has(why, std::string("got pad_mode=") + to_string(m))) << why;
      Conv2dOptions o;
      o.method = r.method;
      PlanDesc d;
      const Status s = plan(d, q, r.l, o);
      EXPECT_EQ(s.code(), StatusCode::method_not_applicable) << to_string(r.method);
      EXPECT_TRUE(has(s.message(), r.rule)) << s.message();
    }
  }
}

// The router sends a mode only to a family that implements it, on every table, both layouts,
// both types; an automatic plan runs it (routed since the eighth session) on the family's main
// tile or thin
// row, without split-K, and names the remap kernel.
TEST(PadModes, RouterAndPlan) {
  const std::vector<Conv2dProblem> shapes = {
      make_problem(1, 512, 128, 128, 512, 3, 3, 1, 1),    // hopper_tma's / Winograd's ground
      make_problem(1, 128, 32, 32, 3, 3, 3, 1, 1),        // the VAE's K = 3 output conv (thin)
      make_problem(1, 512, 7, 7, 512, 3, 3, 1, 1),        // small grid: split-K under zeros
      make_problem(1, 20, 13, 17, 33, 3, 3, 1, 1),        // C % 8 != 0
      make_problem(1, 3, 33, 35, 64, 7, 7, 2, 3),         // the stem
      make_problem(1, 64, 14, 14, 64, 1, 1, 1, 1),        // padded 1x1
      make_problem(1, 32, 9, 11, 32, 3, 3, 1, 1, 1, 32),  // depthwise
      make_problem(1, 12, 9, 9, 18, 3, 3, 1, 2, 2, 6),    // grouped, dilation 2
  };
  const ArchClass tables[] = {ArchClass::generic, ArchClass::rdna3, ArchClass::rdna4,
                              ArchClass::sm80, ArchClass::sm90};
  int plans = 0;
  for (PadMode m : {PadMode::reflect, PadMode::replicate, PadMode::circular})
    for (const Conv2dProblem& shape : shapes)
      for (LayoutKind l : {LayoutKind::nhwc, LayoutKind::nchw})
        for (DType t : {DType::f16, DType::bf16}) {
          const Conv2dProblem p = with_mode(shape, m);
          ASSERT_TRUE(validate_problem(p).ok()) << describe(p);
          for (ArchClass f : tables) {
            const Method r = route(p, l, f, t);
            EXPECT_TRUE(r == Method::general || r == Method::nhwc3x3 || r == Method::cblocked3x3 ||
                        r == Method::grouped)
                << to_string(r) << " " << describe(p);
          }
          PlanDesc d;  // an automatic plan (the remap kernels passed on a GPU: routed)
          ASSERT_TRUE(plan(d, p, l, {}, t).ok()) << describe(p);
          EXPECT_TRUE(d.method == d.routed || d.method == Method::general) << describe(p);
          EXPECT_TRUE(can_implement(d.method, p, l)) << describe(p);
          EXPECT_EQ(d.split_k, 1) << describe(p);
          // the family's main tile, or its thin row where K fits it (the remap kernels' two)
          const MethodInfo* mi = find_method(d.method);
          EXPECT_EQ(d.tile, mi->tile_for(p, d.tiles)) << describe(p);
          EXPECT_TRUE(d.tile == mi->tile_kind || d.tile == kernels::TileKind::thin) << describe(p);
          const std::string text = describe_plan(d);
          EXPECT_FALSE(has(text, "not device-tested")) << text;
          EXPECT_TRUE(has(text, " remap>")) << text;  // the remap kernel's name
          ++plans;
        }
  EXPECT_EQ(plans, 3 * 8 * 2 * 2);
  // the zeros plans of the same shapes keep their kernels' names and say nothing of modes
  for (const Conv2dProblem& p : shapes) {
    PlanDesc d;
    ASSERT_TRUE(plan(d, p, LayoutKind::nhwc).ok());
    EXPECT_FALSE(has(describe_plan(d), "remap")) << describe_plan(d);
    EXPECT_FALSE(has(describe_plan(d), "padding mode")) << describe_plan(d);
  }
  // what the router picks: nhwc3x3 / cblocked3x3 for 3x3 with C >= tap_min_c, general for the
  // rest
  const Conv2dProblem vae = with_mode(shapes[0], PadMode::reflect);
  EXPECT_EQ(route(vae, LayoutKind::nhwc, ArchClass::sm90, DType::bf16), Method::nhwc3x3);
  EXPECT_EQ(route(vae, LayoutKind::nhwc, ArchClass::sm80, DType::f16), Method::nhwc3x3);
  EXPECT_EQ(route(vae, LayoutKind::nchw, ArchClass::sm90, DType::f16), Method::cblocked3x3);
  EXPECT_EQ(
      route(with_mode(shapes[3], PadMode::reflect), LayoutKind::nchw, ArchClass::sm80, DType::f16),
      Method::cblocked3x3);  // C = 20: NCHW gathers need no C % 8
  // the K = 3 output conv keeps the thin row under a mode (its remap kernel)
  PlanDesc thin;
  Conv2dOptions nhwc3;
  nhwc3.method = Method::nhwc3x3;
  ASSERT_TRUE(plan(thin, with_mode(shapes[1], PadMode::reflect), LayoutKind::nhwc, nhwc3).ok());
  EXPECT_EQ(thin.tile, kernels::TileKind::thin);
  EXPECT_TRUE(has(describe_plan(thin),
                  "tile=" + kernels::tile_of(thin.tiles, kernels::TileKind::thin).str()))
      << describe_plan(thin);
  EXPECT_EQ(route(with_mode(shapes[5], PadMode::circular), LayoutKind::nhwc, ArchClass::rdna3),
            Method::general);
  EXPECT_EQ(route(with_mode(shapes[6], PadMode::replicate), LayoutKind::nchw, ArchClass::sm80),
            Method::grouped);
  // the zeros split-K shape splits by itself; with a mode it does not, and forcing it is refused
  PlanDesc d;
  ASSERT_TRUE(plan(d, shapes[2], LayoutKind::nhwc).ok());
  EXPECT_GT(d.split_k, 1) << describe_plan(d);
  Conv2dOptions o;
  o.split_k = 4;
  const Status s = plan(d, with_mode(shapes[2], PadMode::reflect), LayoutKind::nhwc, o);
  EXPECT_EQ(s.code(), StatusCode::method_not_applicable);
  EXPECT_TRUE(has(s.message(), "split_k=4 is not built for pad_mode reflect")) << s.message();
  o.split_k = 1;
  EXPECT_TRUE(plan(d, with_mode(shapes[2], PadMode::reflect), LayoutKind::nhwc, o).ok());
}

// What tests/device/test_padmodes.cpp and the check CLI's padmodes mode run: every case valid
// for its mode, and each mode with the shapes the list promises, on every family that takes it.
TEST(PadModes, DeviceCaseListCoversEachMode) {
  for (PadMode m : {PadMode::reflect, PadMode::replicate, PadMode::circular}) {
    const std::vector<rdnaconv::testing::Case> cases = rdnaconv::testing::padmode_cases(m);
    bool at_limit = false, asymmetric = false, stride2 = false, dil2 = false, one_wide = false;
    for (const rdnaconv::testing::Case& c : cases) {
      const Conv2dProblem& p = c.p;
      ASSERT_EQ(p.pad_mode, m) << c.what;
      ASSERT_TRUE(validate_problem(p).ok()) << c.what << ": " << validate_problem(p).message();
      const std::int64_t lim_h = max_pad(p.h, m), lim_w = max_pad(p.w, m);
      at_limit |=
          m == PadMode::replicate ? p.pad_top > p.h : (p.pad_top == lim_h && p.pad_left == lim_w);
      asymmetric |= p.pad_top != p.pad_bottom || p.pad_left != p.pad_right;
      stride2 |= p.stride_h == 2;
      dil2 |= p.dil_h == 2;
      one_wide |= p.w == 1;
    }
    EXPECT_TRUE(at_limit && asymmetric && stride2 && dil2) << to_string(m);
    EXPECT_EQ(one_wide, m != PadMode::reflect) << to_string(m);  // reflect needs pad < W = 1
    const struct {
      Method method;
      LayoutKind l;
    } takers[] = {{Method::general, LayoutKind::nhwc},
                  {Method::general, LayoutKind::nchw},
                  {Method::nhwc3x3, LayoutKind::nhwc},
                  {Method::grouped, LayoutKind::nhwc},
                  {Method::grouped, LayoutKind::nchw}};
    for (const auto& t : takers) {
      int n = 0;
      for (const rdnaconv::testing::Case& c : cases) n += can_implement(t.method, c.p, t.l);
      EXPECT_GE(n, 4) << to_string(m) << " " << to_string(t.method) << " " << to_string(t.l);
    }
  }
}
