#!/usr/bin/env bash
# One benchmark row under Nsight Compute with two rdnaconv_bench binaries (before/after): the
# engine kernels' duration, grid, registers, occupancy and throughput at the base clock, and the
# SASS of each kernel that ran, diffed. For a row that a before/after pair flags.
#   tools/ncu_pair.sh BEFORE_BIN AFTER_BIN ROW_REGEX
# Writes ncu_before.csv, ncu_after.csv, sass_diff.txt (and a summary on stdout) under $OUT.
set -uo pipefail
out=${OUT:-/tmp/ncu-pair-out}
mkdir -p "$out"
row=$3
for side in before after; do
  bin=$1
  [ $side = after ] && bin=$2
  ncu --clock-control base -k regex:'conv_gemm|repack' --launch-skip 8 --launch-count 4 \
    --section SpeedOfLight --section LaunchStats --section Occupancy --csv \
    "$bin" --set=quick --vendor=off --e2e=off --benchmark_filter="$row" > "$out/ncu_$side.csv" 2> "$out/ncu_$side.err"
  grep -E '"Duration"|"Registers Per Thread"|"Grid Size"|"Achieved Occupancy"|"Compute \(SM\) Throughput"|"DRAM Throughput"' \
    "$out/ncu_$side.csv" | awk -F'","' '{print "'$side'", $5, $(NF-2), $NF}' | sort | uniq -c | head -20
  cuobjdump -sass "$bin" > "$out/sass_$side.txt" 2>&1
done
python3 - "$out" <<'PY'
import re, sys
out = sys.argv[1]
def funcs(path):
    fs, cur = {}, None
    for line in open(path, errors="replace"):
        m = re.match(r"\s*Function : (\S+)", line)
        if m:
            cur = m.group(1); fs[cur] = []; continue
        if cur:
            m = re.search(r"/\*[0-9a-f]{4,}\*/\s+(.*?);", line)
            if m: fs[cur].append(re.sub(r"0x[0-9a-f]+", "X", m.group(1)))
    return fs
b, a = funcs(f"{out}/sass_before.txt"), funcs(f"{out}/sass_after.txt")
with open(f"{out}/sass_diff.txt", "w") as f:
    for name in sorted(set(a) & set(b)):
        if "conv_gemm" not in name: continue
        same = a[name] == b[name]
        f.write(f"{'same' if same else 'DIFF'} {len(b[name])} -> {len(a[name])} instructions  {name}\n")
print(open(f"{out}/sass_diff.txt").read()[:3000])
PY
