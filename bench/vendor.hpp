// SPDX-License-Identifier: MIT
/// @file vendor.hpp The vendor baseline of this build, behind one interface
/// (bench::VendorConv): cuDNN on NVIDIA (RDNACONV_HAVE_CUDNN), MIOpen on AMD
/// (RDNACONV_HAVE_MIOPEN); RDNACONV_HAVE_VENDOR when either is compiled in. Each adapter has
///   static kName, static version_line(), setup(problem, dtype, layout) -> "" or error,
///   problem() (the problem the vendor runs: symmetric padding), workspace_bytes(),
///   algo_name(), run(x, w, y, workspace, stream) -> "" or error, run_residual(x, w, y, bias,
///   workspace, stream): y = relu(conv + bias + y), "" or error.
#pragma once

#if defined(RDNACONV_HAVE_CUDNN)
#include "cudnn_baseline.hpp"
#define RDNACONV_HAVE_VENDOR 1
namespace rdnaconv::bench {
using VendorConv = CudnnConv;
}
#elif defined(RDNACONV_HAVE_MIOPEN)
#include "miopen_baseline.hpp"
#define RDNACONV_HAVE_VENDOR 1
namespace rdnaconv::bench {
using VendorConv = MiopenConv;
}
#endif
