// SPDX-License-Identifier: MIT
/// @file hip_consumer.cpp Links against the HIP runtime through rdnaconv's exported target: a
/// stream, a plan and the one-shot call (kernels for the offload target). Built, not run, in CI
/// (no AMD GPU there); on a machine with one it prints the plan and the status.
#include <cstdio>

#include <rdnaconv/conv2d.hpp>

int main() {
  hipStream_t s = nullptr;
  if (hipStreamCreate(&s) != hipSuccess) {
    std::printf("hip_consumer: no HIP device (%s)\n", rdnaconv::version_string());
    return 0;
  }
  const rdnaconv::Conv2dProblem p = rdnaconv::make_problem(1, 64, 32, 32, 64, 3, 3, 1, 1);
  std::size_t ws = 0;
  const rdnaconv::Status st =
      rdnaconv::conv2d_workspace_bytes<rdnaconv::fp16_t, rdnaconv::NHWC>(p, {}, &ws);
  std::printf("hip_consumer %s: %s, workspace %zu bytes\n", rdnaconv::version_string(),
              st.ok() ? "planned" : st.message().c_str(), ws);
  // the one-shot call (instantiates and links the kernels); null buffers: refused, nothing launched
  const rdnaconv::Status bad = rdnaconv::conv2d<rdnaconv::fp16_t, rdnaconv::NHWC>(
      p, nullptr, nullptr, nullptr, nullptr, nullptr, 0, s);
  std::printf("null buffers: %s\n", bad.message().c_str());
  (void)hipStreamDestroy(s);
  return st.ok() ? 0 : 1;
}
