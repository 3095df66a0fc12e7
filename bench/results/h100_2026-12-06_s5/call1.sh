#!/usr/bin/env bash
# Call 1 (fifth session): build the tree's tests (background) while ncu profiles hopper_tma and
# cuDNN on SD3.5 dec.up1.upsample (bench_eb = 89e5b67, kernels identical to main); then ctest.
set -u
root=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
export LD_LIBRARY_PATH=$root/.devdeps/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu
mkdir -p /tmp/bin && gunzip -c .devbin/bench_eb.gz > /tmp/bin/eb && chmod +x /tmp/bin/eb
( cmake -S . -B build-dev -G Ninja -DCMAKE_BUILD_TYPE=Release -DRDNACONV_BACKEND=cuda \
    -DCMAKE_CUDA_ARCHITECTURES=90a -DCMAKE_PREFIX_PATH=$root/.devdeps > $OUT/build.log 2>&1 &&
  cmake --build build-dev -j 14 --target rdnaconv_host_tests rdnaconv_device_tests rdnaconv_check >> $OUT/build.log 2>&1
  echo "build rc=$?" >> $OUT/build.log ) &
bp=$!
VC=--vendor=off; nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H100 && VC=--vendor-cache=$root/.devbin/vendor_cache.tsv
S="--section SpeedOfLight --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis --section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats"
L='dec.up1.upsample'
cd $OUT; t0=$SECONDS
timeout 150 ncu --clock-control none -k regex:hopper_tma --launch-skip 2 --launch-count 1 $S /tmp/bin/eb --set=full --vendor=off --e2e=off --benchmark_filter="^layer/sd35_vae_512/N1/bf16/nhwc/$L/router" > ncu_hopper.txt 2>&1; echo "ncu hopper rc=$? $((SECONDS-t0)) s"
t0=$SECONDS
timeout 150 ncu --clock-control none --launch-skip 6 --launch-count 2 $S /tmp/bin/eb --set=full $VC --e2e=off --benchmark_filter="^layer/sd35_vae_512/N1/bf16/nhwc/$L/cudnn" > ncu_cudnn.txt 2>&1; echo "ncu cudnn rc=$? $((SECONDS-t0)) s"
grep -E "^  [a-zA-Z_].*\(|Duration|Compute \(SM\) Throughput|Memory Throughput|L2 Cache Throughput|DRAM Throughput|Registers Per|Shared Memory Config|Achieved Occupancy|Issue Slots Busy|No Eligible|Block Size|Grid Size|Cluster" ncu_hopper.txt ncu_cudnn.txt | cut -c1-150
wait $bp
cd $root; tail -2 $OUT/build.log; grep -q "build rc=0" $OUT/build.log || exit 1
t0=$SECONDS
timeout 280 ctest --test-dir build-dev -j 8 -E "BenchSmoke|BigTensor" > $OUT/ctest.log 2>&1; echo "ctest rc=$? $((SECONDS-t0)) s"
grep -E "tests passed|tests failed|\*\*\*Failed|Not Run|GraphCapture" $OUT/ctest.log | head -20
