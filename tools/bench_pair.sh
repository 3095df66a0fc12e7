#!/usr/bin/env bash
# Before/after benchmark of two source trees in one run on one GPU: builds rdnaconv_bench from
# each (release, CUDA), runs the same set with both binaries alternately (ROUNDS rounds of
# before then after), and writes before_<i>.json, after_<i>.json and compare.md (bench/compare.py:
# per-row medians over the rounds) under $OUT.
#   tools/bench_pair.sh BEFORE_SRC [AFTER_SRC]      (AFTER_SRC defaults to this tree)
# Environment: BUILD_BEFORE (/tmp/pair-before), BUILD_AFTER (/tmp/pair-after), JOBS (16),
#   SET (quick), ROUNDS (3), ARCH (90), CMAKE_PREFIX_PATH or .devdeps/ for Google Benchmark,
#   ARGS (extra rdnaconv_bench arguments for both), BEFORE_ARGS / AFTER_ARGS (for one side, e.g.
#   AFTER_ARGS=--timing=stream against a binary from before the graph timing).
# nvidia-smi's SM clock and power through the rounds go to clocks.csv, the runs' starts to
# rounds.log.
# A before source is e.g. `git archive <rev> | tar -x -C <dir>`. Exits 1 when compare.py does.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
before=$(cd "$1" && pwd)
after=$(cd "${2:-.}" && pwd)
out=${OUT:-/tmp/bench-pair-out}
mkdir -p "$out"
prefix=${CMAKE_PREFIX_PATH:-}
[ -z "$prefix" ] && [ -d .devdeps ] && prefix=$root/.devdeps
build() {  # src dir log
  cmake -S "$1" -B "$2" -G Ninja -DCMAKE_BUILD_TYPE=Release -DRDNACONV_BACKEND=cuda \
    -DCMAKE_CUDA_ARCHITECTURES="${ARCH:-90}" ${prefix:+-DCMAKE_PREFIX_PATH=$prefix} > "$3" 2>&1 &&
    cmake --build "$2" -j "${JOBS:-16}" --target rdnaconv_bench >> "$3" 2>&1
}
bb=${BUILD_BEFORE:-/tmp/pair-before}
ba=${BUILD_AFTER:-/tmp/pair-after}
# Both builds at once (each with all jobs: the compile of one overlaps the link of the other).
build "$before" "$bb" "$out/build_before.log" &
pb=$!
build "$after" "$ba" "$out/build_after.log" &
pa=$!
wait $pb || { tail -30 "$out/build_before.log"; exit 1; }
wait $pa || { tail -30 "$out/build_after.log"; exit 1; }
rounds=${ROUNDS:-3}
# the SM clock, power and temperature through the rounds (rounds.log has each run's start time)
clock_pid=
if command -v nvidia-smi > /dev/null; then
  nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu \
    --format=csv,nounits -lms 250 > "$out/clocks.csv" 2>&1 &
  clock_pid=$!
fi
for i in $(seq 1 "$rounds"); do
  for side in before after; do
    b=$bb args=${BEFORE_ARGS:-}
    [ $side = after ] && b=$ba args=${AFTER_ARGS:-}
    echo "$(date '+%Y/%m/%d %H:%M:%S.%N') $side $i" >> "$out/rounds.log"
    # shellcheck disable=SC2086
    "$b/bench/rdnaconv_bench" --set="${SET:-quick}" ${ARGS:-} $args \
      --benchmark_out="$out/${side}_$i.json" --benchmark_out_format=json \
      > "$out/bench_${side}_$i.log" 2>&1 || echo "$side $i: rdnaconv_bench exited $?"
  done
done
[ -n "$clock_pid" ] && kill "$clock_pid"
python3 "$root/bench/compare.py" --before "$out"/before_*.json --after "$out"/after_*.json \
  --markdown "$out/compare.md"
