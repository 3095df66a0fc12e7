// SPDX-License-Identifier: MIT
/// @file plan_desc.hpp The host half of a plan: validation, method selection and sizes, as pure
/// host code (no runtime), so that the host tests check it without a GPU.
#pragma once

#include <cstddef>
#include <string>

#include "rdnaconv/arch/device_info.hpp"
#include "rdnaconv/methods.hpp"
#include "rdnaconv/router.hpp"
#include "rdnaconv/validate.hpp"

namespace rdnaconv {

/// Whose tile table a plan uses: the device's own for the native atom; the RDNA tables for the
/// emulated RDNA atoms (so the emulation runs the RDNA tiles and pipeline); generic for fma.
constexpr ArchClass tile_family(AtomKind atom, ArchClass device) {
  switch (atom) {
    case AtomKind::native:
      return device;
    case AtomKind::gfx11:
      return ArchClass::rdna3;
    case AtomKind::gfx12:
      return ArchClass::rdna4;
    case AtomKind::fma:
      break;
  }
  return ArchClass::generic;
}

struct PlanDesc {
  Conv2dProblem problem;
  DType dtype = DType::f16;
  LayoutKind layout = LayoutKind::nhwc;
  Conv2dOptions options;
  DeviceInfo device;
  AtomKind atom = AtomKind::native;
  ArchClass tiles = ArchClass::generic;  ///< tile table in use (tile_family)
  kernels::TileKind tile =
      kernels::TileKind::general;   ///< its row that runs (MethodInfo::tile_for)
  Method routed = Method::general;  ///< what the router asked for
  Method method = Method::general;  ///< what runs (routed, or general where routed can't)
  std::string reason;  ///< why this method: forced, or the router's rule (and any fallback)
  std::size_t workspace_bytes = 0;
  std::size_t packed_weight_bytes = 0;
  DType out_type() const { return options.out_type == DType::same ? dtype : options.out_type; }
};

[[nodiscard]] inline Status make_plan_desc(PlanDesc& out, const Conv2dProblem& p, DType dtype,
                                           LayoutKind layout, const Conv2dOptions& o,
                                           const DeviceInfo& dev,
                                           AtomKind atom = AtomKind::native) {
  if (Status s = validate_problem(p); !s) return s;
  if (Status s = validate_types(dtype, o); !s) return s;
  if (!dev.amd && dev.arch < kMinCudaCC)
    return {StatusCode::unsupported_arch, "rdnaconv: NVIDIA compute capability " +
                                              std::to_string(dev.arch) +
                                              " < 80 (rdnaconv needs sm_80+)"};
  const bool emulated = atom == AtomKind::gfx11 || atom == AtomKind::gfx12;
  if (emulated && dev.warp_size != 32)
    return {StatusCode::unsupported_arch,
            "rdnaconv: the emulated RDNA atoms need wave32, device has " +
                std::to_string(dev.warp_size) + " lanes"};
  PlanDesc d;
  d.problem = p;
  d.dtype = dtype;
  d.layout = layout;
  d.options = o;
  if (d.options.bias_type == DType::same)
    d.options.bias_type = dtype;  // resolved once: kernels see f32, f16 or bf16
  d.device = dev;
  d.atom = atom;
  d.tiles = tile_family(atom, dev.family);
  if (o.method != Method::automatic) {
    if (!can_implement(o.method, p, layout, o.x_align))
      return {StatusCode::method_not_applicable,
              std::string("rdnaconv: forced method ") + to_string(o.method) + " cannot implement " +
                  detail::describe(p) + " " + to_string(layout) + ": " +
                  why_not(o.method, p, layout, o.x_align)};
    d.routed = d.method = o.method;
    d.reason = "forced by Conv2dOptions::method";
  } else {
    const Routed r = route_explained(p, layout, d.tiles, dtype);
    d.routed = r.method;
    d.reason = std::string("router (") + to_string(d.tiles) + "): " + r.rule;
    d.method = r.method;
    if (!can_implement(r.method, p, layout, o.x_align)) {
      d.method = Method::general;
      d.reason += "; " + why_not(r.method, p, layout, o.x_align) + ", so general";
    }
  }
  const MethodInfo* mi = find_method(d.method);
  // One launch covers all block tiles in a 1-D grid: its size must fit a 32-bit grid.
  d.tile = mi->tile_for(p, d.tiles);
  const kernels::TileConfig tc = kernels::tile_of(d.tiles, d.tile);
  const std::int64_t rows = is_winograd(d.method) ? winograd_tiles(p) : p.gemm_m();
  if (kernels::ceil_div(rows, tc.block_m) * kernels::ceil_div(p.k, tc.block_n) > 0x7fffffff)
    return {StatusCode::invalid_size, "rdnaconv: problem too large for one launch (" +
                                          std::to_string(rows) + " GEMM rows x " +
                                          std::to_string(p.k) + " filters)"};
  d.workspace_bytes = mi->workspace_bytes(p, layout, d.tiles);
  d.packed_weight_bytes = mi->packed_weight_bytes(p, d.tiles);
  out = d;
  return Status::success();
}

namespace detail {
/// What Plan::prepack() and run() return on a plan that create() never filled (default
/// constructed, or every create() on it failed): plan_not_created, naming the call.
inline Status not_created(const char* call) {
  return {StatusCode::plan_not_created,
          std::string("rdnaconv: Plan::") + call +
              "() on a plan that was never created (Plan::create() was not called or returned an "
              "error: check its Status)"};
}
}  // namespace detail

/// The kernels a plan launches, in order (its family's kernel_names), for describe().
inline std::string plan_kernels(const PlanDesc& d) {
  const MethodInfo* mi = find_method(d.method);
  return mi ? mi->kernel_names(d.layout) : "?";
}

/// What the plan runs, in one line: method, kernels, tile, atom, sizes and why.
inline std::string describe_plan(const PlanDesc& d) {
  const kernels::TileConfig t = kernels::tile_of(d.tiles, d.tile);
  std::string s =
      std::string("method=") + to_string(d.method) + " kernels=[" + plan_kernels(d) + "]";
  s += " tile=" + t.str() + (t.async_copy() ? " (cp.async)" : " (register-staged)");
  s += std::string(" tiles=") + to_string(d.tiles) + " atom=" + to_string(d.atom);
  s += std::string(" ") + to_string(d.dtype) + " " + to_string(d.layout) +
       " out=" + to_string(d.out_type());
  s += " workspace=" + std::to_string(d.workspace_bytes) +
       "B packed=" + std::to_string(d.packed_weight_bytes) + "B";
  s += " problem: " + detail::describe(d.problem);
  s += " reason: " + d.reason;
  return s;
}

}  // namespace rdnaconv
