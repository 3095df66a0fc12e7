// SPDX-License-Identifier: MIT
/// @file shape_rule.hpp The first shape rule of a method that a problem breaks: what the method
/// needs and what the problem has. A family's can_implement is "its rule holds", and
/// method_not_applicable's message names the broken rule and the value ("winograd needs stride
/// 1, got stride=2x1"). Host code only, no runtime headers.
#pragma once

#include <cstdint>
#include <string>

#include "rdnaconv/problem.hpp"

namespace rdnaconv::kernels {

struct ShapeRule {
  const char* needs = nullptr;  ///< what the method needs; nullptr: every rule holds
  const char* what = "";        ///< the quantity the problem has ("stride", "C", "layout")
  std::int64_t a = 0, b = 0;    ///< its value; b is the second of a pair (height x width)
  bool pair = false;
  const char* text = nullptr;  ///< a value that is not a number (a layout's name)
  constexpr bool holds() const { return needs == nullptr; }
};

/// The rule `needs` is broken by the value v of `what`.
constexpr ShapeRule broken(const char* needs, const char* what, std::int64_t v) {
  return {needs, what, v, 0, false, nullptr};
}
/// ... by the pair a x b (height x width: stride, dilation, filter size).
constexpr ShapeRule broken(const char* needs, const char* what, std::int64_t a, std::int64_t b) {
  return {needs, what, a, b, true, nullptr};
}
/// ... by a named value (a layout).
constexpr ShapeRule broken(const char* needs, const char* what, const char* text) {
  return {needs, what, 0, 0, false, text};
}

/// The first rule of every family but `grouped`: a dense convolution (groups 1), so that
/// "general needs groups 1, got groups=4" names why a grouped problem goes elsewhere.
constexpr ShapeRule dense_rule(const Conv2dProblem& p) {
  return p.groups != 1 ? broken("groups 1", "groups", p.groups) : ShapeRule{};
}

/// The padding rule of a family that has no remap kernel (PadRemapTag, iterators.hpp): its
/// kernels read the padding as zeros, so another PadMode breaks it; `needs` says why.
constexpr ShapeRule zeros_padding_rule(const Conv2dProblem& p, const char* needs) {
  return p.pad_mode != PadMode::zeros ? broken(needs, "pad_mode", to_string(p.pad_mode))
                                      : ShapeRule{};
}

/// What a remap kernel's name adds to its iterator's (PadRemapTag::name): " remap" where the
/// problem pads other than with zeros, for the kernel_names of the families that have one.
inline std::string remap_suffix(const Conv2dProblem& p) {
  return p.pad_mode != PadMode::zeros ? " remap" : "";
}

/// "needs <rule>, got <what>=<value>"; empty when the rule holds.
inline std::string explain(const ShapeRule& r) {
  if (r.holds()) return {};
  std::string got = r.text != nullptr ? std::string(r.text) : std::to_string(r.a);
  if (r.pair) got += "x" + std::to_string(r.b);
  return std::string("needs ") + r.needs + ", got " + r.what + "=" + got;
}

}  // namespace rdnaconv::kernels
