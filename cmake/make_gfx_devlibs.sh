#!/usr/bin/env bash
# Debian's rocm-device-libs 5.2 lacks gfx11/gfx12 ISA-version bitcode. Build a device-library
# folder: Debian's bitcode plus oclc_isa_version_<gfx>.bc for every RDNA3/RDNA4 target, each one
# line of IR. The value follows the device libraries' own files: major * 1000 + minor * 100 +
# stepping (gfx1030 -> 10300, gfx1031 -> 10301, gfx90a -> 9010), so gfx1101 -> 11001 and
# gfx1201 -> 12001.
# Usage: cmake/make_gfx_devlibs.sh <out-dir>
set -euo pipefail
out=${1:?out dir}
mkdir -p "$out"
cp /usr/lib/x86_64-linux-gnu/amdgcn/bitcode/*.bc "$out/"
# clang-19's own data layout and triple for amdgcn: a module without them makes every HIP
# compile warn "Linking two modules of different data layouts" (-Wlinker-warnings)
target=$(echo | clang-19 -target amdgcn-amd-amdhsa -nogpulib -S -emit-llvm -x c - -o - |
  grep -E '^target (datalayout|triple) =')
for a in 1100 1101 1102 1103 1150 1151 1200 1201; do
  v=$(( ${a:0:2} * 1000 + ${a:2:1} * 100 + 16#${a:3:1} ))
  printf '%s\n%s\n' "$target" \
    "@__oclc_ISA_version = linkonce_odr protected local_unnamed_addr addrspace(4) constant i32 $v, align 4" \
    | llvm-as-19 -o "$out/oclc_isa_version_$a.bc"
done
echo "$out"
