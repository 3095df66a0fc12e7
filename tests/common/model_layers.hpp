// SPDX-License-Identifier: MIT
/// @file model_layers.hpp Every conv layer of the reference models, derived from their
/// architectures (no weights): torchvision ResNet-50 v1.5 at 224², and the diffusers
/// AutoencoderKL of SD3.5 (16 latent channels, no quant convs) and FLUX.2 (32 latent channels,
/// 1x1 quant_conv 64->64 and post_quant_conv 32->32), block channels 128/256/512/512, 2 layers
/// per encoder block (3 per decoder block), at 512² and 1024². Shared by the tests, the check
/// CLI and the benchmarks; cross-checked against tests/data/model_layers.json by a host test.
///
/// Grouped / depthwise models (issue 17): torchvision ConvNeXt-T and MobileNetV2 (width 1.0) at
/// 224², their Conv2d layers only (ConvNeXt's pointwise layers are nn.Linear, not convolutions).
///
/// The encoder downsample pads (0,1,0,1) and convolves 3x3 stride 2 pad 0: here that is one
/// problem with asymmetric padding (the JSON lists the pre-padded (H+1)x(W+1) input instead).
/// The decoder upsample is nearest x2 followed by a 3x3 conv at the doubled size.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "rdnaconv/problem.hpp"

namespace rdnaconv::models {

struct ModelLayer {
  std::string name;
  Conv2dProblem p;  // batch 1; set n for other batches
};

/// A unique shape with the names of the layers that have it (its multiplicity is names.size()).
struct UniqueLayer {
  Conv2dProblem p;
  std::vector<std::string> names;
  int count() const { return int(names.size()); }
};

inline std::vector<ModelLayer> resnet50_224() {
  std::vector<ModelLayer> out;
  out.push_back({"conv1", make_problem(1, 3, 224, 224, 64, 7, 7, 2, 3)});
  const int widths[4] = {64, 128, 256, 512};
  const int blocks[4] = {3, 4, 6, 3};
  int in_c = 64, hw = 56;  // after the stem's max pool
  for (int L = 0; L < 4; ++L) {
    const int wd = widths[L], out_c = wd * 4;
    for (int b = 0; b < blocks[L]; ++b) {
      const int stride = (L > 0 && b == 0) ? 2 : 1;  // v1.5: the stride sits on the 3x3
      const std::string pre = "layer" + std::to_string(L + 1) + "." + std::to_string(b) + ".";
      const int out_hw = hw / stride;
      out.push_back({pre + "conv1", make_problem(1, in_c, hw, hw, wd, 1, 1, 1, 0)});
      out.push_back({pre + "conv2", make_problem(1, wd, hw, hw, wd, 3, 3, stride, 1)});
      out.push_back({pre + "conv3", make_problem(1, wd, out_hw, out_hw, out_c, 1, 1, 1, 0)});
      if (b == 0)
        out.push_back({pre + "downsample", make_problem(1, in_c, hw, hw, out_c, 1, 1, stride, 0)});
      in_c = out_c;
      hw = out_hw;
    }
  }
  return out;
}

/// diffusers AutoencoderKL (Encoder + Decoder), block_out_channels 128/256/512/512.
inline std::vector<ModelLayer> autoencoder_kl(int res, int latent, bool quant_convs) {
  std::vector<ModelLayer> out;
  auto conv3 = [](int c, int h, int k) { return make_problem(1, c, h, h, k, 3, 3, 1, 1); };
  const int ch[4] = {128, 256, 512, 512};
  int h = res, c = 3;
  out.push_back({"enc.conv_in", conv3(c, h, ch[0])});
  c = ch[0];
  for (int b = 0; b < 4; ++b) {
    const std::string pre = "enc.down" + std::to_string(b) + ".";
    for (int r = 0; r < 2; ++r) {
      const std::string rp = pre + "res" + std::to_string(r) + ".";
      out.push_back({rp + "conv1", conv3(c, h, ch[b])});
      out.push_back({rp + "conv2", conv3(ch[b], h, ch[b])});
      if (c != ch[b]) out.push_back({rp + "shortcut", make_problem(1, c, h, h, ch[b], 1, 1, 1, 0)});
      c = ch[b];
    }
    if (b < 3) {
      Conv2dProblem d = make_problem(1, c, h, h, c, 3, 3, 2, 0);
      d.pad_bottom = d.pad_right = 1;
      out.push_back({pre + "downsample", d});
      h /= 2;
    }
  }
  for (int r = 0; r < 2; ++r) {
    out.push_back({"enc.mid.res" + std::to_string(r) + ".conv1", conv3(c, h, c)});
    out.push_back({"enc.mid.res" + std::to_string(r) + ".conv2", conv3(c, h, c)});
  }
  out.push_back({"enc.conv_out", conv3(c, h, 2 * latent)});
  if (quant_convs) {
    out.push_back({"quant_conv", make_problem(1, 2 * latent, h, h, 2 * latent, 1, 1, 1, 0)});
    out.push_back({"post_quant_conv", make_problem(1, latent, h, h, latent, 1, 1, 1, 0)});
  }
  c = ch[3];
  out.push_back({"dec.conv_in", conv3(latent, h, c)});
  for (int r = 0; r < 2; ++r) {
    out.push_back({"dec.mid.res" + std::to_string(r) + ".conv1", conv3(c, h, c)});
    out.push_back({"dec.mid.res" + std::to_string(r) + ".conv2", conv3(c, h, c)});
  }
  for (int b = 0; b < 4; ++b) {
    const int oc = ch[3 - b];
    const std::string pre = "dec.up" + std::to_string(b) + ".";
    for (int r = 0; r < 3; ++r) {
      const std::string rp = pre + "res" + std::to_string(r) + ".";
      out.push_back({rp + "conv1", conv3(c, h, oc)});
      out.push_back({rp + "conv2", conv3(oc, h, oc)});
      if (c != oc) out.push_back({rp + "shortcut", make_problem(1, c, h, h, oc, 1, 1, 1, 0)});
      c = oc;
    }
    if (b < 3) {
      h *= 2;
      out.push_back({pre + "upsample", conv3(c, h, c)});
    }
  }
  out.push_back({"dec.conv_out", conv3(c, h, 3)});
  return out;
}

inline std::vector<ModelLayer> sd35_vae(int res) {
  return autoencoder_kl(res, 16, false);
}
inline std::vector<ModelLayer> flux2_vae(int res) {
  return autoencoder_kl(res, 32, true);
}

/// torchvision convnext_tiny: a 4x4 stride-4 stem (3 -> 96), stages of 3/3/9/3 blocks at widths
/// 96/192/384/768, each block's one convolution a depthwise 7x7 pad 3 (the rest is LayerNorm and
/// two nn.Linear); between stages a 2x2 stride-2 downsample conv (C -> 2C).
inline std::vector<ModelLayer> convnext_t_224() {
  std::vector<ModelLayer> out;
  out.push_back({"stem", make_problem(1, 3, 224, 224, 96, 4, 4, 4, 0)});
  const int dims[4] = {96, 192, 384, 768}, depths[4] = {3, 3, 9, 3};
  int hw = 56;
  for (int st = 0; st < 4; ++st) {
    const int d = dims[st];
    if (st > 0) {
      out.push_back({"stage" + std::to_string(st) + ".downsample",
                     make_problem(1, dims[st - 1], hw, hw, d, 2, 2, 2, 0)});
      hw /= 2;
    }
    for (int b = 0; b < depths[st]; ++b)
      out.push_back({"stage" + std::to_string(st) + "." + std::to_string(b) + ".dwconv",
                     make_problem(1, d, hw, hw, d, 7, 7, 1, 3, 1, d)});
  }
  return out;
}

/// torchvision mobilenet_v2 (width 1.0): a 3x3 stride-2 stem (3 -> 32), 17 inverted residual
/// blocks (expansion t: a 1x1 expand C -> tC where t != 1, a depthwise 3x3 pad 1 with the
/// block's stride, a 1x1 project tC -> C'), then a 1x1 320 -> 1280. Settings (t, C', repeats,
/// first stride): (1,16,1,1) (6,24,2,2) (6,32,3,2) (6,64,4,2) (6,96,3,1) (6,160,3,2) (6,320,1,1).
inline std::vector<ModelLayer> mobilenet_v2_224() {
  std::vector<ModelLayer> out;
  out.push_back({"features.0", make_problem(1, 3, 224, 224, 32, 3, 3, 2, 1)});
  const int settings[7][4] = {{1, 16, 1, 1}, {6, 24, 2, 2},  {6, 32, 3, 2}, {6, 64, 4, 2},
                              {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
  int c = 32, hw = 112, block = 1;
  for (const auto& st : settings)
    for (int i = 0; i < st[2]; ++i, ++block) {
      const int t = st[0], oc = st[1], stride = i == 0 ? st[3] : 1, hidden = c * t;
      const std::string pre = "features." + std::to_string(block) + ".";
      if (t != 1) out.push_back({pre + "expand", make_problem(1, c, hw, hw, hidden, 1, 1, 1, 0)});
      out.push_back(
          {pre + "dw", make_problem(1, hidden, hw, hw, hidden, 3, 3, stride, 1, 1, hidden)});
      hw = (hw - 1) / stride + 1;
      out.push_back({pre + "project", make_problem(1, hidden, hw, hw, oc, 1, 1, 1, 0)});
      c = oc;
    }
  out.push_back({"features.18", make_problem(1, c, hw, hw, 1280, 1, 1, 1, 0)});
  return out;
}

/// The models by the names of tests/data/model_layers.json.
inline std::vector<ModelLayer> model(const std::string& name) {
  if (name == "resnet50_224") return resnet50_224();
  if (name == "sd35_vae_512") return sd35_vae(512);
  if (name == "sd35_vae_1024") return sd35_vae(1024);
  if (name == "flux2_vae_512") return flux2_vae(512);
  if (name == "flux2_vae_1024") return flux2_vae(1024);
  if (name == "convnext_t_224") return convnext_t_224();
  if (name == "mobilenet_v2_224") return mobilenet_v2_224();
  return {};
}
inline std::vector<std::string> model_names() {
  return {"resnet50_224",   "sd35_vae_512",   "sd35_vae_1024",   "flux2_vae_512",
          "flux2_vae_1024", "convnext_t_224", "mobilenet_v2_224"};
}

/// Groups identical problems, in order of first appearance.
inline std::vector<UniqueLayer> unique_layers(const std::vector<ModelLayer>& layers) {
  std::vector<UniqueLayer> out;
  std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t,
                      std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t,
                      std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t>,
           std::size_t>
      where;
  for (const ModelLayer& l : layers) {
    const Conv2dProblem& p = l.p;
    const auto key =
        std::make_tuple(p.c, p.h, p.w, p.k, p.r, p.s, p.stride_h, p.stride_w, p.pad_top,
                        p.pad_bottom, p.pad_left, p.pad_right, p.dil_h, p.dil_w, p.groups);
    auto it = where.find(key);
    if (it == where.end()) {
      where.emplace(key, out.size());
      out.push_back({p, {l.name}});
    } else {
      out[it->second].names.push_back(l.name);
    }
  }
  return out;
}

}  // namespace rdnaconv::models
