#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Builds docs/AMD_RESOURCES.md from clang's kernel-resource-usage remarks and the assembly of
tests/package/isa_probe.cpp (every kernel a user's build instantiates), per gfx target.
Usage: amd_resources.py OUT.md gfx1100:remarks.txt:asm.s gfx1201:remarks.txt:asm.s
Exit status 1 if any kernel uses scratch (spills), an MMA kernel has no v_wmma or no main loop,
or an engine main loop other than the general family's does not overlap all of its global loads
with WMMAs."""
import re
import subprocess
import sys


def demangle(names):
    try:
        out = subprocess.run(["llvm-cxxfilt-19"], input="\n".join(names), capture_output=True, text=True, check=True)
        return out.stdout.splitlines()
    except (OSError, subprocess.CalledProcessError):
        return names


def remarks(path):
    kernels, cur = {}, None
    for line in open(path, errors="replace"):
        m = re.search(r"remark:\s+Function Name: (\S+)", line)
        if m:
            cur = m.group(1)
            kernels[cur] = {}
            continue
        m = re.search(r"remark:\s+([A-Za-z ]+?)(?: \[[^\]]*\])?: (\S+) \[-Rpass-analysis", line)
        if m and cur:
            kernels[cur][m.group(1).strip()] = m.group(2)
    return kernels


# Cycles one v_wmma occupies the SIMD (rdna-facts.md: gfx11 32, gfx12 16 cycles per 16x16x16).
WMMA_CYCLES = {"gfx11": 32, "gfx12": 16}
WAIT_VMEM = re.compile(r"^s_waitcnt\b.*\bvmcnt\(|^s_wait_loadcnt\b")
VMEM_LOAD = re.compile(r"^(flat|global|buffer)_load")


def functions(path):
    """Instruction lines of each function, with LLVM's block labels and loop comments kept."""
    funcs, cur = {}, None
    for line in open(path, errors="replace"):
        m = re.match(r"^(_Z\S+):\s*(;.*)?$", line)
        if m:
            cur = m.group(1)
            funcs[cur] = []
            continue
        if cur is None:
            continue
        funcs[cur].append(line.rstrip("\n"))
        if line.strip().startswith("s_endpgm"):
            cur = None
    return funcs


def main_loop(lines):
    """The loop (LLVM's 'Loop Header' comments) holding the most v_wmma: its instructions in order."""
    loops, cur = {}, None
    for line in lines:
        m = re.match(r"^\.L(BB\w+):", line)
        if m:
            h = re.search(r"in Loop: Header=(\w+)", line)
            cur = m.group(1) if "Loop Header" in line else (h.group(1) if h else None)
            if cur:
                loops.setdefault(cur, [])
            continue
        ins = line.strip()
        if cur is None or not ins or ins.startswith((";", ".")):
            continue
        loops[cur].append(ins.split(";")[0].strip())
    if not loops:
        return []
    return max(loops.values(), key=lambda body: sum(i.startswith("v_wmma") for i in body))


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


def gated_loop(lab):
    """Engine kernels whose loop must overlap every global load with WMMAs (the CI gate): all but
    the general family, whose loop holds three run-time read paths (docs: kernels/common)."""
    return "general" not in lab


def label(dem):
    """Compact name and dynamic LDS bytes of a demangled kernel name."""
    dyn = 0
    m = re.search(r"TileTag<(\d+), (\d+), (\d+), (\d+), (\d+), (\d+)(?:, (?:true|false))?>", dem)
    tile = ""
    if m:
        bm, bn, bk, wm, wn, st = map(int, m.groups()[:6])
        dyn = st * (bm + bn) * (bk + 8) * 2
        tile = f"{bm}x{bn}x{bk} {wm}x{wn}w {st}st"
    t = "bf16" if "(rdnaconv::DType)1" in dem else "fp16"
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
        out = "nhwc" if re.search(r"\(rdnaconv::LayoutKind\)1>\(", dem) else "nchw"
        return f"engine: {fam}, {t}, out {out}, {tile}", dyn, True
    if "winograd_fused<" in dem:
        out = "nhwc" if re.search(r"\(rdnaconv::LayoutKind\)1>\(", dem) else "nchw"
        return f"engine: winograd fused GEMM + output transform, {t}, out {out}, {tile}", dyn, True
    short = dem
    for a, b in [("(rdnaconv::DType)0", "fp16"), ("(rdnaconv::DType)1", "bf16"),
                 ("(rdnaconv::kernels::InLayout)0", "nchw"), ("(rdnaconv::kernels::InLayout)1", "nhwc"),
                 ("(rdnaconv::kernels::InLayout)2", "nchwc"), ("(rdnaconv::LayoutKind)0", "nchw"),
                 ("(rdnaconv::LayoutKind)1", "nhwc"), ("rdnaconv::kernels::", ""), ("void ", "")]:
        short = short.replace(a, b)
    short = short[:short.index(">(") + 1] if ">(" in short else short
    return short, 0, False


def main():
    out, targets = sys.argv[1], sys.argv[2:]
    lines = ["# AMD resource usage", "",
             "Generated by `cmake/amd_resources.sh` (CI runs it and fails if this file is stale, if any kernel",
             "uses scratch, or if an engine kernel has no `v_wmma`) from clang-19's",
             "`-Rpass-analysis=kernel-resource-usage` remarks and the gfx assembly of",
             "`tests/package/isa_probe.cpp`, which instantiates every kernel of `Plan<T, Layout>` for",
             "fp16/bf16 x NCHW/NHWC (native atom). LDS = static + the dynamic shared memory the launcher",
             "passes (stages x (block_m + block_n) x (block_k + 8) x 2 bytes). Occupancy is clang's",
             "waves per SIMD from registers alone; RDNA3/4 have 1536 VGPRs per SIMD (wave32) and 64 KiB of",
             "LDS per workgroup (shared docs of the project: rdna-facts.md). Not a speed claim: no AMD GPU is available",
             "to this project.", ""]
    bad = []
    loop_lines = ["## Engine main loops", "",
                  "Per engine kernel, the loop (LLVM's loop annotations) that holds the most `v_wmma`: its",
                  "instructions per iteration (one block_k step), whether each global load of the next step is",
                  "in flight across at least one WMMA before the wait for it (`overlap`: loads with a WMMA",
                  "between issue and their `vmcnt` / `loadcnt` wait, the loop taken as cyclic), and the WMMA",
                  "share of issue cycles under the issue model of docs/DESIGN.md (a WMMA occupies the SIMD",
                  "32 cycles on gfx11, 16 on gfx12; every other instruction one cycle; one wave, no overlap",
                  "with other waves).",
                  "",
                  "CI gate: every engine loop must have one, and every loop but the general family's (NHWC",
                  "and NCHW 3x3 and 1x1, the channel-blocked NCHW 3x3, both Winograd GEMMs) must overlap all",
                  "of its loads (`n/n`); the NCHW gathers store their elements to LDS as loaded, after the",
                  "products. The general loop (three read paths chosen at run time, per-element index",
                  "arithmetic) is listed, not gated (issue 14; include/rdnaconv/kernels/common/README.md).",
                  ""]
    for spec in targets:
        arch, rpath, spath = spec.split(":")
        ks = remarks(rpath)
        funcs = functions(spath)
        wm = {n: sum("v_wmma" in l for l in body) for n, body in funcs.items()}
        family = "gfx12" if arch.startswith("gfx12") else "gfx11"
        loop_rows = []
        names = sorted(ks)
        dems = demangle(names)
        rows = []
        for n, d in zip(names, dems):
            lab, dyn, mma = label(d)
            r = ks[n]
            lds = int(r.get("LDS Size", "0")) + dyn
            scratch = int(r.get("ScratchSize", "0"))
            w = wm.get(n, 0)
            rows.append((lab, r.get("VGPRs", "?"), r.get("SGPRs", "?"), lds, scratch, r.get("Occupancy", "?"), w, n))
            if scratch > 0:
                bad.append(f"{arch} {lab}: {scratch} bytes scratch")
            if mma and w == 0:
                bad.append(f"{arch} {lab}: no v_wmma")
            if mma and n in funcs:
                lw, mix, over, frac = loop_report(main_loop(funcs[n]), family)
                loop_rows.append((lab, lw, mix, over, frac, r.get("Occupancy", "?")))
                if lw == 0:
                    bad.append(f"{arch} {lab}: no main loop with v_wmma found (LLVM loop annotations)")
                elif gated_loop(lab) and over < mix["vmem"]:
                    bad.append(f"{arch} {lab}: {over}/{mix['vmem']} global loads overlap the WMMAs")
        rows.sort()
        lines += [f"## {arch}", "", "| kernel | VGPRs | SGPRs | LDS bytes | scratch bytes | waves/SIMD | v_wmma |",
                  "|---|---:|---:|---:|---:|---:|---:|"]
        for lab, v, s, lds, sc, occ, w, _ in rows:
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


if __name__ == "__main__":
    sys.exit(main())
