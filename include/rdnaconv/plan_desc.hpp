// SPDX-License-Identifier: MIT
/// @file plan_desc.hpp The host half of a plan: validation, method selection and sizes, as pure
/// host code (no runtime), so that the host tests check it without a GPU.
#pragma once

#include <cstddef>
#include <string>

#include "rdnaconv/arch/device_info.hpp"
#include "rdnaconv/methods.hpp"
#include "rdnaconv/router.hpp"
#include "rdnaconv/validate.hpp"

namespace rdnaconv {

struct PlanDesc {
  Conv2dProblem problem;
  DType dtype = DType::f16;
  LayoutKind layout = LayoutKind::nhwc;
  Conv2dOptions options;
  DeviceInfo device;
  Method routed = Method::general;  ///< what the router asked for
  Method method = Method::general;  ///< what runs (routed, or general where routed can't)
  std::size_t workspace_bytes = 0;
  std::size_t packed_weight_bytes = 0;
  DType out_type() const { return options.out_type == DType::same ? dtype : options.out_type; }
};

/// `needs_wave32`: the kernel's atom uses 32-lane shuffles (the emulated RDNA atoms).
inline Status make_plan_desc(PlanDesc& out, const Conv2dProblem& p, DType dtype, LayoutKind layout,
                             const Conv2dOptions& o, const DeviceInfo& dev, bool needs_wave32) {
  if (Status s = validate_problem(p); !s) return s;
  if (Status s = validate_types(dtype, o); !s) return s;
  if (!dev.amd && dev.arch < kMinCudaCC)
    return {StatusCode::unsupported_arch,
            "rdnaconv: NVIDIA compute capability " + std::to_string(dev.arch) + " < 70"};
  if (needs_wave32 && dev.warp_size != 32)
    return {StatusCode::unsupported_arch, "rdnaconv: the emulated RDNA atoms need wave32, device has " +
                                              std::to_string(dev.warp_size) + " lanes"};
  PlanDesc d;
  d.problem = p;
  d.dtype = dtype;
  d.layout = layout;
  d.options = o;
  d.device = dev;
  if (o.method != Method::automatic) {
    if (!can_implement(o.method, p, layout))
      return {StatusCode::method_not_applicable,
              std::string("rdnaconv: forced method ") + to_string(o.method) +
                  " cannot implement " + detail::dims(p) + " " + to_string(layout)};
    d.routed = d.method = o.method;
  } else {
    d.routed = route(p, layout, dev.family);
    d.method = can_implement(d.routed, p, layout) ? d.routed : Method::general;
  }
  switch (d.method) {
    case Method::general:
      d.workspace_bytes = kernels::GeneralFamily::workspace_bytes(p);
      d.packed_weight_bytes = kernels::GeneralFamily::packed_weight_bytes(p, dev.family);
      break;
    default:
      return {StatusCode::method_not_applicable, "rdnaconv: method has no kernel"};
  }
  out = d;
  return Status::success();
}

}  // namespace rdnaconv
