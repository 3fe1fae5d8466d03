//===- CheckVmap.cpp - kiln-run --check-vmap ------------------------------===//
//
// The entry's batched version is built by the compiler itself: the source
// is compiled again with a kiln.vmap of the entry, which runs on the whole
// batch, and the entry runs once per slice of it, as a loop would.
//
//===----------------------------------------------------------------------===//
#include "EntryChecks.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <sstream>

namespace kiln {
using namespace checks;
namespace {

const char *const kFlag = "--check-vmap";
const char *const kVmapEntry = "__kiln_check_vmap";

/// The largest difference accepted between the batched and the looped
/// results, |a - b| / (1 + |b|): the two may sum in different orders.
double tolerance(kiln_dtype_t dtype) {
  switch (dtype) {
  case KILN_F64:
    return 1e-10;
  case KILN_F32:
    return 1e-5;
  case KILN_F16:
    return 1e-2;
  case KILN_BF16:
    return 1e-1;
  default:
    return 0.0;
  }
}

/// Slice `index` of `tensor` along `axis`, without that dimension.
Tensor slice(kiln_tensor_t tensor, int64_t axis, int64_t index) {
  const int64_t *shape = kiln_tensor_shape(tensor);
  int64_t rank = kiln_tensor_rank(tensor);
  size_t element = kiln_dtype_size(kiln_tensor_dtype(tensor));
  size_t outer = 1, inner = element;
  std::vector<int64_t> sliced;
  for (int64_t d = 0; d < rank; ++d) {
    if (d < axis)
      outer *= size_t(shape[d]);
    if (d > axis)
      inner *= size_t(shape[d]);
    if (d != axis)
      sliced.push_back(shape[d]);
  }
  std::vector<char> bytes(outer * inner);
  auto *from = static_cast<const char *>(kiln_tensor_data(tensor));
  for (size_t o = 0; o < outer; ++o)
    std::memcpy(bytes.data() + o * inner,
                from + (o * size_t(shape[axis]) + size_t(index)) * inner,
                inner);
  Tensor result;
  Tensor::create(kiln_tensor_dtype(tensor), sliced, bytes.data(), bytes.size(),
                 result);
  return result;
}

/// The kiln.vmap of `entry` over `batched` (the argument types with their
/// batch dimension), results batched first.
std::string vmapFunction(const std::string &entry,
                         const std::vector<TensorType> &batched,
                         const std::vector<TensorType> &args,
                         const std::vector<TensorType> &results,
                         const std::vector<int64_t> &inAxes, int64_t size) {
  std::vector<TensorType> outputs;
  for (const TensorType &result : results) {
    TensorType output = result;
    output.shape.insert(output.shape.begin(), size);
    outputs.push_back(output);
  }
  size_t n = args.size(), m = results.size();
  std::string argTypes =
      joined(n, [&](size_t i) { return batched[i].text(); });
  std::string resultTypes =
      joined(m, [&](size_t i) { return outputs[i].text(); });
  std::ostringstream os;
  os << "\nfunc.func @" << kVmapEntry << "("
     << joined(n, [&](size_t i) {
          return "%a" + std::to_string(i) + ": " + batched[i].text();
        })
     << ") -> (" << resultTypes << ") {\n"
     << "  %r:" << m << " = kiln.vmap @\"" << entry << "\"("
     << joined(n, [](size_t i) { return "%a" + std::to_string(i); })
     << ") {in_axes = array<i64: "
     << joined(n, [&](size_t i) { return std::to_string(inAxes[i]); })
     << ">, out_axes = array<i64: "
     << joined(m, [](size_t) { return std::string("0"); }) << ">"
     << (std::all_of(inAxes.begin(), inAxes.end(),
                     [](int64_t axis) { return axis == -1; })
             ? ", axis_size = " + std::to_string(size) + " : i64"
             : "")
     << "} : (" << argTypes << ") -> (" << resultTypes << ")\n"
     << "  return "
     << joined(m, [](size_t i) { return "%r#" + std::to_string(i); })
     << " : " << resultTypes << "\n}\n";
  return os.str();
}

} // namespace

int checkVmap(const std::string &path, const std::string &entry,
              kiln_module_t module, const std::vector<kiln_tensor_t> &args,
              const std::vector<int64_t> &inAxes,
              const CompileSource &compile) {
  std::vector<TensorType> argTypes, resultTypes;
  readSignature(module, entry, argTypes, resultTypes);
  std::vector<int64_t> axes = inAxes;
  if (axes.empty())
    axes.assign(args.size(), 0);
  if (axes.size() != args.size()) {
    std::cerr << "kiln-run: error: --in-axes has " << axes.size()
              << " entries but " << entry << " takes " << args.size()
              << " arguments\n";
    return 1;
  }
  // The batch size, from the batched arguments, which must agree.
  int64_t size = -1;
  std::vector<TensorType> batched;
  for (size_t i = 0; i < args.size(); ++i) {
    TensorType type{kiln_tensor_dtype(args[i]),
                    std::vector<int64_t>(kiln_tensor_shape(args[i]),
                                         kiln_tensor_shape(args[i]) +
                                             kiln_tensor_rank(args[i]))};
    int64_t axis = axes[i];
    if (axis < -1 || axis >= int64_t(type.shape.size()) ||
        (axis != -1 && type.shape.size() != argTypes[i].shape.size() + 1)) {
      std::cerr << "kiln-run: error: --check-vmap: arg" << i << " is "
                << type.text() << ", which cannot be " << entry << "'s "
                << argTypes[i].text() << " batched along axis " << axis
                << "\n";
      return 1;
    }
    if (axis != -1) {
      if (size != -1 && type.shape[axis] != size) {
        std::cerr << "kiln-run: error: --check-vmap: arg" << i
                  << " has batch size " << type.shape[axis]
                  << " but the batch size is " << size << "\n";
        return 1;
      }
      size = type.shape[axis];
    }
    batched.push_back(type);
  }
  if (size == -1) {
    std::cerr << "kiln-run: error: --check-vmap: no argument is batched\n";
    return 1;
  }
  Module checks = compileWithFunctions(
      path, vmapFunction(entry, batched, argTypes, resultTypes, axes, size),
      compile, kFlag);
  if (!checks.get())
    return 1;
  std::vector<Tensor> whole = call(checks.get(), kVmapEntry, args, kFlag);
  if (whole.empty() && !resultTypes.empty())
    return 1;

  std::vector<double> worst(resultTypes.size(), 0.0);
  for (int64_t b = 0; b < size; ++b) {
    std::vector<Tensor> slices;
    std::vector<kiln_tensor_t> sliceArgs;
    for (size_t i = 0; i < args.size(); ++i) {
      if (axes[i] == -1) {
        sliceArgs.push_back(args[i]);
        continue;
      }
      slices.push_back(slice(args[i], axes[i], b));
      sliceArgs.push_back(slices.back().get());
    }
    std::vector<Tensor> looped = call(checks.get(), entry, sliceArgs, kFlag);
    if (looped.empty() && !resultTypes.empty())
      return 1;
    for (size_t j = 0; j < resultTypes.size(); ++j) {
      std::vector<double> got = toDoubles(slice(whole[j].get(), 0, b).get());
      std::vector<double> want = toDoubles(looped[j].get());
      for (size_t e = 0; e < got.size(); ++e) {
        double difference = std::fabs(got[e] - want[e]) / (1 + std::fabs(want[e]));
        if (std::isnan(got[e]) != std::isnan(want[e]))
          difference = INFINITY;
        else if (std::isnan(got[e]) || got[e] == want[e])
          difference = 0.0;
        worst[j] = std::max(worst[j], difference);
      }
    }
  }
  bool passed = true;
  std::printf("%s: kiln.vmap over %lld slices (in_axes %s) against a loop of "
              "calls\n",
              entry.c_str(), static_cast<long long>(size),
              joined(axes.size(), [&](size_t i) {
                return std::to_string(axes[i]);
              }).c_str());
  for (size_t j = 0; j < resultTypes.size(); ++j) {
    bool ok = worst[j] <= tolerance(resultTypes[j].dtype);
    passed &= ok;
    std::printf("  out%zu %s: worst difference %.2e (tolerance %.0e): %s\n", j,
                resultTypes[j].text().c_str(), worst[j],
                tolerance(resultTypes[j].dtype), ok ? "ok" : "FAILED");
  }
  std::fflush(stdout);
  return passed ? 0 : 1;
}

} // namespace kiln
