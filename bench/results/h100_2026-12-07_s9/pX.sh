#!/bin/bash
# ninth session: binaries built on the CPU machine (90a, Release), carried gzipped in .devbin.
# The cblocked1x1 sweep (NCHW 1x1: gemm1x1 vs cblocked1x1 vs cuDNN), then what time is left.
set -uo pipefail
S=$SECONDS
left() { echo $(( ${LIMIT:-570} - (SECONDS-S) )); }
cap() { local l=$(left); echo $(( l < $1 ? l : $1 )); }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
export LD_LIBRARY_PATH=$PWD/.devbin:/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
mkdir -p /tmp/fb && for b in ${BINS:-bench}; do [ -x /tmp/fb/$b ] || { gunzip -c .devbin/$b.gz > /tmp/fb/$b && chmod +x /tmp/fb/$b; }; done
[ -f /tmp/vc.txt ] || cp bench/results/h100_2026-12-07_s8/call2_vendor_cache.txt /tmp/vc.txt
bn() {  # name seconds args...
  local name=$1 lim=$2; shift 2; local l=$(left); [ $l -gt 30 ] || { echo "no time for $name"; return; }
  timeout -s INT $(cap $lim) /tmp/fb/bench "$@" --vendor-cache=/tmp/vc.txt --benchmark_out=$OUT/$name.json --benchmark_out_format=json > $OUT/$name.log 2>&1
  echo "$name rc=$? at $((SECONDS-S)) s rows=$(grep -c '^layer' $OUT/$name.log) errors=$(grep -c 'ERROR OCCURRED' $OUT/$name.log)"
}

bn cb ${A:-300} --set=nchw1x1 --e2e=off

cp /tmp/vc.txt $OUT/vendor_cache.txt
true
