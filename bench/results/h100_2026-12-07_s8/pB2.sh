#!/bin/bash
# bench with the new router: small-tile before/after (router+main = the old rule), the tall block, model rows
set -uo pipefail
S=$SECONDS
left() { echo $(( ${LIMIT:-575} - (SECONDS-S) )); }
cap() { local l=$(left); echo $(( l < $1 ? l : $1 )); }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
export LD_LIBRARY_PATH=$PWD/.devbin:/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
gunzip -c .devbin/bench.gz > /tmp/bench && chmod +x /tmp/bench
VC="--vendor-cache=$OUT/vendor_cache.txt"
[ -f .devbin/vendor_cache.txt ] && cp .devbin/vendor_cache.txt $OUT/vendor_cache.txt
bn() {  # name seconds args...
  local name=$1 lim=$2; shift 2; local l=$(left); [ $l -gt 30 ] || { echo "no time for $name"; return; }
  timeout -s INT $(cap $lim) /tmp/bench $VC "$@" --benchmark_out=$OUT/$name.json --benchmark_out_format=json > $OUT/$name.log 2>&1
  echo "$name rc=$? at $((SECONDS-S)) s rows=$(grep -c '^layer\|^model' $OUT/$name.log) errors=$(grep -c 'ERROR OCCURRED' $OUT/$name.log)"
}
bn rn1 ${A:-150} --set=full --tile=small --benchmark_filter='^(layer/resnet50_224/N1/bf16/(nhwc|nchw)/[^/]+/(router|router\+main|cudnn)/|model/resnet50_224/N1/bf16/(nhwc|nchw)/(rdnaconv|cudnn)/graph)'
bn vae ${B:-200} --set=full --tile=tall --benchmark_filter='^(layer/(sd35_vae_512|flux2_vae_1024)/N1/bf16/nhwc/(enc\.down0|dec\.up3|quant)[^/]*/(router|hopper_tma\+main|hopper_tma\+tall|cudnn)/|model/(sd35_vae_512|flux2_vae_1024)/N1/bf16/nhwc/(rdnaconv|cudnn)/graph)'
bn pad ${C:-120} --set=padmodes --vendor=off --e2e=off
bn rn32 ${D:-90} --set=full --benchmark_filter='^model/resnet50_224/N32/bf16/nhwc/(rdnaconv|cudnn)/graph'
cd $OUT && tar czf bench.tgz *.json *.log vendor_cache.txt 2>/dev/null && rm -f *.json; ls $OUT
