// SPDX-License-Identifier: MIT
/// @file check_impl.hpp The harness's device half, instantiated once per (T, Layout, Atom) by the
/// check_*.cpp files. Data are generated on the device (hash of seed and index), the reference
/// and the error scales are the library's (reference/), the comparison runs on the device and
/// is reduced with CUB/rocPRIM (device_stats.hpp).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "common/check.hpp"
#include "common/dev_buf.hpp"
#include "common/device_stats.hpp"
#include "rdnaconv/conv2d.hpp"
#include "rdnaconv/reference/device_conv.hpp"
#include "rdnaconv/reference/error_bound.hpp"

namespace rdnaconv::testing {

namespace dev {

RDNACONV_HD inline std::uint32_t hash(std::uint64_t v) {
  v ^= v >> 33;
  v *= 0xff51afd7ed558ccdull;
  v ^= v >> 33;
  v *= 0xc4ceb9fe1a85ec53ull;
  v ^= v >> 33;
  return std::uint32_t(v);
}

/// Fills n values of type t. ints: -3..3. real: uniform [-scale, scale). adversarial: magnitude
/// in [scale/2, scale) with the sign alternating by index.
/// (Templates only so that the kernels defined in this header have vague linkage.)
template <int = 0>
__global__ void fill(std::uint16_t* p, std::int64_t n, DType t, DataKind kind, std::uint32_t seed,
                     float scale) {
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    const std::uint32_t h = hash((std::uint64_t(seed) << 40) ^ std::uint64_t(i));
    const float u = float(h >> 8) * (1.f / 16777216.f);  // [0, 1)
    float v;
    if (kind == DataKind::ints)
      v = float(int(h % 7u) - 3);
    else if (kind == DataKind::real)
      v = (2.f * u - 1.f) * scale;
    else
      v = ((i & 1) ? -1.f : 1.f) * scale * (0.5f + 0.5f * u);
    p[i] = t == DType::bf16 ? arch::float_to_bf16(v) : arch::float_to_f16(v);
  }
}

/// Fills n values of output type t (the residual z): ints -3..3, otherwise uniform [-1, 1).
template <int = 0>
__global__ void fill_out(void* p, std::int64_t n, DType t, DataKind kind, std::uint32_t seed) {
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    const std::uint32_t h = hash((std::uint64_t(seed) << 40) ^ std::uint64_t(i));
    const float v =
        kind == DataKind::ints ? float(int(h % 7u) - 3) : float(h >> 8) * (2.f / 16777216.f) - 1.f;
    store_out(p, t, i, v);
  }
}

struct CompareParams {
  const void* y;
  DType out;
  const std::int64_t* sel;  // null: output i at position i
  std::int64_t count;
  const float* ref;  // fp32 reference after bias and activation, compact
  const float* s;
  const float* sw;  // null unless Winograd
  const void* bias;
  const void* z;  // the residual in the output type (null: none)
  float alpha, beta;
  DType bias_type, in;
  bool nhwc;
  std::int64_t k, pq, c, crs;
  bool exact, winograd;
  float* err;
  float* ratio;
  unsigned long long* bad;
  unsigned long long* nonfinite;
};

RDNACONV_DEVICE inline float load_y(const void* y, DType t, std::int64_t o, std::uint32_t& bits) {
  if (t == DType::f32) {
    const float v = static_cast<const float*>(y)[o];
    bits = detail::float_bits(v);
    return v;
  }
  const std::uint16_t b = static_cast<const std::uint16_t*>(y)[o];
  bits = b;
  return t == DType::bf16 ? arch::bf16_to_float(b) : arch::f16_to_float(b);
}

template <int = 0>
__global__ void compare(CompareParams cp) {
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < cp.count;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t o = cp.sel ? cp.sel[i] : i;
    std::uint32_t bits;
    const float y = load_y(cp.y, cp.out, o, bits);
    const float r = cp.ref[i];
    const std::int64_t k = cp.nhwc ? o % cp.k : (o / cp.pq) % cp.k;
    const bool y_fin = isfinite(y), r_fin = isfinite(r);
    float e = fabsf(y - r);
    bool bad;
    float ratio;
    if (cp.exact) {
      const std::uint32_t want = cp.out == DType::f32    ? detail::float_bits(r)
                                 : cp.out == DType::bf16 ? arch::float_to_bf16(r)
                                                         : arch::float_to_f16(r);
      bad = bits != want;
      ratio = bad ? INFINITY : 0.f;
    } else if (!y_fin || !r_fin) {
      bad = !(y == r);  // the same infinity on both sides is a match; NaN never is
      ratio = bad ? INFINITY : 0.f;
    } else {
      const double zs = cp.z ? fabs(double(cp.beta) * double(load_out(cp.z, cp.out, o))) : 0.0;
      const double a = fabs(double(cp.alpha));
      const double s = a * double(cp.s[i]) + fabs(double(load_bias(cp.bias, cp.bias_type, k))) + zs;
      const double bound =
          reference::error_bound(cp.winograd, cp.in, cp.out, cp.c, cp.crs, fabs(double(r)), s,
                                 cp.sw ? a * double(cp.sw[i]) : 0.0, false);
      bad = !(double(e) <= bound);
      ratio = bound > 0 ? float(double(e) / bound) : (e > 0 ? INFINITY : 0.f);
    }
    cp.err[i] = isnan(e) ? INFINITY : e;
    cp.ratio[i] = isnan(ratio) ? INFINITY : ratio;
    cp.bad[i] = bad ? 1ull : 0ull;
    cp.nonfinite[i] = (!y_fin && r_fin) ? 1ull : 0ull;
  }
}

inline unsigned grid(std::int64_t n) {
  return unsigned(std::min<std::int64_t>((n + 255) / 256, 65536));
}

}  // namespace dev

inline std::string rt_error(rt::error_t e) {
  return rt::error_string(e);
}

constexpr std::uint16_t kCanary = 0x5a5a;
constexpr std::size_t kGuardWords = 256;  // 16-bit words before and after y

template <class T, class L, AtomKind A>
class Checker {
  static constexpr DType kT = dtype_of<T>();
  static constexpr LayoutKind kL = L::kind;

 public:
  explicit Checker(const CheckRequest& rq) : rq_(rq), p_(rq.c.p) {}

  std::vector<Outcome> run() {
    std::vector<Outcome> out;
    if (std::string why = setup(); !why.empty()) {
      Outcome o;
      o.detail = "setup: " + why;
      out.assign(rq_.variants.size(), o);
      return out;
    }
    for (const Variant& v : rq_.variants) out.push_back(run_variant(v));
    return out;
  }

  /// Runs variant 0 three ways; all three outputs must be bitwise identical.
  Outcome stability() {
    Outcome o;
    if (std::string why = setup(); !why.empty()) {
      o.detail = "setup: " + why;
      return o;
    }
    const Conv2dOptions opt = options(rq_.variants.front());
    Plan<T, L, A> plan;
    if (Status s = Plan<T, L, A>::create(plan, p_, opt); !s) return skipped(s);
    DevBuf pk(plan.packed_weight_bytes() + 16), ws(plan.workspace_bytes() + 512);
    if (!pk.ok() || !ws.ok()) return fail(o, "allocation failed");
    if (Status s = plan.prepack(x_or_w(w_), pk.p); !s) return fail(o, s.message());
    const std::size_t yb = std::size_t(ny_) * dtype_bytes(plan.desc().out_type());
    std::vector<std::vector<std::uint8_t>> got;
    rt::stream_t other = nullptr;
    if (rt::error_t e = rt::stream_create(&other); e != rt::success) return fail(o, rt_error(e));
    for (int run = 0; run < 3; ++run) {
      (void)rt::memset(y_, 0xff, yb);
      char* wsp = ws.as<char>() + (run == 2 ? 256 : 0);  // the workspace moved by 256 bytes
      const rt::stream_t st = run == 2 ? other : nullptr;
      if (opt.has_residual) fill_z(plan.desc().out_type());
      if (Status s = plan.run(x_or_w(x_), pk.p, bias_for(opt), y_, wsp, plan.workspace_bytes(), st,
                              opt.has_residual ? z_.p : nullptr);
          !s)
        return fail(o, s.message());
      if (rt::error_t e = rt::synchronize(); e != rt::success) return fail(o, rt_error(e));
      got.emplace_back(yb);
      if (rt::error_t e = rt::memcpy_d2h(got.back().data(), y_, yb); e != rt::success)
        return fail(o, rt_error(e));
    }
    (void)rt::stream_destroy(other);
    o.checked = ny_;
    o.exact = true;
    o.pass = got[0] == got[1] && got[0] == got[2];
    if (!o.pass)
      o.detail =
          got[0] != got[1] ? "two identical runs differ" : "moved workspace / other stream differs";
    return o;
  }

 private:
  static const T* x_or_w(const DevBuf& b) { return b.as<const T>(); }

  Outcome skipped(const Status& s) const {
    Outcome o;
    o.skipped = true;
    o.skip_reason = s.message();
    return o;
  }
  static Outcome fail(Outcome o, const std::string& why) {
    o.pass = false;
    o.detail = why;
    return o;
  }

  Conv2dOptions options(const Variant& v) const {
    Conv2dOptions o;
    o.activation = v.act;
    o.has_residual = v.residual;
    o.alpha = v.alpha;
    o.beta = v.beta;
    o.has_bias = v.bias;
    o.bias_type = v.bias_type;
    o.out_type = v.out;
    o.method = rq_.method;
    o.tile = rq_.tile;
    o.split_k = rq_.split_k;
    o.schedule = rq_.schedule;
    return o;
  }
  /// z_ filled with the residual in output type t (the same values for every variant of a case).
  bool fill_z(DType t) {
    if (!z_.p) return false;
    dev::fill_out<><<<dev::grid(ny_), 256>>>(z_.p, ny_, t, rq_.data, rq_.seed * 2 + 3);
    return rt::get_last_error() == rt::success;
  }
  const void* bias_for(const Conv2dOptions& o) const {
    if (!o.has_bias) return nullptr;
    return o.bias_type == DType::f32 ? b32_.p : b16_.p;
  }

  /// Inputs on the device, the sample of outputs to check, the error scales.
  std::string setup() {
    if (ready_) return {};
    if (Status s = validate_problem(p_); !s) return s.message();
    ny_ = p_.y_elems();
    const std::int64_t nx = p_.x_elems(), nw = p_.w_elems();
    x_ = DevBuf(std::size_t(nx) * 2);
    w_ = DevBuf(std::size_t(nw) * 2);
    b32_ = DevBuf(std::size_t(p_.k) * 4);
    b16_ = DevBuf(std::size_t(p_.k) * 2);
    // guard words sit before and after y (sized for the largest, fp32, output type)
    guard_ = DevBuf(std::size_t(ny_) * 4 + 2 * kGuardWords * 2);
    const bool any_residual = std::any_of(rq_.variants.begin(), rq_.variants.end(),
                                          [](const Variant& v) { return v.residual; });
    z_ = DevBuf(any_residual ? std::size_t(ny_) * 4 : 0);
    if (!x_.ok() || !w_.ok() || !guard_.ok() || !b32_.ok() || !b16_.ok() || !z_.ok())
      return "device allocation failed";
    y_ = guard_.as<std::uint16_t>() + kGuardWords;
    const std::uint32_t seed = rq_.seed;
    const DataKind dk = rq_.data;
    const double crs = double(p_.gemm_k());  // C/G R S: the reduction of one output
    float xs = 1.f, ws = 1.f;
    if (dk == DataKind::real) ws = float(1.0 / std::sqrt(crs));
    if (dk == DataKind::adversarial) {
      xs = kT == DType::f16 ? 1000.f : 30000.f;        // fp16: near Winograd's V range (docs)
      ws = float(std::min(1.0, 4096.0 / (crs * xs)));  // |y| <= 4096: finite in every output type
    }
    dev::fill<><<<dev::grid(nx), 256>>>(x_.as<std::uint16_t>(), nx, kT, dk, seed * 2 + 1, xs);
    dev::fill<><<<dev::grid(nw), 256>>>(w_.as<std::uint16_t>(), nw, kT, dk, seed * 2 + 2, ws);
    std::vector<float> hb(p_.k);
    std::vector<std::uint16_t> hb16(p_.k);
    std::mt19937 g(seed);
    for (std::size_t i = 0; i < hb.size(); ++i) {
      hb[i] = dk == DataKind::ints ? float(int(g() % 7) - 3) * 0.5f
                                   : float(int(g() % 2001) - 1000) * 1e-3f;
      hb16[i] = detail::float_to_bits(kT, hb[i]);
      hb[i] = detail::bits_to_float(kT, hb16[i]);  // both bias types carry the same value
    }
    if (rt::memcpy_h2d(b32_.p, hb.data(), hb.size() * 4) != rt::success ||
        rt::memcpy_h2d(b16_.p, hb16.data(), hb16.size() * 2) != rt::success)
      return "bias upload failed";
    // which outputs to compare: all, or a seeded sample plus the first and last 4096
    count_ = ny_;
    if (ny_ > rq_.max_checked) {
      std::vector<std::int64_t> sel;
      sel.reserve(std::size_t(rq_.max_checked));
      for (std::int64_t i = 0; i < 4096; ++i) sel.push_back(i);
      for (std::int64_t i = ny_ - 4096; i < ny_; ++i) sel.push_back(i);
      std::mt19937_64 r(seed);
      while (std::int64_t(sel.size()) < rq_.max_checked)
        sel.push_back(std::int64_t(r() % std::uint64_t(ny_)));
      count_ = std::int64_t(sel.size());
      sel_ = DevBuf(sel.size() * 8);
      if (!sel_.ok() || rt::memcpy_h2d(sel_.p, sel.data(), sel.size() * 8) != rt::success)
        return "sample upload failed";
    }
    ref_ = DevBuf(std::size_t(count_) * 4);
    s_ = DevBuf(std::size_t(count_) * 4);
    sw_ = DevBuf(std::size_t(count_) * 4);
    err_ = DevBuf(std::size_t(count_) * 4);
    ratio_ = DevBuf(std::size_t(count_) * 4);
    bad_ = DevBuf(std::size_t(count_) * 8);
    nonfinite_ = DevBuf(std::size_t(count_) * 8);
    if (!ref_.ok() || !s_.ok() || !sw_.ok() || !err_.ok() || !ratio_.ok() || !bad_.ok() ||
        !nonfinite_.ok())
      return "device allocation failed (compare buffers)";
    const bool need_sw = can_implement(Method::winograd, p_, kL) &&
                         (is_winograd(rq_.method) || rq_.method == Method::automatic);
    if (rt::error_t e = reference::device_error_scales(
            p_, kT, kL, x_.p, w_.p, nullptr, DType::f32, s_.as<float>(),
            need_sw ? sw_.as<float>() : nullptr, nullptr, sel_.as<std::int64_t>(), count_);
        e != rt::success)
      return "error scales: " + rt_error(e);
    have_sw_ = need_sw;
    ready_ = true;
    return {};
  }

  Outcome run_variant(const Variant& v) {
    Outcome o;
    const Conv2dOptions opt = options(v);
    Plan<T, L, A> plan;
    if (Status s = Plan<T, L, A>::create(plan, p_, opt); !s) {
      if (s.code() == StatusCode::method_not_applicable) return skipped(s);
      return fail(o, "plan: " + s.message());
    }
    const DType out = plan.desc().out_type();
    const bool winograd = is_winograd(plan.method());
    o.exact = rq_.data == DataKind::ints && !winograd;
    if (winograd && !have_sw_)
      return fail(o, "internal: Winograd chosen but no Winograd error scale");
    DevBuf pk(plan.packed_weight_bytes() + 16), ws(plan.workspace_bytes());
    if (!pk.ok() || !ws.ok()) return fail(o, "allocation failed");
    if (Status s = plan.prepack(x_or_w(w_), pk.p); !s) return fail(o, "prepack: " + s.message());
    // poison y (0xff.. is NaN in every output type) and fill the guard bands
    const std::size_t yb = std::size_t(ny_) * dtype_bytes(out);
    std::vector<std::uint16_t> band(kGuardWords, kCanary);
    auto* front = guard_.as<std::uint16_t>();
    auto* back = reinterpret_cast<std::uint16_t*>(static_cast<char*>(y_) + yb);
    if (rt::memcpy_h2d(front, band.data(), kGuardWords * 2) != rt::success ||
        rt::memcpy_h2d(back, band.data(), kGuardWords * 2) != rt::success ||
        rt::memset(y_, 0xff, yb) != rt::success)
      return fail(o, "poison failed");
    // the residual: z_ in the output type; in place, y starts as a copy of it and z is y
    const void* z = nullptr;
    if (v.residual) {
      if (!fill_z(out)) return fail(o, "residual fill failed");
      if (v.in_place && rt::memcpy_d2d(y_, z_.p, yb) != rt::success)
        return fail(o, "residual copy failed");
      z = v.in_place ? y_ : z_.p;
    }
    const Status st =
        plan.run(x_or_w(x_), pk.p, bias_for(opt), y_, ws.p, plan.workspace_bytes(), nullptr, z);
    if (!st) return fail(o, "run: " + st.message());
    // the fp32 reference with the same bias and activation, at the compared outputs
    Conv2dOptions ro = opt;
    ro.out_type = DType::f32;
    if (Status s = reference::device_conv2d(p_, kT, kL, x_.p, w_.p, ro, bias_for(opt), ref_.p,
                                            nullptr, sel_.as<std::int64_t>(), count_,
                                            v.residual ? z_.p : nullptr, out);
        !s)
      return fail(o, "reference: " + s.message());
    dev::CompareParams cp{};
    cp.y = y_;
    cp.out = out;
    cp.sel = sel_.as<std::int64_t>();
    cp.count = count_;
    cp.ref = ref_.as<float>();
    cp.s = s_.as<float>();
    cp.sw = winograd ? sw_.as<float>() : nullptr;
    cp.bias = bias_for(opt);
    cp.z = v.residual ? z_.p : nullptr;
    cp.alpha = v.alpha;
    cp.beta = v.beta;
    cp.bias_type = opt.bias_type;
    cp.in = kT;
    cp.nhwc = kL == LayoutKind::nhwc;
    cp.k = p_.k;
    cp.pq = p_.p() * p_.q();
    cp.c = p_.c;
    cp.crs = p_.gemm_k();
    cp.exact = o.exact;
    cp.winograd = winograd;
    cp.err = err_.as<float>();
    cp.ratio = ratio_.as<float>();
    cp.bad = bad_.as<unsigned long long>();
    cp.nonfinite = nonfinite_.as<unsigned long long>();
    dev::compare<><<<dev::grid(count_), 256>>>(cp);
    if (rt::error_t e = rt::get_last_error(); e != rt::success)
      return fail(o, "compare launch: " + rt_error(e));
    if (rt::error_t e = rt::synchronize(); e != rt::success)
      return fail(o, "kernel error: " + rt_error(e));
    float max_err = 0, max_ratio = 0;
    unsigned long long bad = 0, nonfinite = 0;
    rt::error_t e = reducer_.max(err_.as<float>(), count_, &max_err, nullptr);
    if (e == rt::success) e = reducer_.max(ratio_.as<float>(), count_, &max_ratio, nullptr);
    if (e == rt::success) e = reducer_.sum(bad_.as<unsigned long long>(), count_, &bad, nullptr);
    if (e == rt::success)
      e = reducer_.sum(nonfinite_.as<unsigned long long>(), count_, &nonfinite, nullptr);
    if (e != rt::success) return fail(o, "reduction: " + rt_error(e));
    std::vector<std::uint16_t> f(kGuardWords), b(kGuardWords);
    if (rt::memcpy_d2h(f.data(), front, kGuardWords * 2) != rt::success ||
        rt::memcpy_d2h(b.data(), back, kGuardWords * 2) != rt::success)
      return fail(o, "guard read failed");
    o.guards_ok = std::all_of(f.begin(), f.end(), [](std::uint16_t w) { return w == kCanary; }) &&
                  std::all_of(b.begin(), b.end(), [](std::uint16_t w) { return w == kCanary; });
    o.checked = std::uint64_t(count_);
    o.bad = bad;
    o.nonfinite = nonfinite;
    o.max_abs = max_err;
    o.worst_ratio = max_ratio;
    o.pass = bad == 0 && nonfinite == 0 && o.guards_ok;
    if (!o.pass)
      o.detail = variant_str(v) + " out=" + to_string(out) + ": " + std::to_string(bad) + " of " +
                 std::to_string(count_) + " outside " +
                 (o.exact ? "bitwise equality" : "the bound") + ", " + std::to_string(nonfinite) +
                 " non-finite, max |err| " + std::to_string(max_err) + ", worst err/bound " +
                 std::to_string(max_ratio) + (o.guards_ok ? "" : ", GUARD BAND OVERWRITTEN") +
                 worst_output(out);
    return o;
  }

  /// On failure only: where the worst compared output is, what was written, the reference and
  /// its scale S, so a failure report can be reasoned about without rerunning.
  std::string worst_output(DType out) const {
    std::vector<float> ratio(std::size_t(count_), 0.f);
    if (rt::memcpy_d2h(ratio.data(), ratio_.p, ratio.size() * 4) != rt::success) return "";
    const std::size_t i = std::size_t(std::max_element(ratio.begin(), ratio.end()) - ratio.begin());
    std::int64_t o = std::int64_t(i);
    if (sel_.p && rt::memcpy_d2h(&o, sel_.as<std::int64_t>() + i, 8) != rt::success) return "";
    float ref = 0, s = 0;
    std::uint32_t bits = 0;
    const std::size_t eb = dtype_bytes(out);
    if (rt::memcpy_d2h(&ref, ref_.as<float>() + i, 4) != rt::success ||
        rt::memcpy_d2h(&s, s_.as<float>() + i, 4) != rt::success ||
        rt::memcpy_d2h(&bits, static_cast<const char*>(y_) + std::size_t(o) * eb, eb) !=
            rt::success)
      return "";
    float y;
    if (out == DType::f32)
      std::memcpy(&y, &bits, 4);
    else
      y = detail::bits_to_float(out, std::uint16_t(bits));
    char buf[200];
    std::snprintf(buf, sizeof buf, "; worst at output %lld: y=%.9g (bits 0x%x) ref=%.9g S=%.6g",
                  static_cast<long long>(o), double(y), unsigned(bits), double(ref), double(s));
    return buf;
  }

  const CheckRequest& rq_;
  Conv2dProblem p_;
  bool ready_ = false, have_sw_ = false;
  std::int64_t ny_ = 0, count_ = 0;
  void* y_ = nullptr;  // inside guard_, past the front band
  DevBuf x_, w_, b32_, b16_, guard_, z_, sel_, ref_, s_, sw_, err_, ratio_, bad_, nonfinite_;
  DeviceReducer reducer_;
};

/// Grows a caller-owned device buffer to at least `need` bytes (contents not kept).
inline Status grow(void** p, std::size_t* cap, std::size_t need) {
  if (need <= *cap && (*p != nullptr || need == 0)) return Status::success();
  if (*p) (void)rt::free(*p);
  *p = nullptr;
  *cap = 0;
  if (rt::error_t e = rt::malloc(p, need + 256); e != rt::success) {
    *p = nullptr;
    return {StatusCode::runtime_error, "allocation: " + rt_error(e)};
  }
  *cap = need;
  return Status::success();
}

template <class T, class L, AtomKind A>
Status plan_run(PlanRun& r) {
  Plan<T, L, A> plan;
  if (Status s = Plan<T, L, A>::create(plan, r.p, r.o); !s) return s;
  r.ran = plan.method();
  r.kernels = plan_kernels(plan.desc());
  const std::string own = plan_own_tile(plan.desc());
  r.tile = own.empty() ? kernels::tile_of(plan.desc().tiles, plan.desc().tile).str() : own;
  if (Status s = grow(r.packed, r.packed_cap, plan.packed_weight_bytes()); !s) return s;
  if (Status s = grow(r.workspace, r.workspace_cap, plan.workspace_bytes()); !s) return s;
  if (Status s = plan.prepack(static_cast<const T*>(r.w), *r.packed); !s) return s;
  if (Status s = plan.run(static_cast<const T*>(r.x), *r.packed, r.bias, r.y, *r.workspace,
                          plan.workspace_bytes(), nullptr, r.z);
      !s)
    return s;
  if (rt::error_t e = rt::synchronize(); e != rt::success)
    return {StatusCode::runtime_error, "kernel: " + rt_error(e)};
  return Status::success();
}

template <class T, class L, AtomKind A>
std::vector<Outcome> check_case(const CheckRequest& rq) {
  return Checker<T, L, A>(rq).run();
}
template <class T, class L, AtomKind A>
Outcome check_stability(const CheckRequest& rq) {
  return Checker<T, L, A>(rq).stability();
}

}  // namespace rdnaconv::testing
