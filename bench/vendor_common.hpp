// SPDX-License-Identifier: MIT
/// @file vendor_common.hpp What the vendor baselines (cudnn_baseline.hpp, miopen_baseline.hpp)
/// share.
#pragma once

#include "rdnaconv/problem.hpp"

namespace rdnaconv::bench {

/// What the vendor graph computes after the convolution.
enum class VendorEpilogue {
  none,           ///< y = conv(x, w)
  bias_relu,      ///< y = relu(conv(x, w) + bias)
  bias_add_relu,  ///< y = relu(conv(x, w) + bias + z), z = y (in place, as the rdnaconv row)
};

inline const char* to_string(VendorEpilogue e) {
  switch (e) {
    case VendorEpilogue::none:
      return "none";
    case VendorEpilogue::bias_relu:
      return "bias+relu";
    case VendorEpilogue::bias_add_relu:
      return "bias+z+relu";
  }
  return "?";
}

/// The problem a vendor library sees. cuDNN and MIOpen pad symmetrically only: a problem with
/// asymmetric padding (the VAE downsample's (0,1,0,1)) is given to them as the equivalent
/// pre-padded input with pad 0, as the model does with F.pad before the conv; the pad copy is
/// not timed.
inline Conv2dProblem vendor_problem(const Conv2dProblem& p) {
  Conv2dProblem q = p;
  if (p.pad_top != p.pad_bottom || p.pad_left != p.pad_right) {
    q.h = p.h + p.pad_top + p.pad_bottom;
    q.w = p.w + p.pad_left + p.pad_right;
    q.pad_top = q.pad_bottom = q.pad_left = q.pad_right = 0;
  }
  return q;
}

}  // namespace rdnaconv::bench
