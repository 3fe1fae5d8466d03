//===- ManifestTest.cpp - the manifest format -----------------------------===//
//
// The manifest an artifact carries round-trips, and corrupt text is
// rejected line by line.
//
//===----------------------------------------------------------------------===//
#include "RuntimeTestSupport.h"
#include "kiln/manifest.hpp"

#include <cstring>

using namespace kiln::test;

namespace {

TEST(Manifest, RoundTripsAndRejectsCorruptText) {
  using namespace kiln::runtime;
  Manifest manifest;
  manifest.entries.push_back({"f", {{KILN_F32, {4, 8}}, {KILN_I1, {}}},
                              {{KILN_BF16, {0}}}, ""});
  Manifest parsed;
  ASSERT_EQ(message(parseManifest(serializeManifest(manifest), parsed)), "ok");
  ASSERT_EQ(parsed.entries.size(), 1u);
  EXPECT_EQ(parsed.entries[0].text, "(f32[4,8], i1[]) -> (bf16[0])");
  auto reject = [](const std::string &text) {
    Manifest ignored;
    return message(parseManifest(text, ignored));
  };
  EXPECT_EQ(reject("not a manifest\n"),
            "manifest: missing the 'kiln-manifest 1' header");
  EXPECT_EQ(reject("kiln-manifest 1\nentry f\narg q32 4\nend\n"),
            "manifest line 3: unknown dtype 'q32'");
  EXPECT_EQ(reject("kiln-manifest 1\nentry f\narg f32 -4\nend\n"),
            "manifest line 3: invalid shape");
  EXPECT_EQ(reject("kiln-manifest 1\nentry f\narg f32 4x\nend\n"),
            "manifest line 3: invalid dimension");
  EXPECT_EQ(reject("kiln-manifest 1\nresult f32\n"),
            "manifest line 2: result outside an entry");
  EXPECT_EQ(reject("kiln-manifest 1\nentry f\n"),
            "manifest: entry f has no end");
  EXPECT_EQ(reject("kiln-manifest 1\nentry f\nentry g\n"),
            "manifest line 3: entry before the previous one's end");
  EXPECT_EQ(reject("kiln-manifest 1\nbogus\n"),
            "manifest line 2: unknown item 'bogus'");
}

} // namespace
