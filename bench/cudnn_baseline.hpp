// SPDX-License-Identifier: MIT
/// @file cudnn_baseline.hpp cuDNN's legacy convolution API, the `cudnn-legacy` rows (the vendor
/// row of every benchmark section before 2026-12-06, kept so that old figures can be related to
/// new ones; the `cudnn` row is cudnn_graph.hpp, the graph API PyTorch uses): the algorithm
/// chosen by cudnnFindConvolutionForwardAlgorithm (workspace allowed), tensors and filters in
/// the same layout as the rdnaconv row (NCHW/KCRS or NHWC/KRSC), fp32 compute with tensor-op
/// math. Asymmetric padding: see vendor_problem().
#pragma once

#include <cudnn.h>

#include <map>
#include <string>
#include <tuple>

#include "rdnaconv/problem.hpp"
#include "rdnaconv/types.hpp"
#include "vendor_common.hpp"

namespace rdnaconv::bench {

inline const char* cudnn_algo_name(cudnnConvolutionFwdAlgo_t a) {
  switch (a) {
    case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM:
      return "IMPLICIT_GEMM";
    case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM:
      return "IMPLICIT_PRECOMP_GEMM";
    case CUDNN_CONVOLUTION_FWD_ALGO_GEMM:
      return "GEMM";
    case CUDNN_CONVOLUTION_FWD_ALGO_DIRECT:
      return "DIRECT";
    case CUDNN_CONVOLUTION_FWD_ALGO_FFT:
      return "FFT";
    case CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING:
      return "FFT_TILING";
    case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD:
      return "WINOGRAD";
    case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED:
      return "WINOGRAD_NONFUSED";
    default:
      return "?";
  }
}

/// The process's one cuDNN handle (both cuDNN rows), as an application keeps it; null if
/// cudnnCreate failed.
inline cudnnHandle_t cudnn_handle() {
  static cudnnHandle_t h = [] {
    cudnnHandle_t x = nullptr;
    if (cudnnCreate(&x) != CUDNN_STATUS_SUCCESS) x = nullptr;
    return x;
  }();
  return h;
}

class CudnnConv {
 public:
  CudnnConv() = default;
  CudnnConv(const CudnnConv&) = delete;
  CudnnConv& operator=(const CudnnConv&) = delete;
  ~CudnnConv() {
    if (x_) cudnnDestroyTensorDescriptor(x_);
    if (y_) cudnnDestroyTensorDescriptor(y_);
    if (w_) cudnnDestroyFilterDescriptor(w_);
    if (c_) cudnnDestroyConvolutionDescriptor(c_);
    if (b_) cudnnDestroyTensorDescriptor(b_);
    if (a_) cudnnDestroyActivationDescriptor(a_);
  }

  static constexpr const char* kName = "cudnn-legacy";
  static std::string version_line() {
    return "cuDNN " + std::to_string(cudnnGetVersion()) +
           " (cudnnFindConvolutionForwardAlgorithm, same layout)";
  }

  /// Sets the descriptors and asks cudnnFind for the fastest algorithm (it runs each one on
  /// scratch buffers it allocates). Returns an empty string or what failed.
  std::string setup(const Conv2dProblem& problem, DType t, LayoutKind l) {
    h_ = handle();
    if (!h_) return "cudnnCreate failed";
    // cudnnFind runs on the handle's stream: the default one, never a stream a caller may have
    // destroyed since its last run()
    if (!ok(cudnnSetStream(h_, nullptr))) return "cudnnSetStream: " + err_;
    p_ = vendor_problem(problem);
    const cudnnDataType_t dt = t == DType::bf16 ? CUDNN_DATA_BFLOAT16 : CUDNN_DATA_HALF;
    const cudnnTensorFormat_t fmt = l == LayoutKind::nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW;
    dt_ = dt;
    fmt_ = fmt;
    if (!ok(cudnnCreateTensorDescriptor(&x_)) || !ok(cudnnCreateTensorDescriptor(&y_)) ||
        !ok(cudnnCreateFilterDescriptor(&w_)) || !ok(cudnnCreateConvolutionDescriptor(&c_)))
      return "descriptor creation: " + err_;
    if (!ok(cudnnSetTensor4dDescriptor(x_, fmt, dt, int(p_.n), int(p_.c), int(p_.h), int(p_.w))) ||
        !ok(cudnnSetFilter4dDescriptor(w_, dt, fmt, int(p_.k), int(p_.c_per_group()), int(p_.r),
                                       int(p_.s))) ||
        !ok(cudnnSetConvolution2dDescriptor(c_, int(p_.pad_top), int(p_.pad_left), int(p_.stride_h),
                                            int(p_.stride_w), int(p_.dil_h), int(p_.dil_w),
                                            CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT)) ||
        !ok(cudnnSetConvolutionGroupCount(c_, int(p_.groups))) ||
        !ok(cudnnSetConvolutionMathType(c_, CUDNN_TENSOR_OP_MATH)) ||
        !ok(cudnnSetTensor4dDescriptor(y_, fmt, dt, int(p_.n), int(p_.k), int(p_.p()),
                                       int(p_.q()))))
      return "descriptor setup: " + err_;
    // cudnnFind once per (shape, type, layout) in a process: the layer rows and the end-to-end
    // rows of the same model reuse its answer, as an application would cache it.
    using Key =
        std::tuple<std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t,
                   std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t, int, int>;
    struct Found {
      cudnnConvolutionFwdAlgo_t algo;
      std::size_t memory;
      cudnnMathType_t math;
    };
    static std::map<Key, Found> found;
    const Key key{p_.n,        p_.c,       p_.h,     p_.w,      p_.k,   p_.r,
                  p_.stride_h, p_.pad_top, p_.dil_h, p_.groups, int(t), int(l)};
    if (auto it = found.find(key); it != found.end()) {
      algo_ = it->second.algo;
      ws_bytes_ = it->second.memory;
      found_ = true;
      // the math type cudnnFind timed the algorithm with (it may differ from the descriptor's)
      return ok(cudnnSetConvolutionMathType(c_, it->second.math))
                 ? std::string()
                 : "cudnnSetConvolutionMathType: " + err_;
    }
    cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    int got = 0;
    if (!ok(cudnnFindConvolutionForwardAlgorithm(h_, x_, w_, c_, y_,
                                                 CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &got, perf)))
      return "cudnnFindConvolutionForwardAlgorithm: " + err_;
    for (int i = 0; i < got; ++i)
      if (perf[i].status == CUDNN_STATUS_SUCCESS) {
        algo_ = perf[i].algo;
        ws_bytes_ = perf[i].memory;
        found_ = true;
        found[key] = {algo_, ws_bytes_, perf[i].mathType};
        // cudnnFind may rank an algorithm timed with another math type than the descriptor's
        // (FMA math for C = 3, say); running it under the descriptor's fails with BAD_PARAM
        if (!ok(cudnnSetConvolutionMathType(c_, perf[i].mathType)))
          return "cudnnSetConvolutionMathType: " + err_;
        break;
      }
    return found_ ? std::string() : std::string("no cuDNN algorithm succeeded");
  }

  const Conv2dProblem& problem() const { return p_; }
  std::size_t workspace_bytes() const { return ws_bytes_; }
  const char* algo_name() const { return cudnn_algo_name(algo_); }

  /// The residual row: y = relu(conv(x, w) + bias + y), cuDNN's fused conv-bias-add-activation
  /// (cudnnConvolutionBiasActivationForward, z = y in place, alpha1 = alpha2 = 1) with the
  /// algorithm setup() found; `bias` is K values of the data type. An empty string or the error.
  std::string run_residual(const void* x, const void* w, void* y, const void* bias, void* ws,
                           cudaStream_t stream) {
    if (!b_) {
      if (!ok(cudnnCreateTensorDescriptor(&b_)) ||
          !ok(cudnnSetTensor4dDescriptor(b_, fmt_, dt_, 1, int(p_.k), 1, 1)) ||
          !ok(cudnnCreateActivationDescriptor(&a_)) ||
          !ok(cudnnSetActivationDescriptor(a_, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN,
                                           0.0)))
        return "bias/activation descriptors: " + err_;
    }
    const float one = 1.f;
    cudnnStatus_t e = cudnnSetStream(h_, stream);
    if (e == CUDNN_STATUS_SUCCESS)
      e = cudnnConvolutionBiasActivationForward(h_, &one, x_, x, w_, w, c_, algo_, ws, ws_bytes_,
                                                &one, y_, y, b_, bias, a_, y_, y);
    return e == CUDNN_STATUS_SUCCESS ? std::string() : std::string(cudnnGetErrorString(e));
  }

  /// One convolution on `stream`; an empty string or cuDNN's error.
  std::string run(const void* x, const void* w, void* y, void* ws, cudaStream_t stream) const {
    const float alpha = 1.f, beta = 0.f;
    cudnnStatus_t e = cudnnSetStream(h_, stream);
    if (e == CUDNN_STATUS_SUCCESS)
      e = cudnnConvolutionForward(h_, &alpha, x_, x, w_, w, c_, algo_, ws, ws_bytes_, &beta, y_, y);
    return e == CUDNN_STATUS_SUCCESS ? std::string() : std::string(cudnnGetErrorString(e));
  }

 private:
  static cudnnHandle_t handle() { return cudnn_handle(); }
  bool ok(cudnnStatus_t s) {
    if (s == CUDNN_STATUS_SUCCESS) return true;
    err_ = cudnnGetErrorString(s);
    return false;
  }
  cudnnHandle_t h_ = nullptr;
  cudnnTensorDescriptor_t x_ = nullptr, y_ = nullptr;
  cudnnFilterDescriptor_t w_ = nullptr;
  cudnnConvolutionDescriptor_t c_ = nullptr;
  cudnnTensorDescriptor_t b_ = nullptr;      // the residual row's bias (1, K, 1, 1)
  cudnnActivationDescriptor_t a_ = nullptr;  // and its relu
  cudnnDataType_t dt_ = CUDNN_DATA_HALF;
  cudnnTensorFormat_t fmt_ = CUDNN_TENSOR_NHWC;
  cudnnConvolutionFwdAlgo_t algo_ = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
  std::size_t ws_bytes_ = 0;
  bool found_ = false;
  Conv2dProblem p_;
  std::string err_;
};

}  // namespace rdnaconv::bench
