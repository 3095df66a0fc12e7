#!/bin/bash
# tenth session: where hopper_tma's tall block waits on FLUX.2 enc.down0.res0.conv1 (C = K = 128,
# 1024²): ncu --set full into a report, then its raw metrics (stall reasons) and its SASS page
# with the per-instruction samples as CSV; cuDNN's kernel on the same layer beside it.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.devbin:/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
[ -x /tmp/bench ] || { gunzip -c .devbin/bench.gz > /tmp/bench && chmod +x /tmp/bench; }
cp bench/results/h100_2026-12-07_s9/call1_vendor_cache.txt /tmp/vc3.txt
L=${L:-enc.down0.res0.conv1}
cd /tmp
timeout 150 ncu --set full --import-source no --clock-control none -k regex:hopper_tma --launch-skip 2 --launch-count 1 -f -o tall /tmp/bench --set=full --vendor=off --e2e=off --schedule=persistent --benchmark_filter="^layer/flux2_vae_1024/N1/bf16/nhwc/$L/hopper_tma\+per_tile/" > $OUT/ncu_tall_run.txt 2>&1; echo "tall rc=$?"
ncu -i tall.ncu-rep --page raw --csv > $OUT/tall_raw.csv 2>&1; echo "raw rc=$?"
ncu -i tall.ncu-rep --page source --csv --print-source sass > $OUT/tall_sass.csv 2>&1; echo "sass rc=$? $(wc -l < $OUT/tall_sass.csv) lines"
timeout 150 ncu --section SpeedOfLight --section ComputeWorkloadAnalysis --section WarpStateStats --section SchedulerStats --section LaunchStats --section Occupancy --clock-control none -k regex:sm90 --launch-skip 6 --launch-count 1 /tmp/bench --set=full --vendor-cache=/tmp/vc3.txt --e2e=off --benchmark_filter="^layer/flux2_vae_1024/N1/bf16/nhwc/$L/cudnn/" > $OUT/ncu_cudnn.txt 2>&1; echo "cudnn rc=$?"
grep -E "^  [a-zA-Z_].*\(|Duration|Compute \(SM\)|L2 Cache Throughput|Issue Slots|Executed Ipc|Grid Size|Block Size|Registers|Shared Memory" $OUT/ncu_cudnn.txt | cut -c1-200
grep -o '"smsp__average_warp_latency_issue_stalled_[a-z_]*' $OUT/tall_raw.csv | head -3
true
