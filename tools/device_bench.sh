#!/usr/bin/env bash
# Runs a prebuilt rdnaconv_bench (built on a machine without a GPU, carried to the GPU machine)
# with the libraries it needs found on this machine, and writes JSON, log and summary under $OUT.
#   tools/device_bench.sh <rdnaconv_bench> <tag> [rdnaconv_bench arguments...]
# Writes $OUT/<tag>.json, $OUT/<tag>.log and $OUT/<tag>.md (bench/summarize.py); prints the
# summary. Libraries: Google Benchmark from .devdeps (../shared/device/stage.sh), cuDNN 9 from
# wherever this machine has it (the CUDA toolkit, the system, or PyTorch's wheel).
set -uo pipefail
cd "$(dirname "$0")/.."
bin=$1 tag=$2
shift 2
out=${OUT:-/tmp/device-bench}
mkdir -p "$out"
libs=$PWD/.devdeps/lib/x86_64-linux-gnu
if ! ldconfig -p | grep -q 'libcudnn.so.9 '; then
  d=$(dirname "$( (ls /usr/local/cuda/lib64/libcudnn.so.9 /usr/local/cuda/lib/libcudnn.so.9 \
      /usr/lib/x86_64-linux-gnu/libcudnn.so.9 2> /dev/null; python3 -c \
      'import nvidia.cudnn, os; print(os.path.join(nvidia.cudnn.__path__[0], "lib", "libcudnn.so.9"))' \
      2> /dev/null) | head -1)" 2> /dev/null)
  [ -n "$d" ] && libs=$libs:$d
fi
export LD_LIBRARY_PATH=$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
ldd "$bin" | grep -E 'cudnn|benchmark|not found' > "$out/$tag.ldd" 2>&1
if grep -q 'not found' "$out/$tag.ldd"; then
  cat "$out/$tag.ldd"
  echo "device_bench: a library is missing (above)"
  exit 1
fi
t0=$SECONDS
"$bin" "$@" --benchmark_out="$out/$tag.json" --benchmark_out_format=json > "$out/$tag.log" 2>&1
rc=$?
echo "$tag: rdnaconv_bench $* -> rc=$rc in $((SECONDS - t0)) s"
python3 bench/summarize.py "$out/$tag.json" --markdown "$out/$tag.md" | tee "$out/$tag.summary"
[ $rc -ne 0 ] && grep -iE 'error' "$out/$tag.log" | tail -5
exit $rc
