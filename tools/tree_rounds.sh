#!/usr/bin/env bash
# tools/kernel_pair.cu built against several include trees, then every layer of a fixed list run
# alternately on each build, ROUNDS times (device events, back-to-back calls on one stream).
#   tools/tree_rounds.sh NAME=INCLUDE_DIR[@ARCH] [NAME=INCLUDE_DIR[@ARCH] ...]
# e.g. tools/tree_rounds.sh head=/tmp/head/include new=include  (git archive HEAD include | tar -x)
#      tools/tree_rounds.sh sm80=include@90 sm90=include@90a  (one tree, two targets)
# ARCH: the target of trees without @ARCH (default 90); 90a builds define RDNACONV_SM90A.
# Writes rounds.txt ("name | layer | time") and the build logs under $OUT.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
out=${OUT:-/tmp/tree-rounds-out}
mkdir -p "$out"
names=()
for spec in "$@"; do
  name=${spec%%=*}
  dir=${spec#*=}
  arch=${ARCH:-90}
  case $dir in *@*) arch=${dir##*@} dir=${dir%@*} ;; esac
  names+=("$name")
  defs=()
  [ "$arch" = 90a ] && defs=(-DRDNACONV_SM90A=1)
  nvcc -std=c++20 -O3 -gencode=arch=compute_"$arch",code=sm_"$arch" --expt-relaxed-constexpr \
    -I"$dir" "${defs[@]}" ${DESCRIBE:+-DRDNACONV_HAS_DESCRIBE} -Xptxas -v tools/kernel_pair.cu \
    -o "/tmp/tree_rounds_$name" > "$out/build_$name.log" 2>&1 &
done
wait
# N C H W K R stride pad method reps [nhwc]: VAE and ResNet-50 shapes, one per kernel family
layers=("1 512 128 128 512 3 1 1 nhwc3x3 60 nhwc" "1 128 512 512 128 3 1 1 nhwc3x3 30 nhwc"
  "1 512 256 256 256 3 1 1 cblocked3x3 30" "32 512 28 28 256 1 1 0 gemm1x1 200 nhwc"
  "1 512 64 64 512 3 1 1 winograd 200 nhwc" "1 256 256 256 256 3 1 1 nchw3x3 20"
  "32 256 14 14 256 3 1 1 nhwc3x3 200 nhwc" "1 512 64 64 512 3 1 1 nhwc3x3 200 nhwc"
  "1 256 512 512 128 1 1 0 gemm1x1 30 nhwc")
for _ in $(seq 1 "${ROUNDS:-2}"); do
  for l in "${layers[@]}"; do
    # shellcheck disable=SC2086
    for n in "${names[@]}"; do echo "$n | $l | $(/tmp/tree_rounds_$n $l | head -1)"; done
  done
done | tee "$out/rounds.txt"
