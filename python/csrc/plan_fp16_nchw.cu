// SPDX-License-Identifier: MIT
/// @file plan_fp16_nchw.cu Plan<fp16_t, NCHW> for the PyTorch ops (plans.hpp).
#include "plans_impl.hpp"

namespace rdnaconv_torch {
PlanPtr make_plan_fp16_nchw(const rdnaconv::Conv2dProblem& p, const rdnaconv::Conv2dOptions& o,
                            int device, rdnaconv::Status& status) {
  return make_plan_of<rdnaconv::fp16_t, rdnaconv::NCHW>(p, o, device, status);
}
}  // namespace rdnaconv_torch
