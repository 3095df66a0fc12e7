#!/usr/bin/env bash
# A GPU pass for a short device lease: mirror the tree into a build folder outside it, copying
# only files whose content changed (a re-sent tree keeps the last call's objects), build the
# harness-only device tests (rdnaconv_device_tests_lean, or TESTS) and the check CLI for 90a
# with the native atom only (RDNACONV_TEST_EMULATED_ATOMS=OFF, or ATOMS), run the tests named by
# FILTER within LIMIT. Logs under $OUT (at most 8 files come back: this writes 2). On 16 cores
# the lean build took 132-172 s (H100, eighth session).
#   tools/gpu_lean.sh            FILTER (gtest filter, default all), LIMIT (seconds, default 540),
#                                JOBS (16), SRC (/tmp/rdnaconv-src), BUILD (/tmp/rdnaconv-lean),
#                                ATOMS (the harness's atoms, e.g. 'gfx11;gfx12' for the emulated
#                                RDNA atoms alone, with FILTER='*gfx1*'; default: native),
#                                TESTS (the test binary built and run: rdnaconv_device_tests_lean,
#                                or rdnaconv_device_tests for the whole suite), TARGETS (what is
#                                built: TESTS and rdnaconv_check unless named)
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/gpu-lean-out}
mkdir -p "$out"
t0=$SECONDS
left() { echo $(( ${LIMIT:-540} - (SECONDS - t0) )); }
src=${SRC:-/tmp/rdnaconv-src}
b=${BUILD:-/tmp/rdnaconv-lean}
python3 - "$PWD" "$src" <<'PY'
import filecmp, os, shutil, sys
root, dst = sys.argv[1], sys.argv[2]
skip = (".git", "build", "__pycache__", ".gfx-devlibs", ".pytest_cache")
files = []
for d, dirs, fs in os.walk(root):
    dirs[:] = [x for x in dirs if not x.startswith(skip)]
    files += [os.path.relpath(os.path.join(d, f), root) for f in fs]
copied = 0
for f in files:
    s, d = os.path.join(root, f), os.path.join(dst, f)
    if not os.path.isfile(s):
        continue
    if os.path.exists(d) and filecmp.cmp(s, d, shallow=False):
        continue  # same content: keep the old file and its time stamp (no rebuild)
    os.makedirs(os.path.dirname(d), exist_ok=True)
    shutil.copy2(s, d)
    os.utime(d)  # now: newer than any object built from the old content
    copied += 1
print(f"gpu_lean: {copied} of {len(files)} files changed")
PY
prefix=${CMAKE_PREFIX_PATH:-}
[ -z "$prefix" ] && [ -d "$src/.devdeps" ] && prefix=$src/.devdeps
{ [ -f "$b/build.ninja" ] || cmake -S "$src" -B "$b" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DRDNACONV_BACKEND=cuda -DCMAKE_CUDA_ARCHITECTURES="${ARCH:-90a}" \
    -DRDNACONV_TEST_EMULATED_ATOMS=OFF ${ATOMS:+"-DRDNACONV_TEST_ATOMS=$ATOMS"} \
    ${prefix:+-DCMAKE_PREFIX_PATH=$prefix}
  timeout "$(left)" cmake --build "$b" -j "${JOBS:-16}" --target ${TARGETS:-${TESTS:-rdnaconv_device_tests_lean} rdnaconv_check}
} > "$out/lean_build.log" 2>&1
echo "build rc=$? at $((SECONDS - t0)) s"
bin=$b/tests/${TESTS:-rdnaconv_device_tests_lean}
[ -x "$bin" ] || { tail -20 "$out/lean_build.log"; exit 1; }
timeout "$(left)" "$bin" --gtest_filter="${FILTER:-*}" > "$out/lean_tests.log" 2>&1
echo "tests rc=$? at $((SECONDS - t0)) s"
grep -E "^\[  PASSED|^\[  FAILED|tests ran" "$out/lean_tests.log" | head -30
