#!/bin/bash
# twelfth session, call 2 (same warm machine, after pT2.sh; .devbin/bench.gz now the tree's
# binary with the row window): the depthwise layers of ConvNeXt-T and MobileNetV2 (bf16 NHWC, N1
# and N32): router (the plain kernel), grouped+window, cuDNN; then compute-sanitizer on the row
# window and racecheck on the ping-pong walk.
set -uo pipefail
S=$SECONDS
left() { echo $(( ${LIMIT:-330} - (SECONDS-S) )); }
cap() { local l=$(left); echo $(( l < $1 ? l : $1 )); }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu2.txt
export LD_LIBRARY_PATH=$PWD/.devbin:/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
gunzip -c .devbin/bench.gz > /tmp/benchw && chmod +x /tmp/benchw
F='^layer/(convnext_t_224|mobilenet_v2_224)/N(1|32)/bf16/nhwc/[^/]+/(router|grouped\+window|cudnn)/'
timeout -s INT $(cap 200) /tmp/benchw --set=grouped --e2e=off --benchmark_filter="$F" --benchmark_out=$OUT/w1.json --benchmark_out_format=json > /tmp/w1.log 2>&1
echo "w1 rc=$? at $((SECONDS-S)) s rows=$(grep -c '^layer' /tmp/w1.log) errors=$(grep -c 'ERROR OCCURRED' /tmp/w1.log)"
grep -m3 'ERROR OCCURRED' /tmp/w1.log | cut -c1-300
grep -E "grouped\+window|/router/|/cudnn/" /tmp/w1.log | awk '{print $1, $2, $3}' | head -60
b=/tmp/rdnaconv-lean/tests
for t in "memcheck --method grouped --tile window" "racecheck --method grouped --tile window" "racecheck --method hopper_tma --schedule pingpong"; do
  set -- $t; tool=$1; shift
  [ $(left) -gt 25 ] || break
  timeout $(cap 60) compute-sanitizer --tool $tool $b/rdnaconv_check --mode edge --dtype bf16 --layout nhwc "$@" --variants 2 > /tmp/san.log 2>&1
  echo "$tool $* rc=$? at $((SECONDS-S)) s: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|passed' /tmp/san.log | tr '\n' ' ')"
  cat /tmp/san.log >> $OUT/san2.log
done
true
