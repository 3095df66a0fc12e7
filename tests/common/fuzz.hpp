// SPDX-License-Identifier: MIT
/// @file fuzz.hpp The property test: seeded random problems over the whole valid domain (any
/// padding up to 2R + 1 per side, asymmetric; H, W from 1; strides and dilations per axis; C and
/// K from 1 to a few hundred; N from 1 to 9), every method that can implement each problem, on
/// the public plan API, against the float64 host reference and the tolerance model
/// (reference/error_bound.hpp), with guard bands around y. A failing case is shrunk to a
/// minimal one and printed as a ready-to-paste edge-list entry (common/cases.hpp).
/// Used by the device suite (device/test_fuzz.cpp, a bounded count) and by
/// `rdnaconv_check --mode fuzz --seed S --count N` for long runs.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/check.hpp"

namespace rdnaconv::testing {

/// One run: a problem, where it runs, the epilogue and the data.
struct FuzzCase {
  Conv2dProblem p;
  DType type = DType::f16;
  LayoutKind layout = LayoutKind::nhwc;
  AtomKind atom = AtomKind::native;
  Method method = Method::general;  ///< forced; automatic = the router
  Variant v;
  DataKind data = DataKind::ints;
  std::uint64_t seed = 1;  ///< data seed
};

struct FuzzOptions {
  std::uint64_t seed = 1;
  std::int64_t count = 100;     ///< runs per method (each run: one case on one atom)
  std::vector<Method> methods;  ///< empty: every registry method and the router
  std::vector<DType> types{DType::f16, DType::bf16};
  std::vector<LayoutKind> layouts{LayoutKind::nchw, LayoutKind::nhwc};
  std::vector<AtomKind> atoms;  ///< empty: native and, where built, the emulated gfx11 / gfx12
  double max_seconds = 0;       ///< stop early after this long (0: no limit)
  int max_failures = 5;         ///< stop after this many distinct failures (each is shrunk)
  std::function<void(const std::string&)> log;  ///< progress lines (may be empty)
};

struct FuzzFailure {
  FuzzCase original, minimal;
  std::string detail;      ///< what the minimal case got wrong
  std::string edge_entry;  ///< ready to paste into edge_cases()
};

struct FuzzReport {
  std::vector<std::pair<Method, std::int64_t>> runs;  ///< runs per method
  std::int64_t cases = 0;                             ///< distinct problems generated
  std::int64_t outputs = 0;                           ///< outputs compared
  double worst_ratio = 0;  ///< largest |error| / bound over tolerance-checked outputs
  std::vector<FuzzFailure> failures;
  bool stopped_early = false;
};

/// A random problem in the domain of `target` (its filter size and stride/dilation rules),
/// otherwise over the whole valid domain; always valid (validate_problem) and small enough
/// for the host reference.
Conv2dProblem fuzz_problem(std::uint64_t& rng, Method target, LayoutKind layout);

/// Runs one case; empty string when it passes, else what went wrong. `outputs` and
/// `worst_ratio` are updated when non-null.
std::string fuzz_run(const FuzzCase& c, std::int64_t* outputs = nullptr,
                     double* worst_ratio = nullptr);

/// Shrinks a failing case (fewer images, channels, filters, pixels, padding; unit strides and
/// dilations; the plainest epilogue) while it still fails.
FuzzCase fuzz_shrink(const FuzzCase& failing, std::string& detail);

/// The edge-list entry reproducing the problem of `c`.
std::string fuzz_edge_entry(const FuzzCase& c);

/// One line naming the whole case (problem, type, layout, atom, method, epilogue, data, seed).
std::string fuzz_describe(const FuzzCase& c);

FuzzReport fuzz(const FuzzOptions& o);

}  // namespace rdnaconv::testing
