// SPDX-License-Identifier: MIT
/// @file plans.hpp A plan of any input type and layout behind one interface, so that the ops'
/// file (rdnaconv_torch.cu, PyTorch's headers) includes no kernel and the four Plan<T, L>
/// instantiations compile in parallel, one file each (plan_<type>_<layout>.cu, no PyTorch
/// header).
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "rdnaconv/problem.hpp"
#include "rdnaconv/types.hpp"
#include "rdnaconv/validate.hpp"

namespace rdnaconv_torch {

/// rdnaconv::Plan<T, L>'s calls with T erased (x, w and y are T's; stream is the runtime's).
struct AnyPlan {
  virtual ~AnyPlan() = default;
  virtual std::size_t packed_weight_bytes() const = 0;
  virtual std::size_t workspace_bytes() const = 0;
  virtual std::string describe() const = 0;
  virtual rdnaconv::Status prepack(const void* w, void* packed, void* stream) const = 0;
  virtual rdnaconv::Status run(const void* x, const void* packed, const void* bias, void* y,
                               void* workspace, std::size_t workspace_bytes,
                               void* stream) const = 0;
};

using PlanPtr = std::unique_ptr<AnyPlan>;

// One per input type and layout (plan_<type>_<layout>.cu).
PlanPtr make_plan_fp16_nchw(const rdnaconv::Conv2dProblem&, const rdnaconv::Conv2dOptions&, int,
                            rdnaconv::Status&);
PlanPtr make_plan_fp16_nhwc(const rdnaconv::Conv2dProblem&, const rdnaconv::Conv2dOptions&, int,
                            rdnaconv::Status&);
PlanPtr make_plan_bf16_nchw(const rdnaconv::Conv2dProblem&, const rdnaconv::Conv2dOptions&, int,
                            rdnaconv::Status&);
PlanPtr make_plan_bf16_nhwc(const rdnaconv::Conv2dProblem&, const rdnaconv::Conv2dOptions&, int,
                            rdnaconv::Status&);

/// The plan for input type t (f16 or bf16) and layout on `device`; null with `status` set when
/// the library refuses the problem.
inline PlanPtr make_plan(rdnaconv::DType t, bool nhwc, const rdnaconv::Conv2dProblem& p,
                         const rdnaconv::Conv2dOptions& o, int device, rdnaconv::Status& status) {
  if (t == rdnaconv::DType::f16)
    return nhwc ? make_plan_fp16_nhwc(p, o, device, status)
                : make_plan_fp16_nchw(p, o, device, status);
  return nhwc ? make_plan_bf16_nhwc(p, o, device, status)
              : make_plan_bf16_nchw(p, o, device, status);
}

}  // namespace rdnaconv_torch
