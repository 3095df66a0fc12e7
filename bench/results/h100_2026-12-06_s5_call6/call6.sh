#!/usr/bin/env bash
# Call 6 (fifth session), inside the last device minutes: a check CLI built here from the devtest
# tree (cluster2 + groups; bf16, native atom only, to fit the copy limit) runs the new kernels'
# edge / random / stability / activation / model modes and compute-sanitizer on the edge list;
# the v3 bench binary (cl) runs the VAE rows with cuDNN.
set -u
root=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
export LD_LIBRARY_PATH=$root/.devdeps/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu
mkdir -p /tmp/bin /tmp/o && for s in cl chk; do gunzip -c .devbin/$s.gz > /tmp/bin/$s && chmod +x /tmp/bin/$s; done
cd /tmp/o
save() { tar czf $OUT/c6.tgz *.log *.json 2>/dev/null; }
t0=$SECONDS
timeout -k 5 60 /tmp/bin/chk --mode all --dtype bf16 --layout both --method grouped > chk_grouped.log 2>&1; echo "grouped rc=$? $((SECONDS-t0)) s"; tail -1 chk_grouped.log
t0=$SECONDS
timeout -k 5 60 /tmp/bin/chk --mode all --dtype bf16 --layout nhwc --method hopper_tma > chk_hopper.log 2>&1; echo "hopper rc=$? $((SECONDS-t0)) s"; tail -1 chk_hopper.log
t0=$SECONDS
timeout -k 5 40 /tmp/bin/chk --mode edge --dtype bf16 --layout both --method all > chk_edge_all.log 2>&1; echo "edge all rc=$? $((SECONDS-t0)) s"; tail -1 chk_edge_all.log
save
for t in memcheck racecheck synccheck; do for m in hopper_tma grouped; do
  timeout -k 5 30 compute-sanitizer --tool $t /tmp/bin/chk --mode edge --dtype bf16 --layout both --method $m --variants 1 > san_${t}_$m.log 2>&1; echo "$t $m rc=$?"; grep -E "SUMMARY|passed, " san_${t}_$m.log | tail -2; done; done
save
VC=--vendor=off; nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H100 && VC=--vendor-cache=$root/.devbin/vendor_cache.tsv
r() { local name=$1 lim=$2; shift 2; local t0=$SECONDS; timeout -k 5 -s INT $lim "$@" --benchmark_out=$name.json --benchmark_out_format=json > $name.log 2>&1; echo "$name rc=$? $((SECONDS-t0)) s"; }
F='^layer/(sd35_vae_512|flux2_vae_1024)/N1/bf16/nhwc/[^/]+'
r cl_vae_1 40 /tmp/bin/cl --set=full $VC --e2e=off --methods=all --benchmark_filter="$F/(router|hopper_tma|cudnn)/"
r cl_model 40 /tmp/bin/cl --set=full $VC --benchmark_filter="^model/(sd35_vae_512|flux2_vae_1024)/N1/bf16/nhwc/(rdnaconv|cudnn)/graph"
grep -h '^model' cl_model.log | cut -c1-110
save
