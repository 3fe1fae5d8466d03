//===- Manifest.cpp - the entry signatures an artifact carries ------------===//
//
// Text, one item per line:
//   kiln-manifest 1
//   entry NAME
//   arg f32 4 8        (dtype, then each dimension)
//   result i32
//   end
//   device cuda sm_90  (optional; the default is the CPU)
//
//===----------------------------------------------------------------------===//
#include "Internal.h"

#include <sstream>

using namespace kiln::runtime;

namespace {
constexpr const char *kHeader = "kiln-manifest 1";

bool parseDtype(const std::string &name, kiln_dtype_t &dtype) {
  for (int d = KILN_F32; d <= KILN_I64; ++d)
    if (name == kiln_dtype_name(static_cast<kiln_dtype_t>(d))) {
      dtype = static_cast<kiln_dtype_t>(d);
      return true;
    }
  return false;
}

void appendSpec(std::ostringstream &os, const TensorSpec &spec) {
  os << kiln_dtype_name(spec.dtype) << "[";
  for (size_t i = 0; i < spec.shape.size(); ++i)
    os << (i ? "," : "") << spec.shape[i];
  os << "]";
}
} // namespace

std::string kiln::runtime::signatureText(const EntrySignature &entry) {
  std::ostringstream os;
  os << "(";
  for (size_t i = 0; i < entry.args.size(); ++i) {
    os << (i ? ", " : "");
    appendSpec(os, entry.args[i]);
  }
  os << ") -> (";
  for (size_t i = 0; i < entry.results.size(); ++i) {
    os << (i ? ", " : "");
    appendSpec(os, entry.results[i]);
  }
  os << ")";
  return os.str();
}

std::vector<int64_t>
kiln::runtime::encodeSignature(const EntrySignature &entry) {
  std::vector<int64_t> code = {0, int64_t(entry.args.size()),
                               int64_t(entry.results.size())};
  for (const auto *specs : {&entry.args, &entry.results})
    for (const TensorSpec &spec : *specs) {
      code.push_back(spec.dtype);
      code.push_back(int64_t(spec.shape.size()));
      code.insert(code.end(), spec.shape.begin(), spec.shape.end());
    }
  code[0] = int64_t(code.size());
  return code;
}

std::string kiln::runtime::serializeManifest(const Manifest &manifest) {
  std::ostringstream os;
  os << kHeader << "\n";
  if (manifest.device != "cpu")
    os << "device " << manifest.device << " " << manifest.chip << "\n";
  for (const EntrySignature &entry : manifest.entries) {
    os << "entry " << entry.name << "\n";
    for (auto [kind, specs] : {std::pair{"arg", &entry.args},
                               std::pair{"result", &entry.results}})
      for (const TensorSpec &spec : *specs) {
        os << kind << " " << kiln_dtype_name(spec.dtype);
        for (int64_t dim : spec.shape)
          os << " " << dim;
        os << "\n";
      }
    os << "end\n";
  }
  return os.str();
}

kiln_status_t kiln::runtime::parseManifest(const std::string &text,
                                           Manifest &manifest) {
  std::istringstream lines(text);
  std::string line;
  if (!std::getline(lines, line) || line != kHeader)
    return error("manifest: missing the '" + std::string(kHeader) +
                 "' header");
  EntrySignature *entry = nullptr;
  for (size_t number = 2; std::getline(lines, line); ++number) {
    std::istringstream words(line);
    std::string kind, word;
    words >> kind;
    auto fail = [&](const std::string &why) {
      return error("manifest line " + std::to_string(number) + ": " + why);
    };
    if (kind == "device") {
      if (entry || !(words >> manifest.device >> manifest.chip) ||
          words >> word || manifest.device != "cuda")
        return fail("expected 'device cuda CHIP' before the entries");
    } else if (kind == "entry") {
      if (entry)
        return fail("entry before the previous one's end");
      manifest.entries.push_back({});
      entry = &manifest.entries.back();
      if (!(words >> entry->name) || words >> word)
        return fail("expected 'entry NAME'");
    } else if (kind == "arg" || kind == "result") {
      if (!entry)
        return fail(kind + " outside an entry");
      TensorSpec spec;
      if (!(words >> word) || !parseDtype(word, spec.dtype))
        return fail("unknown dtype '" + word + "'");
      int64_t dim;
      while (words >> dim) {
        if (dim < 0 || spec.shape.size() == kMaxRank)
          return fail("invalid shape");
        spec.shape.push_back(dim);
      }
      if (!words.eof())
        return fail("invalid dimension");
      (kind == "arg" ? entry->args : entry->results).push_back(spec);
    } else if (kind == "end") {
      if (!entry)
        return fail("end outside an entry");
      entry->text = signatureText(*entry);
      entry = nullptr;
    } else if (!kind.empty()) {
      return fail("unknown item '" + kind + "'");
    }
  }
  if (entry)
    return error("manifest: entry " + entry->name + " has no end");
  return nullptr;
}
