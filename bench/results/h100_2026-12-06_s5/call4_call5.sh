#!/usr/bin/env bash
# Call 2 (fifth session): hopper_tma v2 (h64 = 73a0dd8: 64-channel steps, 128B swizzle, m64n256k16)
# against eb (89e5b67 = main's kernels): VAE router rows, forced hopper rows, model rows; ncu.
set -u
root=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
export LD_LIBRARY_PATH=$root/.devdeps/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu
mkdir -p /tmp/bin && for s in eb h64; do gunzip -c .devbin/bench_$s.gz > /tmp/bin/$s && chmod +x /tmp/bin/$s; done
VC=--vendor=off; nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H100 && VC=--vendor-cache=$root/.devbin/vendor_cache.tsv
mkdir -p /tmp/o && cd /tmp/o
r() { local name=$1 lim=$2; shift 2; local t0=$SECONDS; timeout -s INT $lim "$@" --benchmark_out=$name.json --benchmark_out_format=json > $name.log 2>&1; echo "$name rc=$? $((SECONDS-t0)) s"; }
F='^layer/(sd35_vae_512|flux2_vae_1024)/N1/bf16/nhwc/[^/]+'
r h64_vae 120 /tmp/bin/h64 --set=full $VC --e2e=off --benchmark_filter="$F/(router|cudnn)/"
r eb_vae 100 /tmp/bin/eb --set=full --vendor=off --e2e=off --benchmark_filter="$F/router/"
r h64_hop 100 /tmp/bin/h64 --set=full --vendor=off --e2e=off --methods=all --benchmark_filter="$F/hopper_tma/"
r eb_hop 100 /tmp/bin/eb --set=full --vendor=off --e2e=off --methods=all --benchmark_filter="$F/hopper_tma/"
M='^model/(sd35_vae_512|flux2_vae_1024)/N1/bf16/nhwc'
r h64_model 90 /tmp/bin/h64 --set=full $VC --benchmark_filter="$M/(rdnaconv|cudnn)/graph"
r eb_model 60 /tmp/bin/eb --set=full --vendor=off --benchmark_filter="$M/rdnaconv/graph"
S="--section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats --section LaunchStats"
timeout 60 ncu --clock-control none -k regex:hopper_tma --launch-skip 2 --launch-count 1 $S /tmp/bin/h64 --set=full --vendor=off --e2e=off --benchmark_filter="^layer/sd35_vae_512/N1/bf16/nhwc/dec.up1.upsample/router" > ncu_h64.txt 2>&1; echo "ncu rc=$?"
grep -E "hopper_tma_conv|Duration|Compute \(SM\) Throughput|L2 Cache Throughput|Issue Slots Busy" ncu_h64.txt | cut -c1-120
grep -hE "dec.up1.upsample/(router|cudnn)" h64_vae.log eb_vae.log | cut -c1-110
grep -h '^model' h64_model.log eb_model.log | cut -c1-110
tar czf $OUT/c2.tgz *.json *.log ncu_h64.txt
