#!/bin/bash
# prepared in the twelfth session for the next lease (not run). Apply
# bench/results/s11_prepared_not_run/router_rule_on.patch to the tree first (the rule to be
# tested), build rdnaconv_bench from that tree on the CPU machine into .devbin/bench.gz, move
# bench/results out of the tree (carry limit) keeping h100_2026-12-07_s9/call1_vendor_cache.txt,
# and run `bash .devbin/pN.sh` with carry [".devdeps", ".devbin"]. The whole GoogleTest suite
# builds from t = 0 (about 6 minutes on 16 cores; the twelfth session's 400 s cap cut it at 24
# of 26 steps) while cuDNN's rows run; then the suite with the new kernels' cases first.
set -uo pipefail
S=$SECONDS
left() { echo $(( ${LIMIT:-590} - (SECONDS-S) )); }
cap() { local l=$(left); echo $(( l < $1 ? l : $1 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/gpu.txt
mkdir -p /tmp/bgout
OUT=/tmp/bgout TESTS=rdnaconv_device_tests FILTER=NoSuchTest LIMIT=$(( ${LIMIT:-590} - 60 )) bash tools/gpu_lean.sh > /tmp/bgout/bg.txt 2>&1 &
bg=$!
export LD_LIBRARY_PATH=$PWD/.devbin:/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
gunzip -c .devbin/bench.gz > /tmp/bench && chmod +x /tmp/bench
cp bench/results/h100_2026-12-07_s9/call1_vendor_cache.txt /tmp/vc.txt
M='(sd35_vae_512|flux2_vae_1024)/N1/bf16/nhwc'
timeout -s INT $(cap 200) /tmp/bench --set=full --vendor-cache=/tmp/vc.txt --benchmark_filter="^(layer/$M/[^/]+/(router|cudnn)/|model/$M/(rdnaconv|cudnn)/graph)" --benchmark_out=$OUT/c1.json --benchmark_out_format=json > /tmp/c1.log 2>&1
echo "c1 rc=$? at $((SECONDS-S)) s rows=$(grep -c '^layer\|^model' /tmp/c1.log)"
F='^layer/(convnext_t_224|mobilenet_v2_224)/N(1|32)/bf16/nhwc/[^/]+/(router|grouped\+window|cudnn)/'
timeout -s INT $(cap 120) /tmp/bench --set=grouped --e2e=off --benchmark_filter="$F" --benchmark_out=$OUT/w2.json --benchmark_out_format=json > /tmp/w2.log 2>&1
echo "w2 rc=$? at $((SECONDS-S)) s rows=$(grep -c '^layer' /tmp/w2.log)"
wait $bg; cat /tmp/bgout/bg.txt
b=/tmp/rdnaconv-lean/tests
[ -x $b/rdnaconv_device_tests ] || { cp /tmp/bgout/lean_build.log $OUT/; exit 1; }
timeout $(cap 60) $b/rdnaconv_device_tests --gtest_filter='HopperPingpong.*:GroupedWindow.*:BigTensor.HopperPingpong*' > $OUT/t1.log 2>&1
echo "new cases rc=$? at $((SECONDS-S)) s: $(grep -E '^\[  PASSED|^\[  FAILED' $OUT/t1.log | tr '\n' ' ')"
timeout $(cap 170) $b/rdnaconv_device_tests > $OUT/suite.log 2>&1
echo "suite rc=$? at $((SECONDS-S)) s: $(grep -E '^\[  PASSED|^\[  FAILED|tests ran' $OUT/suite.log | tr '\n' ' ')"
grep -E "^\[  FAILED  \] [A-Z]" $OUT/suite.log | head -20
true
