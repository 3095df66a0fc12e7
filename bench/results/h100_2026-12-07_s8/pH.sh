#!/bin/bash
# H100 bench call: the small tile's rule sweep (ResNet-50 N1/N32, VAE small grids) and the tall block rows
set -uo pipefail
S=$SECONDS
left() { echo $(( ${LIMIT:-575} - (SECONDS-S) )); }
cap() { local l=$(left); echo $(( l < $1 ? l : $1 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/gpu.txt
export LD_LIBRARY_PATH=$PWD/.devbin:/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
gunzip -c .devbin/bench.gz > /tmp/bench && chmod +x /tmp/bench
VC="--vendor-cache=$OUT/vendor_cache.txt"
bn() {  # name seconds args...
  local name=$1 lim=$2; shift 2; local l=$(left); [ $l -gt 30 ] || { echo "no time for $name"; return; }
  timeout -s INT $(cap $lim) /tmp/bench $VC "$@" --benchmark_out=$OUT/$name.json --benchmark_out_format=json > $OUT/$name.log 2>&1
  echo "$name rc=$? at $((SECONDS-S)) s rows=$(grep -c '^layer' $OUT/$name.log) errors=$(grep -c 'ERROR OCCURRED' $OUT/$name.log)"
}
bn rn1 ${A:-130} --set=full --e2e=off --tile=small --split-k=2,4 --benchmark_filter='^layer/resnet50_224/N1/bf16/(nhwc|nchw)/[^/]+/(router|router\+small.*|cudnn)/'
bn rn32 ${B:-150} --set=full --e2e=off --tile=small --benchmark_filter='^layer/resnet50_224/N32/bf16/nhwc/[^/]+/(router|router\+small|cudnn)/'
bn vae ${C:-140} --set=full --e2e=off --tile=small --benchmark_filter='^layer/sd35_vae_512/N1/bf16/nhwc/[^/]+/(router|router\+small|cudnn)/'
bn tall ${D:-140} --set=full --e2e=off --tile=tall --benchmark_filter='^layer/(sd35_vae_512|flux2_vae_1024)/N1/bf16/nhwc/[^/]+/(router|hopper_tma|hopper_tma\+tall|cudnn)/'
cd $OUT && tar czf bench.tgz *.json *.log vendor_cache.txt 2>/dev/null && rm -f *.json; ls $OUT
