#!/usr/bin/env bash
# tools/kernel_pair.cu built against two include trees (before/after) with the same harness,
# then run alternately ROUNDS times on one layer (and under ncu at the base clock if NCU=1).
#   tools/kernel_pair.sh BEFORE_INCLUDE AFTER_INCLUDE "N C H W K R stride pad method reps"
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/kernel-pair-out}
mkdir -p "$out"
for side in before after; do
  inc=$1
  [ $side = after ] && inc=$2
  nvcc -std=c++20 -O3 -arch=sm_${ARCH:-90} --expt-relaxed-constexpr -I"$inc" tools/kernel_pair.cu \
    $([ $side = after ] && echo -DRDNACONV_HAS_DESCRIBE) -o /tmp/kernel_pair_$side > "$out/build_$side.log" 2>&1 &
done
wait
# shellcheck disable=SC2086
for i in $(seq 1 "${ROUNDS:-5}"); do
  for side in before after; do echo "$side $(/tmp/kernel_pair_$side $3)"; done
done | tee "$out/rounds.txt"
if [ "${NCU:-0}" = 1 ]; then
  for side in before after; do
    # shellcheck disable=SC2086
    ncu --clock-control base -k regex:conv_gemm --launch-skip 5 --launch-count 3 --section SpeedOfLight \
      /tmp/kernel_pair_$side ${3% *} 10 2>&1 | grep -E "Duration" | sed "s/^/$side /"
  done | tee "$out/ncu.txt"
fi
