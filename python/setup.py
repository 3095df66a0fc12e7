# SPDX-License-Identifier: MIT
"""Builds rdnaconv's PyTorch extension ahead of time (no JIT at import):
    cd python && pip install --no-build-isolation .      (or: python3 setup.py build_ext --inplace)
CUDA: TORCH_CUDA_ARCH_LIST picks the targets (e.g. "9.0"); ROCm PyTorch hipifies the same source
(PYTORCH_ROCM_ARCH, e.g. "gfx1100;gfx1201")."""
import os

from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension

here = os.path.dirname(os.path.abspath(__file__))
setup(
    name="rdnaconv",
    version="0.1.0",
    packages=["rdnaconv"],
    ext_modules=[
        CUDAExtension(
            "rdnaconv._C",
            # the ops (PyTorch's headers, no kernel) and the four Plan<T, L> instantiations (the
            # kernels, no PyTorch header), compiled in parallel (ninja; MAX_JOBS caps it)
            ["csrc/rdnaconv_torch.cu"]
            + [f"csrc/plan_{t}_{l}.cu" for t in ("fp16", "bf16") for l in ("nchw", "nhwc")],
            include_dirs=[os.path.join(here, "..", "include")],
            extra_compile_args={"cxx": ["-O3", "-std=c++20"], "nvcc": ["-O3", "-std=c++20"]},
        )
    ],
    cmdclass={"build_ext": BuildExtension},
)
