#!/bin/bash
# ninth session, first call: the whole device suite's build (tools/gpu_lean.sh, native atom) in
# the background at low priority while the carried benchmark runs the NCHW 1x1 sweep (graph
# replay: GPU-bound rows), then the suite itself with the time left.
set -uo pipefail
S=$SECONDS
left() { echo $(( ${LIMIT:-585} - (SECONDS-S) )); }
TESTS=rdnaconv_device_tests FILTER=NoSuchTest LIMIT=$(( ${LIMIT:-585} - 40 )) nice -n 15 bash tools/gpu_lean.sh > $OUT/bg.txt 2>&1 &
bg=$!
A=${A:-240} LIMIT=$(( ${A:-240} + 20 )) bash .devbin/pX.sh
wait $bg
cat $OUT/bg.txt; rm -f $OUT/lean_tests.log
bin=/tmp/rdnaconv-lean/tests/rdnaconv_device_tests
[ -x $bin ] || { echo "no test binary"; exit 1; }
timeout $(left) $bin --gtest_filter="${FILTER:-*}" > $OUT/suite.log 2>&1
echo "suite rc=$? at $((SECONDS-S)) s"
grep -E "^\[  PASSED|^\[  FAILED|tests ran|^\[  SKIPPED \] [0-9]" $OUT/suite.log | head -5
grep -E "^\[  FAILED  \] [A-Z]" $OUT/suite.log | head -30
tail -3 $OUT/suite.log
