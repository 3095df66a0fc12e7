// SPDX-License-Identifier: MIT
/// @file fuzz.cpp The property test (fuzz.hpp): generation, the float64 host reference with the
/// tolerance model, device runs through the public plan API, shrinking.
#include "common/fuzz.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <thread>

#include "rdnaconv/arch/platform.hpp"
#include "rdnaconv/reference/error_bound.hpp"
#include "rdnaconv/reference/host_conv.hpp"

namespace rdnaconv::testing {

namespace {

/// splitmix64: a small, fully specified generator (the same stream on every platform).
std::uint64_t next(std::uint64_t& s) {
  std::uint64_t z = (s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
std::int64_t uni(std::uint64_t& s, std::int64_t a, std::int64_t b) {
  return a + std::int64_t(next(s) % std::uint64_t(b - a + 1));
}
double unit(std::uint64_t& s) {
  return double(next(s) >> 11) * (1.0 / 9007199254740992.0);
}
/// Log-uniform integer in [a, b]: small sizes as often as large ones.
std::int64_t logu(std::uint64_t& s, std::int64_t a, std::int64_t b) {
  const double v =
      std::exp(std::log(double(a)) + unit(s) * (std::log(double(b) + 1) - std::log(double(a))));
  return std::clamp<std::int64_t>(std::int64_t(v), a, b);
}

/// Host work of the reference and the scales for one problem (multiply-adds, roughly).
double host_work(const Conv2dProblem& p, bool winograd) {
  return double(p.y_elems()) * double(p.c) * (double(p.r * p.s) + (winograd ? 200.0 : 0.0));
}
constexpr double kMaxWork = 6e6;

struct HostData {
  std::vector<std::uint16_t> x, w, b16;
  std::vector<float> b32;
  std::vector<float> z;               // the residual's values (already rounded to y's type)
  std::vector<std::uint8_t> z_bytes;  // the same in y's type, as uploaded
};

HostData make_data(const FuzzCase& c) {
  const Conv2dProblem& p = c.p;
  HostData d;
  std::uint64_t s = c.seed * 0x2545f4914f6cdd1dull + 7;
  const double crs = double(p.gemm_k());  // C/G R S: the reduction of one output
  double xs = 1, ws = 1;
  if (c.data == DataKind::real) ws = 1.0 / std::sqrt(crs);
  if (c.data == DataKind::adversarial) {
    xs = c.type == DType::f16 ? 1000.0 : 30000.0;  // fp16: near Winograd's V range (docs/DESIGN.md)
    ws = std::min(1.0, 4096.0 / (crs * xs));       // |y| <= 4096: finite in every output type
  }
  auto value = [&](std::int64_t i, double scale) {
    const double u = unit(s);
    if (c.data == DataKind::ints) return float(int(next(s) % 7u) - 3);
    if (c.data == DataKind::real) return float((2 * u - 1) * scale);
    return float(((i & 1) ? -1 : 1) * scale * (0.5 + 0.5 * u));
  };
  d.x.resize(std::size_t(p.x_elems()));
  d.w.resize(std::size_t(p.w_elems()));
  for (std::size_t i = 0; i < d.x.size(); ++i)
    d.x[i] = detail::float_to_bits(c.type, value(std::int64_t(i), xs));
  for (std::size_t i = 0; i < d.w.size(); ++i)
    d.w[i] = detail::float_to_bits(c.type, value(std::int64_t(i), ws));
  d.b32.resize(std::size_t(p.k));
  d.b16.resize(std::size_t(p.k));
  for (std::size_t i = 0; i < d.b32.size(); ++i) {
    const float b =
        c.data == DataKind::ints ? float(int(next(s) % 7u) - 3) * 0.5f : float(2 * unit(s) - 1);
    d.b16[i] = detail::float_to_bits(c.type, b);
    d.b32[i] = detail::bits_to_float(c.type, d.b16[i]);  // both bias types carry the same value
  }
  if (c.v.residual) {
    const DType out = c.v.out == DType::same ? c.type : c.v.out;
    const std::size_t ny = std::size_t(p.y_elems()), eb = dtype_bytes(out);
    d.z.resize(ny);
    d.z_bytes.resize(ny * eb);
    for (std::size_t i = 0; i < ny; ++i) {
      float v = c.data == DataKind::ints ? float(int(next(s) % 7u) - 3) : float(2 * unit(s) - 1);
      if (out == DType::f32) {
        std::memcpy(d.z_bytes.data() + i * 4, &v, 4);
      } else {
        const std::uint16_t b = detail::float_to_bits(out, v);
        v = detail::bits_to_float(out, b);
        std::memcpy(d.z_bytes.data() + i * 2, &b, 2);
      }
      d.z[i] = v;
    }
  }
  return d;
}

struct HostRef {
  std::vector<double> y, s, sw;  // y layout order
};

HostRef make_ref(const FuzzCase& c, const HostData& d) {
  HostRef r;
  reference::HostEpilogue e;
  if (c.v.bias) {
    e.bias = c.v.bias_type == DType::f32 ? static_cast<const void*>(d.b32.data()) : d.b16.data();
    e.bias_type = c.v.bias_type == DType::same ? c.type : c.v.bias_type;
  }
  e.act = c.v.act;
  if (c.v.residual) {
    e.z = d.z.data();
    e.z_type = DType::f32;
  }
  e.alpha = c.v.alpha;
  e.beta = c.v.beta;
  reference::host_conv2d_exact(c.p, c.layout, c.type, d.x.data(), d.w.data(), e, r.y, &r.s);
  if (kernels::winograd_eligible(c.p)) {
    r.sw.assign(r.y.size(), 0.0);
    {
      for (std::int64_t o = 0; o < c.p.y_elems(); ++o) {
        const reference::OutCoord oc = reference::out_coord(c.p, c.layout, o);
        double s = 0, sw = 0;
        reference::output_scales(c.p, c.layout, c.type, d.x.data(), d.w.data(), oc.n, oc.k, oc.op,
                                 oc.oq, true, reference::SoftLoad{c.type}, s, sw);
        r.sw[std::size_t(o)] = std::fabs(double(c.v.alpha)) * sw;
      }
    }
  }
  return r;
}

double read_y(const std::vector<std::uint8_t>& y, DType t, std::int64_t o) {
  if (t == DType::f32) {
    float v;
    std::memcpy(&v, y.data() + std::size_t(o) * 4, 4);
    return v;
  }
  std::uint16_t b;
  std::memcpy(&b, y.data() + std::size_t(o) * 2, 2);
  return detail::bits_to_float(t, b);
}

/// Whether output (op, oq)'s filter window touches the image (else it is pure padding: every
/// method must give act(bias) there, to the rounding of the output and the activation alone).
bool window_touches_image(const Conv2dProblem& p, std::int64_t op, std::int64_t oq) {
  auto axis = [](std::int64_t o, std::int64_t stride, std::int64_t pad, std::int64_t dil,
                 std::int64_t taps, std::int64_t size) {
    for (std::int64_t t = 0; t < taps; ++t) {
      const std::int64_t i = o * stride - pad + t * dil;
      if (i >= 0 && i < size) return true;
    }
    return false;
  };
  return axis(op, p.stride_h, p.pad_top, p.dil_h, p.r, p.h) &&
         axis(oq, p.stride_w, p.pad_left, p.dil_w, p.s, p.w);
}

constexpr std::size_t kGuardBytes = 512;
constexpr unsigned char kGuardByte = 0x5a;

/// Device buffers of one case, reused by its runs.
struct DeviceCase {
  void *x = nullptr, *w = nullptr, *b32 = nullptr, *b16 = nullptr, *ybuf = nullptr, *z = nullptr;
  void *packed = nullptr, *workspace = nullptr;
  std::size_t packed_cap = 0, workspace_cap = 0;
  std::size_t y_bytes_max = 0;
  ~DeviceCase() {
    for (void* p : {x, w, b32, b16, ybuf, z, packed, workspace})
      if (p) (void)rt::free(p);
  }
  std::string upload(const Conv2dProblem& p, const HostData& d) {
    y_bytes_max = std::size_t(p.y_elems()) * 4;
    const std::pair<void**, std::size_t> bufs[] = {{&x, d.x.size() * 2},
                                                   {&w, d.w.size() * 2},
                                                   {&b32, d.b32.size() * 4},
                                                   {&b16, d.b16.size() * 2},
                                                   {&ybuf, y_bytes_max + 2 * kGuardBytes},
                                                   {&z, d.z_bytes.size()}};
    for (const auto& [ptr, bytes] : bufs)
      if (bytes > 0 && rt::malloc(ptr, bytes) != rt::success) return "device allocation failed";
    if (rt::memcpy_h2d(x, d.x.data(), d.x.size() * 2) != rt::success ||
        rt::memcpy_h2d(w, d.w.data(), d.w.size() * 2) != rt::success ||
        rt::memcpy_h2d(b32, d.b32.data(), d.b32.size() * 4) != rt::success ||
        rt::memcpy_h2d(b16, d.b16.data(), d.b16.size() * 2) != rt::success ||
        (z && rt::memcpy_h2d(z, d.z_bytes.data(), d.z_bytes.size()) != rt::success))
      return "upload failed";
    return {};
  }
};

/// The run of one case on prepared data: device run, then every output against the bound.
std::string run_prepared(const FuzzCase& c, const HostData& d, const HostRef& ref, DeviceCase& dc,
                         std::int64_t* outputs, double* worst_ratio) {
  const CheckEntry e = check_entry(c.type, c.layout, c.atom);
  if (!e.plan_run) return "configuration not built";
  const DType out = c.v.out == DType::same ? c.type : c.v.out;
  const std::size_t yb = std::size_t(c.p.y_elems()) * dtype_bytes(out);
  auto* y = static_cast<char*>(dc.ybuf) + kGuardBytes;
  // poison: guards, and y all ones (NaN in every output type)
  if (rt::memset(dc.ybuf, kGuardByte, dc.y_bytes_max + 2 * kGuardBytes) != rt::success ||
      rt::memset(y, 0xff, yb) != rt::success)
    return "poison failed";
  // in place, y starts as the residual and z is y
  if (c.v.residual && c.v.in_place && rt::memcpy_d2d(y, dc.z, yb) != rt::success)
    return "residual copy failed";
  PlanRun r;
  r.p = c.p;
  r.o.method = c.method;
  r.o.activation = c.v.act;
  r.o.has_bias = c.v.bias;
  r.o.bias_type = c.v.bias_type;
  r.o.out_type = c.v.out;
  r.o.has_residual = c.v.residual;
  r.o.alpha = c.v.alpha;
  r.o.beta = c.v.beta;
  r.z = c.v.residual ? (c.v.in_place ? static_cast<const void*>(y) : dc.z) : nullptr;
  r.x = dc.x;
  r.w = dc.w;
  r.bias = c.v.bias ? (c.v.bias_type == DType::f32 ? dc.b32 : dc.b16) : nullptr;
  r.y = y;
  r.packed = &dc.packed;
  r.packed_cap = &dc.packed_cap;
  r.workspace = &dc.workspace;
  r.workspace_cap = &dc.workspace_cap;
  if (Status s = e.plan_run(r); !s)
    return std::string("status ") + to_string(s.code()) + ": " + s.message();
  std::vector<std::uint8_t> all(dc.y_bytes_max + 2 * kGuardBytes);
  if (rt::memcpy_d2h(all.data(), dc.ybuf, all.size()) != rt::success) return "download failed";
  for (std::size_t i = 0; i < all.size(); ++i) {
    const bool in_y = i >= kGuardBytes && i < kGuardBytes + yb;
    if (!in_y && all[i] != kGuardByte)
      return "wrote outside y: byte " +
             std::to_string(std::int64_t(i) - std::int64_t(kGuardBytes)) + " of y (" +
             std::to_string(yb) + " bytes)";
  }
  const std::vector<std::uint8_t> ybytes(all.begin() + kGuardBytes,
                                         all.begin() + std::ptrdiff_t(kGuardBytes + yb));
  const bool winograd = is_winograd(r.ran);
  if (winograd && ref.sw.size() != ref.y.size())
    return "internal: Winograd ran on a problem it is not eligible for";
  // gelu, silu and sigmoid: the host's float64 against the kernels' fp32 evaluation
  const bool exact =
      c.data == DataKind::ints && !winograd &&
      (c.v.act == Activation::none || c.v.act == Activation::relu || c.v.act == Activation::relu6);
  std::int64_t bad = 0, worst_at = -1;
  double worst = 0, worst_err = 0;
  for (std::int64_t o = 0; o < c.p.y_elems(); ++o) {
    const double got = read_y(ybytes, out, o);
    const double want = ref.y[std::size_t(o)];
    double ratio;
    if (exact) {
      const float rounded =
          out == DType::f32 ? float(want)
                            : detail::bits_to_float(out, detail::float_to_bits(out, float(want)));
      ratio = double(rounded) == got ? 0.0 : INFINITY;
    } else if (!std::isfinite(got)) {
      ratio = INFINITY;
    } else {
      // Winograd's own rounding term only where the window touches the image: a pure-padding
      // output is act(bias) for every method (kernels/winograd/README.md)
      const reference::OutCoord oc = reference::out_coord(c.p, c.layout, o);
      const double sw =
          winograd && window_touches_image(c.p, oc.op, oc.oq) ? ref.sw[std::size_t(o)] : 0.0;
      const double bound =
          reference::error_bound(winograd, c.type, out, c.p.c, c.p.gemm_k(), std::fabs(want),
                                 ref.s[std::size_t(o)], sw, false);
      const double err = std::fabs(got - want);
      ratio = bound > 0 ? err / bound : (err > 0 ? INFINITY : 0.0);
      if (ratio <= 1 && worst_ratio && ratio > *worst_ratio) *worst_ratio = ratio;
    }
    if (!(ratio <= 1)) {
      ++bad;
      if (!(ratio <= worst) || worst_at < 0) {
        worst = ratio;
        worst_at = o;
        worst_err = std::fabs(got - want);
      }
    }
  }
  if (outputs) *outputs += c.p.y_elems();
  if (bad == 0) return {};
  const reference::OutCoord oc = reference::out_coord(c.p, c.layout, worst_at);
  char buf[400];
  std::snprintf(buf, sizeof buf,
                "%s ran: %lld of %lld outputs outside %s; worst at (n %lld, k %lld, p %lld, q "
                "%lld): got %.9g, "
                "reference %.9g, |err| %.3g, err/bound %.3g, S %.6g",
                to_string(r.ran), (long long)bad, (long long)c.p.y_elems(),
                exact ? "exact equality" : "the bound", (long long)oc.n, (long long)oc.k,
                (long long)oc.op, (long long)oc.oq, read_y(ybytes, out, worst_at),
                ref.y[std::size_t(worst_at)], worst_err, worst, ref.s[std::size_t(worst_at)]);
  return buf;
}

Variant random_variant(std::uint64_t& s, DType t) {
  Variant v;
  v.act = kActivations[uni(s, 0, std::int64_t(std::size(kActivations)) - 1)];
  v.bias = uni(s, 0, 1) == 1;
  const DType bias_types[] = {DType::f32, t, DType::same};  // same: the default, the input type
  v.bias_type = bias_types[uni(s, 0, 2)];
  const DType outs[] = {DType::same, DType::f32, t == DType::f16 ? DType::bf16 : DType::f16};
  v.out = outs[uni(s, 0, 2)];
  // a third of the cases add a residual, half of those in place; alpha and beta off 1 at times
  // (powers of two: integer data stay exact)
  v.residual = uni(s, 0, 2) == 0;
  v.in_place = v.residual && uni(s, 0, 1) == 1;
  const float scales[] = {1.f, 1.f, 0.5f, 2.f, -1.f};
  v.alpha = scales[uni(s, 0, 4)];
  v.beta = v.residual ? scales[uni(s, 0, 4)] : 1.f;
  return v;
}

}  // namespace

Conv2dProblem fuzz_problem(std::uint64_t& rng, Method target, LayoutKind layout) {
  for (;;) {
    Conv2dProblem p;
    const bool wino = is_winograd(target);
    const bool three = wino || target == Method::nhwc3x3 || target == Method::nchw3x3 ||
                       target == Method::cblocked3x3;
    if (target == Method::gemm1x1 || target == Method::cblocked1x1)
      p.r = p.s = 1;
    else if (three)
      p.r = p.s = 3;
    else {
      // general and the router: mostly the common filters, any up to 7
      const std::int64_t pick = uni(rng, 0, 9);
      p.r = pick < 3 ? 1 : pick < 6 ? 3 : uni(rng, 1, 7);
      p.s = uni(rng, 0, 3) == 0 ? uni(rng, 1, 7) : p.r;
    }
    p.n = uni(rng, 0, 3) == 0 ? uni(rng, 2, 9) : 1;
    p.c = logu(rng, wino ? 4 : 1, 300);
    p.k = logu(rng, 1, 300);
    p.h = logu(rng, 1, 40);
    p.w = logu(rng, 1, 40);
    if (!wino) {
      p.stride_h = uni(rng, 0, 2) == 0 ? uni(rng, 2, 3) : 1;
      p.stride_w = uni(rng, 0, 3) == 0 ? uni(rng, 2, 3) : p.stride_h;
      p.dil_h = uni(rng, 0, 3) == 0 ? uni(rng, 2, 3) : 1;
      p.dil_w = uni(rng, 0, 3) == 0 ? uni(rng, 2, 3) : p.dil_h;
    }
    // padding up to 2R + 1 per side, independently (often far beyond the filter's reach)
    std::int64_t* pads[] = {&p.pad_top, &p.pad_bottom, &p.pad_left, &p.pad_right};
    for (int i = 0; i < 4; ++i) *pads[i] = uni(rng, 0, 2 * (i < 2 ? p.r : p.s) + 1);
    if (uni(rng, 0, 3) == 0) p.pad_bottom = p.pad_top, p.pad_right = p.pad_left;
    // a quarter of the problems pad with another mode (routed since the eighth session; only
    // the families with a remap kernel take them, and reflect / circular need pads within the
    // image: validation rejects the rest and the loop draws again)
    if (uni(rng, 0, 3) == 0) {
      const PadMode modes[] = {PadMode::reflect, PadMode::replicate, PadMode::circular};
      p.pad_mode = modes[uni(rng, 0, 2)];
    }
    if (target == Method::hopper_halo) {
      // its rule: C % 64 == 0, stride and dilation 1, R and S up to 3 (R * S >= 2)
      p.c = 64 * uni(rng, 1, 4);
      p.stride_h = p.stride_w = p.dil_h = p.dil_w = 1;
      p.r = uni(rng, 1, 3);
      p.s = uni(rng, p.r == 1 ? 2 : 1, 3);
      p.w = logu(rng, 1, 160);  // both of its box widths (64, 128 columns)
    }
    if (target == Method::grouped) {
      // groups > 1: half depthwise (C/G = 1, channel multiplier 1-4), half C/G up to 32
      p.groups = logu(rng, 2, 64);
      const bool dw = uni(rng, 0, 1) == 0;
      p.c = p.groups * (dw ? 1 : logu(rng, 1, 32));
      p.k = p.groups * (dw ? uni(rng, 1, 4) : logu(rng, 1, 32));
    }
    if (!validate_problem(p).ok()) continue;
    if (host_work(p, kernels::winograd_eligible(p)) > kMaxWork) continue;
    if (target != Method::automatic && !can_implement(target, p, layout)) continue;
    return p;
  }
}

std::string fuzz_describe(const FuzzCase& c) {
  return describe(c.p) + " " + to_string(c.type) + " " + to_string(c.layout) +
         " atom=" + to_string(c.atom) +
         " method=" + (c.method == Method::automatic ? "router" : to_string(c.method)) +
         " act=" + to_string(c.v.act) +
         (c.v.bias ? std::string(" bias=") + to_string(c.v.bias_type) : std::string(" no-bias")) +
         " out=" + to_string(c.v.out) + (c.v.residual ? " residual" : "") +
         (c.v.in_place ? "(in place)" : "") + " alpha=" + std::to_string(c.v.alpha) +
         " beta=" + std::to_string(c.v.beta) + " data=" + to_string(c.data) +
         " seed=" + std::to_string(c.seed);
}

std::string fuzz_run(const FuzzCase& c, std::int64_t* outputs, double* worst_ratio) {
  if (Status s = validate_problem(c.p); !s) return "invalid problem: " + s.message();
  const HostData d = make_data(c);
  const HostRef ref = make_ref(c, d);
  DeviceCase dc;
  if (std::string why = dc.upload(c.p, d); !why.empty()) return why;
  return run_prepared(c, d, ref, dc, outputs, worst_ratio);
}

FuzzCase fuzz_shrink(const FuzzCase& failing, std::string& detail) {
  FuzzCase best = failing;
  int budget = 400;
  bool progress = true;
  while (progress && budget > 0) {
    progress = false;
    std::vector<FuzzCase> cand;
    auto with = [&](auto&& change) {
      FuzzCase c = best;
      change(c);
      cand.push_back(c);
    };
    // plainer epilogue and data first, then smaller problems
    if (best.v.act != Activation::none) with([](FuzzCase& c) { c.v.act = Activation::none; });
    if (best.v.bias) with([](FuzzCase& c) { c.v.bias = false; });
    if (best.v.out != DType::same) with([](FuzzCase& c) { c.v.out = DType::same; });
    if (best.data != DataKind::ints) with([](FuzzCase& c) { c.data = DataKind::ints; });
    std::int64_t Conv2dProblem::* dims[] = {&Conv2dProblem::n, &Conv2dProblem::c, &Conv2dProblem::k,
                                            &Conv2dProblem::h, &Conv2dProblem::w};
    for (auto f : dims) {
      const std::int64_t v = best.p.*f;
      if (v > 1) with([&](FuzzCase& c) { c.p.*f = 1; });
      if (v > 2) with([&](FuzzCase& c) { c.p.*f = v / 2; });
      if (v > 1) with([&](FuzzCase& c) { c.p.*f = v - 1; });
    }
    std::int64_t Conv2dProblem::* pads[] = {&Conv2dProblem::pad_top, &Conv2dProblem::pad_bottom,
                                            &Conv2dProblem::pad_left, &Conv2dProblem::pad_right};
    for (auto f : pads) {
      const std::int64_t v = best.p.*f;
      if (v > 0) with([&](FuzzCase& c) { c.p.*f = 0; });
      if (v > 1) with([&](FuzzCase& c) { c.p.*f = v - 1; });
    }
    std::int64_t Conv2dProblem::* unit_fields[] = {&Conv2dProblem::stride_h,
                                                   &Conv2dProblem::stride_w, &Conv2dProblem::dil_h,
                                                   &Conv2dProblem::dil_w};
    for (auto f : unit_fields)
      if (best.p.*f > 1) with([&](FuzzCase& c) { c.p.*f = 1; });
    if (best.p.groups > 1) {  // grouped: fewer groups, depthwise, one filter per group
      const std::int64_t g = best.p.groups, cg = best.p.c / g, kg = best.p.k / g;
      if (g > 2)
        with([&](FuzzCase& c) {
          c.p.groups = g / 2;
          c.p.c = cg * (g / 2);
          c.p.k = kg * (g / 2);
        });
      if (cg > 1) with([&](FuzzCase& c) { c.p.c = g; });
      if (kg > 1) with([&](FuzzCase& c) { c.p.k = g; });
    }
    if (best.method == Method::general || best.method == Method::automatic ||
        best.method == Method::grouped) {
      if (best.p.r > 1) with([](FuzzCase& c) { --c.p.r; });
      if (best.p.s > 1) with([](FuzzCase& c) { --c.p.s; });
    }
    for (const FuzzCase& c : cand) {
      if (budget-- <= 0) break;
      if (!validate_problem(c.p).ok()) continue;
      if (c.method != Method::automatic && !can_implement(c.method, c.p, c.layout)) continue;
      if (std::string why = fuzz_run(c); !why.empty()) {
        best = c;
        detail = why;
        progress = true;
        break;
      }
    }
  }
  return best;
}

std::string fuzz_edge_entry(const FuzzCase& c) {
  const Conv2dProblem& p = c.p;
  const std::string mode = p.pad_mode != PadMode::zeros
                               ? std::string(", PadMode::") + to_string(p.pad_mode) + ")"
                               : std::string();
  char buf[600];
  std::snprintf(
      buf, sizeof buf,
      "{\"fuzz seed %llu: %s %s %s %s\", %sfull_problem(%lld, %lld, %lld, %lld, %lld, %lld, "
      "%lld, %lld, %lld, "
      "%lld, %lld, %lld, %lld, %lld, %lld%s)%s},",
      (unsigned long long)c.seed, c.method == Method::automatic ? "router" : to_string(c.method),
      to_string(c.type), to_string(c.layout), to_string(c.atom),
      p.pad_mode != PadMode::zeros ? "with_pad_mode(" : "", (long long)p.n, (long long)p.c,
      (long long)p.h, (long long)p.w, (long long)p.k, (long long)p.r, (long long)p.s,
      (long long)p.stride_h, (long long)p.stride_w, (long long)p.dil_h, (long long)p.dil_w,
      (long long)p.pad_top, (long long)p.pad_bottom, (long long)p.pad_left, (long long)p.pad_right,
      p.groups != 1 ? (", " + std::to_string(p.groups)).c_str() : "", mode.c_str());
  return buf;
}

FuzzReport fuzz(const FuzzOptions& o) {
  FuzzReport rep;
  std::vector<Method> methods;
  std::vector<Method> asked = o.methods;
  if (asked.empty()) {
    for (const MethodInfo& m : kMethods) asked.push_back(m.method);
    asked.push_back(Method::automatic);
  }
  const std::vector<AtomKind> atoms = o.atoms.empty() ? built_atoms() : o.atoms;
  // atoms each method runs with here (hopper_tma: the native atom on a Hopper GPU only)
  auto atoms_of = [&](Method m) {
    std::int64_t n = 0;
    for (AtomKind a : atoms) n += method_runs_here(m, a) ? 1 : 0;
    return n;
  };
  for (Method m : asked)  // only methods that run on one of the selected layouts and atoms
    if (std::any_of(o.layouts.begin(), o.layouts.end(),
                    [&](LayoutKind l) { return method_runs_on(m, l); }) &&
        atoms_of(m) > 0)
      methods.push_back(m);
  if (methods.empty()) return rep;
  std::map<Method, std::int64_t> runs;
  for (Method m : methods) runs[m] = 0;
  std::uint64_t rng = o.seed;
  const auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  std::vector<std::string> seen;  // failure signatures (method, type, layout, atom) already shrunk
  const unsigned workers = std::max(1u, std::min(16u, std::thread::hardware_concurrency()));
  double last_log = 0;

  auto done = [&] {
    for (const auto& [m, n] : runs)
      if (n < o.count) return false;
    return true;
  };
  while (!done()) {
    if (o.max_seconds > 0 && elapsed() > o.max_seconds) {
      rep.stopped_early = true;
      break;
    }
    if (int(rep.failures.size()) >= o.max_failures) {
      rep.stopped_early = true;
      break;
    }
    // a batch of cases, the target of each the method with the fewest runs; references in parallel
    struct Item {
      FuzzCase base;  // method = target
      HostData d;
      HostRef ref;
    };
    std::vector<Item> batch(workers * 2);
    std::map<Method, std::int64_t> planned = runs;
    for (Item& it : batch) {
      Method target = methods.front();
      for (Method m : methods)
        if (planned[m] < planned[target]) target = m;
      FuzzCase& c = it.base;
      c.type = o.types[std::size_t(uni(rng, 0, std::int64_t(o.types.size()) - 1))];
      std::vector<LayoutKind> ls;
      for (LayoutKind l : o.layouts)
        if (method_runs_on(target, l)) ls.push_back(l);
      c.layout = ls[std::size_t(uni(rng, 0, std::int64_t(ls.size()) - 1))];
      c.method = target;
      c.p = fuzz_problem(rng, target, c.layout);
      c.v = random_variant(rng, c.type);
      const std::int64_t dk = uni(rng, 0, 9);
      c.data = dk < 5 ? DataKind::ints : dk < 9 ? DataKind::real : DataKind::adversarial;
      c.seed = next(rng);
      for (Method m : methods)
        if (m == Method::automatic || can_implement(m, c.p, c.layout)) planned[m] += atoms_of(m);
    }
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < workers; ++t)
      pool.emplace_back([&, t] {
        for (std::size_t i = t; i < batch.size(); i += workers) {
          FuzzCase rc = batch[i].base;
          rc.method = Method::automatic;  // the reference with the Winograd scales where they apply
          batch[i].d = make_data(rc);
          batch[i].ref = make_ref(rc, batch[i].d);
        }
      });
    for (std::thread& t : pool) t.join();

    for (Item& it : batch) {
      ++rep.cases;
      DeviceCase dc;
      if (std::string why = dc.upload(it.base.p, it.d); !why.empty()) {
        rep.failures.push_back({it.base, it.base, why, fuzz_edge_entry(it.base)});
        return rep;
      }
      for (Method m : methods) {
        if (m != Method::automatic && !can_implement(m, it.base.p, it.base.layout)) continue;
        for (AtomKind a : atoms) {
          if (!method_runs_here(m, a)) continue;
          FuzzCase c = it.base;
          c.method = m;
          c.atom = a;
          ++runs[m];
          const std::string why = run_prepared(c, it.d, it.ref, dc, &rep.outputs, &rep.worst_ratio);
          if (why.empty()) continue;
          const std::string sig =
              std::string(to_string(m)) + to_string(c.type) + to_string(c.layout) + to_string(a);
          if (std::find(seen.begin(), seen.end(), sig) != seen.end())
            continue;  // one shrink per signature
          seen.push_back(sig);
          if (o.log) o.log("FAIL " + fuzz_describe(c) + ": " + why + " (shrinking)");
          std::string minimal_why = why;
          const FuzzCase minimal = fuzz_shrink(c, minimal_why);
          rep.failures.push_back({c, minimal, minimal_why, fuzz_edge_entry(minimal)});
          if (o.log)
            o.log("  minimal: " + fuzz_describe(minimal) + ": " + minimal_why +
                  "\n  edge entry: " + fuzz_edge_entry(minimal));
        }
      }
    }
    if (o.log && elapsed() - last_log > 10) {
      last_log = elapsed();
      std::string line =
          "[" + std::to_string(int(elapsed())) + " s] " + std::to_string(rep.cases) + " cases;";
      for (const auto& [m, n] : runs)
        line += std::string(" ") + (m == Method::automatic ? "router" : to_string(m)) + " " +
                std::to_string(n);
      o.log(line);
    }
  }
  for (const auto& [m, n] : runs) rep.runs.push_back({m, n});
  return rep;
}

}  // namespace rdnaconv::testing
