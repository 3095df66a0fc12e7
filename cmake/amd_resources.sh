#!/usr/bin/env bash
# AMD resource report from the tree's own HIP build: the code objects of target
# rdnaconv_isa_probe (tests/package/isa_probe.cpp: every kernel of Plan<T, Layout>, native atom,
# compiled with the build's own flags) for gfx1100 and gfx1201 give the table of VGPRs, SGPRs,
# LDS, scratch, waves/SIMD, v_wmma counts and main loops (cmake/amd_resources.py report); then
# every object file of the build is checked (amd_resources.py gate). Fails on any scratch use in
# the probe, an engine kernel without WMMA or with scratch anywhere in the build, or an engine
# main loop (the general family's excepted) whose global loads do not overlap its WMMAs.
# Usage: cmake/amd_resources.sh <hip-build-dir> <out.md>
#   <hip-build-dir>: configured as README says (Debian: RDNACONV_HIP_VIA_CXX, or ROCm), with
#   gfx1100 and gfx1201 among CMAKE_HIP_ARCHITECTURES; built already, or this builds the probe.
set -euo pipefail
build=${1:?HIP build directory (README: Consuming)}
out=${2:?output markdown}
cd "$(dirname "$0")/.."
grep -q '^RDNACONV_BACKEND:STRING=hip$' "$build/CMakeCache.txt" ||
  { echo "cmake/amd_resources.sh: $build is not a HIP build of this tree (RDNACONV_BACKEND=hip)" >&2; exit 1; }
cmake --build "$build" --target rdnaconv_isa_probe >/dev/null
probe=$(find "$build" -path '*rdnaconv_isa_probe.dir*' -name 'isa_probe.cpp.o' | head -1)
[ -n "$probe" ] || { echo "cmake/amd_resources.sh: no isa_probe object under $build" >&2; exit 1; }
rc=0
python3 cmake/amd_resources.py report "$out" "$probe" || rc=1
mapfile -t objs < <(find "$build" -name '*.o' | sort)
python3 cmake/amd_resources.py gate "${objs[@]}" || rc=1
exit $rc
