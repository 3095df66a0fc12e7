# SPDX-License-Identifier: MIT
"""The plain-PyTorch VAE decoders against the layer table the benchmark uses
(tests/data/model_layers.json): the same convolutions in the same order, and convert() swaps
every one of them (the attention's Linear layers and the norms stay PyTorch's)."""
import json
import os

import pytest
import torch
from torch import nn

import rdnaconv.torch as rt
from models import vae

TABLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "data",
                     "model_layers.json")


def decoder_rows(model_name):
    layers = json.load(open(TABLE))["models"][model_name]["layers"]
    return [l for l in layers if l["name"].startswith(("dec.", "post_quant"))]


def traced_convs(model, latent_hw):
    """(C, H, K, R, stride, pad) of every Conv2d call in forward order, H relative to the latent."""
    seen = []

    def hook(m, inp, out):
        x = inp[0]
        seen.append((m.in_channels, x.shape[2] / latent_hw, m.out_channels, m.kernel_size[0],
                     m.stride[0], m.padding[0]))

    hs = [m.register_forward_hook(hook) for m in model.modules() if isinstance(m, nn.Conv2d)]
    z = torch.randn(1, model.conv_in.in_channels, latent_hw, latent_hw)
    with torch.no_grad():
        y = model(z)
    for h in hs:
        h.remove()
    return seen, y


@pytest.mark.parametrize("name,make,latent", [("sd35_vae_512", vae.sd35_decoder, 64),
                                              ("flux2_vae_1024", vae.flux2_decoder, 128)])
def test_decoder_matches_the_layer_table(name, make, latent):
    model = vae.init_(make()).eval()
    seen, y = traced_convs(model, 2)
    want = [(l["C"], l["H"] / latent, l["K"], l["R"], l["stride"], l["pad"]) for l in decoder_rows(name)]
    assert seen == want  # same convolutions, same forward order
    assert y.shape == (1, 3, 16, 16) and torch.isfinite(y).all()


def test_convert_swaps_every_decoder_conv(monkeypatch):
    class Ready:
        def available(self):
            return True, ""

    monkeypatch.setattr(rt, "backend", Ready())
    model = vae.init_(vae.flux2_decoder()).to(torch.bfloat16).eval()
    report = rt.convert(model)
    convs = [n for n, m in model.named_modules() if isinstance(m, nn.Conv2d)]
    assert report.swapped == convs and report.skipped == []
    assert len(convs) == len(decoder_rows("flux2_vae_1024"))
