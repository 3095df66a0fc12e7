# SPDX-License-Identifier: MIT
"""rdnaconv from Python: `rdnaconv.torch.convert(model)` swaps eligible nn.Conv2d layers for
rdnaconv's kernels (the compiled extension `rdnaconv._C`, built ahead of time by setup.py)."""
__all__ = ["torch"]
