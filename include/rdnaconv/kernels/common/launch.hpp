// SPDX-License-Identifier: MIT
/// @file launch.hpp The device half of a family's static surface. The host half is the family
/// struct of its *_desc.hpp (method, name, tile kind, can_implement, reads_x_vectors, sizes;
/// the registry rows in methods.hpp); the device half is `Launcher<Family>`, specialised in the
/// family's own folder:
///   template <ArchClass F, DType T, AtomKind A, LayoutKind L>
///   static rt::error_t run(const LaunchArgs&);       // the kernels of one convolution
///   template <DType T, LayoutKind L>
///   static rt::error_t prepack(const PrepackArgs&);  // OIHW weights -> the family's packing
/// The plan (plan.hpp) holds no per-family code: it finds the family of its method in the
/// registry's type list and calls these. Shared pieces for the direct families are below.
#pragma once

#include <cstdint>

#include "rdnaconv/kernels/common/engine.hpp"
#include "rdnaconv/plan_desc.hpp"

namespace rdnaconv::kernels {

/// What a family's run() gets: the plan's description and the call's buffers.
struct LaunchArgs {
  const PlanDesc& d;
  const std::uint16_t* x;       ///< input in the plan's layout
  const std::uint16_t* packed;  ///< prepacked weights
  EpilogueParams epi;
  char* workspace;
  rt::stream_t stream;
};

struct PrepackArgs {
  const PlanDesc& d;
  const std::uint16_t* w;  ///< OIHW
  std::uint16_t* packed;
  rt::stream_t stream;
};

template <class Family>
struct Launcher;  // specialised in each family's folder (*_launch.hpp)

/// A direct family's one engine launch over `a_src` (the input, or its repack) with the
/// family's reduction layout, on the tile row the plan chose (PlanDesc::tile: the family's own,
/// the thin or the small row; all share block_k, hence the packing). vec_x: the general kernel
/// reads 16-byte vectors where the input allows; the tap kernels read vectors only, which
/// can_implement and the alignment contract guarantee (Plan::check_x_alignment). `p`: the
/// problem the engine runs, the plan's own (the overload below) or, after a repack that applied
/// the window, its dense form (cblocked1x1: same N, K and output).
template <class Family, ArchClass F, DType T, AtomKind A, LayoutKind L, class IterTag>
inline rt::error_t run_direct(const LaunchArgs& r, const std::uint16_t* a_src,
                              const Conv2dProblem& p) {
  ConvGemmParams g = make_conv_params(p, Family::layout(p, F));
  g.x = a_src;
  g.wpk = r.packed;
  g.epi = r.epi;
  g.vec_x =
      L == LayoutKind::nhwc && p.c % 8 == 0 && reinterpret_cast<std::uintptr_t>(a_src) % 16 == 0;
  if constexpr (kPadRemap<IterTag>) {
    // The remap kernels exist for the family's main tile and the thin row (thin-K layers: the
    // VAEs' conv_out): make_plan_desc gives a plan with another padding mode neither the small
    // tile nor split-K, so that each family adds two kernels per tile table, type and layout,
    // not four.
    if (r.d.tile == TileKind::thin)
      return launch_conv_gemm<tile_tag<F, TileKind::thin>, T, A, IterTag, L>(g, 1, r.stream);
    return launch_conv_gemm<tile_tag<F, Family::tile_kind>, T, A, IterTag, L>(g, 1, r.stream);
  } else if (r.d.split_steps > 0) {
    // Split-K (PlanDesc::split_k: forced, or the router's small-grid rule; on the family's main
    // tile): fp32 partial sums,
    // one output-shaped slice per grid layer, after the family's own workspace; then
    // splitk_reduce adds them in order and applies the call's epilogue.
    SplitGemmParams sg{};
    static_cast<ConvGemmParams&>(sg) = g;
    auto* part = reinterpret_cast<float*>(r.workspace + r.d.split_offset);
    sg.split_steps = r.d.split_steps;
    sg.split_stride = p.y_elems();
    sg.epi = EpilogueParams{};
    sg.epi.y = part;
    sg.epi.out_type = DType::f32;
    // the split kernels exist for the family's main tile and the small row (make_plan_desc)
    const rt::error_t e =
        r.d.tile == TileKind::small
            ? launch_conv_gemm_splitk<tile_tag<F, TileKind::small>, T, A, IterTag, L>(sg, r.stream)
            : launch_conv_gemm_splitk<tile_tag<F, Family::tile_kind>, T, A, IterTag, L>(sg,
                                                                                        r.stream);
    if (e != rt::success) return e;
    return launch_splitk_reduce(part, r.d.split_k, p.y_elems(), r.epi, int(p.k), p.p() * p.q(), L,
                                r.stream);
  } else {
    if (r.d.tile == TileKind::thin)
      return launch_conv_gemm<tile_tag<F, TileKind::thin>, T, A, IterTag, L>(g, 1, r.stream);
    if (r.d.tile == TileKind::small)
      return launch_conv_gemm<tile_tag<F, TileKind::small>, T, A, IterTag, L>(g, 1, r.stream);
    return launch_conv_gemm<tile_tag<F, Family::tile_kind>, T, A, IterTag, L>(g, 1, r.stream);
  }
}

template <class Family, ArchClass F, DType T, AtomKind A, LayoutKind L, class IterTag>
inline rt::error_t run_direct(const LaunchArgs& r, const std::uint16_t* a_src) {
  return run_direct<Family, F, T, A, L, IterTag>(r, a_src, r.d.problem);
}

/// run_direct with IterTag where the problem pads with zeros, else with its remap form
/// (PadRemapTag): the families whose rule takes every padding mode launch through this.
template <class Family, ArchClass F, DType T, AtomKind A, LayoutKind L, class IterTag>
inline rt::error_t run_direct_padded(const LaunchArgs& r, const std::uint16_t* a_src) {
  if (r.d.problem.pad_mode != PadMode::zeros)
    return run_direct<Family, F, T, A, L, PadRemapTag<IterTag>>(r, a_src);
  return run_direct<Family, F, T, A, L, IterTag>(r, a_src);
}

/// The direct families' prepack: the tap-major packing of layouts.hpp with the family's
/// reduction layout on the plan's tile table.
template <class Family>
inline rt::error_t prepack_tap_major(const PrepackArgs& a) {
  const ConvGemmParams g = make_conv_params(a.d.problem, Family::layout(a.d.problem, a.d.tiles));
  return launch_pack_tap_major(a.w, a.packed, g, a.stream);
}

/// The launcher of a direct family that reads x with iterator IterFor<L> and packs tap-major
/// (gemm1x1, general): Launcher<Family> derives from it. Remaps: the family takes every padding
/// mode (its remap kernels are built); else its rule refuses all but zeros.
template <class Family, template <LayoutKind> class IterFor, bool Remaps = false>
struct DirectLauncher {
  template <ArchClass F, DType T, AtomKind A, LayoutKind L>
  static rt::error_t run(const LaunchArgs& r) {
    if constexpr (Remaps)
      return run_direct_padded<Family, F, T, A, L, IterFor<L>>(r, r.x);
    else
      return run_direct<Family, F, T, A, L, IterFor<L>>(r, r.x);
  }
  template <DType, LayoutKind>
  static rt::error_t prepack(const PrepackArgs& a) {
    return prepack_tap_major<Family>(a);
  }
};

}  // namespace rdnaconv::kernels
