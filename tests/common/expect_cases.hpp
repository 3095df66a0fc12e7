// SPDX-License-Identifier: MIT
/// @file expect_cases.hpp The GoogleTest side of the harness shared by the device suites that run
/// a list of cases through one configuration (test_families.cpp, test_padmodes.cpp,
/// test_small_tile.cpp).
#pragma once

#include <gtest/gtest.h>

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

}  // namespace rdnaconv::testing
