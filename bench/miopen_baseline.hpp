// SPDX-License-Identifier: MIT
/// @file miopen_baseline.hpp The vendor baseline on AMD: MIOpen in find mode. The algorithm is
/// chosen by miopenFindConvolutionForwardAlgorithm (exhaustive search, workspace allowed, as
/// PyTorch's benchmark mode does); the row's label names the algorithm and, from the immediate
/// mode's solution list that the find step fills, the id of the solver MIOpen ranks first.
/// Tensors and filters are described by strides in the rdnaconv row's layout (NCHW/KCRS or
/// NHWC/KRSC), so MIOpen sees the same memory. Asymmetric padding: see vendor_problem().
///
/// Built only where CMake finds miopen/miopen.h and libMIOpen (ROCm); Debian 12 ships neither,
/// so this adapter is not compiled in this project's CI (bench/CMakeLists.txt says so at
/// configure time and the binary prints it).
#pragma once

#include <miopen/miopen.h>

#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "rdnaconv/problem.hpp"
#include "rdnaconv/types.hpp"
#include "vendor_common.hpp"

namespace rdnaconv::bench {

inline const char* miopen_algo_name(miopenConvFwdAlgorithm_t a) {
  switch (a) {
    case miopenConvolutionFwdAlgoGEMM:
      return "GEMM";
    case miopenConvolutionFwdAlgoDirect:
      return "Direct";
    case miopenConvolutionFwdAlgoFFT:
      return "FFT";
    case miopenConvolutionFwdAlgoWinograd:
      return "Winograd";
    case miopenConvolutionFwdAlgoImplicitGEMM:
      return "ImplicitGEMM";
    default:
      return "?";
  }
}

class MiopenConv {
 public:
  static constexpr const char* kName = "miopen";
  static std::string version_line() {
    std::size_t major = 0, minor = 0, patch = 0;
    if (miopenGetVersion(&major, &minor, &patch) != miopenStatusSuccess)
      return "MIOpen (version unknown)";
    return "MIOpen " + std::to_string(major) + "." + std::to_string(minor) + "." +
           std::to_string(patch) +
           " (miopenFindConvolutionForwardAlgorithm, exhaustive, same layout)";
  }

  MiopenConv() = default;
  MiopenConv(const MiopenConv&) = delete;
  MiopenConv& operator=(const MiopenConv&) = delete;
  ~MiopenConv() {
    if (x_) miopenDestroyTensorDescriptor(x_);
    if (y_) miopenDestroyTensorDescriptor(y_);
    if (w_) miopenDestroyTensorDescriptor(w_);
    if (c_) miopenDestroyConvolutionDescriptor(c_);
  }

  /// Sets the descriptors and runs MIOpen's find step on buffers of its own (allocated here,
  /// freed before returning). Returns an empty string or what failed.
  std::string setup(const Conv2dProblem& problem, DType t, LayoutKind l) {
    h_ = handle();
    if (!h_) return "miopenCreate failed";
    // the find step runs on the handle's stream: the default one, never a stream a caller may
    // have destroyed since its last run()
    if (!ok(miopenSetStream(h_, nullptr))) return "miopenSetStream: " + err_;
    p_ = vendor_problem(problem);
    const miopenDataType_t dt = t == DType::bf16 ? miopenBFloat16 : miopenHalf;
    if (!ok(miopenCreateTensorDescriptor(&x_)) || !ok(miopenCreateTensorDescriptor(&y_)) ||
        !ok(miopenCreateTensorDescriptor(&w_)) || !ok(miopenCreateConvolutionDescriptor(&c_)))
      return "descriptor creation: " + err_;
    const bool nhwc = l == LayoutKind::nhwc;
    if (!ok(set4d(x_, dt, nhwc, p_.n, p_.c, p_.h, p_.w)) ||
        !ok(set4d(w_, dt, nhwc, p_.k, p_.c_per_group(), p_.r, p_.s)) ||
        !ok(set4d(y_, dt, nhwc, p_.n, p_.k, p_.p(), p_.q())) ||
        !ok(miopenInitConvolutionDescriptor(c_, miopenConvolution, int(p_.pad_top),
                                            int(p_.pad_left), int(p_.stride_h), int(p_.stride_w),
                                            int(p_.dil_h), int(p_.dil_w))) ||
        !ok(miopenSetConvolutionGroupCount(c_, int(p_.groups))))
      return "descriptor setup: " + err_;
    // the find step once per (shape, type, layout) in a process, as an application caches it
    using Key =
        std::tuple<std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t,
                   std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t, int, int>;
    static std::map<Key, Found> found;
    const Key key{p_.n,        p_.c,       p_.h,     p_.w,      p_.k,   p_.r,
                  p_.stride_h, p_.pad_top, p_.dil_h, p_.groups, int(t), int(l)};
    if (auto it = found.find(key); it != found.end()) {
      f_ = it->second;
      return {};
    }
    std::size_t find_ws = 0;
    if (!ok(miopenConvolutionForwardGetWorkSpaceSize(h_, w_, x_, c_, y_, &find_ws)))
      return "miopenConvolutionForwardGetWorkSpaceSize: " + err_;
    Scratch x(p_.x_elems() * 2), w(p_.w_elems() * 2), y(p_.y_elems() * 2), ws(find_ws);
    if (!x.p || !w.p || !y.p || (find_ws && !ws.p)) return "allocation for the find step failed";
    miopenConvAlgoPerf_t perf[8];
    int got = 0;
    if (!ok(miopenFindConvolutionForwardAlgorithm(h_, x_, x.p, w_, w.p, c_, y_, y.p, 8, &got, perf,
                                                  ws.p, find_ws, true)))
      return "miopenFindConvolutionForwardAlgorithm: " + err_;
    if (got < 1) return "MIOpen found no algorithm";
    f_.algo = perf[0].fwd_algo;  // sorted, fastest first
    f_.ws_bytes = perf[0].memory;
    f_.label = miopen_algo_name(f_.algo);
    // the solver behind it: the immediate mode's list, filled from the find step, fastest first
    std::size_t count = 0;
    if (miopenConvolutionForwardGetSolutionCount(h_, w_, x_, c_, y_, &count) ==
            miopenStatusSuccess &&
        count > 0) {
      std::vector<miopenConvSolution_t> sol(count);
      std::size_t n = 0;
      if (miopenConvolutionForwardGetSolution(h_, w_, x_, c_, y_, count, &n, sol.data()) ==
              miopenStatusSuccess &&
          n > 0)
        f_.label += " solver#" + std::to_string(sol[0].solution_id);
    }
    found[key] = f_;
    return {};
  }

  const Conv2dProblem& problem() const { return p_; }
  std::size_t workspace_bytes() const { return f_.ws_bytes; }
  const char* algo_name() const { return f_.label.c_str(); }

  /// The residual row (cudnn_baseline.hpp): MIOpen's fused conv-bias-activation goes through its
  /// fusion-plan API, which this adapter does not wrap; the row says so rather than time
  /// something else.
  std::string run_residual(const void*, const void*, void*, const void*, void*, hipStream_t) {
    return "the MIOpen adapter has no fused conv + residual + relu (fusion plans not wrapped)";
  }

  /// One convolution on `stream`; an empty string or MIOpen's error.
  std::string run(const void* x, const void* w, void* y, void* ws, hipStream_t stream) const {
    const float alpha = 1.f, beta = 0.f;
    miopenStatus_t e = miopenSetStream(h_, stream);
    if (e == miopenStatusSuccess)
      e = miopenConvolutionForward(h_, &alpha, x_, x, w_, w, c_, f_.algo, &beta, y_, y, ws,
                                   f_.ws_bytes);
    return e == miopenStatusSuccess ? std::string() : std::string(miopenGetErrorString(e));
  }

 private:
  struct Found {
    miopenConvFwdAlgorithm_t algo = miopenConvolutionFwdAlgoGEMM;
    std::size_t ws_bytes = 0;
    std::string label;
  };
  struct Scratch {
    void* p = nullptr;
    explicit Scratch(std::int64_t bytes) {
      if (bytes > 0 && hipMalloc(&p, std::size_t(bytes)) != hipSuccess) p = nullptr;
    }
    Scratch(const Scratch&) = delete;
    Scratch& operator=(const Scratch&) = delete;
    ~Scratch() {
      if (p) (void)hipFree(p);
    }
  };
  /// A 4-d descriptor with dims (n, c, h, w) and the strides of NCHW or NHWC.
  static miopenStatus_t set4d(miopenTensorDescriptor_t d, miopenDataType_t dt, bool nhwc,
                              std::int64_t n, std::int64_t c, std::int64_t h, std::int64_t w) {
    int dims[4] = {int(n), int(c), int(h), int(w)};
    int strides[4];
    if (nhwc) {
      strides[0] = int(h * w * c);
      strides[1] = 1;
      strides[2] = int(w * c);
      strides[3] = int(c);
    } else {
      strides[0] = int(c * h * w);
      strides[1] = int(h * w);
      strides[2] = int(w);
      strides[3] = 1;
    }
    return miopenSetTensorDescriptor(d, dt, 4, dims, strides);
  }
  /// One handle per process, as an application keeps it.
  static miopenHandle_t handle() {
    static miopenHandle_t h = [] {
      miopenHandle_t x = nullptr;
      if (miopenCreate(&x) != miopenStatusSuccess) x = nullptr;
      return x;
    }();
    return h;
  }
  bool ok(miopenStatus_t s) {
    if (s == miopenStatusSuccess) return true;
    err_ = miopenGetErrorString(s);
    return false;
  }
  miopenHandle_t h_ = nullptr;
  miopenTensorDescriptor_t x_ = nullptr, y_ = nullptr, w_ = nullptr;
  miopenConvolutionDescriptor_t c_ = nullptr;
  Found f_;
  Conv2dProblem p_;
  std::string err_;
};

}  // namespace rdnaconv::bench
