// SPDX-License-Identifier: MIT
/// @file plan_fp16_nhwc.cu Plan<fp16_t, NHWC> for the PyTorch ops (plans.hpp).
#include "plans_impl.hpp"

namespace rdnaconv_torch {
PlanPtr make_plan_fp16_nhwc(const rdnaconv::Conv2dProblem& p, const rdnaconv::Conv2dOptions& o,
                            int device, rdnaconv::Status& status) {
  return make_plan_of<rdnaconv::fp16_t, rdnaconv::NHWC>(p, o, device, status);
}
}  // namespace rdnaconv_torch
