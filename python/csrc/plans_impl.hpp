// SPDX-License-Identifier: MIT
/// @file plans_impl.hpp AnyPlan over rdnaconv::Plan<T, L> (included by plan_<type>_<layout>.cu).
#pragma once

#include "plans.hpp"
#include "rdnaconv/conv2d.hpp"

namespace rdnaconv_torch {

template <class T, class L>
class PlanOf final : public AnyPlan {
 public:
  rdnaconv::Plan<T, L> plan;
  std::size_t packed_weight_bytes() const override { return plan.packed_weight_bytes(); }
  std::size_t workspace_bytes() const override { return plan.workspace_bytes(); }
  std::string describe() const override { return plan.describe(); }
  rdnaconv::Status prepack(const void* w, void* packed, void* stream) const override {
    return plan.prepack(static_cast<const T*>(w), packed, rdnaconv::rt::stream_t(stream));
  }
  rdnaconv::Status run(const void* x, const void* packed, const void* bias, void* y, void* ws,
                       std::size_t ws_bytes, void* stream) const override {
    return plan.run(static_cast<const T*>(x), packed, bias, y, ws, ws_bytes,
                    rdnaconv::rt::stream_t(stream));
  }
};

template <class T, class L>
PlanPtr make_plan_of(const rdnaconv::Conv2dProblem& p, const rdnaconv::Conv2dOptions& o, int device,
                     rdnaconv::Status& status) {
  auto out = std::make_unique<PlanOf<T, L>>();
  status = rdnaconv::Plan<T, L>::create(out->plan, p, o, device);
  if (!status.ok()) return nullptr;
  return out;
}

}  // namespace rdnaconv_torch
