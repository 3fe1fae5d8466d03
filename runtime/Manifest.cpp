//===- Manifest.cpp - the entry signatures an artifact carries ------------===//
//
// Text, one item per line:
//   kiln-manifest 1
//   entry NAME
//   arg f32 4 8        (dtype, then each dimension)
//   result i32
//   donor 0 1          (optional: result 0 reuses argument 1's buffer)
//   end
//   device cuda sm_90  (optional; the default is the CPU)
//   cpu-features avx2 avx512f  (optional: what the host code needs)
//   mesh data 2 model 4  (optional, before the entries: the device mesh)
//   part arg 0 1 0 1   (in an entry: argument 0's dimension 1 is split
//                       over mesh axes 0 then 1; args and results are whole)
//
//===----------------------------------------------------------------------===//
#include "Internal.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#if defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#endif
#include <sstream>

using namespace kiln::runtime;

namespace {
constexpr const char *kHeader = "kiln-manifest 1";

bool parseDtype(const std::string &name, kiln_dtype_t &dtype) {
  for (int d = KILN_F32; kiln_dtype_size(static_cast<kiln_dtype_t>(d)) != 0; ++d)
    if (name == kiln_dtype_name(static_cast<kiln_dtype_t>(d))) {
      dtype = static_cast<kiln_dtype_t>(d);
      return true;
    }
  return false;
}
/// Reads "arg|result INDEX DIM AXIS..." into `entry`'s parts; why not, or "".
std::string parsePart(std::istream &words, const Manifest &manifest,
                      EntrySignature *entry) {
  std::string kind;
  int64_t index, dim, axis;
  if (!entry || !(words >> kind >> index >> dim) ||
      (kind != "arg" && kind != "result"))
    return "expected 'part arg|result INDEX DIM AXIS...' in an entry";
  const auto &specs = kind == "arg" ? entry->args : entry->results;
  if (index < 0 || size_t(index) >= specs.size() || dim < 0 ||
      size_t(dim) >= specs[index].shape.size())
    return "part: no such " + kind + " or dimension";
  if (entry->parts.empty())
    for (const auto *all : {&entry->args, &entry->results})
      for (const TensorSpec &spec : *all)
        entry->parts.emplace_back(spec.shape.size());
  size_t tensor = (kind == "arg" ? 0 : entry->args.size()) + size_t(index);
  std::vector<int64_t> &axes = entry->parts[tensor][dim];
  int64_t devices = 1;
  while (words >> axis) {
    if (axis < 0 || size_t(axis) >= manifest.meshSizes.size() ||
        std::find(axes.begin(), axes.end(), axis) != axes.end())
      return "part: no such mesh axis, or one used twice";
    axes.push_back(axis);
    devices *= manifest.meshSizes[axis];
  }
  if (!words.eof() || axes.empty() || specs[index].shape[dim] % devices)
    return "part: its axes must split the dimension evenly";
  return "";
}
} // namespace

std::string kiln::runtime::specText(const TensorSpec &spec) {
  std::ostringstream os;
  os << kiln_dtype_name(spec.dtype) << "[";
  for (size_t i = 0; i < spec.shape.size(); ++i)
    os << (i ? "," : "") << spec.shape[i];
  os << "]";
  return os.str();
}

std::string kiln::runtime::signatureText(const EntrySignature &entry) {
  std::ostringstream os;
  os << "(";
  for (size_t i = 0; i < entry.args.size(); ++i) {
    os << (i ? ", " : "");
    os << specText(entry.args[i]);
  }
  os << ") -> (";
  for (size_t i = 0; i < entry.results.size(); ++i) {
    os << (i ? ", " : "");
    os << specText(entry.results[i]);
  }
  os << ")";
  return os.str();
}

TensorSpec
kiln::runtime::partSpec(const TensorSpec &whole,
                        const std::vector<std::vector<int64_t>> &parts,
                        const std::vector<int64_t> &meshSizes) {
  TensorSpec part = whole;
  for (size_t d = 0; d < parts.size() && d < part.shape.size(); ++d)
    for (int64_t axis : parts[d])
      part.shape[d] /= meshSizes[axis];
  return part;
}

std::vector<int64_t>
kiln::runtime::encodeSignature(const EntrySignature &entry,
                               const std::vector<int64_t> &meshSizes) {
  std::vector<int64_t> code = {0, int64_t(entry.args.size()),
                               int64_t(entry.results.size())};
  size_t index = 0;
  for (const auto *specs : {&entry.args, &entry.results})
    for (const TensorSpec &whole : *specs) {
      TensorSpec spec = entry.parts.empty()
                            ? whole
                            : partSpec(whole, entry.parts[index], meshSizes);
      ++index;
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
  if (!manifest.cpuFeatures.empty()) {
    os << "cpu-features";
    for (const std::string &feature : manifest.cpuFeatures)
      os << " " << feature;
    os << "\n";
  }
  if (!manifest.meshAxes.empty()) {
    os << "mesh";
    for (size_t i = 0; i < manifest.meshAxes.size(); ++i)
      os << " " << manifest.meshAxes[i] << " " << manifest.meshSizes[i];
    os << "\n";
  }
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
    for (size_t result = 0; result < entry.donors.size(); ++result)
      if (entry.donors[result] >= 0)
        os << "donor " << result << " " << entry.donors[result] << "\n";
    for (size_t t = 0; t < entry.parts.size(); ++t)
      for (size_t d = 0; d < entry.parts[t].size(); ++d) {
        if (entry.parts[t][d].empty())
          continue;
        bool isArg = t < entry.args.size();
        os << "part " << (isArg ? "arg " : "result ")
           << (isArg ? t : t - entry.args.size()) << " " << d;
        for (int64_t axis : entry.parts[t][d])
          os << " " << axis;
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
    } else if (kind == "cpu-features") {
      if (entry)
        return fail("cpu-features inside an entry");
      while (words >> word)
        manifest.cpuFeatures.push_back(word);
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
    } else if (kind == "donor") {
      int64_t result, argument;
      if (!entry || !(words >> result >> argument) || words >> word)
        return fail("expected 'donor RESULT ARGUMENT' in an entry");
      if (result < 0 || size_t(result) >= entry->results.size() ||
          argument < 0 || size_t(argument) >= entry->args.size())
        return fail("donor: no such result or argument");
      entry->donors.resize(entry->results.size(), -1);
      entry->donors[result] = argument;
    } else if (kind == "mesh") {
      if (entry || !manifest.meshAxes.empty())
        return fail("one mesh, before the entries");
      int64_t size;
      while (words >> word >> size) {
        if (size < 1)
          return fail("a mesh axis has at least one device");
        manifest.meshAxes.push_back(word);
        manifest.meshSizes.push_back(size);
      }
      if (!words.eof() || manifest.meshAxes.empty())
        return fail("expected 'mesh AXIS SIZE...'");
    } else if (kind == "part") {
      std::string why = parsePart(words, manifest, entry);
      if (!why.empty())
        return fail(why);
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

const std::vector<std::string> &kiln::runtime::cpuFeaturesTheRuntimeChecks() {
  static const std::vector<std::string> features = {
      "sse4.2",   "avx",        "avx2",       "fma",        "f16c",
      "bmi",      "bmi2",       "avx512f",    "avx512bw",   "avx512dq",
      "avx512vl", "avx512cd",   "avx512vnni", "avx512bf16", "avx512fp16",
      "amx-tile", "amx-bf16",   "amx-int8"};
  return features;
}

std::vector<std::string>
kiln::runtime::missingCpuFeatures(const std::vector<std::string> &required,
                                  bool (*hasFeature)(const std::string &)) {
  std::vector<std::string> missing;
  for (const std::string &feature : required)
    if (!hasFeature(feature))
      missing.push_back(feature);
  return missing;
}

bool kiln::runtime::hostHasCpuFeature(const std::string &name) {
#if defined(__x86_64__) || defined(__i386__)
  // __builtin_cpu_supports takes literals only: one test per feature.
#define KILN_FEATURE(LLVM_NAME, GCC_NAME)                                      \
  if (name == LLVM_NAME)                                                       \
    return __builtin_cpu_supports(GCC_NAME);
  KILN_FEATURE("sse4.2", "sse4.2")
  KILN_FEATURE("avx", "avx")
  KILN_FEATURE("avx2", "avx2")
  KILN_FEATURE("fma", "fma")
  KILN_FEATURE("f16c", "f16c")
  KILN_FEATURE("bmi", "bmi")
  KILN_FEATURE("bmi2", "bmi2")
  KILN_FEATURE("avx512f", "avx512f")
  KILN_FEATURE("avx512bw", "avx512bw")
  KILN_FEATURE("avx512dq", "avx512dq")
  KILN_FEATURE("avx512vl", "avx512vl")
  KILN_FEATURE("avx512cd", "avx512cd")
  KILN_FEATURE("avx512vnni", "avx512vnni")
  KILN_FEATURE("avx512bf16", "avx512bf16")
  KILN_FEATURE("avx512fp16", "avx512fp16")
  KILN_FEATURE("amx-tile", "amx-tile")
  KILN_FEATURE("amx-bf16", "amx-bf16")
  KILN_FEATURE("amx-int8", "amx-int8")
#undef KILN_FEATURE
#endif
  return true; // Not a feature the runtime can check.
}

std::string kiln::runtime::requestAmxTiles() {
#if defined(__linux__) && defined(__x86_64__)
  // From the kernel's asm/prctl.h and XSAVE's component numbers.
  constexpr long kArchReqXcompPerm = 0x1023, kXfeatureXtiledata = 18;
  if (syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) == 0)
    return "";
  return std::string("the kernel refused AMX tile data (arch_prctl "
                     "ARCH_REQ_XCOMP_PERM): ") +
         std::strerror(errno);
#else
  return "AMX tiles need Linux on x86-64";
#endif
}
