#!/bin/bash
# ninth session, second call (after pY.sh on the same warm machine): the new method under
# compute-sanitizer (the binary pY.sh built), the check CLI on it (every mode, both types, and
# the fuzz target), then its emulated RDNA atoms (a gfx11;gfx12 harness build) with the time left.
set -uo pipefail
S=$SECONDS
left() { echo $(( ${LIMIT:-280} - (SECONDS-S) )); }
cap() { local l=$(left); echo $(( l < $1 ? l : $1 )); }
b=/tmp/rdnaconv-lean/tests
[ -x $b/rdnaconv_device_tests ] || { echo "no binary from the first call"; exit 1; }
timeout $(cap ${M:-50}) compute-sanitizer --tool memcheck $b/rdnaconv_device_tests \
  --gtest_filter='Methods/Family.EdgeList/cblocked1x1*:PadModes/ModeFamily.MatchesTheDeviceReference/reflect_cblocked1x1*' > $OUT/memcheck.log 2>&1
echo "memcheck rc=$? at $((SECONDS-S)) s: $(grep -E 'ERROR SUMMARY|PASSED|FAILED' $OUT/memcheck.log | tr '\n' ' ')"
timeout $(cap ${C:-40}) $b/rdnaconv_check --mode all --dtype all --layout nchw --method cblocked1x1 > $OUT/chk.log 2>&1
echo "check rc=$? at $((SECONDS-S)) s: $(tail -2 $OUT/chk.log | tr '\n' ' ')"
ATOMS='gfx11;gfx12' TESTS=rdnaconv_device_tests_lean TARGETS=rdnaconv_device_tests_lean FILTER='*cblocked1x1*_gfx1*' \
  BUILD=/tmp/lean-emu LIMIT=$(left) bash tools/gpu_lean.sh
true
