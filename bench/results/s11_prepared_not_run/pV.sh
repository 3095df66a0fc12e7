#!/bin/bash
# prepared in the eleventh session (not run: no GPU), call 3 (after pU.sh): the whole device suite (built in call 2's background).
set -uo pipefail
S=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
TESTS=rdnaconv_device_tests FILTER=${FILTER:-*} LIMIT=${LIMIT:-585} bash tools/gpu_lean.sh
tail -5 $OUT/lean_tests.log
grep -E "^\[  FAILED  \] [A-Z]" $OUT/lean_tests.log | head -20
true
