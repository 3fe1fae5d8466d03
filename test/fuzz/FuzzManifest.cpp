//===- FuzzManifest.cpp - the manifest an artifact carries ----------------===//
//
// Any text is read as an artifact's manifest: an error, or a manifest that
// serializes to text reading back to the same manifest.
//
//===----------------------------------------------------------------------===//
#include "FuzzSupport.h"

#include "kiln/manifest.hpp"

using namespace kiln::runtime;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  Manifest manifest;
  if (kiln_status_t status = parseManifest(text, manifest)) {
    kiln_status_free(status);
    return 0;
  }
  std::string written = serializeManifest(manifest);
  Manifest again;
  if (kiln_status_t status = parseManifest(written, again)) {
    kiln::fuzz::broken(std::string("a manifest read from its own text "
                                   "fails: ") +
                       kiln_status_message(status) + "\n" + written);
  }
  if (serializeManifest(again) != written)
    kiln::fuzz::broken("a manifest changes when read back:\n" + written);
  return 0;
}
