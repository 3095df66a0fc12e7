// SPDX-License-Identifier: MIT
/// @file bench_layers.cpp rdnaconv_bench: per-layer time and TFLOPS of rdnaconv's methods and of
/// the vendor library, in one binary, same shapes, same run (Google Benchmark, manual time from
/// device events).
///
///   rdnaconv_bench [--set=quick|full|sweep|smoke|residual|epilogue|grouped|padmodes|nchw1x1]
///   [--methods=router|all]
///   [--vendor=on|off] [--vendor-candidates=N] [--vendor-cache=FILE]
///   [--e2e=on|off] [--timing=graph|stream] [--ceilings=on|off] [--split-k=N[,N...]]
///   [--tile=small|tall] [--schedule=persistent] [Google Benchmark flags, e.g.
///   --benchmark_out=bench.json]
///
/// --split-k=N,...: beside each layer whose routed method can split its reduction (the direct
/// families) into N parts, a row router+splitN (Conv2dOptions::split_k = N), for the sweep the
/// router's split-K threshold is to come from.
///
/// --tile=small: beside each layer whose routed method is a direct engine family, a row
/// router+main (Conv2dOptions::tile = main: the family's main tile, the router's small-tile rule
/// off), router+small (Conv2dOptions::tile = small, the plan's own split-K on the small tile's
/// grid) and, with --split-k, router+small+splitN: the sweep for the small tile's router rule.
/// --tile=tall: beside each NHWC layer hopper_tma takes with K <= 128 (Hopper, sm_90a build), the
/// rows hopper_tma+main (its 128-row block, Conv2dOptions::tile = main) and hopper_tma+tall (the
/// 256 x 128 block); the router's plan takes the tall block by itself where its rule says so.
/// --schedule=persistent: beside each NHWC layer hopper_tma can take (Hopper, sm_90a build), the
/// rows hopper_tma+per_tile (forced, its tile rule, one block per tile) and hopper_tma+persist (the
/// same tile, Conv2dOptions::schedule = persistent: version 6's walk, kernels/hopper/README.md),
/// hopper_tma+pingpong (Schedule::pingpong: version 8, 128 x 128 tiles per consumer warpgroup)
/// and hopper_halo (version 7) where it applies.
///
/// Rows: layer/<model>/N<batch>/<dtype>/<layout>/<layer>/<label>, label = router (the method
/// the router picks, named in the row's label), a method name (--methods=all), prepack (the
/// router's weight prepack, excluded from the other rows) or the vendor: cudnn (cuDNN's graph
/// API with every plan of the heuristics timed, as PyTorch's cudnn.benchmark does: label = the
/// engine, its knobs and the search's counts; bench/cudnn_graph.hpp; --vendor-candidates=N tries
/// only the first N plans in the heuristics' order, 0 = all; --vendor-cache=FILE keeps each
/// key's choice across processes, bench/vendor_cache.hpp) or miopen, and in --set=full and
/// --set=residual cudnn-legacy (cudnnFind, the vendor row of the sections before 2026-12-06).
/// --set=residual: ResNet-50's bottleneck conv3 shapes (1x1, K = 4C,
/// which the block's residual add follows) with router+res (relu(conv + bias + y) fused, y the
/// shortcut, in place) and the vendor's fused conv-bias-add-relu (vendor+res: cuDNN's graph of
/// conv -> bias -> add -> relu, one plan when an engine takes it, else the plain graph and
/// separate kernels, as its label says; cudnn-legacy+res: cudnnConvolutionBiasActivationForward)
/// beside the plain rows. --set=epilogue: every ResNet-50 layer at N1 and N32 with bias + relu
/// fused on both sides (router+bias_relu, cudnn+bias_relu: a conv + BN + relu block at
/// inference), and the residual rows on the bottleneck conv3 layers. --set=grouped: the grouped
/// and depthwise models (torchvision ConvNeXt-T and MobileNetV2 at 224², N1 and N32, both types
/// and layouts; tests/common/model_layers.hpp), cuDNN beside (the group count from the filter's
/// C/G channels), and on the NHWC depthwise layers the row grouped+window (the row-window
/// kernel, Conv2dOptions::tile = window, forced). --set=padmodes: the SD3.5 VAE's padded 3x3 layers
/// at N1, bf16, both layouts, with a row per padding mode (pad_zeros, pad_reflect, pad_replicate,
/// pad_circular), each on the family the router names for the non-zeros modes (forced: the modes
/// are not routed yet), beside the router row (issue 17: a mode within 5% of zeros). --set=nchw1x1:
/// the 1x1 layers of ResNet-50 (N1, N32) and of both VAEs (N1) in bf16 NCHW with every method
/// (--methods=all implied): gemm1x1's NCHW gather against cblocked1x1's repack (issue 14 item 5).
/// model/<model>/N<batch>/<dtype>/<layout>/<rdnaconv|cudnn|miopen>/<stream|graph>: every layer of
/// the model back to back on one stream, and the same sequence captured once and replayed as a
/// graph. Counters: TFLOPS = 2*N*K*C*R*S*P*Q / time (Winograd rows are labelled "effective"), GBps
/// = (x + w + y bytes, each once) / time, mult = layer multiplicity in the model. Measurement:
/// inputs and outputs rotate over enough copies that the working set exceeds 256 MiB (over 4x the
/// H200's 60 MB L2); at least 15 ms of untimed warm-up calls (clocks). A layer row's time is the
/// GPU's: max(R, copies) back-to-back calls (R sized to about 1 ms, every copy visited) captured
/// once into a graph, 7 timed replays, the median per call. R calls launched one by one on the
/// stream give the counter stream_us (the row's time with
/// --timing=stream, the measurement of binaries before the graph timing, for before/after
/// pairs); launch_us = stream_us - the row's time is what the
/// host's launches cost on top (large in this virtual machine: tens of µs per call), reported
/// apart so that it is never taken for kernel time. Model rows: the whole model per call, on
/// the stream or replayed from a graph, as their names say.
/// Every row, rdnaconv's and the vendor's, runs on one stream that lives as long as the process
/// (a vendor handle bound to a destroyed stream broke every later vendor row). Any row that
/// errors makes the binary exit 1.
/// Per-call work (the NCHWc repack, Winograd's transforms) is inside the timed call.
/// --ceilings=on (off by default: the ceiling rows ran on an H100 on 2026-12-06, alone; the
/// of_mma / of_copy counters of layer rows have not run on a GPU yet) puts the GPU's ceilings
/// first in every set.
/// ceiling/<what>: the GPU's own ceilings, first in every set, each measured once per process
/// (bench/ceilings.hpp) and timed like a layer row: ceiling/mma_sync/<fp16|bf16> (NVIDIA),
/// ceiling/wgmma/<fp16|bf16> (an sm_90a build on a 9.0 device), ceiling/wmma/<fp16|bf16> (AMD
/// gfx11 / gfx12) with counter TFLOPS, and ceiling/copy (16-byte loads and stores over buffers
/// far beyond L2, bytes = read + written) with counter GBps. Every layer and model row then has
/// of_mma = its TFLOPS / the matrix peak of its dtype that binds the library's kernels (wgmma
/// where the plan uses the sm90 tiles, else mma_sync; wmma on AMD; none on AMD targets without
/// WMMA) and of_copy = its GBps / the copy ceiling (prepack rows: neither). --ceilings=off (the
/// default for now): no ceiling rows, no of_mma / of_copy counters.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "ceilings.hpp"
#include "common/model_layers.hpp"
#include "rdnaconv/conv2d.hpp"
#include "vendor.hpp"

using namespace rdnaconv;

namespace {

struct Options {
  std::string set = "quick";
  bool all_methods = false;
  bool vendor = true;
  bool e2e = true;
  bool graph = true;  ///< --timing=stream: layer rows timed on the stream only (no graph replay)
  int vendor_candidates = 0;  ///< --vendor-candidates=N (0: every plan of the heuristics)
  std::string vendor_cache;   ///< --vendor-cache=FILE: the vendor's choices across processes
  /// --split-k=N[,N...]: a row `router+splitN` per N beside each layer whose plan can split
  /// (Conv2dOptions::split_k forced; the router's method), for the split-K sweep
  std::vector<int> split_k;
  /// --tile=small: the small tile's rows `router+small` (and `router+small+splitN`)
  bool small_tile = false;
  /// --tile=tall: hopper_tma's rows with and without its tall block (K <= 128)
  bool tall_tile = false;
  /// --schedule=persistent: hopper_tma's rows per tile and persistent
  bool persistent = false;
  /// --ceilings=on: the ceiling rows and the of_mma / of_copy counters; off by default until
  /// the counters have run beside layer rows on a GPU (the ceiling rows alone ran, 2026-12-06)
  bool ceilings = false;
};
Options g_opt;

/// A model at a batch size, with the dtypes/layouts to run it in.
struct BenchSet {
  std::string model;
  int batch;
  std::vector<DType> types;
  std::vector<LayoutKind> layouts;
  /// which unique layers (nullptr: all)
  bool (*filter)(const Conv2dProblem&) = nullptr;
  /// every applicable method per layer with --methods=all (the sets the issues' bars are on)
  bool compare_methods = true;
  /// the residual rows (router+res, vendor+res) beside the plain ones, on the bottleneck conv3
  /// layers
  bool residual = false;
  /// the bias + relu rows (router+bias_relu, vendor+bias_relu) on every layer
  bool bias_act = false;
  /// the cudnn-legacy rows (cudnnFind) beside the cudnn ones
  bool legacy = false;
  /// the padding-mode rows (pad_zeros, pad_reflect, pad_replicate, pad_circular) on the padded
  /// layers, each forced to the family the router names for the mode
  bool pad_modes = false;
};

/// The epilogue a row fuses.
enum class RowEpi {
  none,
  bias_relu,  ///< y = relu(conv + bias)
  residual,   ///< y = relu(conv + bias + y), y holding the shortcut (in place)
};

bool is_1x1(const Conv2dProblem& p) {
  return p.r == 1 && p.s == 1;
}
bool is_3x3(const Conv2dProblem& p) {
  return p.r == 3 && p.s == 3;
}
/// ResNet-50's bottleneck conv3 (and layer1's downsample, the same shape): the residual add
/// follows these.
bool is_bottleneck_out(const Conv2dProblem& p) {
  return is_1x1(p) && p.stride_h == 1 && p.k == 4 * p.c;
}

/// The router sweep (docs/ROUTER.md): 3x3 stride-1 pad-1 layers, N = 1, bf16, C and K in
/// {64, 128, 256, 512, 1024}, three spatial sizes, both layouts, every applicable method.
std::vector<models::ModelLayer> sweep_layers() {
  std::vector<models::ModelLayer> out;
  for (int hw : {32, 64, 128})
    for (int c : {64, 128, 256, 512, 1024})
      for (int k : {64, 128, 256, 512, 1024})
        out.push_back(
            {"c" + std::to_string(c) + "_k" + std::to_string(k) + "_" + std::to_string(hw),
             make_problem(1, c, hw, hw, k, 3, 3, 1, 1)});
  return out;
}

/// Whether method m runs on this GPU's own tile table (hopper_tma: Hopper with an sm_90a build
/// only; its plans are refused elsewhere, so --methods=all leaves its rows out there).
bool runs_on_this_gpu(const MethodInfo& m) {
  DeviceInfo dev;
  return query_device(-1, dev).ok() && m.runs_on(tile_family(AtomKind::native, dev.family));
}

std::vector<BenchSet> sets(const std::string& which) {
  const std::vector<DType> both_t = {DType::f16, DType::bf16};
  const std::vector<LayoutKind> both_l = {LayoutKind::nhwc, LayoutKind::nchw};
  if (which == "sweep") return {{"sweep3x3", 1, {DType::bf16}, both_l}};
  if (which == "smoke")  // ctest BenchSmoke: model rows (graph capture on the vendor too), then
                         // more vendor rows
    return {{"resnet50_224", 1, {DType::f16}, {LayoutKind::nhwc}, nullptr, false},
            {"sd35_vae_512", 1, {DType::bf16}, {LayoutKind::nchw}, &is_1x1, false}};
  if (which == "residual")
    return {{"resnet50_224",
             1,
             both_t,
             {LayoutKind::nhwc},
             &is_bottleneck_out,
             false,
             true,
             false,
             true},
            {"resnet50_224", 32, both_t, both_l, &is_bottleneck_out, false, true, false, true}};
  if (which == "epilogue")
    return {{"resnet50_224", 1, both_t, both_l, nullptr, false, true, true},
            {"resnet50_224", 32, both_t, both_l, nullptr, false, true, true}};
  if (which == "grouped")  // issue 17: the depthwise and grouped layers of two models
    return {{"convnext_t_224", 1, both_t, both_l},
            {"convnext_t_224", 32, both_t, both_l},
            {"mobilenet_v2_224", 1, both_t, both_l},
            {"mobilenet_v2_224", 32, both_t, both_l}};
  if (which == "padmodes")  // issue 17's bar: a padding mode within 5% of zeros, same shape
    return {{"sd35_vae_512", 1, {DType::bf16}, both_l, &is_3x3, false, false, false, false, true}};
  if (which == "nchw1x1")  // issue 14 item 5: NCHW 1x1 layers, gemm1x1 against cblocked1x1
    return {{"resnet50_224", 1, {DType::bf16}, {LayoutKind::nchw}, &is_1x1},
            {"resnet50_224", 32, {DType::bf16}, {LayoutKind::nchw}, &is_1x1},
            {"sd35_vae_512", 1, {DType::bf16}, {LayoutKind::nchw}, &is_1x1},
            {"flux2_vae_1024", 1, {DType::bf16}, {LayoutKind::nchw}, &is_1x1}};
  if (which == "quick")  // the main job's default: about two minutes on an H200
    return {{"resnet50_224", 32, {DType::f16}, {LayoutKind::nhwc}, &is_1x1},
            {"sd35_vae_512", 1, {DType::bf16}, both_l, &is_3x3}};
  // full: every model set, with the cudnn-legacy rows beside the cudnn ones
  return {{"resnet50_224", 1, both_t, both_l, nullptr, false, false, false, true},
          {"resnet50_224", 8, both_t, both_l, nullptr, false, false, false, true},
          {"resnet50_224", 32, both_t, both_l, nullptr, true, false, false, true},
          {"sd35_vae_512", 1, both_t, both_l, nullptr, true, false, false, true},
          {"sd35_vae_512", 4, both_t, both_l, nullptr, false, false, false, true},
          {"flux2_vae_1024", 1, both_t, both_l, nullptr, true, false, false, true}};
}

#define RT_CHECK(expr)                                \
  do {                                                \
    if (rt::error_t e_ = (expr); e_ != rt::success)   \
      throw std::runtime_error(rt::error_string(e_)); \
  } while (0)

/// Rows that errored (skipped with an error): the exit status says so.
int g_errors = 0;
void row_error(benchmark::State& st, const std::string& why) {
  ++g_errors;
  st.SkipWithError(why.c_str());
}

/// The one stream of every row: created once, never destroyed while the process runs.
rt::stream_t bench_stream() {
  static rt::stream_t s = [] {
    rt::stream_t x = nullptr;
    RT_CHECK(rt::stream_create(&x));
    return x;
  }();
  return s;
}

/// Stream capture into a graph, CUDA or HIP.
#if defined(RDNACONV_BACKEND_CUDA)
using graph_t = cudaGraph_t;
using graph_exec_t = cudaGraphExec_t;
inline rt::error_t begin_capture(rt::stream_t s) {
  return cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal);
}
inline rt::error_t end_capture(rt::stream_t s, graph_t* g) {
  return cudaStreamEndCapture(s, g);
}
inline rt::error_t instantiate(graph_exec_t* e, graph_t g) {
  return cudaGraphInstantiate(e, g, 0);
}
inline rt::error_t graph_launch(graph_exec_t e, rt::stream_t s) {
  return cudaGraphLaunch(e, s);
}
inline void graph_free(graph_t g, graph_exec_t e) {
  if (e) (void)cudaGraphExecDestroy(e);
  if (g) (void)cudaGraphDestroy(g);
}
#else
using graph_t = hipGraph_t;
using graph_exec_t = hipGraphExec_t;
inline rt::error_t begin_capture(rt::stream_t s) {
  return hipStreamBeginCapture(s, hipStreamCaptureModeThreadLocal);
}
inline rt::error_t end_capture(rt::stream_t s, graph_t* g) {
  return hipStreamEndCapture(s, g);
}
inline rt::error_t instantiate(graph_exec_t* e, graph_t g) {
  return hipGraphInstantiate(e, g, nullptr, nullptr, 0);
}
inline rt::error_t graph_launch(graph_exec_t e, rt::stream_t s) {
  return hipGraphLaunch(e, s);
}
inline void graph_free(graph_t g, graph_exec_t e) {
  if (e) (void)hipGraphExecDestroy(e);
  if (g) (void)hipGraphDestroy(g);
}
#endif

/// A captured graph, freed with its owner.
struct Graph {
  graph_t g = nullptr;
  graph_exec_t e = nullptr;
  Graph() = default;
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;
  ~Graph() { graph_free(g, e); }
  /// Captures what `launch` enqueues on `s`.
  void capture(rt::stream_t s, const std::function<void()>& launch) {
    RT_CHECK(begin_capture(s));
    launch();
    RT_CHECK(end_capture(s, &g));
    RT_CHECK(instantiate(&e, g));
  }
};

__global__ void fill_random(std::uint16_t* p, std::int64_t n, DType t, std::uint32_t seed,
                            float scale) {
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    std::uint64_t v = (std::uint64_t(seed) << 40) ^ std::uint64_t(i);
    v ^= v >> 33;
    v *= 0xff51afd7ed558ccdull;
    v ^= v >> 33;
    v *= 0xc4ceb9fe1a85ec53ull;
    v ^= v >> 33;
    const float u =
        float(std::uint32_t(v) >> 8) * (1.f / 16777216.f) * 2.f - 1.f;  // random, never all zeros
    p[i] = t == DType::bf16 ? arch::float_to_bf16(u * scale) : arch::float_to_f16(u * scale);
  }
}

struct DevMem {
  void* p = nullptr;
  explicit DevMem(std::size_t bytes) { RT_CHECK(rt::malloc(&p, bytes ? bytes : 16)); }
  ~DevMem() { (void)rt::free(p); }
  DevMem(const DevMem&) = delete;
  DevMem& operator=(const DevMem&) = delete;
};

void fill(void* p, std::int64_t n, DType t, std::uint32_t seed, float scale) {
  const unsigned blocks = unsigned(std::min<std::int64_t>((n + 255) / 256, 65536));
  fill_random<<<blocks, 256>>>(static_cast<std::uint16_t*>(p), n, t, seed, scale);
  RT_CHECK(rt::get_last_error());
}

/// Rotating inputs/outputs of one layer, reused by every row of that layer (rows of a layer are
/// registered together). One allocation holds all copies, back to back: separate allocations
/// per copy made small layers pay a GPU TLB miss on every call (hundreds of 2 MiB pages).
struct LayerData {
  std::string key;
  std::size_t x_bytes = 0, y_bytes = 0;
  std::unique_ptr<DevMem> pool;
  std::vector<void*> xs, ys;
  std::unique_ptr<DevMem> w;
};
LayerData& layer_data(const Conv2dProblem& p, DType t, LayoutKind l, std::size_t y_bytes) {
  static LayerData d;
  const std::string key = std::to_string(p.n) + "/" + std::to_string(p.c) + "/" +
                          std::to_string(p.h) + "/" + std::to_string(p.w) + "/" +
                          std::to_string(p.k) + "/" + std::to_string(p.r) + "/" +
                          std::to_string(p.s) + "/g" + std::to_string(p.groups) + "/" +
                          to_string(t) + "/" + to_string(l) + "/" + std::to_string(y_bytes);
  if (d.key == key) return d;
  d = LayerData{};
  d.key = key;
  d.x_bytes = std::size_t(p.x_elems()) * 2;
  d.y_bytes = y_bytes;
  const std::size_t xa = (d.x_bytes + 255) / 256 * 256, ya = (d.y_bytes + 255) / 256 * 256;
  const int copies = int(std::max<std::size_t>(2, (std::size_t(256) << 20) / (xa + ya) + 1));
  d.pool = std::make_unique<DevMem>(std::size_t(copies) * (xa + ya));
  for (int i = 0; i < copies; ++i) {
    char* base = static_cast<char*>(d.pool->p) + std::size_t(i) * (xa + ya);
    d.xs.push_back(base);
    d.ys.push_back(base + xa);
    fill(base, p.x_elems(), t, 17 + i, 1.f);
  }
  d.w = std::make_unique<DevMem>(std::size_t(p.w_elems()) * 2);
  fill(d.w->p, p.w_elems(), t, 5, float(1 / std::sqrt(double(p.gemm_k()))));
  RT_CHECK(rt::synchronize());
  return d;
}

/// Median time per call in seconds: `call(i)` launches call i asynchronously on `stream`.
/// Warm-up is by time (at least 15 ms of back-to-back calls, untimed): an idle GPU runs at a low
/// clock (345 MHz seen on the H200) and needs milliseconds of load to reach its boost clock.
/// `reps_out` (if given) gets the batch size used.
double time_stream(const std::function<void(int)>& call, rt::stream_t stream,
                   int* reps_out = nullptr) {
  rt::event_t a, b;
  RT_CHECK(rt::event_create(&a));
  RT_CHECK(rt::event_create(&b));
  int i = 0;
  auto batch_ms = [&](int n) {
    RT_CHECK(rt::event_record(a, stream));
    for (int r = 0; r < n; ++r) call(i++);
    RT_CHECK(rt::event_record(b, stream));
    RT_CHECK(rt::event_synchronize(b));
    float ms = 0;
    RT_CHECK(rt::event_elapsed_ms(&ms, a, b));
    return double(ms);
  };
  double one = batch_ms(1);
  for (double warm = one; warm < 15.0;) {
    const int n = std::clamp(int(std::ceil((15.0 - warm) / std::max(one, 1e-3))), 1, 4000);
    const double ms = batch_ms(n);
    warm += ms;
    one = ms / n;
  }
  const int reps = std::clamp(int(std::ceil(1.0 / std::max(one, 1e-4))), 1, 400);  // ~1 ms batches
  if (reps_out) *reps_out = reps;
  std::vector<double> samples;
  for (int s = 0; s < 7; ++s) samples.push_back(batch_ms(reps) * 1e-3 / reps);
  (void)rt::event_destroy(a);
  (void)rt::event_destroy(b);
  std::sort(samples.begin(), samples.end());
  return samples[samples.size() / 2];
}

struct Timing {
  double gpu = 0;     ///< per call, replayed from a graph of R calls: the row's time
  double stream = 0;  ///< per call, launched one by one on the stream
};

/// A layer row: warm-up and stream timing, then n = max(R, copies) calls captured into one graph
/// and replayed (7 timed replays, median, over n). `call(i, s)` launches call i on stream s, on
/// copy i % copies of x and y: the graph walks every copy, so a replay's working set exceeds L2
/// like the stream's (a graph of R calls over R copies kept a big layer's x in L2: R = 1 there).
Timing time_calls(const std::function<void(int, rt::stream_t)>& call, int copies) {
  const rt::stream_t s = bench_stream();
  Timing t;
  int reps = 1;
  t.stream = time_stream([&](int i) { call(i, s); }, s, &reps);
  if (!g_opt
           .graph) {  // the measurement of binaries before the graph timing, for before/after pairs
    t.gpu = t.stream;
    return t;
  }
  const int n = std::max(reps, std::min(copies, 2048));
  Graph g;
  g.capture(s, [&] {
    for (int r = 0; r < n; ++r) call(r, s);
  });
  RT_CHECK(graph_launch(g.e, s));  // one untimed replay (first-launch upload)
  RT_CHECK(rt::stream_synchronize(s));
  t.gpu = time_stream([&](int) { (void)graph_launch(g.e, s); }, s) / n;
  return t;
}

/// A vendor plan candidate's time per call (the search, set-up of a vendor row): calls over
/// enough copies of x and y that one replay touches at least 128 MiB (over twice the H100's 50 MB
/// and the H200's 60 MB L2, so no copy is in L2 when its turn comes; the row itself walks all
/// copies, >= 256 MiB) captured once into a graph, one untimed replay, then replays until at
/// least 3 and 1 ms, the median over the calls. The row's graph measurement, less its 15 ms
/// warm-up (the search runs back to back, the clock is up) and its stream timing: the search of
/// the first full run (every copy, 3 ms per candidate) took 380 of its 560 s.
double time_candidate(const std::function<void(int, rt::stream_t)>& call, int copies,
                      std::size_t copy_bytes) {
  const rt::stream_t s = bench_stream();
  const std::size_t per = std::max<std::size_t>(copy_bytes, 1);
  const int n = std::clamp(
      int(std::min<std::size_t>(std::size_t(copies), ((std::size_t(128) << 20) + per - 1) / per)),
      1, 2048);
  Graph g;
  g.capture(s, [&] {
    for (int r = 0; r < n; ++r) call(r, s);
  });
  RT_CHECK(graph_launch(g.e, s));
  RT_CHECK(rt::stream_synchronize(s));
  rt::event_t a, b;
  RT_CHECK(rt::event_create(&a));
  RT_CHECK(rt::event_create(&b));
  std::vector<double> samples;
  double total = 0;
  while (samples.size() < 3 || (total < 1.0 && samples.size() < 50)) {
    RT_CHECK(rt::event_record(a, s));
    RT_CHECK(graph_launch(g.e, s));
    RT_CHECK(rt::event_record(b, s));
    RT_CHECK(rt::event_synchronize(b));
    float ms = 0;
    RT_CHECK(rt::event_elapsed_ms(&ms, a, b));
    samples.push_back(ms);
    total += ms;
  }
  (void)rt::event_destroy(a);
  (void)rt::event_destroy(b);
  std::sort(samples.begin(), samples.end());
  return samples[samples.size() / 2] * 1e-3 / n;
}

/// A ceiling of this process: TFLOPS (matrix peaks) or GB/s (copy), how it was timed, what ran.
struct Ceiling {
  bool tried = false;
  double value = 0;  ///< 0: not measured (`error` says why)
  Timing t;
  std::string what, error;
};

/// The ceiling `key` ("mma_sync/fp16", "wgmma/bf16", "wmma/fp16", "copy", ...), measured once per
/// process: by its row, or by the first row that needs it (a --benchmark_filter without the
/// ceiling rows). Timed as a layer row is (time_calls: warm-up, graph replay, median of 7).
const Ceiling& ceiling(const std::string& key) {
  static std::map<std::string, Ceiling> cache;
  Ceiling& c = cache[key];
  if (c.tried) return c;
  c.tried = true;
  try {
    namespace cl = bench::ceil;
    const cl::Device d = cl::current_device();
    rt::error_t last = rt::success;
    if (key == "copy") {
      cl::CopyPeak k(d);
      c.t = time_calls(
          [&](int, rt::stream_t s) {
            if (rt::error_t e = k.launch(s); e != rt::success) last = e;
          },
          1);
      RT_CHECK(last);
      c.value = k.bytes() / c.t.gpu * 1e-9;
      c.what = k.what();
    } else {
      const std::size_t slash = key.find('/');
      const std::string m = key.substr(0, slash);
      const cl::Matrix mx = m == "wgmma"  ? cl::Matrix::wgmma
                            : m == "wmma" ? cl::Matrix::wmma
                                          : cl::Matrix::mma_sync;
      cl::MatrixPeak k(mx, key.substr(slash + 1) == "bf16", d);
      c.t = time_calls(
          [&](int, rt::stream_t s) {
            if (rt::error_t e = k.launch(s); e != rt::success) last = e;
          },
          1);
      RT_CHECK(last);
      c.value = k.flops() / c.t.gpu * 1e-12;
      c.what = k.what();
    }
    RT_CHECK(rt::synchronize());
  } catch (const std::exception& e) {
    c.value = 0;
    c.error = e.what();
  }
  return c;
}

/// The ceiling rows' keys on this device, in row order (empty with --ceilings=off).
std::vector<std::string> ceiling_keys() {
  std::vector<std::string> keys;
  DeviceInfo d;
  if (!g_opt.ceilings || arch::query_device(-1, d) != rt::success) return keys;
  for (bench::ceil::Matrix m :
       {bench::ceil::Matrix::mma_sync, bench::ceil::Matrix::wgmma, bench::ceil::Matrix::wmma})
    if (bench::ceil::has_matrix(m, d))
      for (DType t : {DType::f16, DType::bf16})
        keys.push_back(std::string(bench::ceil::to_string(m)) + "/" + to_string(t));
  keys.push_back("copy");
  return keys;
}

/// A ceiling row: the ceiling's time per launch, TFLOPS or GBps, what ran in the label.
void bm_ceiling(benchmark::State& st, const std::string& key) {
  const Ceiling& c = ceiling(key);
  if (c.value <= 0) {
    row_error(st, c.error.empty() ? "ceiling not measured" : c.error);
    return;
  }
  for (auto _ : st) {
    st.SetIterationTime(c.t.gpu);
    st.counters["stream_us"] = c.t.stream * 1e6;
    st.counters[key == "copy" ? "GBps" : "TFLOPS"] = c.value;
    st.SetLabel(c.what);
  }
}

/// A row's fractions of the ceilings that bind it: of_mma = TFLOPS / the matrix peak of dtype t
/// that the library's kernels issue on this device, of_copy = GBps / the copy ceiling. Nothing
/// with --ceilings=off or where a ceiling could not be measured (its row says why).
void ceiling_fractions(benchmark::State& st, DType t) {
  DeviceInfo d;
  if (!g_opt.ceilings || arch::query_device(-1, d) != rt::success) return;
  bench::ceil::Matrix m{};
  if (bench::ceil::binding_matrix(d, &m))
    if (const Ceiling& c = ceiling(std::string(bench::ceil::to_string(m)) + "/" + to_string(t));
        c.value > 0)
      st.counters["of_mma"] = st.counters["TFLOPS"].value / c.value;
  if (const Ceiling& c = ceiling("copy"); c.value > 0)
    st.counters["of_copy"] = st.counters["GBps"].value / c.value;
}

void report(benchmark::State& st, const Conv2dProblem& p, const Timing& t, int mult,
            const std::string& label) {
  const double secs = t.gpu;
  st.SetIterationTime(secs);
  st.counters["stream_us"] = t.stream * 1e6;
  st.counters["launch_us"] = std::max(0.0, t.stream - t.gpu) * 1e6;
  st.counters["TFLOPS"] = p.flops() / secs * 1e-12;
  st.counters["GBps"] = double((p.x_elems() + p.w_elems() + p.y_elems()) * 2) / secs * 1e-9;
  st.counters["mult"] = mult;
  // the shape, for the summary script (docs tables)
  st.counters["C"] = double(p.c);
  st.counters["K"] = double(p.k);
  st.counters["H"] = double(p.h);
  st.counters["R"] = double(p.r);
  st.counters["str"] = double(p.stride_h);
  st.counters["P"] = double(p.p());
  st.SetLabel(label);
}

/// K bias values of type t, all zero (the residual rows: both sides read a bias).
const void* zero_bias(std::int64_t k) {
  constexpr std::size_t kMaxK = 8192;
  static DevMem b(kMaxK * 4);
  if (k > std::int64_t(kMaxK)) throw std::runtime_error("zero_bias: K > 8192");
  static const bool cleared = [] {
    RT_CHECK(rt::memset(b.p, 0, kMaxK * 4));
    RT_CHECK(rt::synchronize());
    return true;
  }();
  (void)cleared;
  return b.p;
}

template <class T, class L>
void bm_rdnaconv(benchmark::State& st, Conv2dProblem p, Method m, int mult, bool prepack_row,
                 RowEpi epi = RowEpi::none, int split_k = 0,
                 TileChoice tile = TileChoice::automatic, Schedule schedule = Schedule::automatic) {
  Conv2dOptions o;
  o.method = m;
  o.split_k = split_k;
  o.tile = tile;
  o.schedule = schedule;
  const bool residual = epi == RowEpi::residual;
  if (epi != RowEpi::none) {  // relu(conv + bias (+ y)): y holds the shortcut, added in place
    o.has_bias = true;
    o.has_residual = residual;
    o.activation = Activation::relu;
  }
  Plan<T, L> plan;
  if (Status s = Plan<T, L>::create(plan, p, o); !s) {
    row_error(st, s.message());
    return;
  }
  try {
    LayerData& d = layer_data(p, dtype_of<T>(), L::kind, std::size_t(p.y_elems()) * 2);
    DevMem pk(plan.packed_weight_bytes()), ws(plan.workspace_bytes());
    if (Status s = plan.prepack(static_cast<const T*>(d.w->p), pk.p); !s)
      throw std::runtime_error(s.message());
    RT_CHECK(rt::synchronize());  // the default stream's work before the bench stream's
    const int copies = int(d.xs.size());
    Status last;
    std::function<void(int, rt::stream_t)> call;
    if (prepack_row)
      call = [&](int, rt::stream_t s) {
        if (Status e = plan.prepack(static_cast<const T*>(d.w->p), pk.p, s); !e) last = e;
      };
    else
      call = [&](int i, rt::stream_t s) {
        void* y = d.ys[i % copies];
        if (Status e = plan.run(static_cast<const T*>(d.xs[i % copies]), pk.p,
                                epi != RowEpi::none ? zero_bias(p.k) : nullptr, y, ws.p,
                                plan.workspace_bytes(), s, residual ? y : nullptr);
            !e)
          last = e;
      };
    for (auto _ : st) {
      const Timing t = time_calls(call, copies);
      if (!last) throw std::runtime_error(last.message());
      // the label is what the plan says it runs (Plan::describe() has the whole of it)
      std::string label = to_string(plan.method());
      if (is_winograd(plan.method())) label += " (effective TFLOPS)";
      if (prepack_row) label = std::string("prepack ") + to_string(plan.method());
      if (residual) label += " +residual relu (fused, in place)";
      if (epi == RowEpi::bias_relu) label += " +bias relu (fused)";
      if (plan.desc().tile == kernels::TileKind::small) label += " tile=small";
      if (plan.desc().options.tile == TileChoice::tall) label += " tile=tall";
      if (plan.desc().options.schedule == Schedule::persistent) label += " persistent";
      if (plan.desc().options.schedule == Schedule::pingpong) label += " pingpong";
      if (plan.desc().split_k > 1) label += " split_k=" + std::to_string(plan.desc().split_k);
      report(st, p, t, mult, label);
      if (!prepack_row) ceiling_fractions(st, dtype_of<T>());
    }
  } catch (const std::exception& e) {
    row_error(st, e.what());
  }
}

/// The vendor rows' name: "cudnn" or "miopen" (also the summary script's key).
inline const char* vendor_name() {
#if defined(RDNACONV_HAVE_VENDOR)
  return bench::VendorConv::kName;
#else
  return "vendor";
#endif
}

#if defined(RDNACONV_HAVE_VENDOR)
/// True for an adapter whose setup() takes the fused epilogue (cuDNN's graph API).
template <class V>
constexpr bool kFusesGraph = requires(V v, Conv2dProblem p) {
  v.setup(p, DType::f16, LayoutKind::nhwc, bench::VendorEpilogue::none);
};

/// Set-up of a vendor row: setup(), then, for an adapter that times its plans, the search on the
/// layer's rotating copies (x and y of `q`, the problem the vendor runs) if this key has not been
/// searched in this process. Throws what failed.
template <class V>
void vendor_setup(V& conv, const Conv2dProblem& p, DType t, LayoutKind l, RowEpi epi) {
  std::string e;
  if constexpr (kFusesGraph<V>) {
    e = conv.setup(p, t, l,
                   epi == RowEpi::none        ? bench::VendorEpilogue::none
                   : epi == RowEpi::bias_relu ? bench::VendorEpilogue::bias_relu
                                              : bench::VendorEpilogue::bias_add_relu);
  } else {
    if (epi == RowEpi::bias_relu)
      throw std::runtime_error(std::string(V::kName) + ": no fused bias + relu row");
    e = conv.setup(p, t, l);
  }
  if (!e.empty()) throw std::runtime_error(e);
  if constexpr (requires { conv.needs_search(); }) {
    if (!conv.needs_search()) return;
    const Conv2dProblem& q = conv.problem();
    LayerData& d = layer_data(q, t, l, std::size_t(q.y_elems()) * 2);
    DevMem ws(conv.search_workspace_bytes());
    conv.set_stream(bench_stream());
    typename V::SearchData sd;
    sd.xs = d.xs;
    sd.ys = d.ys;
    sd.w = d.w->p;
    sd.bias = zero_bias(q.k);
    sd.ws = ws.p;
    const int copies = int(d.xs.size());
    const std::size_t copy_bytes = d.x_bytes + d.y_bytes;
    sd.timer = [copies, copy_bytes](const std::function<void(int, cudaStream_t)>& call) {
      return time_candidate(call, copies, copy_bytes);
    };
    if (std::string r = conv.search(sd); !r.empty()) throw std::runtime_error(r);
    RT_CHECK(rt::synchronize());
  }
}

/// Sums (a - b)^2 and b^2 over n elements of type t into acc[0], acc[1].
__global__ void diff_norms(const std::uint16_t* a, const std::uint16_t* b, std::int64_t n, DType t,
                           double* acc) {
  double d2 = 0, b2 = 0;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    const float va = t == DType::bf16 ? arch::bf16_to_float(a[i]) : arch::f16_to_float(a[i]);
    const float vb = t == DType::bf16 ? arch::bf16_to_float(b[i]) : arch::f16_to_float(b[i]);
    d2 += double(va - vb) * double(va - vb);
    b2 += double(vb) * double(vb);
  }
  atomicAdd(&acc[0], d2);
  atomicAdd(&acc[1], b2);
}

/// ||y_vendor - y_router|| / ||y_router|| for the vendor's output `yv` of input `x`: the router's
/// plan on the same x and weights (bias zero and relu for bias_relu rows). A check that the
/// vendor row computes the row's convolution (layout, strides, padding), not a speed figure.
template <class T, class L>
double rel_err_vs_router(const Conv2dProblem& p, RowEpi epi, const void* x, const void* w_vendor,
                         const void* yv) {
  // the vendor reads the weights in the row's layout (KRSC for NHWC), the router OIHW: the same
  // filter for both
  std::vector<std::uint16_t> hw(std::size_t(p.w_elems()));
  RT_CHECK(rt::memcpy_d2h(hw.data(), w_vendor, hw.size() * 2));
  if (L::kind == LayoutKind::nhwc) {
    const std::int64_t cg = p.c_per_group();  // a filter's channels
    std::vector<std::uint16_t> oihw(hw.size());
    for (std::int64_t k = 0; k < p.k; ++k)
      for (std::int64_t c = 0; c < cg; ++c)
        for (std::int64_t r = 0; r < p.r; ++r)
          for (std::int64_t q = 0; q < p.s; ++q)
            oihw[((k * cg + c) * p.r + r) * p.s + q] = hw[((k * p.r + r) * p.s + q) * cg + c];
    hw.swap(oihw);
  }
  DevMem wd(hw.size() * 2);
  RT_CHECK(rt::memcpy_h2d(wd.p, hw.data(), hw.size() * 2));
  const void* w = wd.p;
  Conv2dOptions o;
  if (epi == RowEpi::bias_relu) {
    o.has_bias = true;
    o.activation = Activation::relu;
  }
  Plan<T, L> plan;
  if (Status s = Plan<T, L>::create(plan, p, o); !s) throw std::runtime_error(s.message());
  DevMem pk(plan.packed_weight_bytes()), ws(plan.workspace_bytes()),
      yr(std::size_t(p.y_elems()) * 2), acc(2 * sizeof(double));
  const rt::stream_t s = bench_stream();
  if (Status e = plan.prepack(static_cast<const T*>(w), pk.p, s); !e)
    throw std::runtime_error(e.message());
  if (Status e = plan.run(static_cast<const T*>(x), pk.p,
                          epi == RowEpi::bias_relu ? zero_bias(p.k) : nullptr, yr.p, ws.p,
                          plan.workspace_bytes(), s);
      !e)
    throw std::runtime_error(e.message());
  RT_CHECK(rt::stream_synchronize(s));
  RT_CHECK(rt::memset(acc.p, 0, 2 * sizeof(double)));
  diff_norms<<<1024, 256>>>(static_cast<const std::uint16_t*>(yv),
                            static_cast<const std::uint16_t*>(yr.p), p.y_elems(), dtype_of<T>(),
                            static_cast<double*>(acc.p));
  RT_CHECK(rt::get_last_error());
  double h[2] = {0, 0};
  RT_CHECK(rt::memcpy_d2h(h, acc.p, sizeof(h)));
  return h[1] > 0 ? std::sqrt(h[0] / h[1]) : (h[0] > 0 ? 1.0 : 0.0);
}

template <class V, class T, class L>
void bm_vendor(benchmark::State& st, Conv2dProblem p, int mult, RowEpi epi = RowEpi::none) {
  const DType t = dtype_of<T>();
  const LayoutKind l = L::kind;
  try {
    V conv;
    vendor_setup(conv, p, t, l, epi);
    const Conv2dProblem& q = conv.problem();  // pre-padded where the padding is asymmetric
    LayerData& d = layer_data(q, t, l, std::size_t(q.y_elems()) * 2);
    DevMem ws(conv.workspace_bytes());
    const int copies = int(d.xs.size());
    std::string last;
    const std::function<void(int, rt::stream_t)> call = [&](int i, rt::stream_t s) {
      void* y = d.ys[i % copies];
      std::string e;
      if (epi == RowEpi::residual)
        e = conv.run_residual(d.xs[i % copies], d.w->p, y, zero_bias(p.k), ws.p, s);
      else if constexpr (kFusesGraph<V>)
        e = conv.run(d.xs[i % copies], d.w->p, y, ws.p, s,
                     epi == RowEpi::bias_relu ? zero_bias(p.k) : nullptr);
      else
        e = conv.run(d.xs[i % copies], d.w->p, y, ws.p, s);
      if (!e.empty()) last = e;
    };
    for (auto _ : st) {
      const Timing tm = time_calls(call, copies);
      if (!last.empty()) throw std::runtime_error(last);
      std::string label = std::string(V::kName) + " " + conv.algo_name();
      if (epi == RowEpi::residual)
        label += kFusesGraph<V> ? " +residual relu (graph: conv, bias, add z = y, relu)"
                                : " +residual relu (ConvolutionBiasActivationForward, z = y)";
      if (epi == RowEpi::bias_relu) label += " +bias relu (graph: conv, bias, relu)";
      report(st, p, tm, mult, label);  // FLOPs of the original problem
      ceiling_fractions(st, t);
      // the output of copy 0 against the router's, where both ran the same problem on the same
      // data (not the pre-padded asymmetric layers, not the in-place residual)
      if (epi != RowEpi::residual && q.h == p.h && q.w == p.w) {
        RT_CHECK(rt::synchronize());
        st.counters["err_vs_router"] = rel_err_vs_router<T, L>(p, epi, d.xs[0], d.w->p, d.ys[0]);
      }
      if constexpr (requires { conv.search_seconds(); }) {
        st.counters["candidates"] = conv.candidates();
        st.counters["search_s"] = conv.search_seconds();
      }
    }
  } catch (const std::exception& e) {
    row_error(st, e.what());
  }
}
#endif

/// The whole model, back to back on one stream: rdnaconv (router) or the vendor; optionally
/// captured once into a graph and replayed.
template <class T, class L>
void bm_model(benchmark::State& st, std::vector<models::ModelLayer> layers, bool vendor,
              bool graph) {
  constexpr DType dt = dtype_of<T>();
  try {
    const rt::stream_t s = bench_stream();
    struct Item {
      Conv2dProblem p;
      Plan<T, L> plan;
      std::unique_ptr<DevMem> x, y, w, pk;
#if defined(RDNACONV_HAVE_VENDOR)
      std::unique_ptr<bench::VendorConv> cd;
#endif
    };
    // one set of buffers per unique shape; the model's order and multiplicities are kept
    std::map<std::string, std::shared_ptr<Item>> by_shape;
    std::vector<std::shared_ptr<Item>> seq;
    std::size_t ws_bytes = 0;
    double flops = 0, bytes = 0;
    for (const models::ModelLayer& ml : layers) {
      const Conv2dProblem& p = ml.p;
      const std::string key = std::to_string(p.c) + "/" + std::to_string(p.h) + "/" +
                              std::to_string(p.k) + "/" + std::to_string(p.r) + "/" +
                              std::to_string(p.stride_h) + "/" + std::to_string(p.pad_bottom) +
                              "/g" + std::to_string(p.groups);
      flops += p.flops();
      bytes += double(p.x_elems() + p.w_elems() + p.y_elems()) * 2;
      auto& it = by_shape[key];
      if (!it) {
        it = std::make_shared<Item>();
        it->p = p;
        Conv2dProblem q = p;
#if defined(RDNACONV_HAVE_VENDOR)
        if (vendor) {
          it->cd = std::make_unique<bench::VendorConv>();
          vendor_setup(*it->cd, p, dt, L::kind, RowEpi::none);  // the layer rows' search, reused
          q = it->cd->problem();
          ws_bytes = std::max(ws_bytes, it->cd->workspace_bytes());
        }
#endif
        if (!vendor) {
          if (Status e = Plan<T, L>::create(it->plan, p); !e) throw std::runtime_error(e.message());
          ws_bytes = std::max(ws_bytes, it->plan.workspace_bytes());
          it->pk = std::make_unique<DevMem>(it->plan.packed_weight_bytes());
        }
        it->x = std::make_unique<DevMem>(std::size_t(q.x_elems()) * 2);
        it->y = std::make_unique<DevMem>(std::size_t(q.y_elems()) * 2);
        it->w = std::make_unique<DevMem>(std::size_t(q.w_elems()) * 2);
        fill(it->x->p, q.x_elems(), dt, 3, 1.f);
        fill(it->w->p, q.w_elems(), dt, 4, float(1 / std::sqrt(double(q.gemm_k()))));
        if (!vendor)
          if (Status e = it->plan.prepack(static_cast<const T*>(it->w->p), it->pk->p); !e)
            throw std::runtime_error(e.message());
      }
      seq.push_back(it);
    }
    DevMem ws(ws_bytes);
    RT_CHECK(rt::synchronize());
    std::string err;
    auto sequence = [&]() {
      for (const auto& it : seq) {
#if defined(RDNACONV_HAVE_VENDOR)
        if (vendor) {
          if (std::string e = it->cd->run(it->x->p, it->w->p, it->y->p, ws.p, s); !e.empty())
            err = e;
          continue;
        }
#endif
        if (Status e = it->plan.run(static_cast<const T*>(it->x->p), it->pk->p, nullptr, it->y->p,
                                    ws.p, ws_bytes, s);
            !e)
          err = e.message();
      }
    };
    std::function<void(int)> call = [&](int) { sequence(); };
    Graph g;
    if (graph) {
      g.capture(s, sequence);
      if (!err.empty()) throw std::runtime_error("during capture: " + err);
      call = [&](int) { (void)graph_launch(g.e, s); };
    }
    for (auto _ : st) {
      const double secs = time_stream(call, s);
      if (!err.empty()) throw std::runtime_error(err);
      st.SetIterationTime(secs);
      st.counters["TFLOPS"] = flops / secs * 1e-12;
      st.counters["GBps"] = bytes / secs * 1e-9;
      st.counters["layers"] = double(seq.size());
      st.SetLabel(std::string(vendor ? vendor_name() : "rdnaconv") +
                  (graph ? " graph replay" : " stream"));
      ceiling_fractions(st, dt);
    }
    RT_CHECK(rt::synchronize());
  } catch (const std::exception& e) {
    row_error(st, e.what());
  }
}

std::string batch_str(int n) {
  return "N" + std::to_string(n);
}

template <class T, class L>
void register_set(const BenchSet& s) {
  constexpr LayoutKind lk = L::kind;
  const std::string base =
      s.model + "/" + batch_str(s.batch) + "/" + to_string(dtype_of<T>()) + "/" + to_string(lk);
  std::vector<models::ModelLayer> all =
      s.model == "sweep3x3" ? sweep_layers() : models::model(s.model);
  for (auto& l : all) l.p.n = s.batch;
  for (const models::UniqueLayer& u : models::unique_layers(all)) {
    if (s.filter && !s.filter(u.p)) continue;
    const Conv2dProblem p = u.p;
    const std::string row = "layer/" + base + "/" + u.names.front() + "/";
    auto reg = [&](const std::string& label, auto&& fn) {
      benchmark::RegisterBenchmark((row + label).c_str(), fn)
          ->UseManualTime()
          ->Iterations(1)
          ->Unit(benchmark::kMicrosecond);
    };
    const int mult = u.count();
    reg("router",
        [=](benchmark::State& st) { bm_rdnaconv<T, L>(st, p, Method::automatic, mult, false); });
    if (g_opt.all_methods && s.compare_methods)
      for (const MethodInfo& m : kMethods)
        if (m.can_implement(p, lk) && runs_on_this_gpu(m))
          reg(m.name,
              [=](benchmark::State& st) { bm_rdnaconv<T, L>(st, p, m.method, mult, false); });
    reg("prepack",
        [=](benchmark::State& st) { bm_rdnaconv<T, L>(st, p, Method::automatic, mult, true); });
    // the router's plan: which method, and how many reduction steps it has to split
    std::int64_t steps = 0;
    if (!g_opt.split_k.empty() || g_opt.small_tile) {
      PlanDesc d;
      DeviceInfo dev;
      if (query_device(-1, dev).ok() &&
          make_plan_desc(d, p, dtype_of<T>(), lk, Conv2dOptions{}, dev).ok())
        if (const MethodInfo* mi = find_method(d.method)) steps = mi->k_steps(p, d.tiles);
    }
    for (int n : g_opt.split_k) {
      // only where the router's method can split (the direct families) and the reduction has
      // at least n steps, so that every such row runs n parts
      if (steps < n) continue;
      reg("router+split" + std::to_string(n), [=](benchmark::State& st) {
        bm_rdnaconv<T, L>(st, p, Method::automatic, mult, false, RowEpi::none, n);
      });
    }
    if (g_opt.small_tile && steps > 0) {              // a direct family: the small tile applies
      reg("router+main", [=](benchmark::State& st) {  // the router's rule kept off
        bm_rdnaconv<T, L>(st, p, Method::automatic, mult, false, RowEpi::none, 0, TileChoice::main);
      });
      reg("router+small", [=](benchmark::State& st) {
        bm_rdnaconv<T, L>(st, p, Method::automatic, mult, false, RowEpi::none, 0,
                          TileChoice::small);
      });
      for (int n : g_opt.split_k)
        if (steps >= n)
          reg("router+small+split" + std::to_string(n), [=](benchmark::State& st) {
            bm_rdnaconv<T, L>(st, p, Method::automatic, mult, false, RowEpi::none, n,
                              TileChoice::small);
          });
    }
    if (s.pad_modes && (p.pad_top || p.pad_bottom || p.pad_left || p.pad_right)) {
      // every mode on the family the router names for it (the modes are not routed yet, so the
      // plans are forced), and zeros on that same family: the mode's own cost, nothing else
      DeviceInfo dev;
      if (query_device(-1, dev).ok())
        for (PadMode mode : kPadModes) {
          Conv2dProblem q = p;
          q.pad_mode = mode;
          if (!validate_problem(q).ok()) continue;  // reflect: pad >= the image's size
          Conv2dProblem with_mode = q;
          with_mode.pad_mode = PadMode::reflect;  // the family every non-zeros mode goes to
          const Method m =
              route(with_mode, lk, tile_family(AtomKind::native, dev.family), dtype_of<T>());
          reg(std::string("pad_") + to_string(mode),
              [=](benchmark::State& st) { bm_rdnaconv<T, L>(st, q, m, mult, false); });
        }
    }
    // the grouped family's depthwise row window (Conv2dOptions::tile = window), forced: the
    // router does not pick it until a device run has measured it (kernels/grouped/README.md)
    if (kernels::grouped_window_fits(p, lk))
      reg("grouped+window", [=](benchmark::State& st) {
        bm_rdnaconv<T, L>(st, p, Method::grouped, mult, false, RowEpi::none, 0, TileChoice::window);
      });
    if (g_opt.tall_tile && lk == LayoutKind::nhwc && kernels::hopper_tall_fits(p))
      if (const MethodInfo* h = find_method(Method::hopper_tma);
          h && h->can_implement(p, lk) && runs_on_this_gpu(*h)) {
        reg("hopper_tma+main", [=](benchmark::State& st) {  // the 128-row block, forced
          bm_rdnaconv<T, L>(st, p, Method::hopper_tma, mult, false, RowEpi::none, 0,
                            TileChoice::main);
        });
        reg("hopper_tma+tall", [=](benchmark::State& st) {
          bm_rdnaconv<T, L>(st, p, Method::hopper_tma, mult, false, RowEpi::none, 0,
                            TileChoice::tall);
        });
      }
    if (g_opt.persistent && lk == LayoutKind::nhwc)
      if (const MethodInfo* h = find_method(Method::hopper_tma);
          h && h->can_implement(p, lk) && runs_on_this_gpu(*h)) {
        reg("hopper_tma+per_tile", [=](benchmark::State& st) {  // forced, one block per tile
          bm_rdnaconv<T, L>(st, p, Method::hopper_tma, mult, false, RowEpi::none, 0,
                            TileChoice::automatic, Schedule::per_tile);
        });
        reg("hopper_tma+persist", [=](benchmark::State& st) {
          bm_rdnaconv<T, L>(st, p, Method::hopper_tma, mult, false, RowEpi::none, 0,
                            TileChoice::automatic, Schedule::persistent);
        });
        reg("hopper_tma+pingpong", [=](benchmark::State& st) {
          bm_rdnaconv<T, L>(st, p, Method::hopper_tma, mult, false, RowEpi::none, 0,
                            TileChoice::automatic, Schedule::pingpong);
        });
        if (can_implement(Method::hopper_halo, p, lk) && !(g_opt.all_methods && s.compare_methods))
          reg("hopper_halo", [=](benchmark::State& st) {  // version 7: the input once per tile
            bm_rdnaconv<T, L>(st, p, Method::hopper_halo, mult, false);
          });
      }
    const bool residual = s.residual && is_bottleneck_out(p);
    if (residual)
      reg("router+res", [=](benchmark::State& st) {
        bm_rdnaconv<T, L>(st, p, Method::automatic, mult, false, RowEpi::residual);
      });
    if (s.bias_act)
      reg("router+bias_relu", [=](benchmark::State& st) {
        bm_rdnaconv<T, L>(st, p, Method::automatic, mult, false, RowEpi::bias_relu);
      });
#if defined(RDNACONV_HAVE_VENDOR)
    using bench::VendorConv;
    if (g_opt.vendor) {
      reg(VendorConv::kName,
          [=](benchmark::State& st) { bm_vendor<VendorConv, T, L>(st, p, mult); });
      if (residual)
        reg(std::string(VendorConv::kName) + "+res", [=](benchmark::State& st) {
          bm_vendor<VendorConv, T, L>(st, p, mult, RowEpi::residual);
        });
      if (s.bias_act && kFusesGraph<VendorConv>)
        reg(std::string(VendorConv::kName) + "+bias_relu", [=](benchmark::State& st) {
          bm_vendor<VendorConv, T, L>(st, p, mult, RowEpi::bias_relu);
        });
    }
#if defined(RDNACONV_HAVE_LEGACY_VENDOR)
    using bench::LegacyVendorConv;
    if (g_opt.vendor && s.legacy)
      reg(LegacyVendorConv::kName,
          [=](benchmark::State& st) { bm_vendor<LegacyVendorConv, T, L>(st, p, mult); });
    if (g_opt.vendor && s.legacy && residual)
      reg(std::string(LegacyVendorConv::kName) + "+res", [=](benchmark::State& st) {
        bm_vendor<LegacyVendorConv, T, L>(st, p, mult, RowEpi::residual);
      });
#endif
#endif
  }
  if (g_opt.e2e && !s.filter && !s.bias_act && s.model != "sweep3x3") {
    for (bool graph : {false, true}) {
      const std::string how = graph ? "graph" : "stream";
      benchmark::RegisterBenchmark(
          ("model/" + base + "/rdnaconv/" + how).c_str(),
          [=](benchmark::State& st) { bm_model<T, L>(st, all, false, graph); })
          ->UseManualTime()
          ->Iterations(1)
          ->Unit(benchmark::kMicrosecond);
#if defined(RDNACONV_HAVE_VENDOR)
      if (g_opt.vendor)
        benchmark::RegisterBenchmark(
            ("model/" + base + "/" + vendor_name() + "/" + how).c_str(),
            [=](benchmark::State& st) { bm_model<T, L>(st, all, true, graph); })
            ->UseManualTime()
            ->Iterations(1)
            ->Unit(benchmark::kMicrosecond);
#endif
    }
  }
}

void register_all() {
  // the ceilings first, in every set: each is measured once, before the rows that use it
  for (const std::string& key : ceiling_keys())
    benchmark::RegisterBenchmark(("ceiling/" + key).c_str(),
                                 [=](benchmark::State& st) { bm_ceiling(st, key); })
        ->UseManualTime()
        ->Iterations(1)
        ->Unit(benchmark::kMicrosecond);
  for (const BenchSet& s : sets(g_opt.set))
    for (DType t : s.types)
      for (LayoutKind l : s.layouts) {
        if (t == DType::f16 && l == LayoutKind::nhwc) register_set<fp16_t, NHWC>(s);
        if (t == DType::f16 && l == LayoutKind::nchw) register_set<fp16_t, NCHW>(s);
        if (t == DType::bf16 && l == LayoutKind::nhwc) register_set<bf16_t, NHWC>(s);
        if (t == DType::bf16 && l == LayoutKind::nchw) register_set<bf16_t, NCHW>(s);
      }
}

}  // namespace

int main(int argc, char** argv) {
  // our flags first; the rest goes to Google Benchmark
  std::vector<char*> rest{argv[0]};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--set=", 0) == 0)
      g_opt.set = a.substr(6);
    else if (a == "--methods=all")
      g_opt.all_methods = true;
    else if (a == "--methods=router")
      g_opt.all_methods = false;
    else if (a == "--vendor=off")
      g_opt.vendor = false;
    else if (a == "--vendor=on")
      g_opt.vendor = true;
    else if (a == "--e2e=off")
      g_opt.e2e = false;
    else if (a == "--e2e=on")
      g_opt.e2e = true;
    else if (a == "--timing=stream")
      g_opt.graph = false;
    else if (a == "--timing=graph")
      g_opt.graph = true;
    else if (a.rfind("--vendor-candidates=", 0) == 0)
      g_opt.vendor_candidates = std::max(0, std::atoi(a.c_str() + 20));
    else if (a.rfind("--vendor-cache=", 0) == 0)
      g_opt.vendor_cache = a.substr(15);
    else if (a == "--tile=small")
      g_opt.small_tile = true;
    else if (a == "--tile=tall")
      g_opt.tall_tile = true;
    else if (a == "--schedule=persistent")
      g_opt.persistent = true;
    else if (a == "--ceilings=off")
      g_opt.ceilings = false;
    else if (a == "--ceilings=on")
      g_opt.ceilings = true;
    else if (a.rfind("--split-k=", 0) == 0) {
      for (std::size_t pos = 10; pos < a.size();) {
        const std::size_t comma = std::min(a.find(',', pos), a.size());
        const int n = std::atoi(a.substr(pos, comma - pos).c_str());
        if (n < 2 || n > kMaxSplitK) {
          std::fprintf(stderr, "rdnaconv_bench: --split-k=N[,N...] with 2 <= N <= %d\n",
                       kMaxSplitK);
          return 2;
        }
        g_opt.split_k.push_back(n);
        pos = comma + 1;
      }
    } else
      rest.push_back(argv[i]);
  }
  if (g_opt.set == "sweep" || g_opt.set == "nchw1x1") g_opt.all_methods = true;
  if (g_opt.set != "quick" && g_opt.set != "full" && g_opt.set != "sweep" && g_opt.set != "smoke" &&
      g_opt.set != "residual" && g_opt.set != "epilogue" && g_opt.set != "grouped" &&
      g_opt.set != "padmodes" && g_opt.set != "nchw1x1") {
    std::fprintf(stderr,
                 "rdnaconv_bench: "
                 "--set=quick|full|sweep|smoke|residual|epilogue|grouped|padmodes|nchw1x1\n");
    return 2;
  }
  int devices = 0;
  if (rt::device_count(&devices) != rt::success || devices == 0) {
    std::printf("rdnaconv_bench: no GPU\n");
    return 77;
  }
#if defined(RDNACONV_HAVE_VENDOR)
  std::printf("vendor baseline: %s\n", bench::VendorConv::version_line().c_str());
#if defined(RDNACONV_HAVE_CUDNN)
  bench::CudnnGraphConv::candidate_limit() = g_opt.vendor_candidates;
  if (!g_opt.vendor_cache.empty()) {
    bench::vendor_cache() = bench::ChoiceCache(g_opt.vendor_cache);
    std::printf(
        "vendor baseline: %zu choices read from %s (searched in earlier processes; new "
        "searches are appended)\n",
        bench::vendor_cache().size(), g_opt.vendor_cache.c_str());
  }
  if (g_opt.vendor_candidates > 0)
    std::printf("vendor baseline: only the first %d plans of the heuristics are tried\n",
                g_opt.vendor_candidates);
#endif
#if defined(RDNACONV_HAVE_LEGACY_VENDOR)
  std::printf("legacy vendor rows (--set=full, --set=residual): %s\n",
              bench::LegacyVendorConv::version_line().c_str());
#endif
#elif defined(RDNACONV_BACKEND_CUDA)
  std::printf("vendor baseline: cuDNN not found at build time: no vendor rows\n");
#else
  std::printf(
      "vendor baseline: MIOpen (miopen/miopen.h, libMIOpen) not found at build time: no vendor "
      "rows\n");
#endif
  int n = int(rest.size());
  register_all();
  benchmark::Initialize(&n, rest.data());
  if (benchmark::ReportUnrecognizedArguments(n, rest.data())) return 2;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  if (g_errors > 0) {
    std::fprintf(stderr, "rdnaconv_bench: %d row(s) errored (see their error_message)\n", g_errors);
    return 1;
  }
  return 0;
}
