// SPDX-License-Identifier: MIT
/// @file plan.hpp The plan API: built once from (problem, T, Layout, options, device), it runs the
/// router once, reports its workspace and packed-weight sizes, packs weights into caller-owned
/// memory, and its run() only launches kernels: no allocation, no host synchronisation, so it is
/// safe inside stream/graph capture.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <type_traits>

#include "rdnaconv/arch/platform.hpp"
#include "rdnaconv/kernels/common/engine.hpp"
#include "rdnaconv/kernels/conv3x3/repack.hpp"
#include "rdnaconv/kernels/winograd/winograd.hpp"
#include "rdnaconv/kernels/winograd/winograd_fused.hpp"
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

/// Reads the device's architecture at run time (host code has no target macros). The answer
/// per device id is cached: it is a fixed property of the device, so it cannot go stale, and
/// the properties query is slow enough to matter in a one-shot call.
[[nodiscard]] inline Status query_device(int device, DeviceInfo& out) {
  if (device < 0)
    if (Status s = detail::rt_status(rt::get_device(&device), "no current device"); !s) return s;
  static std::atomic<std::uint32_t> cache[64];  // 0 = unknown; else amd<<31 | warp<<24 | arch
  if (device < 64) {
    const std::uint32_t c = cache[device].load(std::memory_order_relaxed);
    if (c) {
      out = make_device_info((c >> 31) != 0, int(c & 0xffffffu), int((c >> 24) & 0x7fu));
      return Status::success();
    }
  }
  int arch = 0;
  char name[64];
  if (Status s =
          detail::rt_status(rt::device_arch(device, &arch, name, sizeof name), "device query");
      !s)
    return s;
#if defined(RDNACONV_BACKEND_CUDA)
  const bool amd = false;
  int warp = 32;
  if (Status s = detail::rt_status(cudaDeviceGetAttribute(&warp, cudaDevAttrWarpSize, device),
                                   "warp size");
      !s)
    return s;
#else
  const bool amd = true;
  int warp = 32;
  if (Status s = detail::rt_status(hipDeviceGetAttribute(&warp, hipDeviceAttributeWarpSize, device),
                                   "warp size");
      !s)
    return s;
#endif
  out = make_device_info(amd, arch, warp);
  if (device < 64)
    cache[device].store((amd ? 1u << 31 : 0u) | (std::uint32_t(warp & 0x7f) << 24) |
                            (std::uint32_t(arch) & 0xffffffu),
                        std::memory_order_relaxed);
  return Status::success();
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
    if (!ready_) return {StatusCode::invalid_size, "rdnaconv: plan not created"};
    if (!w || !packed) return {StatusCode::null_pointer, "rdnaconv: prepack: null pointer"};
    if (reinterpret_cast<std::uintptr_t>(packed) % 16 != 0)
      return {StatusCode::misaligned, "rdnaconv: prepack: packed weights must be 16-byte aligned"};
    const auto* ws = reinterpret_cast<const std::uint16_t*>(w);
    auto* pk = static_cast<std::uint16_t*>(packed);
    const Conv2dProblem& p = desc_.problem;
    if (is_winograd(desc_.method)) {
      // the same c_pad the run uses (winograd_layout), from the plan's tile table; both
      // variants share U
      const int c_pad =
          int(kernels::winograd_layout(p, kL, kernels::WinogradFamily::block_k(desc_.tiles)).c_pad);
      return detail::rt_status(
          kernels::launch_winograd_filter<kT>(ws, pk, int(p.k), int(p.c), c_pad, stream),
          "prepack launch");
    }
    const kernels::ConvGemmParams g = kernels::make_conv_params(p, reduction_layout());
    return detail::rt_status(kernels::launch_pack_tap_major(ws, pk, g, stream), "prepack launch");
  }

  /// Launches the convolution: kernels only (no allocation, no synchronisation). `bias` per
  /// filter (type from the options), `y` of the output type, `workspace` of workspace_bytes().
  [[nodiscard]] Status run(const T* x, const void* packed_w, const void* bias, void* y,
                           void* workspace, std::size_t workspace_bytes,
                           rt::stream_t stream = nullptr) const {
    if (!ready_) return {StatusCode::invalid_size, "rdnaconv: plan not created"};
    const RunBuffers b{x, packed_w, bias, y, workspace, workspace_bytes};
    if (Status s = validate_buffers(b, desc_.options, kT, desc_.workspace_bytes); !s) return s;
    if (Status s = check_x_alignment(x); !s) return s;
    EpilogueParams e;
    e.bias = desc_.options.has_bias ? bias : nullptr;
    e.bias_type = desc_.options.bias_type;
    e.act = desc_.options.activation;
    e.out_type = desc_.out_type();
    e.y = y;
    const Run r{reinterpret_cast<const std::uint16_t*>(x),
                static_cast<const std::uint16_t*>(packed_w), e, static_cast<char*>(workspace),
                stream};
    return with_tiles([&](auto tag) { return run_method<decltype(tag)::value>(r); });
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

  struct Run {
    const std::uint16_t* x;
    const std::uint16_t* packed;
    EpilogueParams epi;
    char* workspace;
    rt::stream_t stream;
  };
  template <ArchFamily F>
  using family_c = std::integral_constant<ArchFamily, F>;

  /// The one run-time-to-constexpr switch of a launch: the tile table. Only tables this build
  /// can use are instantiated (RDNA tables on HIP, sm80 on CUDA; emulated atoms: their RDNA table).
  template <class Fn>
  Status with_tiles(Fn&& fn) const {
    if constexpr (Atom == AtomKind::gfx11) {
      return fn(family_c<ArchFamily::rdna3>{});
    } else if constexpr (Atom == AtomKind::gfx12) {
      return fn(family_c<ArchFamily::rdna4>{});
    } else if constexpr (Atom == AtomKind::fma) {
      return fn(family_c<ArchFamily::generic>{});
    } else {
#if defined(RDNACONV_BACKEND_CUDA)
      if (desc_.tiles == ArchFamily::sm80) return fn(family_c<ArchFamily::sm80>{});
#else
      if (desc_.tiles == ArchFamily::rdna3) return fn(family_c<ArchFamily::rdna3>{});
      if (desc_.tiles == ArchFamily::rdna4) return fn(family_c<ArchFamily::rdna4>{});
#endif
      return fn(family_c<ArchFamily::generic>{});
    }
  }

  kernels::ReductionLayout reduction_layout() const {
    const Conv2dProblem& p = desc_.problem;
    switch (desc_.method) {
      case Method::general:
        return kernels::GeneralFamily::layout(p, desc_.tiles);
      case Method::gemm1x1:
        return kernels::Gemm1x1Family::layout(p, desc_.tiles);
      default:
        return kernels::Nhwc3x3Family::layout(p, desc_.tiles);  // all 3x3 variants
    }
  }

  template <ArchFamily F, kernels::TileKind K, class IterTag, LayoutKind OutL>
  static Status launch_engine(const kernels::ConvGemmParams& g, int batches, rt::stream_t stream) {
    using Tiles = kernels::tile_tag<F, K>;
    return detail::rt_status(
        kernels::launch_conv_gemm<Tiles, kT, Atom, IterTag, OutL>(g, batches, stream),
        "kernel launch");
  }

  /// Direct families: one engine launch over the input (or its repack `a_src`). The NHWC tap
  /// iterators read 16-byte vectors only, which can_implement (C % 8 == 0) and the alignment
  /// contract (check_x_alignment) guarantee; the general kernel reads vectors where it can.
  template <ArchFamily F, kernels::TileKind K, class IterTag>
  Status run_direct(const Run& r, const std::uint16_t* a_src) const {
    using namespace kernels;
    ConvGemmParams g = make_conv_params(desc_.problem, reduction_layout());
    g.x = a_src;
    g.wpk = r.packed;
    g.epi = r.epi;
    g.vec_x = kL == LayoutKind::nhwc && desc_.problem.c % 8 == 0 &&
              reinterpret_cast<std::uintptr_t>(a_src) % 16 == 0;
    return launch_engine<F, K, IterTag, kL>(g, 1, r.stream);
  }

  template <ArchFamily F>
  Status run_method(const Run& r) const {
    using namespace kernels;
    const Conv2dProblem& p = desc_.problem;
    constexpr InLayout kIn = kL == LayoutKind::nhwc ? InLayout::nhwc : InLayout::nchw;
    switch (desc_.method) {
      case Method::general:
        return run_direct<F, TileKind::general, GeneralIterTag<kL>>(r, r.x);
      case Method::gemm1x1:
        return run_direct<F, TileKind::gemm1x1, TapIterTag<kIn, true>>(r, r.x);
      case Method::nhwc3x3:
        if constexpr (kL == LayoutKind::nhwc)
          return run_direct<F, TileKind::conv3x3, TapIterTag<InLayout::nhwc, false>>(r, r.x);
        break;
      case Method::nchw3x3:
        if constexpr (kL == LayoutKind::nchw)
          return run_direct<F, TileKind::conv3x3, TapIterTag<InLayout::nchw, false>>(r, r.x);
        break;
      case Method::cblocked3x3:
        if constexpr (kL == LayoutKind::nchw) {
          constexpr int BK = tile_of(F, TileKind::conv3x3).block_k;
          auto* xc = reinterpret_cast<std::uint16_t*>(r.workspace);
          const int c_pad = int(Nhwc3x3Family::layout(p, F).c_pad);
          if (Status s = detail::rt_status(
                  launch_repack_nchwc<BK>(r.x, xc, int(p.n), int(p.c), c_pad, p.h * p.w, r.stream),
                  "repack launch");
              !s)
            return s;
          return run_direct<F, TileKind::conv3x3, TapIterTag<InLayout::nchwc, false>>(r, xc);
        }
        break;
      case Method::winograd:
        return run_winograd<F>(r, false);
      case Method::winograd_fused:
        return run_winograd<F>(r, true);
      case Method::automatic:
        break;
    }
    return {
        StatusCode::method_not_applicable,
        std::string("rdnaconv: no kernel for ") + to_string(desc_.method) + " on " + to_string(kL)};
  }

  /// Winograd: [repack (NCHW)] -> input transform -> 36 batched GEMMs -> output transform;
  /// fused: [repack] -> input transform -> one GEMM kernel with the output transform folded in.
  template <ArchFamily F>
  Status run_winograd(const Run& r, bool fused) const {
    using namespace kernels;
    constexpr int BK = tile_of(F, TileKind::winograd).block_k;
    const Conv2dProblem& p = desc_.problem;
    const WinogradLayout wl = winograd_layout(p, kL, BK, !fused);
    WinogradParams wp{};
    wp.n = int(p.n);
    wp.c = int(p.c);
    wp.h = int(p.h);
    wp.w = int(p.w);
    wp.k = int(p.k);
    wp.p = int(p.p());
    wp.q = int(p.q());
    wp.pad_top = int(p.pad_top);
    wp.pad_left = int(p.pad_left);
    wp.c_pad = int(wl.c_pad);
    wp.tiles_h = int(wl.tiles_h);
    wp.tiles_w = int(wl.tiles_w);
    wp.tiles = wl.tiles;
    wp.x = r.x;
    wp.v = reinterpret_cast<std::uint16_t*>(r.workspace + wl.v_off);
    wp.m = fused ? nullptr : reinterpret_cast<float*>(r.workspace + wl.m_off);
    wp.epi = r.epi;
    if constexpr (kL == LayoutKind::nchw) {
      auto* xc = reinterpret_cast<std::uint16_t*>(r.workspace + wl.repack_off);
      if (Status s = detail::rt_status(
              launch_repack_nchwc<BK>(r.x, xc, wp.n, wp.c, wp.c_pad, p.h * p.w, r.stream),
              "repack launch");
          !s)
        return s;
      wp.x = xc;
      if (Status s = detail::rt_status(launch_winograd_input<kT, InLayout::nchwc, BK>(wp, r.stream),
                                       "input transform");
          !s)
        return s;
    } else {
      if (Status s = detail::rt_status(launch_winograd_input<kT, InLayout::nhwc, BK>(wp, r.stream),
                                       "input transform");
          !s)
        return s;
    }
    if (fused)
      return detail::rt_status(
          launch_winograd_fused<tile_tag<F, TileKind::winograd_fused>, kT, Atom, kL>(wp, r.packed,
                                                                                     r.stream),
          "kernel launch");
    ConvGemmParams g{};
    g.k = wp.k;
    g.p = g.q = 1;
    g.c_pad = g.k_total = wp.c_pad;
    g.m = wl.tiles;
    g.x = wp.v;
    g.wpk = r.packed;
    g.epi.y = wp.m;
    g.epi.out_type = DType::f32;
    g.a_batch_stride = wl.tiles * wl.c_pad;
    g.b_batch_stride = p.k * wl.c_pad;
    g.out_batch_stride = wl.tiles * p.k;
    if (Status s = launch_engine<F, TileKind::winograd, WinogradIterTag, LayoutKind::nhwc>(
            g, 36, r.stream);
        !s)
      return s;
    return detail::rt_status(launch_winograd_output<kL>(wp, r.stream), "output transform");
  }

  PlanDesc desc_;
  bool ready_ = false;
};

}  // namespace rdnaconv
