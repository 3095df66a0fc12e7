#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The AMD resource report and gate, read from the code objects a HIP build produced.

  amd_resources.py report OUT.md PROBE
      Writes docs/AMD_RESOURCES.md from the gfx1100 and gfx1201 code objects inside PROBE: the
      object file of tests/package/isa_probe.cpp (every kernel of Plan<T, Layout>) as the tree's
      HIP build compiled it (cmake/amd_resources.sh finds it). Exit 1 if the probe lacks one of
      the two targets, if any of its kernels uses scratch, if an engine kernel has no v_wmma or no
      main loop, or if an engine main loop other than the general family's does not overlap all
      of its global loads with WMMAs.
  amd_resources.py gate FILE...
      Every gfx11/gfx12 code object inside the files (objects or executables of a HIP build):
      exit 1 if an engine kernel of the native atom uses scratch or has no v_wmma.

Everything is read from the binary: kernel resources from the code object's metadata note
(llvm-readelf-19 --notes), instructions and loops from its disassembly (llvm-objdump-19 -d; a
loop is the address range from a backward branch's target to the branch)."""
import os
import re
import struct
import subprocess
import sys
import tempfile

BUNDLE_MAGIC = b"__CLANG_OFFLOAD_BUNDLE__"
REPORT_ARCHS = ("gfx1100", "gfx1201")
# Cycles one v_wmma occupies the SIMD (docs/RDNA_FACTS.md: gfx11 32, gfx12 16 per 16x16x16).
WMMA_CYCLES = {"gfx11": 32, "gfx12": 16}
WAIT_VMEM = re.compile(r"^s_waitcnt\b.*\bvmcnt\(|^s_wait_loadcnt\b")
VMEM_LOAD = re.compile(r"^(flat|global|buffer)_load")
BRANCH = re.compile(r"^s_(c?branch\w*)\b")


def tool(name):
    """The LLVM 19 tool (Debian's versioned name), else the unversioned one."""
    for n in (name + "-19", name):
        for d in os.environ.get("PATH", "").split(os.pathsep) + ["/usr/lib/llvm-19/bin"]:
            if os.access(os.path.join(d, n), os.X_OK):
                return os.path.join(d, n)
    sys.exit(f"amd_resources.py: {name}-19 not found (apt-get install llvm-19)")


def code_objects(path):
    """[(gfx target, code object bytes)] of every offload bundle in the file's .hip_fatbin
    section (an executable holds one bundle per object file linked into it)."""
    with tempfile.TemporaryDirectory() as d:
        sec = os.path.join(d, "fatbin")
        r = subprocess.run([tool("llvm-objcopy"), "--dump-section", ".hip_fatbin=" + sec, path,
                            os.path.join(d, "copy")], capture_output=True, text=True)
        if r.returncode != 0 or not os.path.exists(sec):
            return []
        data = open(sec, "rb").read()
    if data.startswith(b"CCOB"):
        sys.exit(f"amd_resources.py: {path}: compressed offload bundle, not supported")
    out = []
    pos = data.find(BUNDLE_MAGIC)
    while pos >= 0:
        (n,) = struct.unpack_from("<Q", data, pos + len(BUNDLE_MAGIC))
        q = pos + len(BUNDLE_MAGIC) + 8
        for _ in range(n):
            off, size, tlen = struct.unpack_from("<QQQ", data, q)
            triple = data[q + 24:q + 24 + tlen].decode()
            q += 24 + tlen
            m = re.search(r"amdgcn-amd-amdhsa-+(gfx[0-9a-f]+)", triple)
            if m and size > 0:
                out.append((m.group(1), data[pos + off:pos + off + size]))
        pos = data.find(BUNDLE_MAGIC, pos + 1)
    return out


def metadata(co_path):
    """Kernel name -> its metadata fields (vgpr_count, sgpr_count, group_segment_fixed_size,
    private_segment_fixed_size, ...) from the NT_AMDGPU_METADATA note."""
    text = subprocess.run([tool("llvm-readelf"), "--notes", co_path], capture_output=True,
                          text=True, check=True).stdout
    kernels, cur = [], None
    for line in text.splitlines():
        if re.match(r"^  - \.", line):
            cur = {}
            kernels.append(cur)
        m = re.match(r"^    \.(\w+):\s+(\S+)", line)
        if m and cur is not None:
            cur[m.group(1)] = m.group(2)
    return {k["name"]: k for k in kernels if "name" in k}


def disassembly(co_path, arch):
    """Function name -> [(address, instruction text, branch target or None)], in address order."""
    text = subprocess.run([tool("llvm-objdump"), "-d", "--mcpu=" + arch, co_path],
                          capture_output=True, text=True, check=True).stdout
    funcs, start, cur = {}, {}, None
    for line in text.splitlines():
        m = re.match(r"^([0-9a-f]+) <([^>]+)>:$", line)
        if m:
            cur = m.group(2)
            start[cur] = int(m.group(1), 16)
            funcs[cur] = []
            continue
        m = re.match(r"^\t(.*?)\s*//\s*([0-9A-F]+):[0-9A-F ]*(?:<([^>+]+)(?:\+0x([0-9a-f]+))?>)?", line)
        if not m or cur is None:
            continue
        ins, addr = m.group(1).strip(), int(m.group(2), 16)
        target = None
        if m.group(3) is not None and BRANCH.match(ins):
            target = start.get(m.group(3), start[cur] if m.group(3) == cur else None)
            if target is not None:
                target += int(m.group(4) or "0", 16)
        funcs[cur].append((addr, ins, target))
    return funcs


def basic_blocks(body):
    """Basic blocks of a function (lists of indices into body) and their successors."""
    addrs = {a: k for k, (a, _, _) in enumerate(body)}
    lead = {0}
    for k, (_, ins, target) in enumerate(body):
        if BRANCH.match(ins) or ins.startswith("s_endpgm"):
            lead.add(k + 1)
            if target in addrs:
                lead.add(addrs[target])
    starts = sorted(s for s in lead if s < len(body))
    blocks = [list(range(s, e)) for s, e in zip(starts, starts[1:] + [len(body)])]
    block_of = {s: b for b, s in enumerate(starts)}
    succ = []
    for b, blk in enumerate(blocks):
        _, ins, target = body[blk[-1]]
        out = []
        if target in addrs:
            out.append(block_of[addrs[target]])
        ends = ins.startswith(("s_branch", "s_endpgm", "s_setpc"))
        if not ends and b + 1 < len(blocks):
            out.append(b + 1)
        succ.append(out)
    return blocks, succ


def natural_loops(succ):
    """Header block -> the blocks of its natural loop (back edges u -> h, h dominating u; loops
    sharing a header merged), as LLVM's MachineLoopInfo forms them."""
    n = len(succ)
    pred = [[] for _ in range(n)]
    for u, vs in enumerate(succ):
        for v in vs:
            pred[v].append(u)
    order, seen, stack = [], [False] * n, [(0, 0)]
    seen[0] = True
    while stack:  # reverse post-order from the entry block
        u, i = stack.pop()
        if i < len(succ[u]):
            stack.append((u, i + 1))
            v = succ[u][i]
            if not seen[v]:
                seen[v] = True
                stack.append((v, 0))
        else:
            order.append(u)
    order.reverse()
    rpo = {u: k for k, u in enumerate(order)}
    idom = {0: 0}
    changed = True
    while changed:  # Cooper, Harvey and Kennedy's iterative dominators
        changed = False
        for u in order[1:]:
            ps = [p for p in pred[u] if p in idom]
            new = ps[0]
            for p in ps[1:]:
                a, b = p, new
                while a != b:
                    while rpo[a] > rpo[b]:
                        a = idom[a]
                    while rpo[b] > rpo[a]:
                        b = idom[b]
                new = a
            if idom.get(u) != new:
                idom[u] = new
                changed = True

    def dominates(h, u):
        while True:
            if u == h:
                return True
            if u == 0:
                return False
            u = idom[u]

    loops = {}
    for u in order:
        for h in succ[u]:
            if h in idom and dominates(h, u):
                body, work = loops.setdefault(h, {h}), [u]
                while work:
                    x = work.pop()
                    if x not in body:
                        body.add(x)
                        work.extend(p for p in pred[x] if p in idom)
    return loops


def main_loop(body):
    """The loop holding the most v_wmma, its own instructions in address order (an instruction
    belongs to the innermost natural loop that contains its block, as LLVM's loop annotations
    in the assembly assign it)."""
    blocks, succ = basic_blocks(body)
    loops = natural_loops(succ)
    inner = {}
    for h, members in sorted(loops.items(), key=lambda kv: -len(kv[1])):
        for b in members:
            inner[b] = h  # smaller loops overwrite larger ones
    own = {h: [] for h in sorted(loops)}
    for b, blk in enumerate(blocks):
        if b in inner:
            own[inner[b]].extend(body[k][1] for k in blk)
    if not own:
        return []
    return max(own.values(), key=lambda ins: sum(i.startswith("v_wmma") for i in ins))


def loop_report(body, family):
    """Instruction mix of a main loop, whether its global loads overlap its WMMAs (a WMMA issued
    between a load and the wait for it, the loop taken as cyclic), and the WMMA share of issue
    cycles under the model of docs/DESIGN.md (WMMA = WMMA_CYCLES, every other instruction 1)."""
    op = [i.split()[0] for i in body]
    wmma = sum(o.startswith("v_wmma") for o in op)
    loads = [k for k, o in enumerate(op) if VMEM_LOAD.match(o)]
    over = 0
    for k in loads:
        seen = 0
        for step in range(1, len(body) + 1):
            j = (k + step) % len(body)
            if op[j].startswith("v_wmma"):
                seen += 1
            if WAIT_VMEM.match(body[j]):
                break
        over += seen > 0
    mix = {
        "vmem": len(loads),
        "lds_ld": sum(o.startswith(("ds_load", "ds_read")) for o in op),
        "lds_st": sum(o.startswith(("ds_store", "ds_write")) for o in op),
        "valu": sum(o.startswith("v_") and not o.startswith("v_wmma") for o in op),
        "salu": sum(o.startswith("s_") and not re.match(r"s_(waitcnt|wait_|barrier|cbranch|branch)", o) for o in op),
        "wait": sum(bool(re.match(r"s_(waitcnt|wait_)", o)) for o in op),
        "barrier": sum(o.startswith("s_barrier") for o in op),
    }
    cyc = WMMA_CYCLES[family] * wmma
    frac = cyc / (cyc + len(op) - wmma) if wmma else 0.0
    return wmma, mix, over, frac


def waves_per_simd(vgprs):
    """Waves per SIMD from VGPRs alone on gfx1100/gfx1201, wave32 (docs/RDNA_FACTS.md): 1536
    VGPRs per SIMD allocated in granules of 24, at most 16 waves."""
    return min(16, 1536 // (max(1, -(-vgprs // 24)) * 24))


def gated_loop(lab):
    """Engine kernels whose loop must overlap every global load with WMMAs (the CI gate): all but
    the general family, whose loop holds three run-time read paths (docs: kernels/common)."""
    return "general" not in lab


def demangle(names):
    try:
        out = subprocess.run([tool("llvm-cxxfilt")], input="\n".join(names), capture_output=True,
                             text=True, check=True)
        return out.stdout.splitlines()
    except (OSError, subprocess.CalledProcessError):
        return names


def label(dem):
    """Compact name and dynamic LDS bytes of a demangled kernel name, and whether it is an engine
    kernel of the native atom (WMMA on gfx11/gfx12)."""
    dyn = 0
    m = re.search(r"TileTag<(\d+), (\d+), (\d+), (\d+), (\d+), (\d+)(?:, (?:true|false))?>", dem)
    tile = ""
    if m:
        bm, bn, bk, wm, wn, st = map(int, m.groups()[:6])
        dyn = st * (bm + bn) * (bk + 8) * 2
        tile = f"{bm}x{bn}x{bk} {wm}x{wn}w {st}st"
    t = "bf16" if "(rdnaconv::DType)1" in dem else "fp16"
    native = "(rdnaconv::AtomKind)0" in dem
    if "conv_gemm" in dem:
        lay = {"0": "nchw", "1": "nhwc", "2": "nchwc"}
        if "GeneralIterTag" in dem:
            fam = "general " + ("nhwc" if "GeneralIterTag<(rdnaconv::LayoutKind)1>" in dem else "nchw")
        elif "WinogradIterTag" in dem:
            fam = "winograd GEMM"
        else:
            m2 = re.search(r"TapIterTag<\(rdnaconv::kernels::InLayout\)(\d), (true|false)>", dem)
            fam = ("gemm1x1 " if m2 and m2.group(2) == "true" else "3x3 ") + (lay[m2.group(1)] if m2 else "?")
            if fam == "3x3 nchwc":
                fam = "cblocked3x3 (nchwc)"
            elif fam == "3x3 nhwc":
                fam = "nhwc3x3"
            elif fam == "3x3 nchw":
                fam = "nchw3x3"
        if "PadRemapTag" in dem:  # the padding modes' instantiation (kernels/common/README.md)
            fam += " remap"
        out = "nhwc" if re.search(r"\(rdnaconv::LayoutKind\)1>\(", dem) else "nchw"
        return f"engine: {fam}, {t}, out {out}, {tile}", dyn, native
    if "winograd_fused<" in dem:
        out = "nhwc" if re.search(r"\(rdnaconv::LayoutKind\)1>\(", dem) else "nchw"
        return f"engine: winograd fused GEMM + output transform, {t}, out {out}, {tile}", dyn, native
    short = dem
    for a, b in [("(rdnaconv::DType)0", "fp16"), ("(rdnaconv::DType)1", "bf16"),
                 ("(rdnaconv::kernels::InLayout)0", "nchw"), ("(rdnaconv::kernels::InLayout)1", "nhwc"),
                 ("(rdnaconv::kernels::InLayout)2", "nchwc"), ("(rdnaconv::LayoutKind)0", "nchw"),
                 ("(rdnaconv::LayoutKind)1", "nhwc"), ("rdnaconv::kernels::", ""), ("void ", "")]:
        short = short.replace(a, b)
    short = short[:short.index(">(") + 1] if ">(" in short else short
    if short.startswith("grouped_"):  # the Remap flag: false pads with zeros, true remaps
        short = short.replace(", false>", ">").replace(", true>", " remap>")
    return short, 0, False


def kernels_of(arch, blob):
    """[(label, dynamic LDS, engine, metadata, function body)] of one code object."""
    with tempfile.TemporaryDirectory() as d:
        co = os.path.join(d, arch + ".co")
        with open(co, "wb") as f:
            f.write(blob)
        meta = metadata(co)
        funcs = disassembly(co, arch)
    names = sorted(meta)
    return [(label(dem), meta[n], funcs.get(n, [])) for n, dem in zip(names, demangle(names))]


def report(out, probe):
    objs = {}
    for arch, blob in code_objects(probe):
        objs.setdefault(arch, blob)
    missing = [a for a in REPORT_ARCHS if a not in objs]
    if missing:
        print(f"amd_resources.py: {probe} holds no {' or '.join(missing)} code object (it has: "
              f"{' '.join(sorted(objs)) or 'none'}); configure the HIP build with "
              f"CMAKE_HIP_ARCHITECTURES including {';'.join(REPORT_ARCHS)}")
        return 1
    lines = ["# AMD resource usage", "",
             "Generated by `cmake/amd_resources.sh <hip-build-dir> <out.md>` from the code objects of",
             "the tree's own HIP build (configured as README says, no build type given: the default",
             "Release flags): the object file of `tests/package/isa_probe.cpp`, which instantiates every",
             "kernel of `Plan<T, Layout>` for fp16/bf16 x NCHW/NHWC (native atom). Registers, static LDS",
             "and scratch come from each kernel's metadata note, instruction counts from the",
             "disassembly. CI builds the tree, fails if any kernel here uses scratch or an engine kernel",
             "has no `v_wmma` (and, for every test, example and benchmark binary of the same build, if",
             "an engine kernel does), and fails if this file is not what the build gives. LDS = static",
             "+ the dynamic shared memory the launcher passes (stages x (block_m + block_n) x (block_k +",
             "8) x 2 bytes). Waves/SIMD: from VGPRs alone, min(16, 1536 / VGPRs rounded up to 24);",
             "RDNA3/4 have 1536 VGPRs per SIMD (wave32) and 64 KiB of LDS per workgroup",
             "(docs/RDNA_FACTS.md). Not a speed claim: no AMD GPU is available to this project.", ""]
    bad = []
    loop_lines = ["## Engine main loops", "",
                  "Per engine kernel, the innermost loop that holds the most `v_wmma` (a loop: the",
                  "address range from a backward branch's target to the branch): its instructions per",
                  "iteration (one block_k step), whether each global load of the next step is in flight",
                  "across at least one WMMA before the wait for it (`overlap`: loads with a WMMA between",
                  "issue and their `vmcnt` / `loadcnt` wait, the loop taken as cyclic), and the WMMA share",
                  "of issue cycles under the issue model of docs/DESIGN.md (a WMMA occupies the SIMD 32",
                  "cycles on gfx11, 16 on gfx12; every other instruction one cycle; one wave, no overlap",
                  "with other waves).",
                  "",
                  "CI gate: every engine loop must have one, and every loop but the general family's (NHWC",
                  "and NCHW 3x3 and 1x1, the channel-blocked NCHW 3x3, both Winograd GEMMs) must overlap all",
                  "of its loads (`n/n`); the NCHW gathers store their elements to LDS as loaded, after the",
                  "products. The general loop (three read paths chosen at run time, per-element index",
                  "arithmetic) is listed, not gated (issue 14; include/rdnaconv/kernels/common/README.md).",
                  ""]
    for arch in REPORT_ARCHS:
        family = "gfx12" if arch.startswith("gfx12") else "gfx11"
        rows, loop_rows = [], []
        for (lab, dyn, mma), meta, body in kernels_of(arch, objs[arch]):
            vgprs = int(meta.get("vgpr_count", "0"))
            lds = int(meta.get("group_segment_fixed_size", "0")) + dyn
            scratch = int(meta.get("private_segment_fixed_size", "0"))
            occ = waves_per_simd(vgprs)
            w = sum(ins.startswith("v_wmma") for _, ins, _ in body)
            rows.append((lab, vgprs, meta.get("sgpr_count", "?"), lds, scratch, occ, w))
            if scratch > 0:
                bad.append(f"{arch} {lab}: {scratch} bytes scratch")
            if mma and w == 0:
                bad.append(f"{arch} {lab}: no v_wmma")
            if mma:
                lw, mix, over, frac = loop_report(main_loop(body), family)
                loop_rows.append((lab, lw, mix, over, frac, occ))
                if lw == 0:
                    bad.append(f"{arch} {lab}: no main loop with v_wmma found")
                elif gated_loop(lab) and over < mix["vmem"]:
                    bad.append(f"{arch} {lab}: {over}/{mix['vmem']} global loads overlap the WMMAs")
        rows.sort()
        lines += [f"## {arch}", "", "| kernel | VGPRs | SGPRs | LDS bytes | scratch bytes | waves/SIMD | v_wmma |",
                  "|---|---:|---:|---:|---:|---:|---:|"]
        for lab, v, s, lds, sc, occ, w in rows:
            lines.append(f"| {lab} | {v} | {s} | {lds} | {sc} | {occ} | {w} |")
        lines.append("")
        loop_rows.sort(key=lambda r: r[0])
        loop_lines += [f"### {arch}", "",
                       "| kernel | WMMA | VMEM loads | LDS loads | LDS stores | VALU | SALU | waits | barriers | overlap | WMMA share | waves/SIMD |",
                       "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for lab, lw, mix, over, frac, occ in loop_rows:
            loop_lines.append(f"| {lab} | {lw} | {mix['vmem']} | {mix['lds_ld']} | {mix['lds_st']} | {mix['valu']} | "
                              f"{mix['salu']} | {mix['wait']} | {mix['barrier']} | {over}/{mix['vmem']} | {frac:.2f} | {occ} |")
        loop_lines.append("")
    lines += loop_lines
    with open(out, "w") as f:
        f.write("\n".join(lines))
    for b in bad:
        print("AMD resource check failed:", b)
    return 1 if bad else 0


def gate(files):
    bad, seen = [], 0
    for path in files:
        for arch, blob in code_objects(path):
            if not arch.startswith(("gfx11", "gfx12")):
                continue
            for (lab, _, mma), meta, body in kernels_of(arch, blob):
                if not mma:
                    continue
                seen += 1
                scratch = int(meta.get("private_segment_fixed_size", "0"))
                w = sum(ins.startswith("v_wmma") for _, ins, _ in body)
                if scratch > 0:
                    bad.append(f"{path} {arch} {lab}: {scratch} bytes scratch")
                if w == 0:
                    bad.append(f"{path} {arch} {lab}: no v_wmma")
    for b in bad:
        print("AMD engine gate failed:", b)
    print(f"AMD engine gate: {seen} gfx11/gfx12 engine kernels in {len(files)} files, {len(bad)} failures")
    if seen == 0:
        print("AMD engine gate failed: no gfx11/gfx12 engine kernel found")
        return 1
    return 1 if bad else 0


def main(argv):
    if len(argv) == 3 and argv[0] == "report":
        return report(argv[1], argv[2])
    if len(argv) >= 2 and argv[0] == "gate":
        return gate(argv[1:])
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
