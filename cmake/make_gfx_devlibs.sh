#!/usr/bin/env bash
# Debian's rocm-device-libs 5.2 lacks gfx11/gfx12 ISA-version bitcode. Build a device-library
# folder: Debian's bitcode plus oclc_isa_version_{1100..1201}.bc assembled from one line each.
# Usage: cmake/make_gfx_devlibs.sh <out-dir>
set -euo pipefail
out=${1:?out dir}
mkdir -p "$out"
cp /usr/lib/x86_64-linux-gnu/amdgcn/bitcode/*.bc "$out/"
for a in 1100 1101 1102 1200 1201; do
  echo "@__oclc_ISA_version = linkonce_odr protected local_unnamed_addr addrspace(4) constant i32 ${a}0, align 4" \
    | llvm-as-19 -o "$out/oclc_isa_version_$a.bc"
done
echo "$out"
