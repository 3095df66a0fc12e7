// SPDX-License-Identifier: MIT
/// @file validate.hpp Host-side validation of every argument. Pure host code: it runs before any
/// device call, so a rejected call launches nothing.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "rdnaconv/problem.hpp"
#include "rdnaconv/types.hpp"

namespace rdnaconv {

/// Plan-time choices besides the problem: the fused epilogue and the method.
struct Conv2dOptions {
  bool has_bias = false;
  /// The bias's type: same (the default: the input type, as a PyTorch model keeps its bias),
  /// the input type spelled out, or f32.
  DType bias_type = DType::same;
  Activation activation = Activation::none;
  /// The residual: y = act(alpha conv(x, w) + bias + beta z), z passed to run() in y's shape,
  /// layout and type; z may be y itself (in-place add) but may not overlap y otherwise.
  bool has_residual = false;
  float alpha = 1.f;             ///< scales the convolution (with or without a residual); finite
  float beta = 1.f;              ///< scales z; finite
  DType out_type = DType::same;  ///< f16, bf16, f32, or same as the input
  Method method = Method::automatic;  ///< force a method (tests, benchmarks)
  /// The alignment in bytes (2, 4, 8 or 16) that every x passed to run() will have. 16 (the
  /// default; cudaMalloc/hipMalloc give 256): methods that read x in 16-byte vectors may run,
  /// and run() refuses a less aligned x. Below 16 (views at odd element offsets) the plan picks
  /// among the methods that gather x.
  int x_align = 16;
  /// Split-K: the reduction split into this many parts run side by side (more blocks for
  /// problems whose output gives few: small images, batch 1), partial sums in fp32 in the
  /// workspace, added in a fixed order by a second kernel that applies the epilogue. 0 (the
  /// default): the plan's choice (the router's rule for small grids, RouterThresholds; needs
  /// the device's multiprocessor count, so a plan made for a described device does not split);
  /// 1: no split; 2..kMaxSplitK: forced (direct engine methods only; fewer parts where the
  /// reduction has fewer steps).
  int split_k = 0;
  /// The tile (TileChoice): automatic (the default) or forced, for tests, benchmarks and users
  /// who measured their shape. main / small: a direct engine method's rows; forcing them on a
  /// family with its own tiling (Winograd, grouped; small on hopper_tma) is refused with
  /// method_not_applicable. main on hopper_tma: its 128 x 128 block (the router's tall rule
  /// off). tall: hopper_tma's 256 x 128 block (K <= 128), refused elsewhere. window: the grouped
  /// family's depthwise row-window kernel (NHWC, K = C, C % 8 == 0, square 3x3 / 5x5 / 7x7
  /// filter, stride 1 or 2, no dilation, zero padding, x_align 16; kernels/grouped/README.md),
  /// refused elsewhere.
  TileChoice tile = TileChoice::automatic;
  /// The tile walk (Schedule): automatic (the default: the plan's choice), per_tile, persistent
  /// or pingpong (hopper_tma only; refused elsewhere with method_not_applicable).
  Schedule schedule = Schedule::automatic;
};

/// The largest Conv2dOptions::split_k.
inline constexpr int kMaxSplitK = 64;

namespace detail {
inline std::string dims(const Conv2dProblem& p) {
  return "N=" + std::to_string(p.n) + " C=" + std::to_string(p.c) + " H=" + std::to_string(p.h) +
         " W=" + std::to_string(p.w) + " K=" + std::to_string(p.k) + " R=" + std::to_string(p.r) +
         " S=" + std::to_string(p.s);
}
/// The whole problem: sizes, stride, dilation, per-side padding (error messages, test traces).
inline std::string describe(const Conv2dProblem& p) {
  return dims(p) + " stride=" + std::to_string(p.stride_h) + "x" + std::to_string(p.stride_w) +
         " dil=" + std::to_string(p.dil_h) + "x" + std::to_string(p.dil_w) +
         " pad(t,b,l,r)=" + std::to_string(p.pad_top) + "," + std::to_string(p.pad_bottom) + "," +
         std::to_string(p.pad_left) + "," + std::to_string(p.pad_right) +
         (p.groups != 1 ? " groups=" + std::to_string(p.groups) : std::string()) +
         (p.pad_mode != PadMode::zeros ? std::string(" pad_mode=") + to_string(p.pad_mode)
                                       : std::string());
}
}  // namespace detail

/// Sizes, strides, dilations positive; padding non-negative; each dimension within 32 bits
/// (kernels index within one image row/plane in 32 bits and across tensors in 64); groups
/// positive and dividing C and K; the output not empty; pad_mode one of its enumerators, with
/// PyTorch's limits on the pads (reflect: each pad below the input's size on its axis, since
/// the mirror does not repeat the edge; circular: at most the size, one wrap). Every message
/// names the field (Conv2dProblem's member) and its value.
[[nodiscard]] inline Status validate_problem(const Conv2dProblem& p) {
  const std::int64_t lim = std::numeric_limits<std::int32_t>::max();
  struct Field {
    const char* name;
    std::int64_t value;
  };
  const auto refuse = [&p](const Field& f, const char* rule) {
    return Status{StatusCode::invalid_size, std::string("rdnaconv: ") + f.name + " must be " +
                                                rule + ", got " + std::to_string(f.value) + " (" +
                                                detail::describe(p) + ")"};
  };
  const Field sizes[] = {{"N", p.n}, {"C", p.c}, {"H", p.h}, {"W", p.w},
                         {"K", p.k}, {"R", p.r}, {"S", p.s}};
  for (const Field& f : sizes)
    if (f.value <= 0 || f.value > lim) return refuse(f, "in [1, 2^31)");
  const Field steps[] = {
      {"stride_h", p.stride_h}, {"stride_w", p.stride_w}, {"dil_h", p.dil_h}, {"dil_w", p.dil_w}};
  for (const Field& f : steps)
    if (f.value <= 0 || f.value > lim) return refuse(f, "in [1, 2^31)");
  const Field pads[] = {{"pad_top", p.pad_top},
                        {"pad_bottom", p.pad_bottom},
                        {"pad_left", p.pad_left},
                        {"pad_right", p.pad_right}};
  for (const Field& f : pads)
    if (f.value < 0 || f.value > lim) return refuse(f, "in [0, 2^31)");
  if (unsigned(p.pad_mode) > unsigned(PadMode::circular))
    return {StatusCode::invalid_option, "rdnaconv: Conv2dProblem::pad_mode has no enumerator " +
                                            std::to_string(unsigned(p.pad_mode))};
  if (p.pad_mode == PadMode::reflect || p.pad_mode == PadMode::circular) {
    // each pad against the size of its axis: below it for reflect, at most it for circular
    const bool reflect = p.pad_mode == PadMode::reflect;
    for (int i = 0; i < 4; ++i) {
      const bool along_h = i < 2;
      const std::int64_t size = along_h ? p.h : p.w;
      if (reflect ? pads[i].value < size : pads[i].value <= size) continue;
      const std::string rule = std::string(reflect ? "< " : "<= ") + (along_h ? "H=" : "W=") +
                               std::to_string(size) + " with pad_mode " + to_string(p.pad_mode);
      return refuse(pads[i], rule.c_str());
    }
  }
  if (p.groups <= 0 || p.groups > lim) return refuse({"groups", p.groups}, "in [1, 2^31)");
  if (p.c % p.groups != 0 || p.k % p.groups != 0)
    return {StatusCode::invalid_size,
            std::string("rdnaconv: groups must divide C and K, got groups=") +
                std::to_string(p.groups) + " with " + (p.c % p.groups != 0 ? "C=" : "K=") +
                std::to_string(p.c % p.groups != 0 ? p.c : p.k) + " (" + detail::describe(p) + ")"};
  const std::int64_t span_h = p.h + p.pad_top + p.pad_bottom - p.dil_h * (p.r - 1) - 1;
  const std::int64_t span_w = p.w + p.pad_left + p.pad_right - p.dil_w * (p.s - 1) - 1;
  if (span_h < 0 || span_w < 0)
    return {StatusCode::empty_output,
            "rdnaconv: the padded input is smaller than the dilated filter, output is empty: " +
                detail::describe(p)};
  if (p.p() > lim || p.q() > lim || p.c * p.r * p.s > lim)
    return {StatusCode::invalid_size,
            "rdnaconv: output plane or reduction exceeds 2^31: P=" + std::to_string(p.p()) +
                " Q=" + std::to_string(p.q()) + " C*R*S=" + std::to_string(p.c * p.r * p.s)};
  // Element counts must fit 63 bits (offsets are int64); checked in double to avoid overflow.
  const double big = 4.0e18;
  if (double(p.n) * double(p.c) * double(p.h) * double(p.w) > big ||
      double(p.n) * double(p.k) * double(p.p()) * double(p.q()) > big ||
      double(p.k) * double(p.c_per_group()) * double(p.r) * double(p.s) > big)
    return {StatusCode::invalid_size,
            "rdnaconv: tensor too large (over 2^61 elements): " + detail::describe(p)};
  return Status::success();
}

/// Every field of the options inside its enumeration: a value cast from an out-of-range integer
/// is refused with invalid_option. The enumerations are dense from 0 (types.hpp), so "inside"
/// is "at most the last enumerator"; a new enumerator goes last or moves the bound here.
[[nodiscard]] inline Status validate_options(const Conv2dOptions& o) {
  struct Field {
    const char* name;
    unsigned value, last;
  };
  const Field fields[] = {
      {"activation", unsigned(o.activation), unsigned(Activation::sigmoid)},
      {"bias_type", unsigned(o.bias_type), unsigned(DType::same)},
      {"out_type", unsigned(o.out_type), unsigned(DType::same)},
      {"method", unsigned(o.method), unsigned(Method::hopper_halo)},
      {"tile", unsigned(o.tile), unsigned(TileChoice::window)},
      {"schedule", unsigned(o.schedule), unsigned(Schedule::pingpong)},
  };
  for (const Field& f : fields)
    if (f.value > f.last)
      return {StatusCode::invalid_option, std::string("rdnaconv: Conv2dOptions::") + f.name +
                                              " has no enumerator " + std::to_string(f.value)};
  if (!std::isfinite(o.alpha) || !std::isfinite(o.beta))
    return {StatusCode::invalid_option, "rdnaconv: Conv2dOptions::alpha and beta must be finite"};
  if (o.x_align != 2 && o.x_align != 4 && o.x_align != 8 && o.x_align != 16)
    return {
        StatusCode::invalid_option,
        "rdnaconv: Conv2dOptions::x_align must be 2, 4, 8 or 16, not " + std::to_string(o.x_align)};
  if (o.split_k < 0 || o.split_k > kMaxSplitK)
    return {StatusCode::invalid_option,
            "rdnaconv: Conv2dOptions::split_k must be 0 (automatic) to " +
                std::to_string(kMaxSplitK) + ", not " + std::to_string(o.split_k)};
  return Status::success();
}

[[nodiscard]] inline Status validate_types(DType in, const Conv2dOptions& o) {
  if (Status s = validate_options(o); !s) return s;
  if (in != DType::f16 && in != DType::bf16)
    return {StatusCode::unsupported_type, "rdnaconv: input type must be fp16 or bf16"};
  if (o.out_type != DType::same && o.out_type != DType::f16 && o.out_type != DType::bf16 &&
      o.out_type != DType::f32)
    return {StatusCode::unsupported_type, "rdnaconv: output type must be fp16, bf16 or fp32"};
  if (o.has_bias && o.bias_type != DType::f32 && o.bias_type != DType::same && o.bias_type != in)
    return {
        StatusCode::unsupported_type,
        std::string("rdnaconv: bias type must be fp32 or the input type (") + to_string(in) + ")"};
  return Status::success();
}

struct RunBuffers {
  const void* x = nullptr;
  const void* packed_w = nullptr;
  const void* bias = nullptr;
  void* y = nullptr;
  void* workspace = nullptr;
  std::size_t workspace_bytes = 0;
  const void* z = nullptr;  ///< the residual (Conv2dOptions::has_residual)
};

/// Null pointers, workspace size, and alignment: x, 16-bit y and 16-bit bias on 2 bytes, fp32 y
/// and fp32 bias on 4, the packed weights and the workspace on 16 (they are read with 16-byte
/// vector loads; hipMalloc/cudaMalloc allocations are 256-byte aligned).
[[nodiscard]] inline Status validate_buffers(const RunBuffers& b, const Conv2dOptions& o, DType in,
                                             std::size_t need_ws) {
  if (b.x == nullptr) return {StatusCode::null_pointer, "rdnaconv: x is null"};
  if (b.packed_w == nullptr) return {StatusCode::null_pointer, "rdnaconv: weights are null"};
  if (b.y == nullptr) return {StatusCode::null_pointer, "rdnaconv: y is null"};
  if (o.has_bias && b.bias == nullptr)
    return {StatusCode::null_pointer, "rdnaconv: the plan has a bias but bias is null"};
  if (o.has_residual && b.z == nullptr)
    return {StatusCode::null_pointer, "rdnaconv: the plan has a residual but z is null"};
  if (!o.has_residual && b.z != nullptr)
    return {StatusCode::invalid_option,
            "rdnaconv: z is given but the plan has no residual (Conv2dOptions::has_residual)"};
  if (b.workspace_bytes < need_ws)
    return {StatusCode::workspace_too_small,
            "rdnaconv: workspace too small: " + std::to_string(b.workspace_bytes) + " < " +
                std::to_string(need_ws) + " bytes"};
  if (need_ws > 0 && b.workspace == nullptr)
    return {StatusCode::null_pointer, "rdnaconv: workspace is null"};
  const auto addr = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p); };
  const DType out = o.out_type == DType::same ? in : o.out_type;
  if (addr(b.x) % 2 != 0) return {StatusCode::misaligned, "rdnaconv: x is not 2-byte aligned"};
  if (addr(b.y) % dtype_bytes(out) != 0)
    return {StatusCode::misaligned,
            std::string("rdnaconv: y is not aligned to its type ") + to_string(out)};
  if (o.has_residual && addr(b.z) % dtype_bytes(out) != 0)
    return {StatusCode::misaligned,
            std::string("rdnaconv: z is not aligned to its type (y's) ") + to_string(out)};
  if (o.has_bias && addr(b.bias) % dtype_bytes(o.bias_type) != 0)
    return {StatusCode::misaligned, "rdnaconv: bias is not aligned to its type"};
  if (addr(b.packed_w) % 16 != 0)
    return {StatusCode::misaligned,
            "rdnaconv: packed weights (or the one-shot workspace) must be 16-byte aligned"};
  if (need_ws > 0 && addr(b.workspace) % 16 != 0)
    return {StatusCode::misaligned, "rdnaconv: workspace must be 16-byte aligned"};
  return Status::success();
}

/// The writes stay in y and read nothing they have written: y may not overlap x, the packed
/// weights, the bias or the workspace, and z is either y exactly (in-place residual) or apart
/// from it. Byte ranges from the problem's sizes; pure address arithmetic, no device call.
[[nodiscard]] inline Status validate_aliasing(const RunBuffers& b, const Conv2dProblem& p,
                                              const Conv2dOptions& o, DType in,
                                              std::size_t packed_bytes, std::size_t need_ws) {
  const DType out = o.out_type == DType::same ? in : o.out_type;
  const auto lo = reinterpret_cast<std::uintptr_t>(b.y);
  const std::uintptr_t hi = lo + std::uintptr_t(p.y_elems()) * dtype_bytes(out);
  const auto apart = [&](const void* q, std::size_t bytes) {
    const auto a = reinterpret_cast<std::uintptr_t>(q);
    return q == nullptr || bytes == 0 || a + bytes <= lo || a >= hi;
  };
  const DType bias_t = o.bias_type == DType::same ? in : o.bias_type;
  struct Range {
    const char* name;
    const void* p;
    std::size_t bytes;
  };
  const Range ranges[] = {
      {"x", b.x, std::size_t(p.x_elems()) * dtype_bytes(in)},
      {"the packed weights", b.packed_w, packed_bytes},
      {"bias", o.has_bias ? b.bias : nullptr, std::size_t(p.k) * dtype_bytes(bias_t)},
      {"the workspace", b.workspace, need_ws},
  };
  for (const Range& r : ranges)
    if (!apart(r.p, r.bytes))
      return {StatusCode::bad_alias, std::string("rdnaconv: y overlaps ") + r.name};
  if (o.has_residual && b.z != b.y && !apart(b.z, std::size_t(hi - lo)))
    return {StatusCode::bad_alias,
            "rdnaconv: z overlaps y without being y (in place, pass z == y)"};
  return Status::success();
}

}  // namespace rdnaconv
