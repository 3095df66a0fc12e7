// SPDX-License-Identifier: MIT
/// @file epilogue.hpp The fused epilogue: y = act(alpha acc + bias + beta z) converted to the
/// output type, z an optional residual of y's shape, layout and type (it may be y itself).
/// Activation, residual and output type are run-time switches (uniform per launch), not template
/// parameters: they cost a branch per output element, not a kernel instantiation each.
#pragma once

#include <cstdint>

#include "rdnaconv/arch/convert.hpp"
#include "rdnaconv/types.hpp"

namespace rdnaconv {

struct EpilogueParams {
  const void* bias = nullptr;  ///< per filter k; null: no bias
  void* y = nullptr;
  /// residual, read at the output's own index in the output type; null: none. z == y is the
  /// in-place residual add: every method reads an output's z once, then writes that output once.
  const void* z = nullptr;
  float alpha = 1.f;  ///< scales the convolution
  float beta = 1.f;   ///< scales z
  DType bias_type = DType::f32;
  DType out_type = DType::f16;
  DType z_type = DType::f16;  ///< the residual's type: out_type (the reference may differ)
  Activation act = Activation::none;
};

RDNACONV_HD inline float activate(float v, Activation a) {
  switch (a) {
    case Activation::none:
      return v;
    case Activation::relu:
      return v > 0.f ? v : 0.f;
    case Activation::relu6:
      return v > 0.f ? (v < 6.f ? v : 6.f) : 0.f;
    case Activation::gelu:
      return 0.5f * v * (1.f + erff(v * 0.70710678118654752f));
    case Activation::silu:
      return v / (1.f + expf(-v));
    case Activation::sigmoid:
      return 1.f / (1.f + expf(-v));
  }
  return v;
}

RDNACONV_HD inline float load_bias(const void* bias, DType t, std::int64_t k) {
  if (bias == nullptr) return 0.f;
  if (t == DType::f32) return static_cast<const float*>(bias)[k];
  const std::uint16_t b = static_cast<const std::uint16_t*>(bias)[k];
  return t == DType::bf16 ? arch::bf16_to_float(b) : arch::f16_to_float(b);
}

/// Element i of an output-typed tensor (the residual z).
RDNACONV_HD inline float load_out(const void* y, DType t, std::int64_t i) {
  if (t == DType::f32) return static_cast<const float*>(y)[i];
  const std::uint16_t b = static_cast<const std::uint16_t*>(y)[i];
  return t == DType::bf16 ? arch::bf16_to_float(b) : arch::f16_to_float(b);
}

RDNACONV_HD inline void store_out(void* y, DType t, std::int64_t i, float v) {
  if (t == DType::f32)
    static_cast<float*>(y)[i] = v;
  else if (t == DType::bf16)
    static_cast<std::uint16_t*>(y)[i] = arch::float_to_bf16(v);
  else
    static_cast<std::uint16_t*>(y)[i] = arch::float_to_f16(v);
}

/// act(alpha acc + bias[k] + beta z[z_index]), in this order of fp32 operations (the device
/// reference evaluates the same function, so integer data compare bit for bit).
/// `bias` is bias[k] already loaded (load_bias), for kernels that hoist it out of a loop.
RDNACONV_HD inline float epilogue_apply(const EpilogueParams& e, std::int64_t z_index, float bias,
                                        float acc) {
  float v = e.alpha * acc + bias;
  if (e.z != nullptr) v += e.beta * load_out(e.z, e.z_type, z_index);
  return activate(v, e.act);
}
RDNACONV_HD inline float epilogue_value(const EpilogueParams& e, std::int64_t z_index,
                                        std::int64_t k, float acc) {
  return epilogue_apply(e, z_index, load_bias(e.bias, e.bias_type, k), acc);
}

/// The epilogue's common case, decided once per launch: no residual and an activation that is a
/// clamp (none, relu, relu6). Kernels keep a second copy of their store loop for it, free of the
/// per-element activation switch and residual branch: with them in every unrolled store
/// (4737312) the plain 1x1 rows ran 1.3-1.9x slower on the H200.
RDNACONV_HD inline bool epilogue_is_clamp(const EpilogueParams& e) {
  return e.z == nullptr &&
         (e.act == Activation::none || e.act == Activation::relu || e.act == Activation::relu6);
}

/// epilogue_apply for epilogue_is_clamp launches, bit for bit (NaN included: relu and relu6 give
/// 0, none passes it), in compares and selects on launch-uniform values instead of a switch.
struct ClampEpilogue {
  float alpha, hi;  ///< hi: 6 for relu6, +inf for relu
  bool clamp;       ///< false: none
  RDNACONV_HD explicit ClampEpilogue(const EpilogueParams& e)
      : alpha(e.alpha),
        hi(e.act == Activation::relu6 ? 6.f : __builtin_huge_valf()),
        clamp(e.act != Activation::none) {}
  RDNACONV_HD float operator()(float bias, float acc) const {
    const float v = alpha * acc + bias;
    float r = v > 0.f ? v : 0.f;
    r = r < hi ? r : hi;
    return clamp ? r : v;
  }
};

}  // namespace rdnaconv
