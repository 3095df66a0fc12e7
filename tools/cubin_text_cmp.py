#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compares the machine code of two cubins (ELF) kernel by kernel: the bytes of every
`.text.<kernel>` section that both hold, so that a change can show it left the kernels it did not
mean to touch byte-identical (e.g. the sm_90a cubin of tools/kernel_pair.cu before and after).

  tools/cubin_text_cmp.py BEFORE.cubin AFTER.cubin [--rename FROM=TO ...]

--rename FROM=TO replaces FROM by TO in AFTER's kernel names before pairing them with BEFORE's
(a template argument added on purpose, e.g. `ELb0EEEvNS0_13GroupedParamsE=EEEvNS0_13GroupedParamsE`
for a `bool` appended to a kernel's template arguments with the value false). Prints the counts,
every kernel that differs and the kernels only one side has; exits 1 when a paired kernel differs
or BEFORE has a kernel AFTER lacks. Reads section headers only (no CUDA tool needed)."""
import argparse
import struct
import sys


def text_sections(path):
    """{kernel name: bytes} of the .text.<kernel> sections of an ELF64 little-endian file."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        sys.exit(f"{path}: not an ELF64 little-endian file")
    (shoff,) = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    headers = [struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize) for i in range(shnum)]
    names_at = headers[shstrndx][4]  # sh_offset of the section-name string table
    out = {}
    for name, kind, _flags, _addr, offset, size in headers:
        end = data.index(b"\0", names_at + name)
        section = data[names_at + name : end].decode()
        if section.startswith(".text."):
            out[section[len(".text.") :]] = b"" if kind == 8 else data[offset : offset + size]  # 8: NOBITS
    return out


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("before")
    ap.add_argument("after")
    ap.add_argument("--rename", action="append", default=[], metavar="FROM=TO")
    args = ap.parse_args(argv)
    renames = [r.split("=", 1) for r in args.rename]
    if any(len(r) != 2 for r in renames):
        ap.error("--rename takes FROM=TO")
    files = [args.before, args.after]
    before = text_sections(files[0])
    after = {}
    renamed = 0
    for name, code in text_sections(files[1]).items():
        new = name
        for old_s, new_s in renames:
            new = new.replace(old_s, new_s)
        renamed += new != name
        after[new] = code
    both = sorted(set(before) & set(after))
    differ = [k for k in both if before[k] != after[k]]
    print(
        f"{len(before)} kernels before, {len(after)} after ({renamed} renamed by --rename), "
        f"{len(both)} in both: {len(both) - len(differ)} byte-identical, {len(differ)} differ"
    )
    for k in differ:
        print(f"  differs: {k} ({len(before[k])} -> {len(after[k])} bytes)")
    only_before = sorted(set(before) - set(after))
    only_after = sorted(set(after) - set(before))
    print(f"only before: {len(only_before)}")
    for k in only_before:
        print(f"  {k}")
    print(f"only after: {len(only_after)}")
    for k in only_after:
        print(f"  {k}")
    return 1 if differ or only_before else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
