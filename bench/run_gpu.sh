#!/usr/bin/env bash
# The main job: build the benchmark for the GPU present and print the summary table of
# rdnaconv against the vendor library (cuDNN), from one run of one binary.
# Usage: bench/run_gpu.sh [build-dir] [--full]
#   default: the quick set (ResNet-50 1x1 layers at batch 32 fp16 NHWC; SD3.5 VAE 3x3 layers at
#            512², batch 1, bf16, both layouts), about two minutes on an H200
#   --full:  every set of docs/BENCHMARKS.md, every applicable method per layer, end-to-end rows
# Writes bench.json (and bench.md) into $OUT if set, else into the build directory.
set -euo pipefail
b=build-gpu
full=0
for a in "$@"; do
  case "$a" in
    --full) full=1 ;;
    *) b=$a ;;
  esac
done
out=${OUT:-$b}
arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)
cmake -S . -B "$b" -G Ninja -DCMAKE_BUILD_TYPE=Release -DRDNACONV_BACKEND=cuda \
  -DCMAKE_CUDA_ARCHITECTURES="$arch" ${CMAKE_PREFIX_PATH:+-DCMAKE_PREFIX_PATH=$CMAKE_PREFIX_PATH} >/dev/null
cmake --build "$b" --target rdnaconv_bench
mkdir -p "$out"
if [ "$full" = 1 ]; then args=(--set=full --methods=all); else args=(--set=quick); fi
"$b/bench/rdnaconv_bench" "${args[@]}" --benchmark_out="$out/bench.json" --benchmark_out_format=json \
  --benchmark_counters_tabular=true ${BENCH_ARGS:-} > "$out/bench.log"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader | sed 's/^/GPU: /'
python3 bench/summarize.py "$out/bench.json" --markdown "$out/bench.md"
