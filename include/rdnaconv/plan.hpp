// SPDX-License-Identifier: MIT
/// @file plan.hpp The plan API: built once from (problem, T, Layout, options, device), it runs the
/// router once, reports its workspace and packed-weight sizes, packs weights into caller-owned
/// memory, and its run() only launches kernels: no allocation, no host synchronisation, so it is
/// safe inside stream/graph capture.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <type_traits>

#include "rdnaconv/arch/platform.hpp"
#include "rdnaconv/kernels/implicit_gemm/implicit_gemm.hpp"
#include "rdnaconv/plan_desc.hpp"

namespace rdnaconv {

template <class T>
constexpr DType dtype_of() {
  if constexpr (std::is_same_v<T, fp16_t>) return DType::f16;
  else if constexpr (std::is_same_v<T, bf16_t>) return DType::bf16;
  else return DType::f32;  // rejected by validation: only fp16 and bf16 inputs
}

namespace detail {
inline Status rt_status(rt::error_t e, const char* what) {
  if (e == rt::success) return Status::success();
  return {StatusCode::runtime_error, std::string("rdnaconv: ") + what + ": " + rt::error_string(e)};
}
}  // namespace detail

/// Reads the device's architecture at run time (host code has no target macros). The answer
/// per device id is cached: it is a fixed property of the device, so it cannot go stale, and
/// the properties query is slow enough to matter in a one-shot call.
inline Status query_device(int device, DeviceInfo& out) {
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
  if (Status s = detail::rt_status(rt::device_arch(device, &arch, name, sizeof name), "device query"); !s)
    return s;
#if defined(RDNACONV_BACKEND_CUDA)
  const bool amd = false;
  int warp = 32;
  if (Status s = detail::rt_status(cudaDeviceGetAttribute(&warp, cudaDevAttrWarpSize, device), "warp size"); !s)
    return s;
#else
  const bool amd = true;
  int warp = 32;
  if (Status s = detail::rt_status(hipDeviceGetAttribute(&warp, hipDeviceAttributeWarpSize, device), "warp size"); !s)
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
/// emulated (tests on NVIDIA), fma the portable fallback.
template <class T, class Layout, AtomKind Atom = AtomKind::native>
class Plan {
  static constexpr DType kT = dtype_of<T>();
  static constexpr LayoutKind kL = Layout::kind;
  static_assert(kT == DType::f16 || kT == DType::bf16, "T must be rdnaconv::fp16_t or rdnaconv::bf16_t");

 public:
  /// Plans for `device` (-1: the current one).
  static Status create(Plan& out, const Conv2dProblem& p, const Conv2dOptions& o = {}, int device = -1) {
    DeviceInfo dev;
    if (Status s = query_device(device, dev); !s) return s;
    return create_for(out, p, o, dev);
  }
  /// Plans for a described device (no runtime call).
  static Status create_for(Plan& out, const Conv2dProblem& p, const Conv2dOptions& o, const DeviceInfo& dev) {
    constexpr bool wave32 = Atom == AtomKind::gfx11 || Atom == AtomKind::gfx12;
    PlanDesc d;
    if (Status s = make_plan_desc(d, p, kT, kL, o, dev, wave32); !s) return s;
    out.desc_ = d;
    out.ready_ = true;
    return Status::success();
  }

  const PlanDesc& desc() const { return desc_; }
  Method method() const { return desc_.method; }
  std::size_t workspace_bytes() const { return desc_.workspace_bytes; }
  std::size_t packed_weight_bytes() const { return desc_.packed_weight_bytes; }

  /// Packs OIHW weights `w` into `packed` (packed_weight_bytes(), 16-byte aligned for the fast
  /// path). Asynchronous on `stream`; the caller owns `packed`.
  Status prepack(const T* w, void* packed, rt::stream_t stream = nullptr) const {
    if (!ready_) return {StatusCode::invalid_size, "rdnaconv: plan not created"};
    if (!w || !packed) return {StatusCode::null_pointer, "rdnaconv: prepack: null pointer"};
    const auto* ws = reinterpret_cast<const std::uint16_t*>(w);
    auto* pk = static_cast<std::uint16_t*>(packed);
    switch (desc_.method) {
      case Method::general: {
        const auto g = kernels::make_gemm_params(desc_.problem, kernels::general_tiles(desc_.device.family).block_k);
        return detail::rt_status(kernels::launch_pack_general(ws, pk, g, stream), "prepack launch");
      }
      default: return {StatusCode::method_not_applicable, "rdnaconv: method has no kernel"};
    }
  }

  /// Launches the convolution. `bias` per filter (type from the options), `y` of the output type.
  Status run(const T* x, const void* packed_w, const void* bias, void* y, void* workspace,
             std::size_t workspace_bytes, rt::stream_t stream = nullptr) const {
    if (!ready_) return {StatusCode::invalid_size, "rdnaconv: plan not created"};
    RunBuffers b{x, packed_w, bias, y, workspace, workspace_bytes};
    if (Status s = validate_buffers(b, desc_.options.has_bias, desc_.workspace_bytes); !s) return s;
    EpilogueParams e;
    e.bias = desc_.options.has_bias ? bias : nullptr;
    e.bias_type = desc_.options.bias_type;
    e.act = desc_.options.activation;
    e.out_type = desc_.out_type();
    e.y = y;
    switch (desc_.method) {
      case Method::general: return run_general(x, packed_w, e, stream);
      default: return {StatusCode::method_not_applicable, "rdnaconv: method has no kernel"};
    }
  }

 private:
  template <class Tiles>
  Status launch_general(kernels::GemmConvParams& g, rt::stream_t stream) const {
    return detail::rt_status(kernels::launch_implicit_gemm<Tiles, kT, kL, Atom>(g, stream), "general launch");
  }
  Status run_general(const T* x, const void* packed_w, const EpilogueParams& e, rt::stream_t stream) const {
    using namespace kernels;
    const TileConfig cfg = general_tiles(desc_.device.family);
    GemmConvParams g = make_gemm_params(desc_.problem, cfg.block_k);
    g.x = reinterpret_cast<const std::uint16_t*>(x);
    g.wpk = static_cast<const std::uint16_t*>(packed_w);
    g.epi = e;
    g.vec_x = kL == LayoutKind::nhwc && desc_.problem.c % 8 == 0 &&
              reinterpret_cast<std::uintptr_t>(x) % 16 == 0;
    g.vec_w = reinterpret_cast<std::uintptr_t>(packed_w) % 16 == 0;
    // One run-time-to-constexpr switch: the architecture family's tile table.
    switch (desc_.device.family) {
      case ArchFamily::rdna3: return launch_general<tile_tag<kGeneralRdna3>>(g, stream);
      case ArchFamily::rdna4: return launch_general<tile_tag<kGeneralRdna4>>(g, stream);
      case ArchFamily::sm80: return launch_general<tile_tag<kGeneralSm80>>(g, stream);
      case ArchFamily::generic: break;
    }
    return launch_general<tile_tag<kGeneralGeneric>>(g, stream);
  }

  PlanDesc desc_;
  bool ready_ = false;
};

}  // namespace rdnaconv
