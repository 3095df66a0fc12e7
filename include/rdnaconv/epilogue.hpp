// SPDX-License-Identifier: MIT
/// @file epilogue.hpp The fused epilogue: y = act(acc + bias) converted to the output type.
/// Activation and output type are run-time switches (uniform per launch), not template
/// parameters: they cost a branch per output element, not a kernel instantiation each.
#pragma once

#include <cstdint>

#include "rdnaconv/arch/convert.hpp"
#include "rdnaconv/types.hpp"

namespace rdnaconv {

struct EpilogueParams {
  const void* bias = nullptr;  ///< per filter k; null: no bias
  void* y = nullptr;
  DType bias_type = DType::f32;
  DType out_type = DType::f16;
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
  }
  return v;
}

RDNACONV_HD inline float load_bias(const void* bias, DType t, std::int64_t k) {
  if (bias == nullptr) return 0.f;
  if (t == DType::f32) return static_cast<const float*>(bias)[k];
  const std::uint16_t b = static_cast<const std::uint16_t*>(bias)[k];
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

RDNACONV_HD inline void epilogue_store(const EpilogueParams& e, std::int64_t out_index,
                                       std::int64_t k, float acc) {
  store_out(e.y, e.out_type, out_index, activate(acc + load_bias(e.bias, e.bias_type, k), e.act));
}

}  // namespace rdnaconv
