// SPDX-License-Identifier: MIT
/// One layer through the public API, timed with device events, the same harness compiled
/// against two include trees (tools/kernel_pair.sh): separates a kernel change from a
/// benchmark-harness change when a before/after pair flags a row.
///   kernel_pair N C H W K R stride pad method reps [nhwc]   (bf16, NCHW unless nhwc; x, y, w,
///   workspace each from its own cudaMalloc, x filled with a fixed pattern)
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "rdnaconv/conv2d.hpp"

template <class L>
int run_layer(char** argv) {
  rdnaconv::Conv2dProblem p{};
  p.n = std::atoi(argv[1]);
  p.c = std::atoi(argv[2]);
  p.h = std::atoi(argv[3]);
  p.w = std::atoi(argv[4]);
  p.k = std::atoi(argv[5]);
  p.r = p.s = std::atoi(argv[6]);
  p.stride_h = p.stride_w = std::atoi(argv[7]);
  p.pad_top = p.pad_bottom = p.pad_left = p.pad_right = std::atoi(argv[8]);
  p.dil_h = p.dil_w = 1;
  rdnaconv::Conv2dOptions o;
  for (int i = 0;; ++i) {  // the method by name
    const auto m = static_cast<rdnaconv::Method>(i);
    if (std::string(rdnaconv::to_string(m)) == "?") return std::fprintf(stderr, "method?\n"), 2;
    if (std::string(rdnaconv::to_string(m)) == argv[9]) {
      o.method = m;
      break;
    }
  }
  const int reps = std::atoi(argv[10]);
  using Plan = rdnaconv::Plan<rdnaconv::bf16_t, L>;
  Plan plan;
  if (auto s = Plan::create(plan, p, o, 0); !s.ok())
    return std::fprintf(stderr, "%s\n", s.message().c_str()), 1;
  const std::size_t xe = std::size_t(p.n) * p.c * p.h * p.w,
                    we = std::size_t(p.k) * p.c * p.r * p.s;
  const std::size_t ye = std::size_t(p.n) * p.k * p.p() * p.q();
  std::vector<unsigned short> hx(xe), hw(we);
  for (std::size_t i = 0; i < xe; ++i) hx[i] = 0x3f80 + (i * 2654435761u >> 25);   // 1..2
  for (std::size_t i = 0; i < we; ++i) hw[i] = 0x3c00 + (i * 40503u >> 9 & 0x7f);  // small
  void *x, *w, *y, *pk, *ws = nullptr;
  cudaMalloc(&x, xe * 2);
  cudaMalloc(&w, we * 2);
  cudaMalloc(&y, ye * 2);
  cudaMalloc(&pk, plan.packed_weight_bytes() + 16);
  if (plan.workspace_bytes()) cudaMalloc(&ws, plan.workspace_bytes());
  cudaMemcpy(x, hx.data(), xe * 2, cudaMemcpyHostToDevice);
  cudaMemcpy(w, hw.data(), we * 2, cudaMemcpyHostToDevice);
  if (auto s = plan.prepack(static_cast<const rdnaconv::bf16_t*>(w), pk, nullptr); !s.ok())
    return std::fprintf(stderr, "%s\n", s.message().c_str()), 1;
  auto run = [&] {
    if (auto s = plan.run(static_cast<const rdnaconv::bf16_t*>(x), pk, nullptr, y, ws,
                          plan.workspace_bytes(), nullptr);
        !s.ok())
      std::fprintf(stderr, "%s\n", s.message().c_str()), std::exit(1);
  };
  for (int i = 0; i < 5; ++i) run();
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  cudaEventRecord(a);
  for (int i = 0; i < reps; ++i) run();
  cudaEventRecord(b);
  cudaEventSynchronize(b);
  float ms = 0;
  cudaEventElapsedTime(&ms, a, b);
  std::printf("%.1f us per call (%d calls, %s)\n", 1000.0 * ms / reps, reps, argv[9]);
#ifdef RDNACONV_HAS_DESCRIBE  // the after tree (a before tree may predate describe())
  std::printf("  %s\n", plan.describe().c_str());
#endif
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}

int main(int argc, char** argv) {
  if (argc < 11)
    return std::fprintf(stderr, "usage: N C H W K R stride pad method reps [nhwc]\n"), 2;
  if (argc > 11 && std::string(argv[11]) == "nhwc") return run_layer<rdnaconv::NHWC>(argv);
  return run_layer<rdnaconv::NCHW>(argv);
}
