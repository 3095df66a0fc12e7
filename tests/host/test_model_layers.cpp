// SPDX-License-Identifier: MIT
/// @file test_model_layers.cpp The model tables (tests/common/model_layers.hpp), derived in code
/// from the architectures, against tests/data/model_layers.json (derived independently): same
/// layers, same order, same shapes and groups; unique-shape counts; every layer routes to a method
/// that can implement it.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "common/model_layers.hpp"
#include "rdnaconv/plan_desc.hpp"

using namespace rdnaconv;

namespace {

struct JsonLayer {
  std::string name;
  std::int64_t C, H, W, K, R, S, stride, pad, dil, groups;
};

std::string read_file(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

std::int64_t field(const std::string& obj, const std::string& key) {
  const std::size_t at = obj.find("\"" + key + "\":");
  if (at == std::string::npos) return -1;
  return std::stoll(obj.substr(at + key.size() + 3));
}

/// The layers of one model, read from the file's regular structure (objects of one level).
std::vector<JsonLayer> json_layers(const std::string& text, const std::string& model) {
  std::vector<JsonLayer> out;
  std::size_t at = text.find("\"" + model + "\":");
  if (at == std::string::npos) return out;
  at = text.find("\"layers\":", at);
  const std::size_t end = text.find(']', at);
  for (std::size_t open = text.find('{', at); open < end; open = text.find('{', open + 1)) {
    const std::string obj = text.substr(open, text.find('}', open) - open);
    const std::size_t n0 = obj.find("\"name\": \"") + 9;
    out.push_back({obj.substr(n0, obj.find('"', n0) - n0), field(obj, "C"), field(obj, "H"),
                   field(obj, "W"), field(obj, "K"), field(obj, "R"), field(obj, "S"),
                   field(obj, "stride"), field(obj, "pad"), field(obj, "dil"),
                   field(obj, "groups") < 0 ? 1 : field(obj, "groups")});  // absent: 1
  }
  return out;
}

}  // namespace

TEST(ModelTables, MatchJson) {
  const std::string text = read_file(RDNACONV_TEST_DATA "/model_layers.json");
  ASSERT_FALSE(text.empty());
  for (const std::string& m : models::model_names()) {
    SCOPED_TRACE(m);
    const auto mine = models::model(m);
    const auto ref = json_layers(text, m);
    ASSERT_EQ(mine.size(), ref.size());
    const std::size_t at = text.find("\"" + m + "\":");
    EXPECT_EQ(std::int64_t(models::unique_layers(mine).size()),
              field(text.substr(at, text.find('}', text.find(']', at)) - at), "unique"));
    for (std::size_t i = 0; i < ref.size(); ++i) {
      const Conv2dProblem& p = mine[i].p;
      const JsonLayer& j = ref[i];
      SCOPED_TRACE(j.name);
      EXPECT_EQ(mine[i].name, j.name);
      EXPECT_EQ(p.c, j.C);
      EXPECT_EQ(p.k, j.K);
      EXPECT_EQ(p.r, j.R);
      EXPECT_EQ(p.s, j.S);
      EXPECT_EQ(p.stride_h, j.stride);
      EXPECT_EQ(p.dil_h, j.dil);
      EXPECT_EQ(p.groups, j.groups);
      // The JSON pre-pads the downsample input; ours pads asymmetrically: same output, same window.
      const Conv2dProblem as_json =
          make_problem(1, j.C, j.H, j.W, j.K, j.R, j.S, j.stride, j.pad, j.dil, j.groups);
      EXPECT_EQ(p.p(), as_json.p());
      EXPECT_EQ(p.q(), as_json.q());
      EXPECT_EQ(p.h + p.pad_top + p.pad_bottom, j.H + 2 * j.pad);
      EXPECT_EQ(p.w + p.pad_left + p.pad_right, j.W + 2 * j.pad);
    }
  }
}

TEST(ModelTables, UniqueShapes) {
  const auto r50 = models::unique_layers(models::resnet50_224());
  EXPECT_EQ(r50.size(), 23u);  // torchvision ResNet-50: 53 layers, 23 unique shapes
  int total = 0;
  for (const auto& u : r50) total += u.count();
  EXPECT_EQ(total, 53);
}

TEST(ModelTables, EveryLayerRoutesToAnImplementingMethod) {
  for (ArchClass f :
       {ArchClass::rdna3, ArchClass::rdna4, ArchClass::sm80, ArchClass::sm90, ArchClass::generic})
    for (const std::string& m : models::model_names())
      for (const auto& l : models::model(m))
        for (LayoutKind lk : {LayoutKind::nchw, LayoutKind::nhwc}) {
          const Method r = route(l.p, lk, f);
          EXPECT_TRUE(can_implement(r, l.p, lk)) << m << " " << l.name << " -> " << to_string(r);
        }
}
