#!/usr/bin/env bash
# One GPU pass in one call (the device machine, or any NVIDIA machine): configure and build into
# a build folder outside the tree (16 jobs), then run the named steps, logs under $OUT, and a
# short table last.
#   tools/gpu_pass.sh [step ...]     steps: ctest check fuzz sanitize bench examples (default: all),
#                                    residual (rdnaconv_bench --set=residual, JSON under $OUT),
#                                    python (build the PyTorch extension, pytest python/tests),
#                                    vae (python/bench_vae.py: the decoders and ResNet-50 against
#                                    cuDNN; VAE_ARGS), layers (python/bench_layers.py: every layer,
#                                    F.conv2d against the rdnaconv op; LAYERS_ARGS, default
#                                    --set=quick; JSON and Markdown under $OUT), none in the default
# Environment: BUILD (default /tmp/rdnaconv-gpu), JOBS (16), FUZZ_COUNT (runs per method, 20000),
#   FUZZ_SECONDS (time cap, 0 = none), FUZZ_SEED, CTEST_ARGS (extra ctest arguments, e.g. -R Fuzz),
#   BENCH_ARGS (extra rdnaconv_bench arguments), ARCH (CUDA architecture, default 90a: the
#   H200's wgmma tiles; 90 for the mma.sync path), CHECK_ATOMS (the check step's atoms, default
#   "native gfx11 gfx12": split them over two calls when one would pass 600 s).
# GoogleTest / Google Benchmark: CMAKE_PREFIX_PATH, or .devdeps/ (../shared/device/stage.sh).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/gpu-pass-out}
mkdir -p "$out"
b=${BUILD:-/tmp/rdnaconv-gpu}
jobs=${JOBS:-16}
steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(ctest check fuzz sanitize bench examples)
prefix=${CMAKE_PREFIX_PATH:-}
[ -z "$prefix" ] && [ -d .devdeps ] && prefix=$PWD/.devdeps
table=()
note() { table+=("$(printf '%-10s rc=%-3s %6ss  %s' "$1" "$2" "$3" "$4")"); }
run_step() {  # name log command...
  local name=$1 log=$2; shift 2
  local t0=$SECONDS
  "$@" > "$out/$log" 2>&1
  local rc=$?
  local line
  line=$(grep -E '^[0-9]+ passed, [0-9]+ failed|[0-9]+ (passed|failed).* in [0-9.]+s|tests passed|tests failed|ERROR SUMMARY|RACECHECK SUMMARY' "$out/$log" | tail -2 | tr '\n' ' ')
  note "$name" "$rc" "$((SECONDS - t0))" "$line"
  return $rc
}

targets=()
for s in "${steps[@]}"; do
  case $s in
    ctest) targets+=(rdnaconv_host_tests rdnaconv_device_tests rdnaconv_check rdnaconv_bench) ;;
    examples) targets+=(quickstart nchw_fp16 pick_method) ;;
    check|fuzz|sanitize) targets+=(rdnaconv_check) ;;
    bench|residual) targets+=(rdnaconv_bench) ;;
    python|vae|layers) ;;
    *) echo "unknown step $s"; exit 2 ;;
  esac
done
t0=$SECONDS
[ ${#targets[@]} -gt 0 ] && {
  cmake -S . -B "$b" -G Ninja -DCMAKE_BUILD_TYPE=Release -DRDNACONV_BACKEND=cuda \
    -DCMAKE_CUDA_ARCHITECTURES="${ARCH:-90a}" ${prefix:+-DCMAKE_PREFIX_PATH=$prefix} &&
  cmake --build "$b" -j "$jobs" --target $(printf '%s\n' "${targets[@]}" | sort -u)
} > "$out/build.log" 2>&1
rc=$?
[ ${#targets[@]} -gt 0 ] && note build "$rc" "$((SECONDS - t0))" "$(grep -c 'spilled' "$out/build.log") spill warnings"
if [ ${#targets[@]} -gt 0 ] && [ $rc -ne 0 ]; then tail -40 "$out/build.log"; printf '%s\n' "${table[@]}"; exit 1; fi

# the PyTorch extension, built ahead of time into python/rdnaconv/ (objects under $b/python)
py_ext() {
  [ -n "$(ls python/rdnaconv/_C*.so 2> /dev/null)" ] && [ -z "${PY_REBUILD:-}" ] && return 0
  (cd python && TORCH_CUDA_ARCH_LIST="${TORCH_CUDA_ARCH_LIST:-9.0a}" MAX_JOBS="$jobs" \
    python3 setup.py build_ext --inplace --build-temp "$b/python")
}
status=0
for s in "${steps[@]}"; do
  case $s in
    ctest) run_step ctest ctest.log ctest --test-dir "$b" -j 4 --output-on-failure ${CTEST_ARGS:-} || status=1 ;;
    check)
      for a in ${CHECK_ATOMS:-native gfx11 gfx12}; do
        run_step "check-$a" "check_$a.log" "$b/tests/rdnaconv_check" --mode all --dtype all --layout both \
          --method all --atom "$a" || status=1
      done ;;
    fuzz) run_step fuzz fuzz.log "$b/tests/rdnaconv_check" --mode fuzz --atom all --seed "${FUZZ_SEED:-20261203}" \
            --count "${FUZZ_COUNT:-20000}" --seconds "${FUZZ_SECONDS:-0}" || status=1 ;;
    sanitize)
      for tool in memcheck racecheck synccheck; do
        run_step "$tool" "$tool.log" compute-sanitizer --tool "$tool" "$b/tests/rdnaconv_check" --mode edge \
          --dtype all --layout both --method all --variants 1 || status=1
      done ;;
    bench) run_step bench bench.log env OUT="$out" bench/run_gpu.sh "$b" || status=1 ;;
    residual) run_step residual residual.log "$b/bench/rdnaconv_bench" --set=residual \
                --benchmark_out="$out/residual.json" --benchmark_out_format=json || status=1 ;;
    python)
      PY_REBUILD=1 run_step python-build python_build.log py_ext || status=1
      run_step pytest pytest.log python3 python/tests/run.py -rs || status=1 ;;
    vae)
      run_step python-build python_build.log py_ext || status=1
      run_step vae vae.log env PYTHONUNBUFFERED=1 PYTHONPATH=python python3 python/bench_vae.py \
        ${VAE_ARGS:-} || status=1
      cat "$out/vae.log" ;;
    layers)
      run_step python-build python_build.log py_ext || status=1
      run_step layers torch_layers.log env PYTHONUNBUFFERED=1 python3 python/bench_layers.py \
        ${LAYERS_ARGS:---set=quick} --out "$out/torch_layers.json" --markdown "$out/torch_layers.md" ||
        status=1 ;;
    examples)
      for e in quickstart nchw_fp16 pick_method; do run_step "$e" "example_$e.log" "$b/examples/$e" || status=1; done ;;
  esac
done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | sed 's/^/GPU: /'
git log -1 --format='commit %h %s' 2>/dev/null || true
printf '%s\n' "${table[@]}"
exit $status
