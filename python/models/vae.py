# SPDX-License-Identifier: MIT
"""The decoder of an AutoencoderKL (the architecture of diffusers' `Decoder`, written from its
published configuration), for the SD3.5 and FLUX.2 VAEs: block channels 128/256/512/512, two
layers per block (three ResNet blocks per up block), GroupNorm(32) + SiLU, one single-head
attention in the middle block, nearest-neighbour 2x upsampling followed by a 3x3 conv.
SD3.5: 16 latent channels, no post-quant conv; FLUX.2: 32 latent channels and a 1x1
post_quant_conv (tests/data/model_layers.json lists the same convolutions). Weights are random
(fixed seed): the test compares two implementations of the same network, not image quality."""
from typing import Sequence

import torch
from torch import nn
import torch.nn.functional as F


class ResnetBlock(nn.Module):
    def __init__(self, cin: int, cout: int, groups: int = 32) -> None:
        super().__init__()
        self.norm1 = nn.GroupNorm(groups, cin, eps=1e-6)
        self.conv1 = nn.Conv2d(cin, cout, 3, padding=1)
        self.norm2 = nn.GroupNorm(groups, cout, eps=1e-6)
        self.conv2 = nn.Conv2d(cout, cout, 3, padding=1)
        self.shortcut = nn.Conv2d(cin, cout, 1) if cin != cout else None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.conv1(F.silu(self.norm1(x)))
        h = self.conv2(F.silu(self.norm2(h)))
        return (self.shortcut(x) if self.shortcut is not None else x) + h


class Attention(nn.Module):
    """Single-head self-attention over the pixels, with a residual (the VAE's middle block)."""

    def __init__(self, c: int, groups: int = 32) -> None:
        super().__init__()
        self.norm = nn.GroupNorm(groups, c, eps=1e-6)
        self.q, self.k, self.v, self.out = (nn.Linear(c, c) for _ in range(4))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        n, c, h, w = x.shape
        t = self.norm(x).reshape(n, c, h * w).transpose(1, 2)  # [n, hw, c]
        q, k, v = self.q(t), self.k(t), self.v(t)
        a = torch.softmax((q @ k.transpose(1, 2)) * c ** -0.5, dim=-1)
        o = self.out(a @ v).transpose(1, 2).reshape(n, c, h, w)
        return x + o


class Upsample(nn.Module):
    def __init__(self, c: int) -> None:
        super().__init__()
        self.conv = nn.Conv2d(c, c, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(F.interpolate(x, scale_factor=2.0, mode="nearest"))


class UpBlock(nn.Module):
    def __init__(self, cin: int, cout: int, n: int, upsample: bool) -> None:
        super().__init__()
        self.res = nn.ModuleList(ResnetBlock(cin if i == 0 else cout, cout) for i in range(n))
        self.upsample = Upsample(cout) if upsample else None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for r in self.res:
            x = r(x)
        return self.upsample(x) if self.upsample is not None else x


class Mid(nn.Module):
    def __init__(self, c: int) -> None:
        super().__init__()
        self.res0, self.attn, self.res1 = ResnetBlock(c, c), Attention(c), ResnetBlock(c, c)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.res1(self.attn(self.res0(x)))


class Decoder(nn.Module):
    """latent [N, latent, h, w] -> image [N, 3, 8h, 8w] in [-1, 1] (roughly: unclamped)."""

    def __init__(self, latent: int, blocks: Sequence[int] = (128, 256, 512, 512),
                 layers_per_block: int = 2, post_quant: bool = False) -> None:
        super().__init__()
        self.post_quant_conv = nn.Conv2d(latent, latent, 1) if post_quant else None
        rev = list(reversed(blocks))
        self.conv_in = nn.Conv2d(latent, rev[0], 3, padding=1)
        self.mid = Mid(rev[0])
        ups, prev = [], rev[0]
        for i, c in enumerate(rev):
            ups.append(UpBlock(prev, c, layers_per_block + 1, upsample=i + 1 < len(rev)))
            prev = c
        self.up = nn.ModuleList(ups)
        self.norm_out = nn.GroupNorm(32, blocks[0], eps=1e-6)
        self.conv_out = nn.Conv2d(blocks[0], 3, 3, padding=1)

    def forward(self, z: torch.Tensor) -> torch.Tensor:
        if self.post_quant_conv is not None:
            z = self.post_quant_conv(z)
        x = self.mid(self.conv_in(z))
        for u in self.up:
            x = u(x)
        return self.conv_out(F.silu(self.norm_out(x)))


def sd35_decoder() -> Decoder:
    return Decoder(latent=16)


def flux2_decoder() -> Decoder:
    return Decoder(latent=32, post_quant=True)


def init_(model: nn.Module, seed: int = 0) -> nn.Module:
    """Fixed-seed weights scaled so activations stay O(1) through the network."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, (nn.Conv2d, nn.Linear)):
                fan_in = m.weight[0].numel()
                m.weight.copy_(torch.randn(m.weight.shape, generator=g) * (1.0 / fan_in) ** 0.5)
                if m.bias is not None:
                    m.bias.copy_(torch.randn(m.bias.shape, generator=g) * 0.02)
    return model
