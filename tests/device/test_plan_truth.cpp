// SPDX-License-Identifier: MIT
/// @file test_plan_truth.cpp What a plan names is what runs: for every method, every layout it
/// runs on, every atom, and every shape of the edge list and of the model tables it can
/// implement (and the router on all of them), the kernels launched (detail::LaunchLog, named by
/// each launcher from its kernel's own template arguments) equal the prepack kernel followed by
/// the kernels describe() names, and the one matrix-unit kernel ran on the tile describe()
/// names (the thin row for K <= its block_n, tiles.hpp). Buffers are not initialised: only the
/// launches are checked.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "common/check.hpp"
#include "rdnaconv/arch/platform.hpp"
#include "rdnaconv/detail/launch_log.hpp"
#include "rdnaconv/plan_desc.hpp"

using namespace rdnaconv;
using namespace rdnaconv::testing;

namespace {

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& k : v) s += (s.empty() ? "" : ", ") + k;
  return s;
}

struct Buffers {
  void *x = nullptr, *w = nullptr, *bias = nullptr, *y = nullptr, *packed = nullptr,
       *work = nullptr;
  std::size_t packed_cap = 0, work_cap = 0;
  ~Buffers() {
    for (void* p : {x, w, bias, y, packed, work})
      if (p) (void)rt::free(p);
  }
};

}  // namespace

TEST(PlanTruth, LaunchedKernelsAreTheOnesDescribeNames) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  std::vector<Case> cases = edge_cases();
  for (const Case& c : model_cases(1)) cases.push_back(c);
  std::int64_t max_x = 0, max_w = 0, max_y = 0, max_k = 0;
  for (const Case& c : cases) {
    max_x = std::max(max_x, c.p.x_elems());
    max_w = std::max(max_w, c.p.w_elems());
    max_y = std::max(max_y, c.p.y_elems());
    max_k = std::max(max_k, c.p.k);
  }
  Buffers b;
  ASSERT_EQ(rt::malloc(&b.x, std::size_t(max_x) * 2), rt::success);
  ASSERT_EQ(rt::malloc(&b.w, std::size_t(max_w) * 2), rt::success);
  ASSERT_EQ(rt::malloc(&b.bias, std::size_t(max_k) * 4), rt::success);
  ASSERT_EQ(rt::malloc(&b.y, std::size_t(max_y) * 4), rt::success);
  const std::vector<AtomKind> atoms = built_atoms();
  std::vector<Method> methods = {Method::automatic};
  for (const MethodInfo& m : kMethods) methods.push_back(m.method);
  int checked = 0;
  for (AtomKind a : atoms)
    for (LayoutKind l : {LayoutKind::nhwc, LayoutKind::nchw}) {
      const CheckEntry e = check_entry(DType::bf16, l, a);
      ASSERT_NE(e.plan_run, nullptr);
      for (Method m : methods)
        for (const Case& c : cases) {
          if (m != Method::automatic && !can_implement(m, c.p, l)) continue;
          if (!method_runs_here(m, a)) continue;  // hopper_tma off the sm90 table
          // the model tables on the native atom only (the emulated atoms are slow on big layers)
          if (a != AtomKind::native && c.what.find('/') != std::string::npos) continue;
          PlanRun r;
          r.p = c.p;
          r.o.method = m;
          r.o.has_bias = true;
          r.x = b.x;
          r.w = b.w;
          r.bias = b.bias;
          r.y = b.y;
          r.packed = &b.packed;
          r.packed_cap = &b.packed_cap;
          r.workspace = &b.work;
          r.workspace_cap = &b.work_cap;
          detail::LaunchLog log;
          Status s;
          {
            detail::ScopedLaunchLog scope(log);
            s = e.plan_run(r);
          }
          ASSERT_TRUE(s.ok()) << c.what << " " << describe(c.p) << ": " << s.message();
          const char* prepack = is_winograd(r.ran)         ? "winograd_filter_transform"
                                : r.ran == Method::grouped ? "pack_grouped"
                                                           : "pack_tap_major";
          const std::string want = std::string(prepack) + ", " + r.kernels;
          EXPECT_EQ(joined(log.kernels), want)
              << to_string(m) << " " << to_string(l) << " " << to_string(a) << " " << c.what << " "
              << describe(c.p);
          // one matrix-unit kernel per run, on the tile describe() names
          EXPECT_EQ(joined(log.tiles), r.tile)
              << to_string(m) << " " << to_string(l) << " " << to_string(a) << " " << c.what << " "
              << describe(c.p);
          if (m != Method::automatic) EXPECT_EQ(r.ran, m);
          ++checked;
        }
    }
  EXPECT_GT(checked, 1000);
}
