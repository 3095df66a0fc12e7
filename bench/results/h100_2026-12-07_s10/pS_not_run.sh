#!/bin/bash
# tenth session, the epilogue's pixel arithmetic by shifts (hopper_tma per tile, versions 6 and 7):
# the harness-only device tests build in the background at low priority while the benchmark
# compares the binary of c03f167 (bench_c03: before) with this tree's (bench: after), ABAB, on
# the VAEs' bf16 NHWC layers and model rows; then the Hopper tests and the check CLI.
set -uo pipefail
S=$SECONDS
left() { echo $(( ${LIMIT:-585} - (SECONDS-S) )); }
cap() { local l=$(left); echo $(( l < $1 ? l : $1 )); }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
mkdir -p /tmp/bgout
OUT=/tmp/bgout TESTS=rdnaconv_device_tests_lean FILTER=NoSuchTest LIMIT=$(( ${LIMIT:-585} - 60 )) bash tools/gpu_lean.sh > $OUT/bg.txt 2>&1 &
bg=$!
export LD_LIBRARY_PATH=$PWD/.devbin:/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
for b in bench bench_c03; do gunzip -c .devbin/$b.gz > /tmp/$b && chmod +x /tmp/$b; done
cp bench/results/h100_2026-12-07_s9/call1_vendor_cache.txt /tmp/vc.txt
F='^(layer/(sd35_vae_512|flux2_vae_1024)/N1/bf16/nhwc/[^/]+/(router|hopper_tma\+per_tile|hopper_tma\+persist|hopper_halo|cudnn)/|model/(sd35_vae_512|flux2_vae_1024)/N1/bf16/nhwc/(rdnaconv|cudnn)/graph)'
bn() {  # name binary seconds
  local l=$(left); [ $l -gt 40 ] || { echo "no time for $1"; return; }
  timeout -s INT $(cap $3) /tmp/$2 --set=full --schedule=persistent --vendor-cache=/tmp/vc.txt --benchmark_filter="$F" --benchmark_out=$OUT/$1.json --benchmark_out_format=json > /tmp/$1.log 2>&1
  echo "$1 rc=$? at $((SECONDS-S)) s rows=$(grep -c '^layer\|^model' /tmp/$1.log) errors=$(grep -c 'ERROR OCCURRED' /tmp/$1.log)"
}
bn a1 bench_c03 60; bn b1 bench 60
wait $bg
cat $OUT/bg.txt
b=/tmp/rdnaconv-lean/tests
[ -x $b/rdnaconv_device_tests_lean ] || { tail -30 /tmp/bgout/lean_build.log; exit 1; }
timeout $(cap 120) $b/rdnaconv_device_tests_lean --gtest_filter='HopperPersistent.*:HopperHalo.*:HopperTall.*:Methods/Family.*hopper*:BigTensor.Hopper*' > $OUT/t1.log 2>&1
echo "tests rc=$? at $((SECONDS-S)) s: $(grep -E '^\[  PASSED|^\[  FAILED' $OUT/t1.log | tr '\n' ' ')"
grep -E "^\[  FAILED  \] [A-Z]|Failure" $OUT/t1.log | head -10
for m in "--method hopper_tma" "--method hopper_tma --schedule persistent" "--method hopper_halo"; do
  timeout $(cap 40) $b/rdnaconv_check --mode all --dtype all --layout nhwc $m >> $OUT/chk.log 2>&1
  echo "check $m rc=$? at $((SECONDS-S)) s: $(tail -1 $OUT/chk.log)"
done
true
