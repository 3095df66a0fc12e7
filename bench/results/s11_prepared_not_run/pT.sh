#!/bin/bash
# prepared in the eleventh session (not run: no GPU), call 1: the lean device tests build in the
# background while the benchmark runs this tree's binary (.devbin/bench.gz: with version 8, the
# ping-pong walk) and c03f167's (.devbin/bench_c03.gz: before) on the VAEs' bf16 NHWC layers; then the Hopper tests, the check
# CLI on the ping-pong schedule and per tile, then cuDNN's rows (its choices from the vendor cache).
set -uo pipefail
S=$SECONDS
left() { echo $(( ${LIMIT:-590} - (SECONDS-S) )); }
cap() { local l=$(left); echo $(( l < $1 ? l : $1 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/gpu.txt
mkdir -p /tmp/bgout
OUT=/tmp/bgout TESTS=rdnaconv_device_tests_lean FILTER=NoSuchTest LIMIT=420 bash tools/gpu_lean.sh > /tmp/bgout/bg.txt 2>&1 &
bg=$!
export LD_LIBRARY_PATH=$PWD/.devbin:/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
for b in bench bench_c03; do gunzip -c .devbin/$b.gz > /tmp/$b && chmod +x /tmp/$b; done
cp bench/results/h100_2026-12-07_s9/call1_vendor_cache.txt /tmp/vc.txt
M='(sd35_vae_512|flux2_vae_1024)/N1/bf16/nhwc'
FB="^(layer/$M/[^/]+/(router|hopper_tma\+per_tile|hopper_tma\+persist|hopper_tma\+pingpong)/|model/$M/rdnaconv/graph)"
FA="^(layer/$M/[^/]+/(hopper_tma\+per_tile|hopper_tma\+persist)/|model/$M/rdnaconv/graph)"
FC="^(layer/$M/[^/]+/cudnn/|model/$M/cudnn/graph)"
bn() {  # name binary seconds filter vendor-args
  local l=$(left); [ $l -gt 30 ] || { echo "no time for $1"; return; }
  timeout -s INT $(cap $3) /tmp/$2 --set=full --schedule=persistent $5 --benchmark_filter="$4" --benchmark_out=$OUT/$1.json --benchmark_out_format=json > /tmp/$1.log 2>&1
  echo "$1 rc=$? at $((SECONDS-S)) s rows=$(grep -c '^layer\|^model' /tmp/$1.log) errors=$(grep -c 'ERROR OCCURRED' /tmp/$1.log)"
  grep -m3 'ERROR OCCURRED' /tmp/$1.log | cut -c1-300
}
bn b1 bench 150 "$FB" "--vendor=off"
bn a1 bench_c03 90 "$FA" "--vendor=off"
wait $bg
cat /tmp/bgout/bg.txt
b=/tmp/rdnaconv-lean/tests
[ -x $b/rdnaconv_device_tests_lean ] || { tail -30 /tmp/bgout/lean_build.log; exit 1; }
timeout $(cap 150) $b/rdnaconv_device_tests_lean --gtest_filter='HopperPingpong.*:HopperPersistent.*:HopperHalo.*:HopperTall.*:Methods/Family.*hopper*:BigTensor.Hopper*' > $OUT/t1.log 2>&1
echo "tests rc=$? at $((SECONDS-S)) s: $(grep -E '^\[  PASSED|^\[  FAILED' $OUT/t1.log | tr '\n' ' ')"
grep -E "^\[  FAILED  \] [A-Z]|Failure" $OUT/t1.log | head -10
for m in "--method hopper_tma --schedule pingpong" "--method hopper_tma"; do
  timeout $(cap 40) $b/rdnaconv_check --mode all --dtype all --layout nhwc $m >> $OUT/chk.log 2>&1
  echo "check $m rc=$? at $((SECONDS-S)) s: $(tail -1 $OUT/chk.log)"
done
bn c1 bench 200 "$FC" "--vendor-cache=/tmp/vc.txt"
cmp -s /tmp/vc.txt bench/results/h100_2026-12-07_s9/call1_vendor_cache.txt || cp /tmp/vc.txt $OUT/vendor_cache.txt
true
