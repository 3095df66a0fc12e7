#!/usr/bin/env bash
# The main job: build the benchmark for the GPU present and print the summary table of
# rdnaconv against the vendor library (cuDNN), from one run of one binary.
# Usage: bench/run_gpu.sh [build-dir] [--full]
#   default: the quick set (ResNet-50 1x1 layers at batch 32 fp16 NHWC; SD3.5 VAE 3x3 layers at
#            512², batch 1, bf16, both layouts), about two minutes on an H200
#   --full:  every set of docs/BENCHMARKS.md, every applicable method per layer, end-to-end rows
# Writes bench.json (and bench.md) into $OUT if set, else into the build directory. Exits
# non-zero when a prerequisite is missing (and says which, with the command that fixes it),
# when the build fails (its errors shown), or when any benchmark row errors. Without cuDNN it
# runs and says, before the build and after the table, that the table has no cuDNN column.
set -euo pipefail
cd "$(dirname "$0")/.."
b=build-gpu
full=0
for a in "$@"; do
  case "$a" in
    --full) full=1 ;;
    -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
    *) b=$a ;;
  esac
done
out=${OUT:-$b}

missing=0
need() {  # what, fix
  echo "bench/run_gpu.sh: missing $1. $2" >&2
  missing=1
}
command -v cmake >/dev/null || need "cmake" "Install it: apt-get install cmake ninja-build"
command -v ninja >/dev/null || need "ninja" "Install it: apt-get install ninja-build"
command -v python3 >/dev/null || need "python3 (the summary table)" "Install it: apt-get install python3"
nvcc=$(command -v nvcc || true)
[ -z "$nvcc" ] && [ -x /usr/local/cuda/bin/nvcc ] && nvcc=/usr/local/cuda/bin/nvcc
[ -n "$nvcc" ] || need "nvcc (the CUDA toolkit)" "Install the CUDA toolkit, or put its bin/ on PATH"
if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
  need "an NVIDIA GPU (nvidia-smi finds none)" "Run this on a machine with an NVIDIA GPU and its driver"
fi
prefix=${CMAKE_PREFIX_PATH:-}
[ -z "$prefix" ] && [ -d .devdeps ] && prefix=$PWD/.devdeps
has_pkg() {  # header under /usr/include or the prefix
  [ -f "/usr/include/$1" ] && return 0
  local p
  for p in ${prefix//:/ }; do [ -f "$p/include/$1" ] && return 0; done
  return 1
}
has_pkg gtest/gtest.h || need "GoogleTest" "apt-get install libgtest-dev libgmock-dev (or CMAKE_PREFIX_PATH=<staged prefix>)"
has_pkg benchmark/benchmark.h || need "Google Benchmark" "apt-get install libbenchmark-dev (or CMAKE_PREFIX_PATH=<staged prefix>)"
[ $missing = 0 ] || exit 1

# the GPU's own target; on a 9.0 device (H100, H200) sm_90a, which carries the wgmma tiles
# (ARCH=90 builds the mma.sync path instead)
arch=${ARCH:-$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)}
[ -z "${ARCH:-}" ] && [ "$arch" = 90 ] && arch=90a
mkdir -p "$out"
if ! cmake -S . -B "$b" -G Ninja -DCMAKE_BUILD_TYPE=Release -DRDNACONV_BACKEND=cuda \
  -DCMAKE_CUDA_COMPILER="$nvcc" -DCMAKE_CUDA_ARCHITECTURES="$arch" ${prefix:+-DCMAKE_PREFIX_PATH=$prefix} \
  > "$out/configure.log" 2>&1; then
  cat "$out/configure.log" >&2
  echo "bench/run_gpu.sh: configure failed (log above, also $out/configure.log)" >&2
  exit 1
fi
# the vendor baseline: CMake links cuDNN when it finds cudnn.h and libcudnn; without it the
# benchmark runs rdnaconv's rows only and the table has no cuDNN column: say so, before and after
no_cudnn=""
if grep -q "cuDNN not found" "$out/configure.log"; then
  no_cudnn="bench/run_gpu.sh: cuDNN not found (cudnn.h and libcudnn under the CUDA toolkit, /usr/include
  or /usr/lib/x86_64-linux-gnu, or CMAKE_PREFIX_PATH): the table has NO cuDNN column. Install it
  (NVIDIA's cuDNN 9 for your CUDA, e.g. apt-get install cudnn9-cuda-13 from NVIDIA's repository)
  and rerun for the vendor baseline."
  echo "$no_cudnn" >&2
fi
cmake --build "$b" --target rdnaconv_bench
if [ "$full" = 1 ]; then args=(--set=full --methods=all); else args=(--set=quick); fi
rc=0
"$b/bench/rdnaconv_bench" "${args[@]}" --benchmark_out="$out/bench.json" --benchmark_out_format=json \
  --benchmark_counters_tabular=true ${BENCH_ARGS:-} > "$out/bench.log" || rc=$?
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader | sed 's/^/GPU: /'
python3 bench/summarize.py "$out/bench.json" --markdown "$out/bench.md"
[ -z "$no_cudnn" ] || echo "$no_cudnn" >&2
if [ $rc -ne 0 ]; then
  grep -i "error" "$out/bench.log" | tail -20 >&2 || true
  echo "bench/run_gpu.sh: rdnaconv_bench exited $rc (rows errored: see $out/bench.log)" >&2
  exit $rc
fi
