#!/bin/bash
# (the tree also carries the grouped family's row window, forced only: GroupedWindow.* in the suite)
# twelfth session, call 1: the whole device suite and the check CLI build in the background
# (tools/gpu_lean.sh) while the benchmark runs this tree's binary (.devbin/bench.gz: version 8,
# the router's ping-pong rule at 2 tiles per multiprocessor) and c03f167's (.devbin/bench_c03.gz:
# before) on the VAEs' bf16 NHWC layers; then the whole device suite, the check CLI on the
# ping-pong schedule and per tile, then cuDNN's rows (its choices from the H100 vendor cache).
set -uo pipefail
S=$SECONDS
left() { echo $(( ${LIMIT:-590} - (SECONDS-S) )); }
cap() { local l=$(left); echo $(( l < $1 ? l : $1 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/gpu.txt
mkdir -p /tmp/bgout
T=${TESTS:-rdnaconv_device_tests}
OUT=/tmp/bgout TESTS=$T FILTER=NoSuchTest LIMIT=$(( ${LIMIT:-590} - 120 )) bash tools/gpu_lean.sh > /tmp/bgout/bg.txt 2>&1 &
bg=$!
export LD_LIBRARY_PATH=$PWD/.devbin:/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
for b in bench bench_c03; do gunzip -c .devbin/$b.gz > /tmp/$b && chmod +x /tmp/$b; done
cp bench/results/h100_2026-12-07_s9/call1_vendor_cache.txt /tmp/vc.txt
M='(sd35_vae_512|flux2_vae_1024)/N1/bf16/nhwc'
FB="^(layer/$M/[^/]+/(router|hopper_tma\+per_tile|hopper_tma\+persist|hopper_tma\+pingpong)/|model/$M/rdnaconv/graph)"
FA="^(model/$M/rdnaconv/graph)"
FC="^(layer/$M/[^/]+/cudnn/|model/$M/cudnn/graph)"
bn() {  # name binary seconds filter vendor-args
  local l=$(left); [ $l -gt 30 ] || { echo "no time for $1"; return; }
  timeout -s INT $(cap $3) /tmp/$2 --set=full --schedule=persistent $5 --benchmark_filter="$4" --benchmark_out=$OUT/$1.json --benchmark_out_format=json > /tmp/$1.log 2>&1
  echo "$1 rc=$? at $((SECONDS-S)) s rows=$(grep -c '^layer\|^model' /tmp/$1.log) errors=$(grep -c 'ERROR OCCURRED' /tmp/$1.log)"
  grep -m3 'ERROR OCCURRED' /tmp/$1.log | cut -c1-300
}
bn b1 bench 150 "$FB" "--vendor=off"
bn a1 bench_c03 45 "$FA" "--vendor=off"
FW='^layer/(convnext_t_224|mobilenet_v2_224)/N(1|32)/bf16/nhwc/[^/]+/(router|grouped\+window)/'
timeout -s INT $(cap 45) /tmp/bench --set=grouped --e2e=off --vendor=off --benchmark_filter="$FW" --benchmark_out=$OUT/w1.json --benchmark_out_format=json > /tmp/w1.log 2>&1
echo "w1 rc=$? at $((SECONDS-S)) s rows=$(grep -c '^layer' /tmp/w1.log) errors=$(grep -c 'ERROR OCCURRED' /tmp/w1.log)"
wait $bg
cat /tmp/bgout/bg.txt
b=/tmp/rdnaconv-lean/tests
[ -x $b/$T ] || { tail -30 /tmp/bgout/lean_build.log; cp /tmp/bgout/lean_build.log $OUT/; exit 1; }
timeout $(cap 170) $b/$T > $OUT/suite.log 2>&1
echo "suite rc=$? at $((SECONDS-S)) s: $(grep -E '^\[  PASSED|^\[  FAILED|tests ran' $OUT/suite.log | tr '\n' ' ')"
grep -E "^\[  FAILED  \] [A-Z]|Failure" $OUT/suite.log | head -10
for m in "--method hopper_tma --schedule pingpong" "--method hopper_tma --schedule per_tile" "--method grouped --tile window"; do
  [ $(left) -gt 60 ] || break
  timeout $(cap 40) $b/rdnaconv_check --mode all --dtype all --layout nhwc $m >> $OUT/chk.log 2>&1
  echo "check $m rc=$? at $((SECONDS-S)) s: $(tail -1 $OUT/chk.log)"
done
timeout $(cap 60) compute-sanitizer --tool memcheck $b/rdnaconv_check --mode edge --dtype bf16 --layout nhwc --method hopper_tma --schedule pingpong --variants 2 > $OUT/san_memcheck.log 2>&1
echo "memcheck rc=$? at $((SECONDS-S)) s: $(grep -E 'ERROR SUMMARY|passed' $OUT/san_memcheck.log | tr '\n' ' ')"
bn c1 bench 200 "$FC" "--vendor-cache=/tmp/vc.txt"
true
