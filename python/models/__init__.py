# SPDX-License-Identifier: MIT
"""Reference models written in plain PyTorch for the drop-in's model tests (no downloads)."""
