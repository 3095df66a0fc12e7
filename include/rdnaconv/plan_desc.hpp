// SPDX-License-Identifier: MIT
/// @file plan_desc.hpp The host half of a plan: validation, method selection and sizes, as pure
/// host code (no runtime), so that the host tests check it without a GPU.
#pragma once

#include <algorithm>
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

/// The parts of a split reduction of `steps` block_k steps asked to be split in `want`: each part
/// `steps` steps long but the last, none empty (fewer parts than asked when the reduction is
/// short: 10 steps in 4 give 4 parts of 3, 3, 3, 1; 10 in 6 give 5 of 2).
struct SplitK {
  int parts;
  int steps;
};
constexpr SplitK split_k_parts(std::int64_t steps, int want) {
  if (want <= 1 || steps <= 1) return {1, int(steps)};
  const std::int64_t per = (steps + want - 1) / want;
  return {int((steps + per - 1) / per), int(per)};
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
  /// Split-K (Conv2dOptions::split_k): the reduction's parts (1: none), the block_k steps of
  /// each (0: none; the last part may have fewer), and where the fp32 partial sums start in the
  /// workspace (after the family's own part, 256-byte aligned).
  int split_k = 1;
  int split_steps = 0;
  std::size_t split_offset = 0;
  DType out_type() const { return options.out_type == DType::same ? dtype : options.out_type; }
};

/// Blocks of a tile row over the problem's GEMM (the grid split-K would multiply).
inline std::int64_t tile_blocks(const Conv2dProblem& p, ArchClass tiles, kernels::TileKind tile) {
  const kernels::TileConfig t = kernels::tile_of(tiles, tile);
  return kernels::ceil_div(p.gemm_m(), t.block_m) * kernels::ceil_div(p.k, t.block_n);
}
/// Blocks of the family's main tile over the problem's GEMM.
inline std::int64_t main_tile_blocks(const Conv2dProblem& p, const MethodInfo& mi,
                                     ArchClass tiles) {
  return tile_blocks(p, tiles, mi.tile_kind);
}

/// The router's split-K for a plan (Conv2dOptions::split_k = 0): RouterThresholds' rule on the
/// plan's tile (the family's main row or the small row), 1 where it does not apply (no reduction
/// steps to split: Winograd; the plan runs the thin row; the device's multiprocessor count
/// unknown; the table says never).
inline int auto_split_k(const Conv2dProblem& p, const MethodInfo& mi, kernels::TileKind tile,
                        ArchClass tiles, const RouterThresholds& t, int sms,
                        LayoutKind layout = LayoutKind::nhwc) {
  if (t.split_max_parts < 2 || sms <= 0) return 1;
  if (tile != mi.tile_kind && tile != kernels::TileKind::small) return 1;
  const std::int64_t steps = mi.k_steps(p, tiles);
  const std::int64_t blocks = tile_blocks(p, tiles, tile);
  if (steps <= 0 || blocks >= sms) return 1;
  if (layout == LayoutKind::nchw && mi.method == Method::gemm1x1 &&
      t.split_nchw1x1_min_total_steps > 0 && 2 * blocks <= sms &&
      steps >= t.split_nchw1x1_min_total_steps) {  // NCHW 1x1: the earlier rule
    std::int64_t s = std::min<std::int64_t>(t.split_max_parts, sms / blocks);
    s = std::min<std::int64_t>(s, steps / std::max(t.split_nchw1x1_min_steps, 1));
    return s >= 2 ? int(s) : 1;
  }
  const double per_block = tile == kernels::TileKind::small && t.small_split_min_steps_per_block > 0
                               ? t.small_split_min_steps_per_block
                               : t.split_min_steps_per_block;
  if (steps < t.split_min_total_steps || double(steps) < per_block * double(blocks)) return 1;
  std::int64_t s =
      std::min<std::int64_t>(t.split_max_parts, std::int64_t(t.split_fill) * sms / blocks);
  s = std::min<std::int64_t>(s, steps / std::max(t.split_min_steps, 1));
  return s >= 2 ? int(s) : 1;
}

/// The router's small-tile rule (RouterThresholds::small_below_sm_fraction and the bounds beside
/// it): a direct plan on its main tile whose grid leaves multiprocessors idle and whose work is
/// small enough that more, smaller blocks finish sooner (docs/ROUTER.md "Small tile").
inline bool auto_small_tile(const Conv2dProblem& p, const MethodInfo& mi, kernels::TileKind tile,
                            ArchClass tiles, const RouterThresholds& t, int sms,
                            LayoutKind layout = LayoutKind::nhwc) {
  if (t.small_below_sm_fraction <= 0 || sms <= 0 || tile != mi.tile_kind) return false;
  const std::int64_t steps = mi.k_steps(p, tiles);
  if (steps <= 0) return false;
  if (double(main_tile_blocks(p, mi, tiles)) >= t.small_below_sm_fraction * double(sms))
    return false;
  const double work =
      double(tile_blocks(p, tiles, kernels::TileKind::small)) * double(steps) / double(sms);
  if (t.small_max_block_steps_per_sm > 0 && work > t.small_max_block_steps_per_sm) return false;
  if (t.small_not_for_split_nchw1x1 && layout == LayoutKind::nchw && mi.method == Method::gemm1x1 &&
      auto_split_k(p, mi, tile, tiles, t, sms, layout) >= 2)
    return false;
  return true;
}

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
  if (!mi->runs_on(d.tiles))
    return {StatusCode::method_not_applicable,
            std::string("rdnaconv: forced method ") + to_string(d.method) +
                " does not run on the " + to_string(d.tiles) +
                " tile table (hopper_tma: sm90 only, i.e. a Hopper GPU, a build with sm_90a and "
                "the native atom)"};
  // One launch covers all block tiles in a 1-D grid: its size must fit a 32-bit grid.
  d.tile = mi->tile_for(p, d.tiles);
  // A padding mode other than zeros runs a remap kernel, built for the family's main tile and
  // its thin row, without split-K (kernels/common/launch.hpp, run_direct): two more kernels per
  // family, type and layout instead of four.
  const bool remap = p.pad_mode != PadMode::zeros;
  if (remap && d.tile != kernels::TileKind::thin) d.tile = mi->tile_kind;
  // hopper_tma with tile and schedule automatic: the router's ping-pong rule (version 8), which
  // takes the place of its tall block
  const bool pingpong_auto = !remap && d.method == Method::hopper_tma &&
                             o.schedule == Schedule::automatic && o.tile == TileChoice::automatic &&
                             hopper_pingpong_routed(p, router_thresholds(d.tiles), dev.sms);
  // The tile row: forced (Conv2dOptions::tile; direct engine families only, which are the ones
  // with reduction steps), else the router's small-grid rule.
  const bool direct = mi->k_steps(p, d.tiles) > 0;
  if (o.tile == TileChoice::tall) {  // hopper_tma's 256 x 128 block: a choice inside the family
    if (d.method != Method::hopper_tma)
      return {StatusCode::method_not_applicable,
              std::string("rdnaconv: Conv2dOptions::tile=tall is the hopper_tma family's 256 x "
                          "128 block; the plan's method is ") +
                  to_string(d.method)};
    if (!kernels::hopper_tall_fits(p))
      return {StatusCode::method_not_applicable,
              "rdnaconv: Conv2dOptions::tile=tall (hopper_tma's 256 x 128 block) needs K <= 128, "
              "not K = " +
                  std::to_string(p.k)};
  } else if (o.tile == TileChoice::window) {  // the grouped family's depthwise row window
    if (d.method != Method::grouped)
      return {StatusCode::method_not_applicable,
              std::string("rdnaconv: Conv2dOptions::tile=window is the grouped family's depthwise "
                          "row-window kernel; the plan's method is ") +
                  to_string(d.method)};
    if (!kernels::grouped_window_fits(p, layout))
      return {StatusCode::method_not_applicable,
              "rdnaconv: Conv2dOptions::tile=window (the depthwise row-window kernel) needs NHWC, "
              "K = C = groups with C % 8 == 0, a square 3x3, 5x5 or 7x7 filter, stride 1 or 2 "
              "(the same both ways; 7x7: stride 1), no dilation and zero padding; not " +
                  detail::describe(p) + " " + to_string(layout)};
    if (o.x_align != 16)
      return {StatusCode::method_not_applicable,
              "rdnaconv: Conv2dOptions::tile=window reads x in 16-byte vectors: it needs "
              "Conv2dOptions::x_align = 16, not " +
                  std::to_string(o.x_align)};
  } else if (o.tile == TileChoice::main && d.method == Method::hopper_tma) {
    // hopper_tma's own 128-row block: the choice that keeps the router's tall rule off
  } else if (o.tile != TileChoice::automatic) {
    if (!direct)
      return {StatusCode::method_not_applicable,
              std::string("rdnaconv: Conv2dOptions::tile=") + to_string(o.tile) +
                  " chooses among the direct engine methods' tiles (general, gemm1x1, the 3x3 "
                  "families); the plan's method is " +
                  to_string(d.method) + ", which has its own"};
    if (remap && o.tile == TileChoice::small)
      return {StatusCode::method_not_applicable,
              std::string("rdnaconv: Conv2dOptions::tile=small is not built for pad_mode ") +
                  to_string(p.pad_mode) +
                  " (the remap kernels run the family's main tile or its thin row); leave tile "
                  "automatic or main"};
    d.tile = o.tile == TileChoice::small ? kernels::TileKind::small : mi->tile_kind;
  } else if (!remap && d.method == Method::hopper_tma && o.schedule != Schedule::pingpong &&
             !pingpong_auto && hopper_tall_routed(p, layout, router_thresholds(d.tiles))) {
    d.options.tile = TileChoice::tall;  // what runs: hopper_launch.hpp reads the plan's options
    d.reason += "; tall block";
  } else if (!remap && auto_small_tile(p, *mi, d.tile, d.tiles, router_thresholds(d.tiles), dev.sms,
                                       layout)) {
    d.tile = kernels::TileKind::small;
    d.reason += "; small tile: " + std::to_string(main_tile_blocks(p, *mi, d.tiles)) +
                " main-tile blocks on " + std::to_string(dev.sms) + " multiprocessors";
  }
  // The tile walk: persistent is hopper_tma's (version 6), forced only, and hopper_halo's, which
  // walks only so; what runs is recorded (automatic resolves to per_tile elsewhere), as
  // hopper_launch.hpp reads the plan's options.
  if (o.schedule == Schedule::persistent && d.method != Method::hopper_tma &&
      d.method != Method::hopper_halo)
    return {StatusCode::method_not_applicable,
            std::string("rdnaconv: Conv2dOptions::schedule=persistent is the hopper_tma family's "
                        "tile walk (one block per multiprocessor); the plan's method is ") +
                to_string(d.method)};
  if (o.schedule == Schedule::per_tile && d.method == Method::hopper_halo)
    return {StatusCode::method_not_applicable,
            "rdnaconv: Conv2dOptions::schedule=per_tile: hopper_halo's blocks walk the tiles "
            "(persistent only); leave the schedule automatic"};
  // pingpong (version 8) is hopper_tma's alone and has its own tile (128 x 128 per consumer
  // warpgroup): a forced tall block is refused, the router's tall rule was not applied above.
  if (o.schedule == Schedule::pingpong && d.method != Method::hopper_tma)
    return {StatusCode::method_not_applicable,
            std::string("rdnaconv: Conv2dOptions::schedule=pingpong is the hopper_tma family's "
                        "tile walk (two consumer warpgroups on tiles of their own); the plan's "
                        "method is ") +
                to_string(d.method)};
  if (o.schedule == Schedule::pingpong && o.tile == TileChoice::tall)
    return {StatusCode::method_not_applicable,
            "rdnaconv: Conv2dOptions::schedule=pingpong runs 128 x 128 tiles per consumer "
            "warpgroup, not the tall block; leave tile automatic or main"};
  if (pingpong_auto)
    d.reason +=
        "; ping-pong walk: " + std::to_string(kernels::hopper_geometry(p, false, true).blocks()) +
        " tiles of 128 x 128 on " + std::to_string(dev.sms) + " multiprocessors" +
        (hopper_tall_routed(p, layout, router_thresholds(d.tiles)) ? " (in place of the tall block)"
                                                                   : "");
  d.options.schedule = o.schedule == Schedule::pingpong || pingpong_auto ? Schedule::pingpong
                       : o.schedule == Schedule::persistent || d.method == Method::hopper_halo
                           ? Schedule::persistent
                           : Schedule::per_tile;
  const kernels::TileConfig tc = kernels::tile_of(d.tiles, d.tile);
  const std::int64_t rows = is_winograd(d.method) ? winograd_tiles(p) : p.gemm_m();
  if (kernels::ceil_div(rows, tc.block_m) * kernels::ceil_div(p.k, tc.block_n) > 0x7fffffff)
    return {StatusCode::invalid_size, "rdnaconv: problem too large for one launch (" +
                                          std::to_string(rows) + " GEMM rows x " +
                                          std::to_string(p.k) + " filters)"};
  d.workspace_bytes = mi->workspace_bytes(p, layout, d.tiles);
  d.packed_weight_bytes = mi->packed_weight_bytes(p, d.tiles);
  int want_split = o.split_k;
  if (want_split == 0 && !remap) {  // the plan's choice: the router's rule for small grids
    want_split = auto_split_k(p, *mi, d.tile, d.tiles, router_thresholds(d.tiles), dev.sms, layout);
    if (want_split >= 2)
      d.reason += "; split_k=" + std::to_string(want_split) + ": " +
                  std::to_string(tile_blocks(p, d.tiles, d.tile)) + " blocks on " +
                  std::to_string(dev.sms) + " multiprocessors";
  }
  if (want_split >= 2) {
    if (remap)
      return {StatusCode::method_not_applicable,
              std::string("rdnaconv: Conv2dOptions::split_k=") + std::to_string(want_split) +
                  " is not built for pad_mode " + to_string(p.pad_mode) +
                  " (the remap kernels have no split-K form); leave split_k at 0 or 1"};
    const std::int64_t steps = mi->k_steps(p, d.tiles);
    if (steps == 0)
      return {StatusCode::method_not_applicable,
              std::string("rdnaconv: Conv2dOptions::split_k=") + std::to_string(want_split) +
                  " needs a direct engine method (general, gemm1x1 or a 3x3 family); the plan's "
                  "method is " +
                  to_string(d.method)};
    const SplitK sk = split_k_parts(steps, want_split);
    if (sk.parts > 1) {
      // the split kernels are built for the family's main tile and the small one (not thin)
      if (d.tile != kernels::TileKind::small) d.tile = mi->tile_kind;
      d.split_k = sk.parts;
      d.split_steps = sk.steps;
      d.split_offset = std::size_t(kernels::round_up(std::int64_t(d.workspace_bytes), 256));
      d.workspace_bytes = d.split_offset + std::size_t(sk.parts) * std::size_t(p.y_elems()) * 4;
    }
  }
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
  if (!mi) return "?";
  std::string k = mi->kernel_names(d.problem, d.layout);
  if (d.method == Method::hopper_tma && d.options.schedule == Schedule::persistent)
    k = "hopper_tma_persistent<nhwc>";  // version 6's kernel (hopper_tma.hpp)
  if (d.method == Method::hopper_tma && d.options.schedule == Schedule::pingpong)
    k = "hopper_tma_pingpong<nhwc>";  // version 8's kernel (hopper_tma.hpp)
  if (d.method == Method::grouped && d.options.tile == TileChoice::window)
    k = "grouped_depthwise_window<nhwc>";  // the row window (grouped.hpp)
  if (d.split_k > 1) {  // the split-K engine kernel in place of the plain one, then the reduction
    const std::size_t at = k.find("conv_gemm<");
    if (at != std::string::npos) k.replace(at, 10, "conv_gemm_splitk<");
    k += ", splitk_reduce";
  }
  return k;
}

/// The tile string of a family that tiles itself (MethodInfo::tile_str; hopper_tma's tall block
/// from the plan's options), empty for the engine's rows: what describe() prints and the launch
/// log records.
inline std::string plan_own_tile(const PlanDesc& d) {
  if (d.method == Method::hopper_tma)
    return kernels::HopperTmaFamily::tile_str(d.problem, d.options.tile == TileChoice::tall,
                                              d.options.schedule);
  if (d.method == Method::grouped && d.options.tile == TileChoice::window)
    return kernels::GroupedFamily::tile_str(d.problem, d.layout, true);
  const MethodInfo* mi = find_method(d.method);
  return mi ? mi->tile_str(d.problem, d.layout) : std::string();
}

/// What the plan runs, in one line: method, kernels, tile, atom, sizes and why.
inline std::string describe_plan(const PlanDesc& d) {
  const kernels::TileConfig t = kernels::tile_of(d.tiles, d.tile);
  std::string s =
      std::string("method=") + to_string(d.method) + " kernels=[" + plan_kernels(d) + "]";
  const std::string own = plan_own_tile(d);
  if (!own.empty())
    s += " tile=" + own;
  else
    s += " tile=" + t.str() + (t.async_copy() ? " (cp.async)" : " (register-staged)");
  s += std::string(" tiles=") + to_string(d.tiles) + " atom=" + to_string(d.atom);
  s += std::string(" ") + to_string(d.dtype) + " " + to_string(d.layout) +
       " out=" + to_string(d.out_type());
  if (d.split_k > 1)
    s += " split_k=" + std::to_string(d.split_k) + " (" + std::to_string(d.split_steps) +
         " steps each, fp32 partials in the workspace)";
  s += " workspace=" + std::to_string(d.workspace_bytes) +
       "B packed=" + std::to_string(d.packed_weight_bytes) + "B";
  s += " problem: " + detail::describe(d.problem);
  s += " reason: " + d.reason;
  return s;
}

}  // namespace rdnaconv
