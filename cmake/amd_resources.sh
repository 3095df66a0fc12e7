#!/usr/bin/env bash
# AMD resource report: compiles tests/package/isa_probe.cpp (every kernel of Plan<T, Layout>,
# native atom) for gfx1100 and gfx1201 with clang-19 and writes the table of VGPRs, SGPRs, LDS,
# scratch, waves/SIMD and v_wmma counts. Fails on any scratch use or an engine kernel without WMMA.
# Usage: cmake/amd_resources.sh <device-lib-dir> <out.md> [work-dir]
set -euo pipefail
devlibs=${1:?device-lib dir (cmake/make_gfx_devlibs.sh)}
out=${2:?output markdown}
work=${3:-$(mktemp -d)}
mkdir -p "$work"
specs=()
for a in gfx1100 gfx1201; do
  clang++-19 -std=c++20 -x hip --offload-arch=$a --rocm-path=/usr --rocm-device-lib-path="$devlibs" \
    -Wno-linker-warnings -O3 --cuda-device-only -S -Iinclude tests/package/isa_probe.cpp -o "$work/probe_$a.s" \
    -Rpass-analysis=kernel-resource-usage 2> "$work/remarks_$a.txt"
  specs+=("$a:$work/remarks_$a.txt:$work/probe_$a.s")
done
python3 cmake/amd_resources.py "$out" "${specs[@]}"
