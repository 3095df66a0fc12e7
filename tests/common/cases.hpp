// SPDX-License-Identifier: MIT
/// @file cases.hpp Problem lists of the correctness harness (host only): the annotated edge
/// list, seeded random shapes per method (only shapes the method can implement), the model
/// layers, and the epilogue variants.
#pragma once

#include <random>
#include <string>
#include <vector>

#include "common/model_layers.hpp"
#include "rdnaconv/methods.hpp"
#include "rdnaconv/validate.hpp"

namespace rdnaconv::testing {

struct Case {
  std::string what;  ///< what the case exercises
  Conv2dProblem p;
};

inline Conv2dProblem with_pads(Conv2dProblem p, int t, int b, int l, int r) {
  p.pad_top = t;
  p.pad_bottom = b;
  p.pad_left = l;
  p.pad_right = r;
  return p;
}

/// Every field of a problem, per axis (the fuzz harness prints its minimal cases with this).
inline Conv2dProblem full_problem(std::int64_t n, std::int64_t c, std::int64_t h, std::int64_t w,
                                  std::int64_t k, std::int64_t r, std::int64_t s,
                                  std::int64_t stride_h, std::int64_t stride_w, std::int64_t dil_h,
                                  std::int64_t dil_w, std::int64_t pad_top, std::int64_t pad_bottom,
                                  std::int64_t pad_left, std::int64_t pad_right,
                                  std::int64_t groups = 1) {
  Conv2dProblem p = make_problem(n, c, h, w, k, r, s);
  p.groups = groups;
  p.stride_h = stride_h;
  p.stride_w = stride_w;
  p.dil_h = dil_h;
  p.dil_w = dil_w;
  return with_pads(p, int(pad_top), int(pad_bottom), int(pad_left), int(pad_right));
}

/// p padded with mode m (the fuzz target's edge-list entries of padding-mode failures).
inline Conv2dProblem with_pad_mode(Conv2dProblem p, PadMode m) {
  p.pad_mode = m;
  return p;
}

/// Each case says what it exercises; a method runs the cases it can implement.
inline std::vector<Case> edge_cases() {
  return {
      {"C=1", make_problem(2, 1, 9, 11, 7, 3, 3, 1, 1)},
      {"C=3 RGB stem 7x7 s2 p3", make_problem(1, 3, 33, 35, 64, 7, 7, 2, 3)},
      {"K not a multiple of the tile", make_problem(1, 16, 12, 12, 130, 3, 3, 1, 1)},
      {"1x1 with padding", make_problem(1, 24, 7, 9, 40, 1, 1, 1, 1)},
      {"1x1 stride 2 downsample", make_problem(2, 64, 14, 14, 96, 1, 1, 2, 0)},
      {"1x1 C_pad tail (C=520), K=1", make_problem(1, 520, 5, 6, 1, 1, 1, 1, 0)},
      {"dilation 2", make_problem(1, 32, 20, 18, 48, 3, 3, 1, 2, 2)},
      {"3x3 stride 2 dilation 2", make_problem(1, 40, 19, 17, 24, 3, 3, 2, 2, 2)},
      {"VAE downsample pad (0,1,0,1) s2",
       with_pads(make_problem(1, 32, 16, 16, 32, 3, 3, 2, 0), 0, 1, 0, 1)},
      {"pad 2 > R/2 on 3x3", make_problem(1, 16, 6, 7, 20, 3, 3, 1, 2)},
      {"H, W smaller than the filter, padded", make_problem(1, 8, 2, 3, 8, 5, 5, 1, 2)},
      {"3x3 on a 1x1 image, pad 1", make_problem(3, 64, 1, 1, 33, 3, 3, 1, 1)},
      {"N > 1, odd sizes", make_problem(3, 13, 7, 5, 11, 3, 3, 1, 1)},
      {"M not a multiple of the tile, C%8!=0", make_problem(1, 20, 13, 17, 33, 3, 3, 1, 1)},
      {"long reduction C=256", make_problem(1, 256, 8, 8, 64, 3, 3, 1, 1)},
      {"Winograd minimum C=4, P, Q not multiples of 4", make_problem(2, 4, 13, 11, 9, 3, 3, 1, 1)},
      {"Winograd pad 0 (P = H-2), asymmetric",
       with_pads(make_problem(1, 24, 11, 14, 17, 3, 3, 1, 0), 0, 2, 1, 0)},
      {"pad 4 on a 3x3 image: Winograd tiles of pure padding (issue 12)",
       make_problem(1, 16, 3, 3, 8, 3, 3, 1, 4)},
      {"asymmetric rectangular filter",
       with_pads(make_problem(1, 9, 10, 12, 17, 2, 5, 1, 0), 1, 0, 2, 1)},
      // groups > 1: the grouped family only (every other method needs groups 1)
      {"depthwise 3x3 C=K=G=32 (NHWC 16-byte x loads)",
       make_problem(2, 32, 9, 11, 32, 3, 3, 1, 1, 1, 32)},
      {"depthwise 3x3 s2, VAE pad (0,1,0,1)",
       with_pads(make_problem(1, 24, 12, 13, 24, 3, 3, 2, 0, 1, 24), 0, 1, 0, 1)},
      {"depthwise 5x5 dilation 2, C=G=15 (odd), channel multiplier 2",
       make_problem(1, 15, 13, 10, 30, 5, 5, 1, 4, 2, 15)},
      {"depthwise 7x7 pad 3 (ConvNeXt), C=20 (not a multiple of 8)",
       make_problem(1, 20, 14, 14, 20, 7, 7, 1, 3, 1, 20)},
      {"depthwise multiplier 3 (K=3C), stride 2x1, asymmetric pad",
       full_problem(1, 8, 9, 6, 24, 3, 3, 2, 1, 1, 1, 1, 0, 2, 1, 8)},
      {"depthwise K=C=12 (K % 8 != 0) on a 1x1 image, pad 1",
       make_problem(3, 12, 1, 1, 12, 3, 3, 1, 1, 1, 12)},
      {"depthwise pad 4 on a 3x3 image (outputs of pure padding)",
       make_problem(1, 16, 3, 3, 16, 3, 3, 1, 4, 1, 16)},
      {"grouped C=K=3*5, G=5, odd sizes", make_problem(3, 15, 7, 9, 15, 3, 3, 1, 1, 1, 5)},
      {"grouped C=15 K=30 G=5 (K/G=6: filter vectors cross groups), s2",
       make_problem(1, 15, 8, 7, 30, 3, 3, 2, 1, 1, 5)},
      {"grouped 1x1 G=4 (K/G=8)", make_problem(2, 32, 6, 6, 32, 1, 1, 1, 0, 1, 4)},
      {"grouped 2x5 dilation 3x1 stride 1x2, asymmetric pad, G=6",
       full_problem(1, 12, 11, 13, 18, 2, 5, 1, 2, 3, 1, 1, 0, 2, 1, 6)},
      {"grouped C/G=16 K/G=16 G=2 (ResNeXt-like)",
       make_problem(1, 32, 10, 10, 32, 3, 3, 1, 1, 1, 2)},
  };
}

/// The padding modes' cases (issue 17 item 3) for mode m: the edge list's padded shapes, then the
/// modes' own (pads at the mode's limit: reflect size - 1, circular size, replicate beyond it; a
/// 1-pixel-wide image; the thin K = 3 layer; the grouped NCHW strip over the shared-memory cap),
/// each with p.pad_mode = m and kept where validation accepts it for m (reflect: pads below the
/// size; circular: at most the size). Unpadded shapes are left out: a mode changes nothing there.
inline std::vector<Case> padmode_cases(PadMode m) {
  // the largest pad the mode allows on an axis of n (replicate: any, so beyond the image)
  const auto limit = [m](int n) {
    return m == PadMode::reflect ? n - 1 : m == PadMode::circular ? n : n + 2;
  };
  std::vector<Case> shapes = edge_cases();
  const std::vector<Case> own = {
      {"pads at the mode's limit, 3x4 image",
       with_pads(make_problem(1, 16, 3, 4, 16, 3, 3), limit(3), limit(3), limit(4), limit(4))},
      {"pads at the limit on one side, 5x5 filter",
       with_pads(make_problem(1, 8, 5, 6, 24, 5, 5), limit(5), 0, 0, limit(6))},
      {"1-pixel-wide image, pad 1", make_problem(1, 8, 6, 1, 8, 3, 3, 1, 1)},
      {"stride 2 pad 1, odd sizes", make_problem(1, 24, 13, 15, 24, 3, 3, 2, 1)},
      {"K=3 output conv (the thin tile under zeros)", make_problem(1, 128, 12, 12, 3, 3, 3, 1, 1)},
      {"depthwise, pads at the mode's limit, 3x4 image",
       with_pads(make_problem(1, 16, 3, 4, 16, 3, 3, 1, 0, 1, 16), limit(3), limit(3), limit(4),
                 limit(4))},
      {"depthwise dilation 100 pad 100 (NCHW strip over the shared-memory cap)",
       make_problem(1, 2, 120, 150, 2, 3, 3, 1, 100, 100, 2)},
      {"1x1 stride 2 pad 1, odd sizes", make_problem(1, 24, 13, 15, 40, 1, 1, 2, 1)},
      {"1x1, pads at the mode's limit on one side, 4x5 image",
       with_pads(make_problem(1, 40, 4, 5, 24, 1, 1), limit(4), 0, 0, limit(5))},
      {"1x1 stride 3 pad 1, C = 72 (a C_pad tail), K = 136, 2 images",
       make_problem(2, 72, 10, 11, 136, 1, 1, 3, 1)},
      {"1x1, pads 0/1/1/0", with_pads(make_problem(1, 16, 7, 9, 8, 1, 1), 0, 1, 1, 0)},
  };
  shapes.insert(shapes.end(), own.begin(), own.end());
  std::vector<Case> out;
  for (Case c : shapes) {
    if (c.p.pad_top + c.p.pad_bottom + c.p.pad_left + c.p.pad_right == 0) continue;
    c.p.pad_mode = m;
    c.what = std::string(to_string(m)) + ": " + c.what;
    if (validate_problem(c.p).ok()) out.push_back(c);
  }
  return out;
}

/// Whether method `m` runs on layout `l` at all (the layout-bound 3x3 variants do not run on
/// the other layout), probed with a plain 8x8 problem of its filter size (grouped: in 2 groups).
inline bool method_runs_on(Method m, LayoutKind l) {
  const int rs = m == Method::gemm1x1 || m == Method::cblocked1x1 ? 1 : 3;
  const int groups = m == Method::grouped ? 2 : 1;
  const int c = m == Method::hopper_halo ? 64 : 8;  // its 128-byte rows: C % 64 == 0
  return m == Method::automatic ||
         can_implement(m, make_problem(1, c, 8, 8, 8, rs, rs, 1, rs / 2, 1, groups), l);
}

/// `count` seeded random shapes that method `m` can implement on layout `l` (none if it does
/// not run on `l`). Sizes stay small (the reference is naive) but cross every tile edge: C up
/// to 72 (C_pad tails, C%8 != 0), K up to 150 (> one 128-wide block), M from 1 to a few thousand.
inline std::vector<Case> random_cases(Method m, LayoutKind l, unsigned seed, int count) {
  std::mt19937 g(seed);
  auto u = [&](int a, int b) { return std::uniform_int_distribution<int>(a, b)(g); };
  std::vector<Case> out;
  if (!method_runs_on(m, l)) return out;
  while (int(out.size()) < count) {
    Conv2dProblem p;
    switch (m) {
      case Method::gemm1x1:
        p = make_problem(u(1, 3), u(1, 72), u(1, 24), u(1, 24), u(1, 150), 1, 1, u(1, 2), u(0, 1));
        break;
      case Method::cblocked1x1: {
        // strides up to 3 (the repack gathers the read pixels), asymmetric pads, a third of
        // them in another padding mode (the repack applies it)
        p = make_problem(u(1, 3), u(1, 72), u(1, 24), u(1, 24), u(1, 150), 1, 1, u(1, 3), 0);
        p.stride_w = u(1, 3);
        p = with_pads(p, u(0, 1), u(0, 1), u(0, 1), u(0, 1));
        const PadMode modes[] = {PadMode::zeros,   PadMode::zeros,     PadMode::zeros,
                                 PadMode::reflect, PadMode::replicate, PadMode::circular};
        p.pad_mode = modes[u(0, 5)];
        break;
      }
      case Method::nhwc3x3:
      case Method::nchw3x3:
      case Method::cblocked3x3:
        p = make_problem(u(1, 3), u(1, 72), u(1, 24), u(1, 24), u(1, 150), 3, 3, u(1, 2), 0,
                         u(1, 2));
        p = with_pads(p, u(0, 2), u(0, 2), u(0, 2), u(0, 2));
        break;
      case Method::hopper_halo:
        // C a multiple of 64, filters up to 3x3 at stride 1, widths on both sides of its
        // 64- and 128-column boxes, K on both sides of its 128-filter tall block
        p = make_problem(u(1, 3), 64 * u(1, 2), u(1, 24), u(1, 140), u(1, 300), u(1, 3), u(1, 3), 1,
                         0);
        p = with_pads(p, u(0, 2), u(0, 2), u(0, 2), u(0, 2));
        break;
      case Method::winograd:
      case Method::winograd_fused:
        p = make_problem(u(1, 3), u(4, 72), u(1, 24), u(1, 24), u(1, 150), 3, 3, 1, 0);
        p = with_pads(p, u(0, 2), u(0, 2), u(0, 2), u(0, 2));
        break;
      case Method::grouped: {
        // half depthwise (C/G = 1, multiplier 1-3), half grouped (C/G up to 9, K/G up to 20)
        const int g = u(2, 8), dw = u(0, 1);
        const int cg = dw ? 1 : u(1, 9), kg = dw ? u(1, 3) : u(1, 20);
        p = make_problem(u(1, 3), cg * g, u(1, 24), u(1, 24), kg * g, u(1, 7), u(1, 7), u(1, 3), 0,
                         u(1, 2), g);
        p.stride_w = u(1, 3);
        p = with_pads(p, u(0, 3), u(0, 3), u(0, 3), u(0, 3));
        break;
      }
      default:
        p = make_problem(u(1, 3), u(1, 72), u(1, 24), u(1, 24), u(1, 150), u(1, 5), u(1, 5),
                         u(1, 3), 0, u(1, 2));
        p = with_pads(p, u(0, 2), u(0, 2), u(0, 2), u(0, 2));
        break;
    }
    if (!validate_problem(p).ok() || !can_implement(m, p, l)) continue;
    out.push_back({"random", p});
  }
  return out;
}

/// Every layer of the three models at 224² / 512² / 1024² (VAEs at both sizes), batch n.
inline std::vector<Case> model_cases(int n) {
  std::vector<Case> out;
  for (const std::string& m : models::model_names())
    for (const models::UniqueLayer& u : models::unique_layers(models::model(m))) {
      Conv2dProblem p = u.p;
      p.n = n;
      out.push_back({m + "/" + u.names.front() +
                         (u.count() > 1 ? " (x" + std::to_string(u.count()) + ")" : ""),
                     p});
    }
  return out;
}

/// One epilogue configuration: act(alpha conv + bias + beta z).
struct Variant {
  Activation act = Activation::none;
  bool bias = false;
  DType bias_type = DType::f32;
  DType out = DType::same;
  bool residual = false;  ///< z, in y's type
  bool in_place = false;  ///< z is y (residual only)
  float alpha = 1.f, beta = 1.f;
};

/// The residual variants: z apart and in place, alpha and beta off 1 (powers of two and small
/// integers keep integer data exact), every activation once, output types rotating.
inline std::vector<Variant> residual_variants(DType in) {
  std::vector<Variant> v;
  const DType outs[3] = {DType::same, DType::f32, in == DType::f16 ? DType::bf16 : DType::f16};
  int i = 0;
  for (Activation a : kActivations) {
    Variant r{a, (i & 1) != 0, (i & 2) ? in : DType::f32, outs[i % 3], true, (i % 2) == 0};
    r.alpha = (i % 3 == 1) ? 0.5f : 1.f;
    r.beta = (i % 3 == 2) ? -2.f : 1.f;
    v.push_back(r);
    ++i;
  }
  return v;
}

/// The variant in a failure line: activation, bias, residual, alpha and beta where set.
inline std::string variant_str(const Variant& v) {
  std::string s = to_string(v.act);
  if (v.bias) s += " +bias";
  if (v.residual) s += v.in_place ? " +z(in place)" : " +z";
  if (v.alpha != 1.f) s += " alpha=" + std::to_string(v.alpha);
  if (v.beta != 1.f) s += " beta=" + std::to_string(v.beta);
  return s;
}

/// 8 variants: every activation once, bias and output type rotating so that each appears, then
/// a residual in place (alpha 0.5, relu) and one apart (beta -2, no activation).
inline std::vector<Variant> standard_variants(DType in) {
  std::vector<Variant> v;
  const DType outs[3] = {DType::same, DType::f32, in == DType::f16 ? DType::bf16 : DType::f16};
  int i = 0;
  for (Activation a : kActivations) {
    v.push_back({a, (i & 1) != 0, (i & 2) ? in : DType::f32, outs[i % 3]});
    ++i;
  }
  Variant in_place{Activation::relu, true, in, DType::same, true, true};
  in_place.alpha = 0.5f;
  Variant apart{Activation::none, true, DType::f32, DType::f32, true, false};
  apart.beta = -2.f;
  v.push_back(in_place);
  v.push_back(apart);
  return v;
}

/// The full cross product: every activation x {no bias, fp32 bias, T bias} x 3 output types,
/// then the residual variants.
inline std::vector<Variant> all_variants(DType in) {
  std::vector<Variant> v;
  for (Activation a : kActivations)
    for (int b = 0; b < 3; ++b)
      for (DType o : {DType::same, DType::f32, in == DType::f16 ? DType::bf16 : DType::f16})
        v.push_back({a, b > 0, b == 2 ? in : DType::f32, o});
  for (const Variant& r : residual_variants(in)) v.push_back(r);
  return v;
}

/// Input data: small integers (every product and sum exact in fp32: direct methods are then
/// compared bit for bit), real values, or adversarial ones (large magnitudes, alternating signs).
enum class DataKind : std::uint8_t { ints, real, adversarial };
constexpr const char* to_string(DataKind d) {
  return d == DataKind::ints ? "ints" : d == DataKind::real ? "real" : "adversarial";
}

}  // namespace rdnaconv::testing
