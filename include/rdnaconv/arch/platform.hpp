// SPDX-License-Identifier: MIT
/// @file platform.hpp The platform layer: the few runtime names the library uses, mapped onto
/// HIP (clang, AMD) or CUDA (nvcc). Kernels are written once in the HIP dialect
/// (__global__, threadIdx, __syncthreads, <<<>>>), which nvcc also accepts; everything that is
/// spelled differently goes through rdnaconv::rt. This is the only file that includes a runtime.
#pragma once

#include <cstddef>
#include <cstdint>

#include "rdnaconv/arch/macros.hpp"

#if !RDNACONV_GPU_COMPILER
#error \
    "rdnaconv: this header holds GPU kernels and needs a device compiler: compile the file that includes rdnaconv/conv2d.hpp (or plan.hpp) as CUDA (a .cu file, or nvcc -x cu) or as HIP (hipcc, or clang++ -x hip). Host-only code (planning, sizes, the router) may include rdnaconv/plan_desc.hpp."
// a missing include is fatal: the compilation stops here instead of listing the errors that follow
#include "rdnaconv: compile as CUDA or HIP"
#endif

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#error \
    "rdnaconv needs sm_80 or newer (mma.sync for bf16, ldmatrix, cp.async): drop older targets from CMAKE_CUDA_ARCHITECTURES / -arch"
#endif

#if defined(__CUDACC__)
#define RDNACONV_BACKEND_CUDA 1
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#else
#define RDNACONV_BACKEND_HIP 1
#include <hip/hip_fp16.h>
#include <hip/hip_runtime.h>
#if __has_include(<hip/hip_bf16.h>)
#include <hip/hip_bf16.h>  // ROCm 6+: __hip_bfloat16
#define RDNACONV_HAVE_HIP_BF16 1
#else
#include <hip/hip_bfloat16.h>  // ROCm 5 (Debian): hip_bfloat16
#endif
#endif

namespace rdnaconv {

/// The platform's 16-bit types. Never touch their members: the library bit-casts them to
/// 16-bit words (ROCm 7 made __hip_bfloat16 a protected union).
using fp16_t = __half;
#if defined(RDNACONV_BACKEND_CUDA)
using bf16_t = __nv_bfloat16;
#elif defined(RDNACONV_HAVE_HIP_BF16)
using bf16_t = __hip_bfloat16;
#else
using bf16_t = hip_bfloat16;
#endif
static_assert(sizeof(fp16_t) == 2 && sizeof(bf16_t) == 2, "16-bit storage types expected");

namespace rt {

#if defined(RDNACONV_BACKEND_CUDA)
using stream_t = cudaStream_t;
using error_t = cudaError_t;
using event_t = cudaEvent_t;
inline constexpr error_t success = cudaSuccess;
inline constexpr error_t invalid_value = cudaErrorInvalidValue;
inline const char* error_string(error_t e) {
  return cudaGetErrorString(e);
}
inline error_t get_last_error() {
  return cudaGetLastError();
}
inline error_t get_device(int* d) {
  return cudaGetDevice(d);
}
inline error_t set_device(int d) {
  return cudaSetDevice(d);
}
inline error_t device_count(int* n) {
  return cudaGetDeviceCount(n);
}
inline error_t malloc(void** p, std::size_t b) {
  return cudaMalloc(p, b);
}
inline error_t free(void* p) {
  return cudaFree(p);
}
inline error_t memcpy_h2d(void* d, const void* s, std::size_t b) {
  return cudaMemcpy(d, s, b, cudaMemcpyHostToDevice);
}
inline error_t memcpy_d2h(void* d, const void* s, std::size_t b) {
  return cudaMemcpy(d, s, b, cudaMemcpyDeviceToHost);
}
inline error_t memcpy_d2d(void* d, const void* s, std::size_t b) {
  return cudaMemcpy(d, s, b, cudaMemcpyDeviceToDevice);
}
inline error_t memset(void* d, int v, std::size_t b) {
  return cudaMemset(d, v, b);
}
inline error_t synchronize() {
  return cudaDeviceSynchronize();
}
inline error_t stream_synchronize(stream_t s) {
  return cudaStreamSynchronize(s);
}
inline error_t event_create(event_t* e) {
  return cudaEventCreate(e);
}
inline error_t event_destroy(event_t e) {
  return cudaEventDestroy(e);
}
inline error_t event_record(event_t e, stream_t s) {
  return cudaEventRecord(e, s);
}
inline error_t event_synchronize(event_t e) {
  return cudaEventSynchronize(e);
}
inline error_t event_elapsed_ms(float* ms, event_t a, event_t b) {
  return cudaEventElapsedTime(ms, a, b);
}
inline error_t max_shared_per_block_optin(int* bytes, int dev) {
  return cudaDeviceGetAttribute(bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
}
template <class Kernel>
inline error_t set_max_dynamic_smem(Kernel* k, int bytes) {
  return cudaFuncSetAttribute(reinterpret_cast<const void*>(k),
                              cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
}
inline error_t stream_create(stream_t* s) {
  return cudaStreamCreateWithFlags(s, cudaStreamNonBlocking);
}
inline error_t stream_destroy(stream_t s) {
  return cudaStreamDestroy(s);
}
/// Architecture as the device reports it: compute capability major*10 + minor.
/// The architecture number (compute capability x 10), the warp size, the multiprocessor count and
/// the name of device dev, from one properties query.
inline error_t device_arch(int dev, int* cc, int* warp, int* sms, char* name,
                           std::size_t name_len) {
  cudaDeviceProp prop{};
  error_t e = cudaGetDeviceProperties(&prop, dev);
  if (e != success) return e;
  *cc = prop.major * 10 + prop.minor;
  *warp = prop.warpSize;
  *sms = prop.multiProcessorCount;
  std::size_t i = 0;
  for (; i + 1 < name_len && prop.name[i]; ++i) name[i] = prop.name[i];
  if (name_len) name[i] = 0;
  return success;
}
#else
using stream_t = hipStream_t;
using error_t = hipError_t;
using event_t = hipEvent_t;
inline constexpr error_t success = hipSuccess;
inline constexpr error_t invalid_value = hipErrorInvalidValue;
inline const char* error_string(error_t e) {
  return hipGetErrorString(e);
}
inline error_t get_last_error() {
  return hipGetLastError();
}
inline error_t get_device(int* d) {
  return hipGetDevice(d);
}
inline error_t set_device(int d) {
  return hipSetDevice(d);
}
inline error_t device_count(int* n) {
  return hipGetDeviceCount(n);
}
inline error_t malloc(void** p, std::size_t b) {
  return hipMalloc(p, b);
}
inline error_t free(void* p) {
  return hipFree(p);
}
inline error_t memcpy_h2d(void* d, const void* s, std::size_t b) {
  return hipMemcpy(d, s, b, hipMemcpyHostToDevice);
}
inline error_t memcpy_d2h(void* d, const void* s, std::size_t b) {
  return hipMemcpy(d, s, b, hipMemcpyDeviceToHost);
}
inline error_t memcpy_d2d(void* d, const void* s, std::size_t b) {
  return hipMemcpy(d, s, b, hipMemcpyDeviceToDevice);
}
inline error_t memset(void* d, int v, std::size_t b) {
  return hipMemset(d, v, b);
}
inline error_t synchronize() {
  return hipDeviceSynchronize();
}
inline error_t stream_synchronize(stream_t s) {
  return hipStreamSynchronize(s);
}
inline error_t event_create(event_t* e) {
  return hipEventCreate(e);
}
inline error_t event_destroy(event_t e) {
  return hipEventDestroy(e);
}
inline error_t event_record(event_t e, stream_t s) {
  return hipEventRecord(e, s);
}
inline error_t event_synchronize(event_t e) {
  return hipEventSynchronize(e);
}
inline error_t event_elapsed_ms(float* ms, event_t a, event_t b) {
  return hipEventElapsedTime(ms, a, b);
}
inline error_t max_shared_per_block_optin(int* bytes, int dev) {
  return hipDeviceGetAttribute(bytes, hipDeviceAttributeMaxSharedMemoryPerBlock, dev);
}
template <class Kernel>
inline error_t set_max_dynamic_smem(Kernel* k, int bytes) {
  return hipFuncSetAttribute(reinterpret_cast<const void*>(k),
                             hipFuncAttributeMaxDynamicSharedMemorySize, bytes);
}
inline error_t stream_create(stream_t* s) {
  return hipStreamCreateWithFlags(s, hipStreamNonBlocking);
}
inline error_t stream_destroy(stream_t s) {
  return hipStreamDestroy(s);
}
/// Architecture as the device reports it: the number of gcnArchName ("gfx1100:..." -> 1100).
/// The gfx number (gcnArchName "gfx1100" -> 1100), the wave size, the compute-unit count (WGPs x 2
/// on RDNA, as multiProcessorCount reports them) and the name of device dev, from one properties
/// query.
inline error_t device_arch(int dev, int* gfx, int* warp, int* sms, char* name,
                           std::size_t name_len) {
  hipDeviceProp_t prop{};
  error_t e = hipGetDeviceProperties(&prop, dev);
  if (e != success) return e;
  *warp = prop.warpSize;
  *sms = prop.multiProcessorCount;
  int v = 0;
  const char* a = prop.gcnArchName;
  if (a[0] == 'g' && a[1] == 'f' && a[2] == 'x') {
    for (const char* c = a + 3; *c; ++c) {
      if (*c >= '0' && *c <= '9')
        v = v * 16 + (*c - '0');
      else if (*c >= 'a' && *c <= 'f')
        v = v * 16 + (*c - 'a' + 10);
      else
        break;
    }
  }
  // gfx names are hex-ish ("gfx90a"); keep the decimal reading for the gfx1xxx families.
  *gfx = (v >> 12) * 1000 + ((v >> 8) & 15) * 100 + ((v >> 4) & 15) * 10 + (v & 15);
  std::size_t i = 0;
  for (; i + 1 < name_len && prop.gcnArchName[i]; ++i) name[i] = prop.gcnArchName[i];
  if (name_len) name[i] = 0;
  return success;
}
#endif

}  // namespace rt
}  // namespace rdnaconv
