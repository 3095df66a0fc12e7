// SPDX-License-Identifier: MIT
/// @file test_fuzz.cpp The property test in the device suite: a bounded number of seeded random
/// runs per method (every method that can implement each problem, the three atoms, both types
/// and layouts) against the float64 host reference (common/fuzz.hpp). A failure prints the
/// shrunk case as an edge-list entry. Longer runs: `rdnaconv_check --mode fuzz`.
#include <gtest/gtest.h>

#include "common/fuzz.hpp"

using namespace rdnaconv;
using namespace rdnaconv::testing;

TEST(Fuzz, EveryMethodAgainstHostReference) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  FuzzOptions o;
  o.seed = 20261203u;
  o.count = 240;  // runs per method, over 1-3 atoms
  o.max_failures = 3;
  const FuzzReport r = fuzz(o);
  for (const auto& [m, n] : r.runs) EXPECT_GE(n, o.count) << to_string(m);
  for (const FuzzFailure& f : r.failures)
    ADD_FAILURE() << fuzz_describe(f.original) << "\n  minimal: " << fuzz_describe(f.minimal)
                  << "\n  " << f.detail << "\n  edge entry: " << f.edge_entry;
  EXPECT_GT(r.outputs, 0);
}

/// The problem an independent check found (issue 12): a 3x3 image padded by 4 on every side,
/// so that whole 4x4 output tiles and most of the others lie in pure padding. Every method,
/// the router and every epilogue, both types, both layouts, every atom.
TEST(Fuzz, PaddingBeyondTheFiltersReach) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  const Conv2dProblem p = make_problem(1, 16, 3, 3, 8, 3, 3, 1, 4);
  const std::vector<AtomKind> atoms = built_atoms();
  std::vector<Method> methods = {Method::automatic};
  for (const MethodInfo& m : kMethods) methods.push_back(m.method);
  int runs = 0;
  for (DType t : {DType::f16, DType::bf16})
    for (LayoutKind l : {LayoutKind::nchw, LayoutKind::nhwc})
      for (AtomKind a : atoms)
        for (Method m : methods) {
          if (m != Method::automatic && !can_implement(m, p, l)) continue;
          if (!method_runs_here(m, a)) continue;  // hopper_tma off the sm90 table
          for (DataKind d : {DataKind::ints, DataKind::real})
            for (const Variant& v : standard_variants(t)) {
              FuzzCase c;
              c.p = p;
              c.type = t;
              c.layout = l;
              c.atom = a;
              c.method = m;
              c.v = v;
              c.data = d;
              c.seed = 1000u + unsigned(runs);
              ++runs;
              const std::string why = fuzz_run(c);
              EXPECT_TRUE(why.empty()) << fuzz_describe(c) << ": " << why;
            }
        }
  EXPECT_GT(runs, 0);
}
