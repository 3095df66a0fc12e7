// SPDX-License-Identifier: MIT
/// @file conv2d.hpp The one-call entry point. Include this; everything else comes with it.
///
///   rdnaconv::Conv2dProblem p = rdnaconv::make_problem(1, 128, 512, 512, 128, 3, 3, 1, 1);
///   std::size_t ws = 0;
///   auto st = rdnaconv::conv2d_workspace_bytes<rdnaconv::bf16_t, rdnaconv::NHWC>(p, {}, &ws);
///   ... allocate ws bytes once ...
///   st = rdnaconv::conv2d<rdnaconv::bf16_t, rdnaconv::NHWC>(p, x, w, nullptr, y, work, ws,
///   stream);
///
/// The one-shot call packs the weights into the workspace on every call; for repeated calls
/// with the same weights build a Plan and prepack once.
#pragma once

#include <cstddef>
#include <cstdint>

#include "rdnaconv/plan.hpp"
#include "rdnaconv/problem.hpp"
#include "rdnaconv/types.hpp"

namespace rdnaconv {

namespace detail {
/// The one-shot call keeps the packed weights at the start of its workspace, rounded to 256 bytes
/// so that the plan's own workspace after them stays aligned.
template <class PlanT>
std::size_t one_shot_packed_bytes(const PlanT& plan) {
  return std::size_t(kernels::round_up(std::int64_t(plan.packed_weight_bytes()), 256));
}
}  // namespace detail

/// Workspace the one-shot conv2d needs: the plan's workspace plus room for packed weights.
template <class T, class Layout>
[[nodiscard]] Status conv2d_workspace_bytes(const Conv2dProblem& p, const Conv2dOptions& o,
                                            std::size_t* bytes, int device = -1) {
  if (!bytes) return {StatusCode::null_pointer, "rdnaconv: bytes is null"};
  Plan<T, Layout> plan;
  if (Status s = Plan<T, Layout>::create(plan, p, o, device); !s) return s;
  *bytes = detail::one_shot_packed_bytes(plan) + plan.workspace_bytes();
  return Status::success();
}

/// y = act(alpha conv(x, w) + bias + beta z). x in Layout, w OIHW (K, C, R, S), y in Layout of
/// the output type (options.out_type, default T); z (options.has_residual) like y, or y itself.
/// Asynchronous on `stream`; allocates nothing.
template <class T, class Layout>
[[nodiscard]] Status conv2d(const Conv2dProblem& p, const T* x, const T* w, const void* bias,
                            void* y, void* workspace, std::size_t workspace_bytes,
                            rt::stream_t stream = nullptr, const Conv2dOptions& o = {},
                            int device = -1, const void* z = nullptr) {
  Plan<T, Layout> plan;
  if (Status s = Plan<T, Layout>::create(plan, p, o, device); !s) return s;
  const std::size_t packed = detail::one_shot_packed_bytes(plan);
  // All buffers are checked before the prepack launch, so an error launches nothing. The packed
  // weights live at the start of the workspace.
  if (w == nullptr) return {StatusCode::null_pointer, "rdnaconv: w is null"};
  if (reinterpret_cast<std::uintptr_t>(w) % 2 != 0)
    return {StatusCode::misaligned, "rdnaconv: w is not 2-byte aligned"};
  if (workspace == nullptr)
    return {StatusCode::null_pointer,
            "rdnaconv: workspace is null (the one-shot call packs the weights into it)"};
  const RunBuffers b{x, workspace, bias, y, workspace, workspace_bytes, z};
  const std::size_t need = packed + plan.workspace_bytes();
  if (Status s = validate_buffers(b, o, dtype_of<T>(), need); !s) return s;
  if (Status s = validate_aliasing(b, p, o, dtype_of<T>(), 0, need); !s) return s;
  if (Status s = plan.prepack(w, workspace, stream); !s) return s;
  return plan.run(x, workspace, bias, y, static_cast<char*>(workspace) + packed,
                  workspace_bytes - packed, stream, z);
}

}  // namespace rdnaconv
