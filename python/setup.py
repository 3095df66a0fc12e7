# SPDX-License-Identifier: MIT
"""Builds rdnaconv's PyTorch extension ahead of time (no JIT at import):
    cd python && TORCH_CUDA_ARCH_LIST=9.0a pip install --no-build-isolation .
    (or: python3 setup.py build_ext --inplace)
CUDA: TORCH_CUDA_ARCH_LIST picks the targets. On an H100 / H200 ask for "9.0a": the sm_90a target
with RDNACONV_SM90A, Hopper's wgmma tiles (build_config.py); "9.0" builds the mma.sync tiles only.
ROCm PyTorch hipifies the same source (PYTORCH_ROCM_ARCH, e.g. "gfx1100;gfx1201")."""
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)

from build_config import cuda_arch_flags, library_version  # noqa: E402
from setuptools import setup  # noqa: E402
import torch  # noqa: E402
from torch.utils.cpp_extension import BuildExtension, CUDAExtension  # noqa: E402

cxx = ["-O3", "-std=c++20"]
nvcc = ["-O3", "-std=c++20"]
if torch.version.hip is None:
    arch_list = os.environ.get("TORCH_CUDA_ARCH_LIST")
    targets, defines = cuda_arch_flags(arch_list)
    if targets:
        print(f"rdnaconv: TORCH_CUDA_ARCH_LIST={arch_list}: {' '.join(targets + defines)} "
              "(Hopper runs the wgmma tiles)")
    cxx += defines
    nvcc += defines + targets

setup(
    name="rdnaconv",
    version=library_version(os.path.join(here, "..", "include", "rdnaconv", "version.hpp")),
    packages=["rdnaconv"],
    ext_modules=[
        CUDAExtension(
            "rdnaconv._C",
            # the ops (PyTorch's headers, no kernel) and the four Plan<T, L> instantiations (the
            # kernels, no PyTorch header), compiled in parallel (ninja; MAX_JOBS caps it)
            ["csrc/rdnaconv_torch.cu"]
            + [f"csrc/plan_{t}_{l}.cu" for t in ("fp16", "bf16") for l in ("nchw", "nhwc")],
            include_dirs=[os.path.join(here, "..", "include")],
            extra_compile_args={"cxx": cxx, "nvcc": nvcc},
        )
    ],
    cmdclass={"build_ext": BuildExtension},
)
