#!/usr/bin/env bash
# The main job: build for the GPU present, run the device tests and the benchmark table.
# Usage: bench/run_gpu.sh [build-dir]   (CUDA: needs nvcc; set OUT to keep logs)
set -euo pipefail
b=${1:-build-gpu}
out=${OUT:-$b}
arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)
cmake -S . -B "$b" -G Ninja -DCMAKE_BUILD_TYPE=Release -DRDNACONV_BACKEND=cuda \
  -DCMAKE_CUDA_ARCHITECTURES="$arch" ${CMAKE_PREFIX_PATH:+-DCMAKE_PREFIX_PATH=$CMAKE_PREFIX_PATH} >/dev/null
cmake --build "$b"
"$b/bench/rdnaconv_bench" --benchmark_out="$out/bench.json" --benchmark_out_format=json \
  --benchmark_counters_tabular=true ${BENCH_ARGS:-}
