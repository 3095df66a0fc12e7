#!/usr/bin/env bash
# lean device suite from a prebuilt binary: priority filter first, then the rest
cd "$(dirname "$0")"
t0=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/gpu.txt 2>&1
chmod +x lean
F1='SmallTile*:HopperTall*:PadModes*:*grouped*:*rouped*:PlanTruth*'
timeout ${L1:-320} ./lean --gtest_filter="$F1" > $OUT/t1.log 2>&1; echo "t1 rc=$? at $((SECONDS-t0))s"
grep -E "^\[  PASSED|^\[  FAILED|tests ran" $OUT/t1.log | head -40
left=$(( ${LT:-560} - (SECONDS-t0) ))
timeout $left ./lean --gtest_filter="-$F1" > $OUT/t2.log 2>&1; echo "t2 rc=$? at $((SECONDS-t0))s"
grep -E "^\[  PASSED|^\[  FAILED|tests ran" $OUT/t2.log | head -40
tail -3 $OUT/t2.log
