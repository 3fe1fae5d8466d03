//===- CompileCacheTest.cpp - cache keys and their explanations -----------===//
//
// Every part of a key counts and is explained by name when it differs:
// the arguments, static values, the IR, the options, the CPU and its
// features, the Kiln build (parts a test cannot change on this machine
// through a real compile); a miss is explained against the closest entry
// for the same entry point.
//
//===----------------------------------------------------------------------===//
#include "runtime/jit/CompileCache.h"

#include <gtest/gtest.h>

using kiln::jit::CacheKey;

namespace {

CacheKey key(const std::string &entry, const std::string &arg0,
             const std::string &features = "avx2,avx512f",
             const std::string &approximate = "true",
             const std::string &build = "0.1.0 100-1") {
  CacheKey key;
  key.parts = {{"entry", entry},       {"arg0", arg0},
               {"ir", "abc"},          {"target", "cpu"},
               {"option:approximate-math", approximate},
               {"cpu", "znver5"},      {"features", features},
               {"kiln", build}};
  return key;
}

TEST(CacheKey, TextRoundTripsAndHashesDiffer) {
  CacheKey original = key("f", "tensor<4xf32>");
  std::optional<CacheKey> parsed = CacheKey::parse(original.text());
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->text(), original.text());
  EXPECT_EQ(parsed->hash(), original.hash());
  EXPECT_EQ(original.hash().size(), 64u);
  EXPECT_NE(key("f", "tensor<5xf32>").hash(), original.hash());
  EXPECT_FALSE(CacheKey::parse("entry f\nno newline"));
  EXPECT_FALSE(CacheKey::parse(""));
  EXPECT_FALSE(CacheKey::parse(" value without a name\n"));
}

TEST(CacheKey, NamesEveryDifferingPart) {
  CacheKey base = key("f", "tensor<32x784xf32>");
  EXPECT_EQ(key("f", "tensor<64x784xf32>").differences(base),
            "argument 0 tensor<64x784xf32> vs tensor<32x784xf32>");
  EXPECT_EQ(key("f", "tensor<32x784xf32>", "avx2").differences(base),
            "the CPU's features changed");
  EXPECT_EQ(key("f", "tensor<32x784xf32>", "avx2,avx512f", "false")
                .differences(base),
            "option approximate-math false vs true");
  EXPECT_EQ(key("f", "tensor<32x784xf32>", "avx2,avx512f", "true",
                "0.1.0 200-2")
                .differences(base),
            "the Kiln build changed (0.1.0 100-1 -> 0.1.0 200-2)");
  CacheKey changedIr = base;
  changedIr.parts[2].second = "def";
  CacheKey withStatic = base;
  withStatic.parts.insert(withStatic.parts.begin() + 3,
                          {"static1", "f32[] dense<2.0>"});
  EXPECT_EQ(changedIr.differences(base),
            "the IR of the entry or of a function it calls changed");
  EXPECT_EQ(base.differences(withStatic), "static1 f32[] dense<2.0> is gone");
  EXPECT_EQ(base.differences(base), "nothing");
}

TEST(CacheKey, ExplainsAMissAgainstTheClosestEntry) {
  std::vector<CacheKey> known = {
      key("g", "tensor<8xf32>"),
      key("f", "tensor<16xf32>", "sse2"),
      key("f", "tensor<16xf32>"),
  };
  EXPECT_EQ(kiln::jit::explainMiss(key("f", "tensor<8xf32>"), known),
            "the closest cached @f differs: argument 0 tensor<8xf32> vs "
            "tensor<16xf32>");
  EXPECT_EQ(kiln::jit::explainMiss(key("h", "tensor<8xf32>"), known),
            "the cache holds no compiled @h");
}

} // namespace
