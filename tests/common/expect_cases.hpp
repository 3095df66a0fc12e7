// SPDX-License-Identifier: MIT
/// @file expect_cases.hpp The GoogleTest side of the harness shared by the device suites that run
/// a list of cases through one configuration (test_families.cpp, test_padmodes.cpp,
/// test_small_tile.cpp, the test_hopper_*.cpp suites).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "common/check.hpp"

namespace rdnaconv::testing {

/// Runs each case of `cases` that `method` can implement on `layout` (every case for the router,
/// Method::automatic) through the harness entry `e`, one seed per case from `seed`, and records
/// a GoogleTest failure for each variant that is skipped or fails; stops after the first failing
/// case (the useful one). `tile`, `split_k` and `schedule` go to every plan's options. Returns
/// the number of variants compared.
inline int expect_cases_pass(const CheckEntry& e, const std::vector<Case>& cases, Method method,
                             LayoutKind layout, DataKind data, const std::vector<Variant>& variants,
                             unsigned seed, TileChoice tile = TileChoice::automatic,
                             int split_k = 0, Schedule schedule = Schedule::automatic) {
  int checked = 0;
  for (const Case& c : cases) {
    if (method != Method::automatic && !can_implement(method, c.p, layout)) continue;
    CheckRequest rq;
    rq.c = c;
    rq.method = method;
    rq.data = data;
    rq.seed = seed++;
    rq.variants = variants;
    rq.tile = tile;
    rq.split_k = split_k;
    rq.schedule = schedule;
    for (const Outcome& o : e.check(rq)) {
      EXPECT_FALSE(o.skipped) << c.what << " " << describe(c.p) << ": " << o.skip_reason;
      if (o.skipped) continue;
      ++checked;
      EXPECT_TRUE(o.pass) << c.what << " " << describe(c.p) << " seed=" << rq.seed
                          << " data=" << to_string(data) << ": " << o.detail;
    }
    if (::testing::Test::HasFailure()) break;
  }
  return checked;
}

/// The Hopper suites' reference check (native atom, NHWC): `cases` through `method` with `tile`
/// and `schedule`, fp16 then bf16, the standard 8 epilogue variants each: integer data bit for
/// bit against the device reference (seeds from `seed_ints`), then real data against the
/// tolerance model (from `seed_real`). Stops at the first failure.
inline void expect_nhwc_cases_pass_both_types(const std::vector<Case>& cases, Method method,
                                              unsigned seed_ints, unsigned seed_real,
                                              TileChoice tile = TileChoice::automatic,
                                              Schedule schedule = Schedule::automatic) {
  for (DType t : {DType::f16, DType::bf16}) {
    SCOPED_TRACE(to_string(t));
    const CheckEntry e = check_entry(t, LayoutKind::nhwc, AtomKind::native);
    if (e.check == nullptr) {
      ADD_FAILURE() << "no harness entry for " << to_string(t) << " nhwc native";
      return;
    }
    const int n = expect_cases_pass(e, cases, method, LayoutKind::nhwc, DataKind::ints,
                                    standard_variants(t), seed_ints, tile, 0, schedule);
    EXPECT_GE(n, int(cases.size()) * 8);
    if (::testing::Test::HasFailure()) return;
    expect_cases_pass(e, cases, method, LayoutKind::nhwc, DataKind::real, standard_variants(t),
                      seed_real, tile, 0, schedule);
    if (::testing::Test::HasFailure()) return;
  }
}

/// The Hopper suites' launch-log check (bf16, NHWC, native atom): each case's plan with options
/// `o` launches pack_tap_major, then `kernel`, which describe() names too; the launch log holds
/// one tile, describe()'s, which contains `tile_part` (at its start where `at_start`).
/// `scratch_elems`: elements of each of x, w and y that every case must fit.
inline void expect_hopper_launches(const std::vector<Case>& cases, const Conv2dOptions& o,
                                   const std::string& kernel, const std::string& tile_part,
                                   std::size_t scratch_elems, bool at_start = false) {
  PlanScratch b(scratch_elems);
  ASSERT_TRUE(b.ok());
  const CheckEntry e = check_entry(DType::bf16, LayoutKind::nhwc, AtomKind::native);
  ASSERT_NE(e.plan_run, nullptr);
  for (const Case& c : cases) {
    ASSERT_LE(std::size_t(std::max({c.p.x_elems(), c.p.w_elems(), c.p.y_elems()})), b.elems);
    PlanRun r;
    r.p = c.p;
    r.o = o;
    b.attach(r);
    std::vector<std::string> kernels, tiles;
    const Status s = plan_run_logged(e, r, kernels, tiles);
    ASSERT_TRUE(s.ok()) << c.what << " " << describe(c.p) << ": " << s.message();
    ASSERT_EQ(kernels.size(), 2u) << c.what;
    EXPECT_EQ(kernels[0], "pack_tap_major") << c.what;
    EXPECT_EQ(kernels[1], kernel) << c.what;
    EXPECT_EQ(r.kernels, kernel) << c.what;  // what describe() names
    ASSERT_EQ(tiles.size(), 1u) << c.what;
    EXPECT_EQ(tiles[0], r.tile) << c.what;
    if (at_start)
      EXPECT_EQ(r.tile.rfind(tile_part, 0), 0u) << c.what << ": " << r.tile;
    else
      EXPECT_NE(r.tile.find(tile_part), std::string::npos) << c.what << ": " << r.tile;
  }
}

}  // namespace rdnaconv::testing
