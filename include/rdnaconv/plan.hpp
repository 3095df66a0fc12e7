// SPDX-License-Identifier: MIT
/// @file plan.hpp The plan API: built once from (problem, T, Layout, options, device), it runs the
/// router once, reports its workspace and packed-weight sizes, packs weights into caller-owned
/// memory, and its run() only launches kernels: no allocation, no host synchronisation, so it is
/// safe inside stream/graph capture.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <type_traits>

#include "rdnaconv/arch/device_query.hpp"
#include "rdnaconv/arch/platform.hpp"
#include "rdnaconv/kernels/launchers.hpp"
#include "rdnaconv/plan_desc.hpp"

namespace rdnaconv {

template <class T>
constexpr DType dtype_of() {
  if constexpr (std::is_same_v<T, fp16_t>)
    return DType::f16;
  else if constexpr (std::is_same_v<T, bf16_t>)
    return DType::bf16;
  else
    return DType::f32;  // rejected by validation: only fp16 and bf16 inputs
}

namespace detail {
/// RDNACONV_LOG=1 in the environment: every plan prints what describe() says to stderr when it
/// is created. Read once per process; off, it costs one test of a static.
inline bool log_enabled() {
  static const bool on = [] {
    const char* v = std::getenv("RDNACONV_LOG");
    return v != nullptr && v[0] != '\0' && !(v[0] == '0' && v[1] == '\0');
  }();
  return on;
}

[[nodiscard]] inline Status rt_status(rt::error_t e, const char* what) {
  if (e == rt::success) return Status::success();
  return {StatusCode::runtime_error, std::string("rdnaconv: ") + what + ": " + rt::error_string(e)};
}
}  // namespace detail

/// The device's facts for planning (arch/device_query.hpp: one cached query per device).
[[nodiscard]] inline Status query_device(int device, DeviceInfo& out) {
  return detail::rt_status(arch::query_device(device, out), "device query");
}

/// A planned convolution for input type T (fp16_t or bf16_t) and Layout (NCHW or NHWC).
/// Atom picks the matrix atom: native for users; gfx11/gfx12 run the RDNA fragment layouts
/// (and the RDNA tiles and pipeline) emulated, for tests on NVIDIA; fma the portable fallback.
template <class T, class Layout, AtomKind Atom = AtomKind::native>
class Plan {
  static constexpr DType kT = dtype_of<T>();
  static constexpr LayoutKind kL = Layout::kind;
  static_assert(kT == DType::f16 || kT == DType::bf16,
                "T must be rdnaconv::fp16_t or rdnaconv::bf16_t");

 public:
  /// Plans for `device` (-1: the current one).
  [[nodiscard]] static Status create(Plan& out, const Conv2dProblem& p, const Conv2dOptions& o = {},
                                     int device = -1) {
    DeviceInfo dev;
    if (Status s = query_device(device, dev); !s) return s;
    return create_for(out, p, o, dev);
  }
  /// Plans for a described device (no runtime call).
  [[nodiscard]] static Status create_for(Plan& out, const Conv2dProblem& p, const Conv2dOptions& o,
                                         const DeviceInfo& dev) {
    PlanDesc d;
    if (Status s = make_plan_desc(d, p, kT, kL, o, dev, Atom); !s) return s;
    out.desc_ = d;
    out.ready_ = true;
    if (detail::log_enabled())
      std::fprintf(stderr, "rdnaconv: plan %s\n", describe_plan(out.desc_).c_str());
    return Status::success();
  }

  const PlanDesc& desc() const { return desc_; }
  /// What run() launches: method, kernels, tile, atom, workspace and packed bytes, and why the
  /// router chose it (plan_desc.hpp, describe_plan). Empty before create().
  std::string describe() const { return ready_ ? describe_plan(desc_) : std::string(); }
  Method method() const { return desc_.method; }
  std::size_t workspace_bytes() const { return desc_.workspace_bytes; }
  std::size_t packed_weight_bytes() const { return desc_.packed_weight_bytes; }

  /// Packs OIHW weights `w` into `packed` (packed_weight_bytes(), 16-byte aligned). Asynchronous
  /// on `stream`; the caller owns `packed`.
  [[nodiscard]] Status prepack(const T* w, void* packed, rt::stream_t stream = nullptr) const {
    if (!ready_) return detail::not_created("prepack");
    if (!w || !packed) return {StatusCode::null_pointer, "rdnaconv: prepack: null pointer"};
    if (reinterpret_cast<std::uintptr_t>(packed) % 16 != 0)
      return {StatusCode::misaligned, "rdnaconv: prepack: packed weights must be 16-byte aligned"};
    const kernels::PrepackArgs a{desc_, reinterpret_cast<const std::uint16_t*>(w),
                                 static_cast<std::uint16_t*>(packed), stream};
    return for_family(
        [&](auto fam) { return kernels::Launcher<decltype(fam)>::template prepack<kT, kL>(a); },
        "prepack launch");
  }

  /// Launches the convolution: kernels only (no allocation, no synchronisation). `bias` per
  /// filter (type from the options), `y` of the output type, `workspace` of workspace_bytes(),
  /// `z` the residual (Conv2dOptions::has_residual: y's shape, layout and type; may be y).
  [[nodiscard]] Status run(const T* x, const void* packed_w, const void* bias, void* y,
                           void* workspace, std::size_t workspace_bytes,
                           rt::stream_t stream = nullptr, const void* z = nullptr) const {
    if (!ready_) return detail::not_created("run");
    const RunBuffers b{x, packed_w, bias, y, workspace, workspace_bytes, z};
    if (Status s = validate_buffers(b, desc_.options, kT, desc_.workspace_bytes); !s) return s;
    if (Status s = validate_aliasing(b, desc_.problem, desc_.options, kT, desc_.packed_weight_bytes,
                                     desc_.workspace_bytes);
        !s)
      return s;
    if (Status s = check_x_alignment(x); !s) return s;
    EpilogueParams e;
    e.z = desc_.options.has_residual ? z : nullptr;
    e.alpha = desc_.options.alpha;
    e.beta = desc_.options.beta;
    e.bias = desc_.options.has_bias ? bias : nullptr;
    e.bias_type = desc_.options.bias_type;
    e.act = desc_.options.activation;
    e.out_type = e.z_type = desc_.out_type();
    e.y = y;
    const kernels::LaunchArgs r{desc_,
                                reinterpret_cast<const std::uint16_t*>(x),
                                static_cast<const std::uint16_t*>(packed_w),
                                e,
                                static_cast<char*>(workspace),
                                stream};
    return for_family(
        [&](auto fam) {
          return with_tiles([&](auto tag) {
            return kernels::Launcher<decltype(fam)>::template run<decltype(tag)::value, kT, Atom,
                                                                  kL>(r);
          });
        },
        "kernel launch");
  }

 private:
  /// The alignment contract (Conv2dOptions::x_align): a method that reads x in 16-byte vectors
  /// is planned only for x_align = 16, and then an x off that alignment is refused, not sent to
  /// another kernel behind the plan's back.
  Status check_x_alignment(const T* x) const {
    const MethodInfo* mi = find_method(desc_.method);
    const auto a = reinterpret_cast<std::uintptr_t>(x);
    if (a % std::uintptr_t(desc_.options.x_align) != 0)
      return {StatusCode::misaligned, "rdnaconv: x is not aligned to Conv2dOptions::x_align = " +
                                          std::to_string(desc_.options.x_align) + " bytes"};
    if (mi && mi->reads_x_vectors(kL) && a % 16 != 0)
      return {StatusCode::misaligned,
              std::string("rdnaconv: ") + to_string(desc_.method) +
                  " reads x in 16-byte vectors and x is not 16-byte aligned"};
    return Status::success();
  }

  template <ArchClass F>
  using family_c = std::integral_constant<ArchClass, F>;

  /// The one run-time-to-constexpr switch of a launch: the tile table. Only tables this build
  /// can use are instantiated (RDNA tables on HIP, sm80 on CUDA; emulated atoms: their RDNA table).
  template <class Fn>
  auto with_tiles(Fn&& fn) const -> decltype(fn(family_c<ArchClass::generic>{})) {
    if constexpr (Atom == AtomKind::gfx11) {
      return fn(family_c<ArchClass::rdna3>{});
    } else if constexpr (Atom == AtomKind::gfx12) {
      return fn(family_c<ArchClass::rdna4>{});
    } else if constexpr (Atom == AtomKind::fma) {
      return fn(family_c<ArchClass::generic>{});
    } else {
#if defined(RDNACONV_BACKEND_CUDA)
      if (desc_.tiles == ArchClass::sm80) return fn(family_c<ArchClass::sm80>{});
#if defined(RDNACONV_SM90A)
      if (desc_.tiles == ArchClass::sm90) return fn(family_c<ArchClass::sm90>{});
#endif
#else
      if (desc_.tiles == ArchClass::rdna3) return fn(family_c<ArchClass::rdna3>{});
      if (desc_.tiles == ArchClass::rdna4) return fn(family_c<ArchClass::rdna4>{});
#endif
      return fn(family_c<ArchClass::generic>{});
    }
  }

  /// Calls fn(Family{}) for the family of the plan's method (the registry's type list, no
  /// per-family switch here); its launcher's error becomes a Status naming `what`.
  template <class Fn>
  Status for_family(Fn&& fn, const char* what) const {
    rt::error_t e = rt::success;
    const bool found = Families::any([&](auto fam) {
      if (decltype(fam)::method != desc_.method) return false;
      e = fn(fam);
      return true;
    });
    if (!found)
      return {StatusCode::method_not_applicable,
              std::string("rdnaconv: no launcher for ") + to_string(desc_.method)};
    return detail::rt_status(e, what);
  }

  PlanDesc desc_;
  bool ready_ = false;
};

}  // namespace rdnaconv
