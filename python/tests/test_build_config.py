# SPDX-License-Identifier: MIT
"""setup.py's decisions (build_config.py), on the CPU: the arch list's nvcc flags and the
RDNACONV_SM90A define, the version read from include/rdnaconv/version.hpp, and what the
installed PyTorch's cpp_extension does with the flags (adds none of its own)."""
import os
import re
import subprocess
import sys

import pytest

import build_config as bc

HERE = os.path.dirname(os.path.abspath(__file__))
PYDIR = os.path.dirname(HERE)
VERSION_HPP = os.path.join(PYDIR, "..", "include", "rdnaconv", "version.hpp")
G90A = "-gencode=arch=compute_90a,code=sm_90a"


@pytest.mark.parametrize("value", [None, "", "  ", "9.0", "8.0;8.6", "8.9+PTX", "Hopper", "10.0"])
def test_lists_without_9_0a_are_left_to_pytorch(value):
    assert bc.cuda_arch_flags(value) == ([], [])


def test_9_0a_alone():
    assert bc.cuda_arch_flags("9.0a") == ([G90A], ["-DRDNACONV_SM90A=1"])


@pytest.mark.parametrize("value,flags", [
    ("8.0;9.0a", ["-gencode=arch=compute_80,code=sm_80", G90A]),
    ("8.0 9.0a", ["-gencode=arch=compute_80,code=sm_80", G90A]),
    ("9.0a+PTX", [G90A, "-gencode=arch=compute_90a,code=compute_90a"]),
    ("9.0a;9.0a;", [G90A]),
    ("Ampere;9.0a", ["-gencode=arch=compute_80,code=sm_80", "-gencode=arch=compute_86,code=sm_86",
                     "-gencode=arch=compute_86,code=compute_86", G90A]),
    ("9.0a;10.0", [G90A, "-gencode=arch=compute_100,code=sm_100"]),
    ("9.0a;12.0a", [G90A, "-gencode=arch=compute_120a,code=sm_120a"]),
])
def test_9_0a_with_other_targets(value, flags):
    got, defines = bc.cuda_arch_flags(value)
    assert got == flags and defines == ["-DRDNACONV_SM90A=1"]
    # never a plain sm_90 pass beside the define (arch/wgmma.hpp's static error)
    assert not any(re.search(r"compute_90\b|sm_90\b", f) for f in got)


@pytest.mark.parametrize("value,why", [
    ("9.0;9.0a", "both 9.0 and 9.0a"),
    ("9.0a 9.0+PTX", "both 9.0 and 9.0a"),
    ("Hopper;9.0a", "both 9.0 and 9.0a"),   # Hopper is 9.0+PTX
    ("7.5;9.0a", "older than sm_80"),
    ("7.0", "older than sm_80"),          # refused even without 9.0a
    ("Turing;9.0a", "Turing"),
    ("sm_90a", "cannot read"),
    ("9.0b", "cannot read"),
])
def test_lists_that_cannot_build(value, why):
    with pytest.raises(bc.ArchListError, match=why):
        bc.cuda_arch_flags(value)


def test_version_is_the_library_s():
    text = open(VERSION_HPP).read()
    want = re.search(r'#define RDNACONV_VERSION_STRING "([^"]+)"', text).group(1)
    assert bc.library_version(VERSION_HPP) == want


def test_version_parse_fails_on_a_bad_header(tmp_path):
    p = tmp_path / "version.hpp"
    p.write_text("#define RDNACONV_VERSION_MAJOR 3\n#define RDNACONV_VERSION_MINOR 4\n")
    with pytest.raises(ValueError, match="PATCH"):
        bc.library_version(str(p))
    p.write_text("#define RDNACONV_VERSION_MAJOR 3\n#define RDNACONV_VERSION_MINOR 14\n"
                 "#define RDNACONV_VERSION_PATCH 15\n")
    assert bc.library_version(str(p)) == "3.14.15"


def test_pytorch_adds_no_arch_flags_beside_ours(monkeypatch):
    """cpp_extension returns no flags of its own when the nvcc flags name an arch, even for a
    list it cannot parse itself (PyTorch 1.13 does not know 9.0a)."""
    from torch.utils import cpp_extension

    monkeypatch.setenv("TORCH_CUDA_ARCH_LIST", "8.0;9.0a")
    flags, defines = bc.cuda_arch_flags("8.0;9.0a")
    assert cpp_extension._get_cuda_arch_flags(["-O3", "-std=c++20"] + defines + flags) == []


def test_setup_py_reads_the_version_and_passes_the_flags(tmp_path):
    """`setup.py --version` runs setup.py's module code: the 9.0a line and the library's version.
    CUDA_HOME points anywhere: CUDAExtension only joins paths with it."""
    env = dict(os.environ, TORCH_CUDA_ARCH_LIST="8.0;9.0a", CUDA_HOME=str(tmp_path),
               PYTHONDONTWRITEBYTECODE="1")
    r = subprocess.run([sys.executable, "setup.py", "--version"], cwd=PYDIR, env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert f"{G90A} -DRDNACONV_SM90A=1" in r.stdout
    assert r.stdout.strip().splitlines()[-1] == bc.library_version(VERSION_HPP)
