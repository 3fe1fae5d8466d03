//===- ManifestTest.cpp - the manifest format -----------------------------===//
//
// The manifest an artifact carries round-trips, and corrupt text is
// rejected line by line; the CPU features it names are checked.
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
                              {{KILN_BF16, {0}}, {KILN_F32, {4, 8}}},
                              {-1, 0}, {}, ""});
  Manifest parsed;
  ASSERT_EQ(message(parseManifest(serializeManifest(manifest), parsed)), "ok");
  ASSERT_EQ(parsed.entries.size(), 1u);
  EXPECT_EQ(parsed.entries[0].text,
            "(f32[4,8], i1[]) -> (bf16[0], f32[4,8])");
  EXPECT_EQ(parsed.entries[0].donors, (std::vector<int64_t>{-1, 0}));
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
  EXPECT_EQ(reject("kiln-manifest 1\nentry f\narg f32\nresult f32\n"
                   "donor 1 0\nend\n"),
            "manifest line 5: donor: no such result or argument");
  EXPECT_EQ(reject("kiln-manifest 1\ndonor 0 0\n"),
            "manifest line 2: expected 'donor RESULT ARGUMENT' in an entry");
  EXPECT_EQ(reject("kiln-manifest 1\nentry f\nentry g\n"),
            "manifest line 3: entry before the previous one's end");
  EXPECT_EQ(reject("kiln-manifest 1\nbogus\n"),
            "manifest line 2: unknown item 'bogus'");
  EXPECT_EQ(reject("kiln-manifest 1\nentry f\ncpu-features avx2\nend\n"),
            "manifest line 3: cpu-features inside an entry");
}

TEST(Manifest, CarriesTheMeshAndEachTensorsParts) {
  using namespace kiln::runtime;
  Manifest manifest;
  manifest.meshAxes = {"data", "model"};
  manifest.meshSizes = {2, 4};
  // f32[8,16] split over data then model along dimension 0; i32[4] whole.
  manifest.entries.push_back({"f", {{KILN_F32, {8, 16}}}, {{KILN_I32, {4}}},
                              {}, {{{0, 1}, {}}, {{}}}, ""});
  Manifest parsed;
  ASSERT_EQ(message(parseManifest(serializeManifest(manifest), parsed)), "ok");
  EXPECT_EQ(parsed.meshAxes, manifest.meshAxes);
  EXPECT_EQ(parsed.meshSizes, manifest.meshSizes);
  ASSERT_EQ(parsed.entries.size(), 1u);
  EXPECT_EQ(parsed.entries[0].parts, manifest.entries[0].parts);
  EXPECT_EQ(partSpec(parsed.entries[0].args[0], parsed.entries[0].parts[0],
                     parsed.meshSizes)
                .shape,
            (std::vector<int64_t>{1, 16}));
  // The code's signature is that of the parts.
  EXPECT_EQ(encodeSignature(parsed.entries[0], parsed.meshSizes),
            (std::vector<int64_t>{10, 1, 1, KILN_F32, 2, 1, 16, KILN_I32, 1,
                                  4}));
  auto reject = [](const std::string &text) {
    Manifest ignored;
    return message(parseManifest(text, ignored));
  };
  EXPECT_EQ(reject("kiln-manifest 1\nmesh x 2\nentry f\narg f32 3\n"
                   "part arg 0 0 0\nend\n"),
            "manifest line 5: part: its axes must split the dimension evenly");
  EXPECT_EQ(reject("kiln-manifest 1\nmesh x 2\nentry f\narg f32 4\n"
                   "part arg 0 0 1\nend\n"),
            "manifest line 5: part: no such mesh axis, or one used twice");
  EXPECT_EQ(reject("kiln-manifest 1\nmesh x 2\nentry f\narg f32 4\n"
                   "part result 0 0 0\nend\n"),
            "manifest line 5: part: no such result or dimension");
  EXPECT_EQ(reject("kiln-manifest 1\nmesh x 0\n"),
            "manifest line 2: a mesh axis has at least one device");
  EXPECT_EQ(reject("kiln-manifest 1\nentry f\nmesh x 2\n"),
            "manifest line 3: one mesh, before the entries");
}

TEST(Manifest, NamesTheCpuFeaturesACpuLacks) {
  using namespace kiln::runtime;
  Manifest manifest;
  manifest.cpuFeatures = {"avx2", "avx512bf16", "amx-tile"};
  Manifest parsed;
  ASSERT_EQ(message(parseManifest(serializeManifest(manifest), parsed)), "ok");
  EXPECT_EQ(parsed.cpuFeatures, manifest.cpuFeatures);
  // A CPU with AVX-512 bf16 and no AMX (AMD Zen 5).
  auto zen5 = [](const std::string &name) { return name != "amx-tile"; };
  EXPECT_EQ(missingCpuFeatures(parsed.cpuFeatures, zen5),
            std::vector<std::string>{"amx-tile"});
  auto none = [](const std::string &) { return false; };
  EXPECT_EQ(missingCpuFeatures(parsed.cpuFeatures, none),
            parsed.cpuFeatures);
  // A feature the runtime cannot detect is not held against the CPU. (Code
  // compiled here naming what this CPU has: every artifact the e2e tests
  // load.)
  EXPECT_TRUE(hostHasCpuFeature("not-a-feature"));
}

TEST(Manifest, AmxTileDataIsGrantedExactlyWhereTheCpuHasAmx) {
  using namespace kiln::runtime;
  // Linux grants the permission to a process of a CPU with AMX (since
  // 5.16) and refuses it elsewhere, with a reason.
  std::string refused = requestAmxTiles();
  if (hostHasCpuFeature("amx-tile"))
    EXPECT_EQ(refused, "");
  else
    EXPECT_NE(refused.find("AMX"), std::string::npos) << refused;
}

} // namespace
