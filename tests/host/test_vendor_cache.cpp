// SPDX-License-Identifier: MIT
/// @file test_vendor_cache.cpp The benchmark's vendor choice file (bench/vendor_cache.hpp): what
/// one process writes, the next reads back; damaged lines are skipped, the last line of a key wins,
/// a choice that cannot be one line is refused.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "../bench/vendor_cache.hpp"

using rdnaconv::bench::ChoiceCache;

namespace {
std::string temp_path(const char* name) {
  return ::testing::TempDir() + "rdnaconv_" + name + ".tsv";
}
}  // namespace

TEST(VendorCache, WhatOneProcessWritesTheNextReads) {
  const std::string path = temp_path("roundtrip");
  std::remove(path.c_str());
  {
    ChoiceCache c(path);
    EXPECT_TRUE(c.enabled());
    EXPECT_EQ(c.size(), 0u);
    EXPECT_TRUE(c.put("cudnn91900 H100 1x64x56x56 k64 r3", "eng62 knobs{2=5,13=1}"));
    EXPECT_TRUE(c.put("cudnn91900 H100 1x64x56x56 k256 r1", "eng58 knobs{25=1}"));
    EXPECT_EQ(c.find("cudnn91900 H100 1x64x56x56 k64 r3").value_or(""), "eng62 knobs{2=5,13=1}");
  }
  ChoiceCache again(path);
  EXPECT_EQ(again.size(), 2u);
  EXPECT_EQ(again.find("cudnn91900 H100 1x64x56x56 k256 r1").value_or(""), "eng58 knobs{25=1}");
  EXPECT_FALSE(again.find("cudnn91900 H200 1x64x56x56 k256 r1").has_value());
  std::remove(path.c_str());
}

TEST(VendorCache, TheLastLineOfAKeyWinsAndDamagedLinesAreSkipped) {
  std::istringstream in(
      "a\tfirst\n"
      "no tab here\n"
      "\tempty key\n"
      "b\t\n"
      "c\ttoo\tmany\n"
      "a\tsecond\r\n"
      "d\tcut mid-li");
  const auto m = ChoiceCache::parse(in);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m.at("a"), "second");
  EXPECT_EQ(m.at("d"), "cut mid-li");
  EXPECT_EQ(m.count("b"), 0u);
  EXPECT_EQ(m.count("c"), 0u);
}

TEST(VendorCache, AChoiceThatIsNotOneLineIsRefused) {
  ChoiceCache c;  // no file: in memory only
  EXPECT_FALSE(c.enabled());
  EXPECT_FALSE(c.put("key", "two\nlines"));
  EXPECT_FALSE(c.put("k\tey", "x"));
  EXPECT_FALSE(c.put("key", ""));
  EXPECT_FALSE(c.find("key").has_value());
  EXPECT_TRUE(c.put("key", "eng1"));
  EXPECT_EQ(c.find("key").value_or(""), "eng1");
}

TEST(VendorCache, AMissingFileIsAnEmptyCache) {
  const std::string path = temp_path("missing");
  std::remove(path.c_str());
  ChoiceCache c(path);
  EXPECT_TRUE(c.enabled());
  EXPECT_EQ(c.size(), 0u);
  std::ifstream probe(path);
  EXPECT_FALSE(bool(probe));  // reading creates nothing
}
