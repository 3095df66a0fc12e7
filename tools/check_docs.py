#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks that what the project's Markdown files point to exists (CI runs it).

Every tracked *.md file (bench/results/ excepted: generated tables) is read, code blocks
included, and two kinds of reference are checked:
  - relative links, [text](target): target (without #anchor) must exist relative to the file;
  - named files: a word that is a path into the tree (its first part a top-level entry of the
    repository, or kernels/, arch/, reference/, detail/ or rdnaconv/ under include/rdnaconv, or
    ./ or ../) must exist relative to the repository root, the file's folder, include/ or
    include/rdnaconv/; a bare file name with a source or doc extension (router.hpp,
    rdna-facts.md) must be the name of some tracked file.
Words with placeholders (<dir>, $OUT, *_desc.hpp, [more.json ...]) and the files documented
commands write (a name after an output option such as --benchmark_out=, --out, --markdown, -o
or >, anywhere in that file; and the names in GENERATED below) are not checked. Usage: tools/check_docs.py [files...]; exit 1 listing every miss."""
import os
import re
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
EXT = r"(?:md|hpp|cpp|cu|py|sh|cmake|in|json|txt|log)"
# Files that documented commands write (they are not in the tree and need not be).
GENERATED = {
    "bench.json", "bench.md", "bench.log", "configure.log", "sweep.json", "out.md", "body.md",
    "bars.md", "smoke.json", "residual.json", "quick.cu", "quick.cpp", "ctest.log",
    "compile_commands.json", "CMakeCache.txt", "CMakeLists.txt.user",
}
INCLUDE_DIRS = ("kernels", "arch", "reference", "detail", "rdnaconv")
OUTPUT = re.compile(r"(?:--benchmark_out=|--out[= ]|--markdown[= ]|--bars[= ]|--sweep[= ]|--json[= ]|"
                    r"-o |> )([A-Za-z0-9_./-]+)")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
WORD = re.compile(r"[A-Za-z0-9_.~<>${}*-]*(?:/[A-Za-z0-9_.~<>${}*-]*)+|[A-Za-z0-9_.-]+\." + EXT + r"\b")


def tracked():
    out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True)
    return out.stdout.split()


def check(md, files, names, top):
    misses = []
    here = os.path.dirname(os.path.join(ROOT, md))
    text = open(os.path.join(ROOT, md), encoding="utf-8").read()
    written = {os.path.basename(w) for w in OUTPUT.findall(text)}
    for n, line in enumerate(text.splitlines(), 1):
        for m in LINK.finditer(line):
            target = m.group(1).split("#")[0]
            if not target or re.match(r"^[a-z]+:", target):
                continue
            if not os.path.exists(os.path.join(here, target)):
                misses.append(f"{md}:{n}: link to {target}: no such file")
        for m in WORD.finditer(line):
            word = m.group(0).rstrip(".,;:)")
            start = m.start()
            if start >= 3 and line[start - 3:start] == "://" or "//" in word or word.startswith("//"):
                continue  # a URL
            if re.search(r"[<>${}*~]", word) or (start > 0 and line[start - 1] in "*<>{$[~"):
                continue  # a placeholder
            if os.path.basename(word) in GENERATED or os.path.basename(word) in written:
                continue  # written by a documented command
            if "/" not in word:
                if word not in names:
                    misses.append(f"{md}:{n}: names {word}: no tracked file has that name")
                continue
            first = word.split("/")[0]
            if first not in top and first not in INCLUDE_DIRS and first not in (".", ".."):
                continue  # not a path into the tree (fp16/bf16, build-gpu/..., N/A)
            bases = [ROOT, here, os.path.join(ROOT, "include"), os.path.join(ROOT, "include", "rdnaconv")]
            if not any(os.path.exists(os.path.join(b, word)) for b in bases):
                misses.append(f"{md}:{n}: names {word}: no such file or folder")
    return misses


def main(argv):
    files = tracked()
    names = {os.path.basename(f) for f in files}
    top = {f.split("/")[0] for f in files}
    docs = argv or [f for f in files if f.endswith(".md") and not f.startswith("bench/results/")]
    misses = []
    for md in docs:
        misses += check(md, files, names, top)
    for m in misses:
        print(m)
    print(f"tools/check_docs.py: {len(docs)} files, {len(misses)} missing references")
    return 1 if misses else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
