#!/bin/bash
# twelfth session, call 2 (same warm machine, after pT2.sh): compute-sanitizer memcheck /
# racecheck / synccheck on version 8 (the check CLI's edge list, bf16, ping-pong), the check CLI
# on the persistent schedule and hopper_halo, then ncu per tile against ping-pong on FLUX.2
# enc.down0.res0.conv1 and SD3.5 dec.up1.upsample.
set -uo pipefail
S=$SECONDS
left() { echo $(( ${LIMIT:-420} - (SECONDS-S) )); }
cap() { local l=$(left); echo $(( l < $1 ? l : $1 )); }
b=/tmp/rdnaconv-lean/tests
[ -x $b/rdnaconv_check ] || { echo "no binary from the first call"; exit 1; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu2.txt
for tool in memcheck racecheck synccheck; do
  timeout $(cap 100) compute-sanitizer --tool $tool $b/rdnaconv_check --mode edge --dtype bf16 --layout nhwc --method hopper_tma --schedule pingpong --variants 2 > $OUT/san_$tool.log 2>&1
  echo "$tool rc=$? at $((SECONDS-S)) s: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|passed' $OUT/san_$tool.log | tr '\n' ' ')"
done
for m in "--method hopper_tma --schedule persistent" "--method hopper_halo"; do
  timeout $(cap 40) $b/rdnaconv_check --mode all --dtype all --layout nhwc $m >> $OUT/chk2.log 2>&1
  echo "check $m rc=$? at $((SECONDS-S)) s: $(tail -1 $OUT/chk2.log)"
done
export LD_LIBRARY_PATH=$PWD/.devbin:/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
[ -x /tmp/bench ] || { gunzip -c .devbin/bench.gz > /tmp/bench && chmod +x /tmp/bench; }
SEC="--section SpeedOfLight --section WarpStateStats --section SchedulerStats --section LaunchStats --section MemoryWorkloadAnalysis"
for ml in flux2_vae_1024:enc.down0.res0.conv1 sd35_vae_512:dec.up1.upsample; do
  m=${ml%%:*}; L=${ml#*:}
  for row in 'hopper_tma\+per_tile' 'hopper_tma\+pingpong'; do
    [ $(left) -gt 40 ] || break
    timeout $(cap 70) ncu --clock-control none -k regex:hopper_tma --launch-skip 2 --launch-count 1 $SEC /tmp/bench --set=full --vendor=off --e2e=off --schedule=persistent --benchmark_filter="^layer/$m/N1/bf16/nhwc/$L/$row/" >> $OUT/ncu.txt 2>&1
    echo "ncu $m $L $row rc=$? at $((SECONDS-S)) s"
  done
done
grep -E "^  [a-zA-Z_].*\(|Duration|Compute \(SM\) Throughput|L2 Cache Throughput|Issue Slots Busy|No Eligible|Grid Size|Warp Cycles Per Issued|Registers Per" $OUT/ncu.txt | cut -c1-140
true
