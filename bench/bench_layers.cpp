// SPDX-License-Identifier: MIT
/// @file bench_layers.cpp Per-layer TFLOPS of rdnaconv methods (Google Benchmark, manual time
/// from device events). Inputs are rotated over enough copies that the working set exceeds the
/// L2 (H200: 60 MB); warm-up runs stay out of the timing; weight prepack is excluded.
/// FLOPs: 2*N*K*C*R*S*P*Q.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "rdnaconv/conv2d.hpp"

using namespace rdnaconv;

namespace {

struct Layer {
  const char* name;
  Conv2dProblem p;
};

// SD3.5 VAE 3x3 layers at 512^2 input, N = 1 (shared/data/model_layers.json: sd35_vae_512)
const Layer kLayers[] = {
    {"sd35_vae_512/c128_512", make_problem(1, 128, 512, 512, 128, 3, 3, 1, 1)},
    {"sd35_vae_512/c256_256", make_problem(1, 256, 256, 256, 256, 3, 3, 1, 1)},
    {"sd35_vae_512/c512_128", make_problem(1, 512, 128, 128, 512, 3, 3, 1, 1)},
};

template <class T, class L>
void bm_layer(benchmark::State& st, Layer layer, Method m) {
  const Conv2dProblem& p = layer.p;
  Conv2dOptions o;
  o.method = m;
  Plan<T, L> plan;
  if (Status s = Plan<T, L>::create(plan, p, o); !s) {
    st.SkipWithError(s.message().c_str());
    return;
  }
  const std::size_t xb = std::size_t(p.x_elems()) * 2, yb = std::size_t(p.y_elems()) * 2;
  const int copies = int(std::max<std::size_t>(1, (256u << 20) / (xb + yb)));  // > 4x the L2
  std::vector<void*> xs(copies), ys(copies);
  std::vector<std::uint16_t> host(p.x_elems());
  std::mt19937 g(1);
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  for (auto& v : host) v = detail::float_to_bits(dtype_of<T>(), d(g));
  for (int i = 0; i < copies; ++i) {
    (void)rt::malloc(&xs[i], xb);
    (void)rt::malloc(&ys[i], yb);
    (void)rt::memcpy_h2d(xs[i], host.data(), xb);
  }
  std::vector<std::uint16_t> hw(p.w_elems());
  for (auto& v : hw) v = detail::float_to_bits(dtype_of<T>(), d(g) * 0.05f);
  void *w, *pk, *ws = nullptr;
  (void)rt::malloc(&w, hw.size() * 2);
  (void)rt::memcpy_h2d(w, hw.data(), hw.size() * 2);
  (void)rt::malloc(&pk, plan.packed_weight_bytes());
  if (plan.workspace_bytes()) (void)rt::malloc(&ws, plan.workspace_bytes());
  (void)plan.prepack(static_cast<const T*>(w), pk);
  rt::event_t a, b;
  (void)rt::event_create(&a);
  (void)rt::event_create(&b);
  auto once = [&](int i) {
    return plan.run(static_cast<const T*>(xs[i % copies]), pk, nullptr, ys[i % copies], ws, plan.workspace_bytes());
  };
  for (int i = 0; i < 3; ++i)
    if (Status s = once(i); !s) { st.SkipWithError(s.message().c_str()); return; }
  (void)rt::synchronize();
  int it = 0;
  for (auto _ : st) {
    constexpr int reps = 10;
    (void)rt::event_record(a, nullptr);
    for (int r = 0; r < reps; ++r) (void)once(it++);
    (void)rt::event_record(b, nullptr);
    (void)rt::event_synchronize(b);
    float ms = 0;
    (void)rt::event_elapsed_ms(&ms, a, b);
    st.SetIterationTime(ms / 1e3 / reps);
  }
  st.counters["TFLOPS"] = benchmark::Counter(p.flops() * 1e-12 * double(st.iterations()) , benchmark::Counter::kIsRate);
  st.counters["GBps"] = benchmark::Counter(double(xb + yb + hw.size() * 2) * 1e-9 * double(st.iterations()), benchmark::Counter::kIsRate);
  st.SetLabel(to_string(plan.method()));
  (void)rt::event_destroy(a);
  (void)rt::event_destroy(b);
  for (int i = 0; i < copies; ++i) { (void)rt::free(xs[i]); (void)rt::free(ys[i]); }
  (void)rt::free(w); (void)rt::free(pk);
  if (ws) (void)rt::free(ws);
}

const int kRegistered = [] {
  for (const Layer& l : kLayers) {
    for (Method m : {Method::general}) {
      const std::string base = std::string(l.name) + "/" + to_string(m);
      benchmark::RegisterBenchmark((base + "/bf16/nhwc").c_str(), bm_layer<bf16_t, NHWC>, l, m)->UseManualTime()->Unit(benchmark::kMicrosecond)->MinTime(0.2);
      benchmark::RegisterBenchmark((base + "/fp16/nhwc").c_str(), bm_layer<fp16_t, NHWC>, l, m)->UseManualTime()->Unit(benchmark::kMicrosecond)->MinTime(0.2);
      benchmark::RegisterBenchmark((base + "/bf16/nchw").c_str(), bm_layer<bf16_t, NCHW>, l, m)->UseManualTime()->Unit(benchmark::kMicrosecond)->MinTime(0.2);
    }
  }
  return 0;
}();

}  // namespace

BENCHMARK_MAIN();
