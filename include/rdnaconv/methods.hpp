// SPDX-License-Identifier: MIT
/// @file methods.hpp The method registry: one row per method (family and variant) with its guard,
/// its sizes and its benchmark label (how a method may differ from the direct result: is_winograd).
/// Plan selection, the tests, the check CLI and the benchmarks iterate over this table; adding a
/// method is its family in `Families` below plus its launcher's include in kernels/launchers.hpp,
/// nothing in plan.hpp (docs/DESIGN.md, "Adding a family").
#pragma once

#include <array>
#include <cstddef>
#include <string>

#include "rdnaconv/kernels/conv3x3/conv3x3_desc.hpp"
#include "rdnaconv/kernels/gemm1x1/gemm1x1_desc.hpp"
#include "rdnaconv/kernels/general/general_desc.hpp"
#include "rdnaconv/kernels/grouped/grouped_desc.hpp"
#include "rdnaconv/kernels/hopper/hopper_desc.hpp"
#include "rdnaconv/kernels/hopper/hopper_halo_desc.hpp"
#include "rdnaconv/kernels/winograd/winograd_desc.hpp"
#include "rdnaconv/problem.hpp"
#include "rdnaconv/types.hpp"

namespace rdnaconv {

struct MethodInfo {
  Method method;
  const char* name;             ///< also the benchmark label
  kernels::TileKind tile_kind;  ///< the family's main tile row
  /// The tile row a problem runs on (the direct families: thin for K <= its block_n).
  kernels::TileKind (*tile_for)(const Conv2dProblem&, ArchClass);
  bool (*can_implement)(const Conv2dProblem&, LayoutKind);
  /// The first shape rule the problem breaks (can_implement is "it holds"), for the messages.
  kernels::ShapeRule (*rule)(const Conv2dProblem&, LayoutKind);
  /// Reads x in 16-byte vectors on this layout: the plan then needs Conv2dOptions::x_align >= 16.
  bool (*reads_x_vectors)(LayoutKind);
  /// The kernels a run of the problem launches on this layout, in order (describe(), the launch
  /// log's names).
  std::string (*kernel_names)(const Conv2dProblem&, LayoutKind);
  std::size_t (*packed_weight_bytes)(const Conv2dProblem&, ArchClass);
  std::size_t (*workspace_bytes)(const Conv2dProblem&, LayoutKind, ArchClass);
  /// The engine's reduction steps of block_k on this tile table (the direct families, which
  /// can split them: Conv2dOptions::split_k); 0 for the families that cannot split.
  std::int64_t (*k_steps)(const Conv2dProblem&, ArchClass);
  /// The tile tables it runs on (a family without `runs_on` runs on all of them).
  bool (*runs_on)(ArchClass);
  /// Its tile as describe() prints it, where it is not an engine tile row (empty: the row's
  /// TileConfig::str()).
  std::string (*tile_str)(const Conv2dProblem&, LayoutKind);
};

namespace detail {
template <class F>
constexpr MethodInfo method_row() {
  return {
      F::method,
      F::name(),
      F::tile_kind,
      [](const Conv2dProblem& p, ArchClass f) { return F::tile_for(p, f); },
      [](const Conv2dProblem& p, LayoutKind l) { return F::can_implement(p, l); },
      [](const Conv2dProblem& p, LayoutKind l) { return F::rule(p, l); },
      [](LayoutKind l) { return F::reads_x_vectors(l); },
      [](const Conv2dProblem& p, LayoutKind l) {
        if constexpr (requires { F::kernel_names(p, l); })
          return F::kernel_names(p, l);
        else
          return F::kernel_names(l);
      },
      [](const Conv2dProblem& p, ArchClass f) { return F::packed_weight_bytes(p, f); },
      [](const Conv2dProblem& p, LayoutKind l, ArchClass f) { return F::workspace_bytes(p, l, f); },
      [](const Conv2dProblem& p, ArchClass f) { return F::k_steps(p, f); },
      [](ArchClass f) {
        if constexpr (requires { F::runs_on(f); })
          return F::runs_on(f);
        else
          return true;
      },
      [](const Conv2dProblem& p, LayoutKind l) {
        if constexpr (requires { F::tile_str(p, l); })
          return F::tile_str(p, l);
        else if constexpr (requires { F::tile_str(p); })
          return F::tile_str(p);
        else
          return std::string();
      }};
}
}  // namespace detail

/// A list of family types.
template <class... F>
struct FamilyList {
  static constexpr std::size_t size = sizeof...(F);
  /// Calls fn(F{}) for each family in order; stops at the first that returns true.
  template <class Fn>
  static constexpr bool any(Fn&& fn) {
    return (fn(F{}) || ...);
  }
  static constexpr std::array<MethodInfo, sizeof...(F)> rows() {
    return {detail::method_row<F>()...};
  }
};

/// The registry: every family and variant, one entry each. The plan finds its method's family
/// here and calls its launcher (kernels/launchers.hpp); the tests, the check CLI and the
/// benchmark iterate over kMethods.
using Families =
    FamilyList<kernels::GeneralFamily, kernels::Gemm1x1Family, kernels::Nhwc3x3Family,
               kernels::CBlocked3x3Family, kernels::Nchw3x3Family, kernels::WinogradFamily,
               kernels::WinogradFusedFamily, kernels::HopperTmaFamily, kernels::GroupedFamily,
               kernels::CBlocked1x1Family, kernels::HopperHaloFamily>;

inline constexpr std::array<MethodInfo, Families::size> kMethods = Families::rows();

constexpr const MethodInfo* find_method(Method m) {
  for (const MethodInfo& i : kMethods)
    if (i.method == m) return &i;
  return nullptr;
}

constexpr const MethodInfo* find_method(const char* name) {
  for (const MethodInfo& i : kMethods) {
    const char* a = i.name;
    const char* b = name;
    while (*a && *a == *b) ++a, ++b;
    if (*a == 0 && *b == 0) return &i;
  }
  return nullptr;
}

/// The one place that decides whether a method runs a problem: its shape rule and, for methods
/// that read x in 16-byte vectors, the alignment the caller promises for x (x_align bytes,
/// Conv2dOptions::x_align). A plan runs exactly the method this accepts; nothing downstream
/// swaps kernels.
constexpr bool can_implement(Method m, const Conv2dProblem& p, LayoutKind l, int x_align = 16) {
  const MethodInfo* i = find_method(m);
  return i != nullptr && i->can_implement(p, l) && (x_align >= 16 || !i->reads_x_vectors(l));
}

/// Why can_implement says no, naming the rule and the problem's value: "winograd needs stride 1,
/// got stride=2x1", "nhwc3x3 needs x_align 16 (it reads x in 16-byte vectors), got x_align=2".
/// Empty when it says yes.
inline std::string why_not(Method m, const Conv2dProblem& p, LayoutKind l, int x_align = 16) {
  const MethodInfo* i = find_method(m);
  if (i == nullptr) return std::string("no method ") + to_string(m) + " in the registry";
  if (const kernels::ShapeRule r = i->rule(p, l); !r.holds())
    return std::string(i->name) + " " + kernels::explain(r);
  if (x_align < 16 && i->reads_x_vectors(l))
    return std::string(i->name) +
           " needs x_align 16 (it reads x in 16-byte vectors), got x_align=" +
           std::to_string(x_align);
  return {};
}

}  // namespace rdnaconv
