#!/bin/bash
# tenth session, second call (same warm machine, after pP.sh): compute-sanitizer memcheck /
# racecheck / synccheck on version 6 (the check CLI's edge list, bf16, persistent), then ncu on
# one VAE layer: per tile against persistent.
set -uo pipefail
S=$SECONDS
left() { echo $(( ${LIMIT:-585} - (SECONDS-S) )); }
cap() { local l=$(left); echo $(( l < $1 ? l : $1 )); }
b=/tmp/rdnaconv-lean/tests
[ -x $b/rdnaconv_check ] || { echo "no binary from the first call"; exit 1; }
for tool in memcheck racecheck synccheck; do
  timeout $(cap ${M:-110}) compute-sanitizer --tool $tool $b/rdnaconv_check --mode edge --dtype bf16 --layout nhwc --method hopper_tma --schedule persistent --variants 2 > $OUT/san_$tool.log 2>&1
  echo "$tool rc=$? at $((SECONDS-S)) s: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|passed' $OUT/san_$tool.log | tr '\n' ' ')"
done
export LD_LIBRARY_PATH=$PWD/.devbin:/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
[ -x /tmp/bench ] || { gunzip -c .devbin/bench.gz > /tmp/bench && chmod +x /tmp/bench; }
SEC="--section SpeedOfLight --section WarpStateStats --section SchedulerStats --section LaunchStats"
L=${L:-dec.up1.upsample}
for row in 'hopper_tma\+per_tile' 'hopper_tma\+persist'; do
  timeout $(cap 90) ncu --clock-control none -k regex:hopper_tma --launch-skip 2 --launch-count 1 $SEC /tmp/bench --set=full --vendor=off --e2e=off --schedule=persistent --benchmark_filter="^layer/sd35_vae_512/N1/bf16/nhwc/$L/$row/" >> $OUT/ncu.txt 2>&1
  echo "ncu $row rc=$? at $((SECONDS-S)) s"
done
grep -E "^  [a-zA-Z_].*\(|Duration|Compute \(SM\) Throughput|L2 Cache Throughput|Issue Slots Busy|No Eligible|Grid Size|Stall|Warp Cycles" $OUT/ncu.txt | cut -c1-140
true
