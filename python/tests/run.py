# SPDX-License-Identifier: MIT
"""ctest entry: the Python tests under pytest; exit 77 (ctest: skipped) without torch or pytest."""
import os
import sys

try:
    import pytest
    import torch  # noqa: F401
except ImportError as e:
    print(f"skipped: {e} (apt-get install python3-torch python3-pytest)")
    sys.exit(77)
sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", os.path.dirname(os.path.abspath(__file__))] + sys.argv[1:]))
