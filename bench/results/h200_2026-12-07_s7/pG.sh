#!/bin/bash
# one call: build the device tests and the check CLI here (90a, Release, harness native atom only:
# RDNACONV_TEST_EMULATED_ATOMS=OFF, a third of the compile), the benchmark carried (.devbin,
# built on the CPU machine from the same tree); this session's new tests, the benchmark rows,
# then the whole native suite with the time left.
set -uo pipefail
S=$SECONDS
left() { echo $(( ${LIMIT:-575} - (SECONDS-S) )); }
cap() { local l=$(left); echo $(( l < $1 ? l : $1 )); }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
B=$PWD/build-gpu
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DRDNACONV_BACKEND=cuda -DCMAKE_CUDA_ARCHITECTURES=90a \
  -DRDNACONV_TEST_EMULATED_ATOMS=OFF -DCMAKE_PREFIX_PATH=$PWD/.devdeps > $OUT/build.log 2>&1
timeout $(cap ${BL:-300}) cmake --build $B -j 16 --target rdnaconv_device_tests rdnaconv_check >> $OUT/build.log 2>&1
echo "build rc=$? at $((SECONDS-S)) s"; grep -E " error|error:" $OUT/build.log | head
export LD_LIBRARY_PATH=$PWD/.devbin:/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
gunzip -c .devbin/bench.gz > /tmp/bench && chmod +x /tmp/bench
run_t() {  # name seconds filter
  [ -x $B/tests/rdnaconv_device_tests ] || { echo "no device tests"; return; }
  timeout $(cap $2) $B/tests/rdnaconv_device_tests --gtest_filter="$3" > $OUT/$1.log 2>&1
  echo "$1 rc=$? at $((SECONDS-S)) s: $(grep -E '^\[  PASSED|^\[  FAILED  \] [0-9]+ test|tests ran' $OUT/$1.log | tr '\n' ' ')"
  grep -E "^\[  FAILED  \] [A-Z]" $OUT/$1.log | head -10
}
bn() {  # name seconds args...
  local name=$1 lim=$2; shift 2; local l=$(left); [ $l -gt 30 ] || { echo "no time for $name"; return; }
  timeout -s INT $(cap $lim) /tmp/bench "$@" --benchmark_out=$OUT/$name.json --benchmark_out_format=json > $OUT/$name.log 2>&1
  echo "$name rc=$? at $((SECONDS-S)) s rows=$(grep -c '^layer' $OUT/$name.log) errors=$(grep -c 'ERROR OCCURRED' $OUT/$name.log)"
}
run_t new ${T1:-120} "${F1:-HopperTall*:SmallTile*:PadModes*:GroupedPaths*:Methods/Family.*rouped*}"
[ -x $B/tests/rdnaconv_check ] && { timeout $(cap 40) $B/tests/rdnaconv_check --mode padmodes --dtype all --layout both --method all > $OUT/cli_pad.log 2>&1; echo "cli_pad rc=$? $(tail -1 $OUT/cli_pad.log)"; }
V=${VAE:-'^layer/(sd35_vae_512|flux2_vae_1024)/N1/bf16/nhwc/(enc\.down0|dec\.up3)[^/]*/(router|hopper_tma|hopper_tma\+tall|cudnn)/'}
bn tall ${TB:-100} --set=full --e2e=off --tile=tall --benchmark_filter="$V"
bn resnet_small ${RB:-80} --set=full --e2e=off --tile=small --benchmark_filter='^layer/resnet50_224/N1/bf16/(nhwc|nchw)/[^/]+/(router|router\+small|cudnn)/'
bn padmodes ${PB:-40} --set=padmodes --vendor=off --e2e=off
bn grouped ${GB:-60} --set=grouped --benchmark_filter="${GBF:-/N1/bf16/nhwc/}"
run_t suite ${T2:-300} "${F2:--BigTensor*}"
true
