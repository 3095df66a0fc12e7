// SPDX-License-Identifier: MIT
/// @file static_for.hpp static_for<N>(f): f(std::integral_constant<int, 0>{}) ... f(<N - 1>),
/// unrolled by the front end. For loops that index register arrays and must unroll whatever
/// their body's size: clang declines a `#pragma unroll` whose unrolled size passes its pragma
/// threshold, and a register array indexed in a loop that stays a loop goes to scratch memory
/// (the fused Winograd epilogue on gfx11/gfx12: 528 bytes per lane).
#pragma once

#include <type_traits>
#include <utility>

#include "rdnaconv/arch/macros.hpp"

namespace rdnaconv {
namespace detail {
template <class F, int... I>
RDNACONV_HD RDNACONV_FORCEINLINE void static_for_impl(F& f, std::integer_sequence<int, I...>) {
  (f(std::integral_constant<int, I>{}), ...);
}
}  // namespace detail

/// f is called with each index as a constant; mark f RDNACONV_INLINE_LAMBDA, or a body the
/// inliner finds too large stays a call and what it captures by reference leaves the registers.
template <int N, class F>
RDNACONV_HD RDNACONV_FORCEINLINE void static_for(F&& f) {
  detail::static_for_impl(f, std::make_integer_sequence<int, N>{});
}
}  // namespace rdnaconv
