// SPDX-License-Identifier: MIT
/// @file test_families.cpp Every method of the registry x fp16/bf16 x its layouts x {native,
/// emulated gfx11, emulated gfx12} atoms, against the device reference (common/check_impl.hpp):
///   EdgeList   the annotated edge list (cases the method can implement), 8 epilogue variants
///              (every activation, and a residual z in place and apart: cases.hpp)
///   Random100  100 seeded random shapes the method can implement, 8 variants each
///   Epilogue   6 activations x {no, fp32, T} bias x 3 output types, then 6 residual variants
///              (alpha, beta, in place), on two shapes
///   RealData   uniform real data, checked against the tolerance model (docs/DESIGN.md)
///   Stability  same input twice, then moved workspace and another stream: bitwise equal
/// Integer data make direct methods exact (bitwise comparison); Winograd and real data use the
/// deterministic error bound. Outputs are NaN-poisoned and guarded. Skipped without a GPU.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/check.hpp"
#include "common/expect_cases.hpp"

using namespace rdnaconv;
using namespace rdnaconv::testing;

namespace {

struct Config {
  Method method;
  DType type;
  LayoutKind layout;
  AtomKind atom;
};

std::vector<Config> configs() {
  std::vector<Config> out;
  const std::vector<AtomKind> atoms = built_atoms();
  for (const MethodInfo& m : kMethods)
    for (LayoutKind l : {LayoutKind::nhwc, LayoutKind::nchw}) {
      if (!method_runs_on(m.method, l))
        continue;  // layout-bound variants (nhwc3x3, nchw3x3, cblocked3x3)
      for (DType t : {DType::f16, DType::bf16})
        for (AtomKind a : atoms)
          // a family bound to the device's own tile table (hopper_tma) has no emulated form
          if (a == AtomKind::native || m.runs_on(ArchClass::rdna3))
            out.push_back({m.method, t, l, a});
    }
  return out;
}

std::string config_name(const ::testing::TestParamInfo<Config>& i) {
  const Config& c = i.param;
  std::string n = std::string(to_string(c.method)) + "_" +
                  (c.type == DType::f16 ? "Fp16" : "Bf16") +
                  (c.layout == LayoutKind::nhwc ? "Nhwc" : "Nchw") + "_" + to_string(c.atom);
  return n;
}

class Family : public ::testing::TestWithParam<Config> {
 protected:
  void SetUp() override {
    if (!have_gpu()) GTEST_SKIP() << "no GPU";
    if (!method_runs_here(GetParam().method, GetParam().atom))
      GTEST_SKIP() << to_string(GetParam().method) << " does not run on this GPU's tile table";
    entry_ = check_entry(GetParam().type, GetParam().layout, GetParam().atom);
    ASSERT_NE(entry_.check, nullptr) << "configuration not built";
  }

  /// Runs the cases, records per-case failures, returns the number of variants checked.
  int run_cases(const std::vector<Case>& cases, DataKind data, const std::vector<Variant>& variants,
                unsigned seed0) {
    return expect_cases_pass(entry_, cases, GetParam().method, GetParam().layout, data, variants,
                             seed0);
  }

  CheckEntry entry_;
};

}  // namespace

TEST_P(Family, EdgeList) {
  const int n = run_cases(edge_cases(), DataKind::ints, standard_variants(GetParam().type), 1000);
  EXPECT_GT(n, 0) << "no edge case applies to this method";
}

TEST_P(Family, Random100) {
  const unsigned seed = 20261202u + unsigned(GetParam().method) * 1000u;
  const int n = run_cases(random_cases(GetParam().method, GetParam().layout, seed, 100),
                          DataKind::ints, standard_variants(GetParam().type), seed);
  EXPECT_EQ(n, 100 * 8);
}

TEST_P(Family, Epilogue) {
  std::vector<Case> cases;
  for (const Case& c : random_cases(GetParam().method, GetParam().layout, 77, 2))
    cases.push_back(c);
  run_cases(cases, DataKind::ints, all_variants(GetParam().type), 500);
}

TEST_P(Family, RealData) {
  run_cases(random_cases(GetParam().method, GetParam().layout, 4242, 10), DataKind::real,
            standard_variants(GetParam().type), 900);
}

TEST_P(Family, Stability) {
  const auto cases = random_cases(GetParam().method, GetParam().layout, 99, 3);
  for (const Case& c : cases) {
    CheckRequest rq;
    rq.c = c;
    rq.method = GetParam().method;
    rq.data = DataKind::real;
    rq.variants = {Variant{Activation::gelu, true, DType::f32, DType::same}};
    const Outcome o = entry_.stability(rq);
    EXPECT_TRUE(o.pass) << describe(c.p) << ": " << o.detail;
  }
}

INSTANTIATE_TEST_SUITE_P(Methods, Family, ::testing::ValuesIn(configs()), config_name);
