# SPDX-License-Identifier: MIT
"""What setup.py takes from its environment, as plain functions (no torch, no setuptools) so that
the CPU tests can call them (python/tests/test_build_config.py).

- library_version(): the version of include/rdnaconv/version.hpp (one version for the C++ library
  and the Python package).
- cuda_arch_flags(): nvcc's target flags for TORCH_CUDA_ARCH_LIST. Hopper's wgmma tiles need the
  sm_90a target *and* RDNACONV_SM90A in every pass (the host pass plans with the sm90 tile table
  only when it is set); a plain sm_90 pass with it set stops at a static error (arch/wgmma.hpp),
  so 9.0a and 9.0 cannot be built together. A list with 9.0a gets explicit -gencode flags for all
  of its entries from here (torch.utils.cpp_extension adds none of its own when the nvcc flags
  already name an arch: 1.13 to 2.11 test `'arch' in flag`), which also works on PyTorch that does
  not know "9.0a" (1.13 refuses it). A list without 9.0a is left to PyTorch, as before.
"""
import re
from typing import List, Optional, Tuple

# PyTorch's names for arch lists, for the architectures rdnaconv can build (sm_80 and newer);
# older names expand to targets below sm_80, which are refused anyway.
NAMED_ARCHES = (  # longest first: "Ampere+Tegra" before "Ampere"
    ("Ampere+Tegra", "8.7"),
    ("Ampere", "8.0;8.6+PTX"),
    ("Ada", "8.9+PTX"),
    ("Hopper", "9.0+PTX"),
    ("Blackwell+Tegra", "10.1"),
    ("Blackwell", "10.0;12.0+PTX"),
)
_OLD_NAMES = ("Kepler", "Maxwell", "Pascal", "Volta", "Turing")
_ENTRY = re.compile(r"^(\d+)\.(\d)([af]?)(\+PTX)?$")
SM90A_DEFINE = "-DRDNACONV_SM90A=1"


class ArchListError(ValueError):
    """TORCH_CUDA_ARCH_LIST names something rdnaconv cannot build."""


def parse_arch_list(text: str) -> List[Tuple[str, bool]]:
    """TORCH_CUDA_ARCH_LIST ("8.0;9.0a", "8.6 9.0a+PTX", "Ampere;9.0a") as [(target, ptx)], target
    as nvcc spells it ("80", "90a"), in order, without repeats."""
    for name in _OLD_NAMES:
        if name in text:
            raise ArchListError(f"TORCH_CUDA_ARCH_LIST names {name}: rdnaconv needs sm_80 or newer")
    for name, value in NAMED_ARCHES:
        text = text.replace(name, value)
    out: List[Tuple[str, bool]] = []
    for entry in text.replace(" ", ";").split(";"):
        if not entry:
            continue
        m = _ENTRY.match(entry)
        if not m:
            raise ArchListError(f"TORCH_CUDA_ARCH_LIST: cannot read {entry!r} (e.g. 8.0, 9.0a, 9.0a+PTX)")
        major, minor, suffix, ptx = m.groups()
        if int(major) < 8:
            raise ArchListError(f"TORCH_CUDA_ARCH_LIST: {entry} is older than sm_80, which rdnaconv needs")
        item = (major + minor + suffix, ptx is not None)
        if item not in out:
            out.append(item)
    return out


def cuda_arch_flags(arch_list: Optional[str]) -> Tuple[List[str], List[str]]:
    """(nvcc target flags, defines for every compiler) for TORCH_CUDA_ARCH_LIST. ([], []) leaves
    the targets to PyTorch (no list, or a list without 9.0a). Raises ArchListError for a list that
    cannot be built: an entry older than 8.0, or 9.0 together with 9.0a."""
    if not arch_list or not arch_list.strip():
        return [], []
    entries = parse_arch_list(arch_list)
    targets = {t for t, _ in entries}
    if "90a" not in targets:
        return [], []
    if "90" in targets:
        raise ArchListError(
            "TORCH_CUDA_ARCH_LIST names both 9.0 and 9.0a: a 9.0 device runs one of them; keep 9.0a "
            "(wgmma tiles) or 9.0 (mma.sync only)")
    flags: List[str] = []
    for target, ptx in entries:
        flags.append(f"-gencode=arch=compute_{target},code=sm_{target}")
        if ptx:
            flags.append(f"-gencode=arch=compute_{target},code=compute_{target}")
    return flags, [SM90A_DEFINE]


def library_version(version_hpp: str) -> str:
    """"MAJOR.MINOR.PATCH" from the RDNACONV_VERSION_{MAJOR,MINOR,PATCH} macros of version.hpp
    (the file CMake's project version is read from too)."""
    with open(version_hpp) as f:
        text = f.read()
    parts = []
    for part in ("MAJOR", "MINOR", "PATCH"):
        m = re.search(rf"^#define RDNACONV_VERSION_{part} (\d+)\s*$", text, re.M)
        if not m:
            raise ValueError(f"{version_hpp}: no RDNACONV_VERSION_{part}")
        parts.append(m.group(1))
    return ".".join(parts)
