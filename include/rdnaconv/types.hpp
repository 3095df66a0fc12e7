// SPDX-License-Identifier: MIT
/// @file types.hpp Enumerations and the status type shared by host and device code (no runtime
/// headers).
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "rdnaconv/version.hpp"

namespace rdnaconv {

/// Element types. `same` is only meaningful as an output type: "the input type".
enum class DType : std::uint8_t { f16, bf16, f32, same };

/// Activation applied last (after bias and residual). gelu is the erf form (PyTorch's default);
/// silu(v) = v sigmoid(v) (PyTorch's SiLU, the VAEs' "swish"); sigmoid(v) = 1 / (1 + e^-v).
enum class Activation : std::uint8_t { none, relu, relu6, gelu, silu, sigmoid };
/// Every activation, in enumeration order (tests, bindings and parsers walk this list).
inline constexpr Activation kActivations[] = {Activation::none,  Activation::relu,
                                              Activation::relu6, Activation::gelu,
                                              Activation::silu,  Activation::sigmoid};

/// What the padding reads (PyTorch's `padding_mode`): zeros; reflect mirrors the input about its
/// edge without repeating it (pad < the input's size on that axis); replicate repeats the edge
/// value; circular wraps around (pad <= the size). Per-side amounts are the problem's pads.
enum class PadMode : std::uint8_t { zeros, reflect, replicate, circular };
/// Every padding mode, in enumeration order.
inline constexpr PadMode kPadModes[] = {PadMode::zeros, PadMode::reflect, PadMode::replicate,
                                        PadMode::circular};

/// Tensor layout of input x and output y (weights are always OIHW, as PyTorch stores them).
enum class LayoutKind : std::uint8_t { nchw, nhwc };
struct NCHW {
  static constexpr LayoutKind kind = LayoutKind::nchw;
};
struct NHWC {
  static constexpr LayoutKind kind = LayoutKind::nhwc;
};

/// Kernel families (and variants). `automatic` asks the router.
enum class Method : std::uint8_t {
  automatic,
  general,         ///< implicit GEMM, any R, S, stride, padding, dilation
  gemm1x1,         ///< 1x1 filters as a GEMM
  cblocked3x3,     ///< 3x3 on a channel-blocked NCHWc repack of the input (NCHW)
  nhwc3x3,         ///< 3x3 direct on NHWC
  nchw3x3,         ///< 3x3 direct on NCHW without a repack (tiles transposed through LDS)
  winograd,        ///< Winograd F(4x4, 3x3): transforms + batched GEMM + output transform
  winograd_fused,  ///< Winograd F(4x4, 3x3), output transform folded into the GEMM (no M)
  hopper_tma,      ///< NHWC on Hopper: TMA-fed, warp-specialized wgmma loop (sm_90a only)
  grouped,         ///< groups > 1 (grouped, depthwise): direct, no matrix atoms
  cblocked1x1,     ///< 1x1 on a channel-blocked NCHWc repack of the input's read pixels (NCHW)
  hopper_halo,     ///< NHWC on Hopper: hopper_tma's loop, the input read once for all taps
};

/// The Winograd variants (their results differ from the direct convolution by more rounding).
constexpr bool is_winograd(Method m) {
  return m == Method::winograd || m == Method::winograd_fused;
}

/// Matrix atom a kernel is built on. `native` is the target's own instruction
/// (WMMA on gfx11/gfx12, mma.sync on sm_80+, FMA elsewhere). gfx11/gfx12 keep the
/// RDNA lane layouts but compute with portable warp shuffles, so the RDNA fragment
/// code runs on any wave32 GPU. fma is the portable fallback, forced.
enum class AtomKind : std::uint8_t { native, gfx11, gfx12, fma };

/// Which tile row a direct engine family (general, gemm1x1, the 3x3 families) runs
/// (Conv2dOptions::tile): automatic (the plan's choice: the family's main tile, the thin row for
/// K <= its filter block, the small row for small grids where the router's table says so), main
/// (the family's own row, also for thin K; hopper_tma's 128 x 128 block), small (64 x 64
/// blocks, kernels/common/tiles.hpp); tall: the hopper_tma family's 256 x 128 block for
/// K <= 128 (kernels/hopper/README.md), which automatic takes where the sm90 router's rule says;
/// window: the grouped family's depthwise row-window kernel on NHWC (kernels/grouped/README.md),
/// forced only until a device run has tested and measured it.
enum class TileChoice : std::uint8_t { automatic, main, small, tall, window };

/// How a family that tiles itself walks its tiles (Conv2dOptions::schedule): automatic (the
/// plan's choice: one block per tile today), per_tile (one block per output tile, as every
/// method runs), persistent (hopper_tma only: one block per multiprocessor walking tiles, its
/// producer loading the next tile while the consumers store the last; kernels/hopper/README.md,
/// version 6), pingpong (hopper_tma only: persistent, each consumer warpgroup computing its own
/// 128 x 128 tile, one warpgroup's epilogue under the other's products; version 8).
enum class Schedule : std::uint8_t { automatic, per_tile, persistent, pingpong };

/// Architecture families that own a tile table.
/// sm90: Hopper with the sm_90a target in the build (wgmma); sm80: every other sm_80+ device.
enum class ArchClass : std::uint8_t { generic, rdna3, rdna4, sm80, sm90 };

enum class StatusCode : std::uint8_t {
  ok,
  null_pointer,
  invalid_size,
  empty_output,
  unsupported_type,
  unsupported_arch,
  workspace_too_small,
  method_not_applicable,
  misaligned,
  runtime_error,
  invalid_option,    ///< an option outside its enumeration (Conv2dOptions)
  bad_alias,         ///< the residual z overlaps y without being y (Plan::run)
  plan_not_created,  ///< Plan::prepack / run on a plan that create() never filled
};

/// Result of every call that can fail. Carries a human-readable message. The functions that
/// return it are [[nodiscard]] (not the class: nvcc then warns on `(void)f()` and on
/// `s = f()`, #2810-D).
class Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}
  static Status success() { return {}; }
  bool ok() const { return code_ == StatusCode::ok; }
  explicit operator bool() const { return ok(); }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

 private:
  StatusCode code_ = StatusCode::ok;
  std::string message_;
};

constexpr const char* to_string(Method m) {
  switch (m) {
    case Method::automatic:
      return "automatic";
    case Method::general:
      return "general";
    case Method::gemm1x1:
      return "gemm1x1";
    case Method::cblocked3x3:
      return "cblocked3x3";
    case Method::nhwc3x3:
      return "nhwc3x3";
    case Method::nchw3x3:
      return "nchw3x3";
    case Method::winograd:
      return "winograd";
    case Method::winograd_fused:
      return "winograd_fused";
    case Method::hopper_tma:
      return "hopper_tma";
    case Method::grouped:
      return "grouped";
    case Method::cblocked1x1:
      return "cblocked1x1";
    case Method::hopper_halo:
      return "hopper_halo";
  }
  return "?";
}
constexpr const char* to_string(DType t) {
  switch (t) {
    case DType::f16:
      return "fp16";
    case DType::bf16:
      return "bf16";
    case DType::f32:
      return "fp32";
    case DType::same:
      return "same";
  }
  return "?";
}
constexpr const char* to_string(Activation a) {
  switch (a) {
    case Activation::none:
      return "none";
    case Activation::relu:
      return "relu";
    case Activation::relu6:
      return "relu6";
    case Activation::gelu:
      return "gelu";
    case Activation::silu:
      return "silu";
    case Activation::sigmoid:
      return "sigmoid";
  }
  return "?";
}
constexpr const char* to_string(PadMode m) {
  switch (m) {
    case PadMode::zeros:
      return "zeros";
    case PadMode::reflect:
      return "reflect";
    case PadMode::replicate:
      return "replicate";
    case PadMode::circular:
      return "circular";
  }
  return "?";
}
constexpr const char* to_string(TileChoice t) {
  switch (t) {
    case TileChoice::automatic:
      return "automatic";
    case TileChoice::main:
      return "main";
    case TileChoice::small:
      return "small";
    case TileChoice::tall:
      return "tall";
    case TileChoice::window:
      return "window";
  }
  return "?";
}
constexpr const char* to_string(Schedule s) {
  switch (s) {
    case Schedule::automatic:
      return "automatic";
    case Schedule::per_tile:
      return "per_tile";
    case Schedule::persistent:
      return "persistent";
    case Schedule::pingpong:
      return "pingpong";
  }
  return "?";
}
constexpr const char* to_string(LayoutKind l) {
  return l == LayoutKind::nchw ? "nchw" : "nhwc";
}
constexpr const char* to_string(AtomKind a) {
  switch (a) {
    case AtomKind::native:
      return "native";
    case AtomKind::gfx11:
      return "gfx11";
    case AtomKind::gfx12:
      return "gfx12";
    case AtomKind::fma:
      return "fma";
  }
  return "?";
}
constexpr const char* to_string(ArchClass f) {
  switch (f) {
    case ArchClass::generic:
      return "generic";
    case ArchClass::rdna3:
      return "rdna3";
    case ArchClass::rdna4:
      return "rdna4";
    case ArchClass::sm80:
      return "sm80";
    case ArchClass::sm90:
      return "sm90";
  }
  return "?";
}
constexpr const char* to_string(StatusCode c) {
  switch (c) {
    case StatusCode::ok:
      return "ok";
    case StatusCode::null_pointer:
      return "null_pointer";
    case StatusCode::invalid_size:
      return "invalid_size";
    case StatusCode::empty_output:
      return "empty_output";
    case StatusCode::unsupported_type:
      return "unsupported_type";
    case StatusCode::unsupported_arch:
      return "unsupported_arch";
    case StatusCode::workspace_too_small:
      return "workspace_too_small";
    case StatusCode::method_not_applicable:
      return "method_not_applicable";
    case StatusCode::misaligned:
      return "misaligned";
    case StatusCode::runtime_error:
      return "runtime_error";
    case StatusCode::invalid_option:
      return "invalid_option";
    case StatusCode::bad_alias:
      return "bad_alias";
    case StatusCode::plan_not_created:
      return "plan_not_created";
  }
  return "?";
}

constexpr std::size_t dtype_bytes(DType t) {
  return t == DType::f32 ? 4 : 2;
}

}  // namespace rdnaconv
