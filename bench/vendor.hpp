// SPDX-License-Identifier: MIT
/// @file vendor.hpp The vendor baseline of this build, behind one interface
/// (bench::VendorConv): cuDNN on NVIDIA (RDNACONV_HAVE_CUDNN), MIOpen on AMD
/// (RDNACONV_HAVE_MIOPEN); RDNACONV_HAVE_VENDOR when either is compiled in. Each adapter has
///   static kName, static version_line(), setup(problem, dtype, layout) -> "" or error,
///   problem() (the problem the vendor runs: symmetric padding), workspace_bytes(),
///   algo_name(), run(x, w, y, workspace, stream) -> "" or error, run_residual(x, w, y, bias,
///   workspace, stream): y = relu(conv + bias + y), "" or error.
/// An adapter that picks its algorithm by timing plans on the caller's data (cuDNN's graph API)
/// also has needs_search(), search_workspace_bytes() and search(SearchData); the bench calls
/// them between setup() and the first run().
/// On NVIDIA, bench::LegacyVendorConv is cuDNN's legacy API (cudnnFind), the `cudnn-legacy`
/// rows of --set=full and --set=residual (RDNACONV_HAVE_LEGACY_VENDOR).
#pragma once

#if defined(RDNACONV_HAVE_CUDNN)
#include "cudnn_baseline.hpp"
#include "cudnn_graph.hpp"
#define RDNACONV_HAVE_VENDOR 1
#define RDNACONV_HAVE_LEGACY_VENDOR 1
namespace rdnaconv::bench {
using VendorConv = CudnnGraphConv;
using LegacyVendorConv = CudnnConv;
}  // namespace rdnaconv::bench
#elif defined(RDNACONV_HAVE_MIOPEN)
#include "miopen_baseline.hpp"
#define RDNACONV_HAVE_VENDOR 1
namespace rdnaconv::bench {
using VendorConv = MiopenConv;
}
#endif
