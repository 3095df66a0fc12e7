// SPDX-License-Identifier: MIT
/// @file consumer.cpp Builds against the package's host-side headers (no GPU runtime needed).
#include <cstdio>

#include "rdnaconv/plan_desc.hpp"

int main() {
  using namespace rdnaconv;
  PlanDesc d;
  const Status s = make_plan_desc(d, make_problem(1, 128, 64, 64, 128, 3, 3, 1, 1), DType::bf16,
                                  LayoutKind::nhwc, {}, make_device_info(true, 1201, 32));
  std::printf("consumer: %s, routed %s, runs %s, packed weights %zu bytes\n",
              s.ok() ? "ok" : s.message().c_str(), to_string(d.routed), to_string(d.method),
              d.packed_weight_bytes);
  return s.ok() ? 0 : 1;
}
