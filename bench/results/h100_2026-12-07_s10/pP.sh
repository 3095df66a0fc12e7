#!/bin/bash
# tenth session, first call: the harness-only device tests (tools/gpu_lean.sh: lean binary +
# check CLI, native atom) build in the background at low priority while the carried benchmark
# compares hopper_tma per tile against version 6 (persistent) with cuDNN beside, on the VAEs and
# ResNet-50 (bf16 NHWC); then the persistent tests, the tall / big ones, the corrected padding
# test, and the check CLI on the persistent schedule.
set -uo pipefail
S=$SECONDS
left() { echo $(( ${LIMIT:-585} - (SECONDS-S) )); }
cap() { local l=$(left); echo $(( l < $1 ? l : $1 )); }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
mkdir -p /tmp/bgout
OUT=/tmp/bgout TESTS=rdnaconv_device_tests_lean FILTER=NoSuchTest LIMIT=$(( ${LIMIT:-585} - 150 )) nice -n 15 bash tools/gpu_lean.sh > $OUT/bg.txt 2>&1 &
bg=$!
export LD_LIBRARY_PATH=$PWD/.devbin:/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
gunzip -c .devbin/bench.gz > /tmp/bench && chmod +x /tmp/bench
[ -f /tmp/vc.txt ] || cp bench/results/h100_2026-12-07_s9/call1_vendor_cache.txt /tmp/vc.txt
bn() {  # name seconds args...
  local name=$1 lim=$2; shift 2; local l=$(left); [ $l -gt 30 ] || { echo "no time for $name"; return; }
  timeout -s INT $(cap $lim) /tmp/bench --vendor-cache=/tmp/vc.txt "$@" --benchmark_out=$OUT/$name.json --benchmark_out_format=json > $OUT/$name.log 2>&1
  echo "$name rc=$? at $((SECONDS-S)) s rows=$(grep -c '^layer\|^model' $OUT/$name.log) errors=$(grep -c 'ERROR OCCURRED' $OUT/$name.log)"
}
bn pers ${A:-170} --set=full --e2e=off --schedule=persistent --benchmark_filter='^layer/(sd35_vae_512|flux2_vae_1024|resnet50_224)/N(1|32)/bf16/nhwc/[^/]+/(router|hopper_tma\+per_tile|hopper_tma\+persist|cudnn)/'
cmp -s /tmp/vc.txt bench/results/h100_2026-12-07_s9/call1_vendor_cache.txt || cp /tmp/vc.txt $OUT/vendor_cache.txt
wait $bg
cat $OUT/bg.txt
b=/tmp/rdnaconv-lean/tests
[ -x $b/rdnaconv_device_tests_lean ] || { tail -30 /tmp/bgout/lean_build.log; exit 1; }
timeout $(cap 200) $b/rdnaconv_device_tests_lean --gtest_filter='HopperPersistent.*:HopperHalo.*:HopperTall.*:Methods/Family.*hopper*:PadModes.PlanEqualsFloat64HostReference' > $OUT/t1.log 2>&1
echo "tests rc=$? at $((SECONDS-S)) s"
grep -E "^\[  PASSED|^\[  FAILED|tests ran|^\[       OK|^\[  SKIPPED \] [0-9]" $OUT/t1.log | head -40
grep -E "Failure|Expected|seed=" $OUT/t1.log | head -20
timeout $(cap 120) $b/rdnaconv_check --mode all --dtype all --layout nhwc --method hopper_tma --schedule persistent > $OUT/chk.log 2>&1
echo "check rc=$? at $((SECONDS-S)) s: $(tail -2 $OUT/chk.log | tr '\n' ' ')"
timeout $(cap 120) $b/rdnaconv_check --mode all --dtype all --layout nhwc --method hopper_halo >> $OUT/chk.log 2>&1
echo "check halo rc=$? at $((SECONDS-S)) s: $(tail -2 $OUT/chk.log | tr '\n' ' ')"
timeout $(cap 150) $b/rdnaconv_device_tests_lean --gtest_filter='BigTensor.Hopper*' >> $OUT/t1.log 2>&1
echo "big rc=$? at $((SECONDS-S)) s: $(grep -E '^\[  PASSED|^\[  FAILED|^\[       OK' $OUT/t1.log | tail -5 | tr '\n' ' ')"
true
