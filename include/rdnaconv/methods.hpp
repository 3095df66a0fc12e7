// SPDX-License-Identifier: MIT
/// @file methods.hpp The method registry: one row per method (family and variant) with its guard,
/// its tolerance class and its benchmark label. Router fall-through, the tests and the
/// benchmarks iterate over this table; adding a method is one row here plus its kernel.
#pragma once

#include <array>
#include <cstddef>

#include "rdnaconv/kernels/implicit_gemm/implicit_gemm_desc.hpp"
#include "rdnaconv/problem.hpp"
#include "rdnaconv/types.hpp"

namespace rdnaconv {

/// How a method's result may differ from the direct convolution (see docs/DESIGN.md).
enum class ToleranceClass : std::uint8_t { direct, winograd };

struct MethodInfo {
  Method method;
  const char* name;
  bool built;  ///< false: the family is routed to but not implemented yet, so it falls through
  ToleranceClass tolerance;
  bool (*can_implement)(const Conv2dProblem&, LayoutKind);
};

namespace detail {
constexpr bool never(const Conv2dProblem&, LayoutKind) { return false; }
constexpr bool general_ok(const Conv2dProblem& p, LayoutKind l) {
  return kernels::GeneralFamily::can_implement(p, l);
}
}  // namespace detail

inline constexpr std::array<MethodInfo, 5> kMethods{{
    {Method::general, "general", true, ToleranceClass::direct, &detail::general_ok},
    {Method::gemm1x1, "gemm1x1", false, ToleranceClass::direct, &detail::never},
    {Method::cblocked3x3, "cblocked3x3", false, ToleranceClass::direct, &detail::never},
    {Method::nhwc3x3, "nhwc3x3", false, ToleranceClass::direct, &detail::never},
    {Method::winograd, "winograd", false, ToleranceClass::winograd, &detail::never},
}};

constexpr const MethodInfo* find_method(Method m) {
  for (const MethodInfo& i : kMethods)
    if (i.method == m) return &i;
  return nullptr;
}

constexpr bool can_implement(Method m, const Conv2dProblem& p, LayoutKind l) {
  const MethodInfo* i = find_method(m);
  return i != nullptr && i->built && i->can_implement(p, l);
}

}  // namespace rdnaconv
