//===- kiln-run.cpp - run a function of a kiln program --------------------===//
//
// kiln-run FILE --entry NAME [--input IN.npz] [--output OUT.npz] [--print]
//          [--bench N]
//
// FILE is a .mlir source (compiled in process) or an artifact from
// kiln-compile. Arguments come from IN.npz arrays arg0, arg1, ...; results go
// to OUT.npz as out0, out1, ... and/or are printed. numpy has no bf16: a bf16
// argument is given as float32 (rounded to nearest even) and a bf16 result
// is written as float32.
//
//===----------------------------------------------------------------------===//
#include "TensorText.h"
#include "kiln/runtime.hpp"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace cl = llvm::cl;

static cl::opt<std::string> inputFile(cl::Positional, cl::Required,
                                      cl::desc("<program .mlir or artifact>"));
static cl::opt<std::string> entryName("entry", cl::Required,
                                      cl::desc("The function to run"));
static cl::opt<std::string> inputPath("input",
                                      cl::desc("A .npz of arg0, arg1, ..."));
static cl::opt<std::string> outputPath("output",
                                       cl::desc("Write out0, ... to this .npz"));
static cl::opt<bool> printResults("print", cl::desc("Print the results"));
static cl::opt<unsigned> benchCalls(
    "bench", cl::init(0),
    cl::desc("Call N times and report the median time per call"));

namespace {

using kiln::Tensor;

/// Prints the error of `status` if it is one; true if it was.
bool failed(const kiln::Status &status) {
  if (status)
    return false;
  llvm::errs() << "kiln-run: error: " << status.message() << "\n";
  return true;
}

/// Prints the error of `status` (freeing it); true if there was one.
bool failed(kiln_status_t status) { return failed(kiln::Status(status)); }

/// `tensor` converted elementwise between f32 and bf16 (`to`), or null
/// (reported) when it cannot be allocated.
Tensor convertFloat(kiln_tensor_t tensor, kiln_dtype_t to) {
  int64_t rank = kiln_tensor_rank(tensor);
  size_t count = kiln_tensor_byte_length(tensor) /
                 kiln_dtype_size(kiln_tensor_dtype(tensor));
  kiln_tensor_t converted = nullptr;
  if (failed(kiln_tensor_create(to, rank, kiln_tensor_shape(tensor), nullptr,
                                0, &converted)))
    return Tensor();
  if (to == KILN_BF16) {
    auto *from = static_cast<const float *>(kiln_tensor_data(tensor));
    auto *into = static_cast<uint16_t *>(kiln_tensor_data(converted));
    for (size_t i = 0; i < count; ++i)
      into[i] = kiln::floatToBF16(from[i]);
  } else {
    auto *from = static_cast<const uint16_t *>(kiln_tensor_data(tensor));
    auto *into = static_cast<float *>(kiln_tensor_data(converted));
    for (size_t i = 0; i < count; ++i)
      into[i] = kiln::bf16ToFloat(from[i]);
  }
  return Tensor(converted);
}

/// The entry's arguments from the .npz at `path`, named arg0, arg1, ...
bool readArguments(kiln_module_t module, std::vector<Tensor> &args) {
  int64_t numArgs = kiln_module_entry_num_args(module, entryName.c_str());
  if (inputPath.empty()) {
    if (numArgs == 0)
      return true;
    llvm::errs() << "kiln-run: error: " << entryName << " takes " << numArgs
                 << " arguments: give them as arg0, ... in --input IN.npz\n";
    return false;
  }
  size_t count;
  char **names;
  kiln_tensor_t *tensors;
  if (failed(kiln_npz_read(inputPath.c_str(), &count, &names, &tensors)))
    return false;
  std::map<std::string, Tensor> byName;
  for (size_t i = 0; i < count; ++i) {
    byName.emplace(names[i], Tensor(tensors[i]));
    tensors[i] = nullptr;
  }
  kiln_npz_free(count, names, tensors);
  for (int64_t i = 0; i < numArgs; ++i) {
    std::string name = "arg" + std::to_string(i);
    auto found = byName.find(name);
    if (found == byName.end()) {
      llvm::errs() << "kiln-run: error: " << inputPath << " has no array "
                   << name << " (" << entryName << " takes " << numArgs
                   << " arguments)\n";
      return false;
    }
    kiln_dtype_t dtype;
    int64_t rank;
    const int64_t *shape;
    failed(kiln_module_entry_arg(module, entryName.c_str(), i, &dtype, &rank,
                                 &shape));
    Tensor arg = std::move(found->second);
    if (dtype == KILN_BF16 && kiln_tensor_dtype(arg.get()) == KILN_F32 &&
        !(arg = convertFloat(arg.get(), KILN_BF16)))
      return false;
    args.push_back(std::move(arg));
    byName.erase(found);
  }
  if (!byName.empty()) {
    llvm::errs() << "kiln-run: error: " << inputPath << " has array '"
                 << byName.begin()->first << "', which is not an argument of "
                 << entryName << " (it takes arg0 to arg" << numArgs - 1
                 << ")\n";
    return false;
  }
  return true;
}

/// Calls the entry; with --bench, N more times into the same results,
/// reporting the median time.
bool call(kiln_module_t module, const std::vector<kiln_tensor_t> &args,
          std::vector<Tensor> &results) {
  size_t numResults = kiln_module_entry_num_results(module, entryName.c_str());
  std::vector<kiln_tensor_t> raw(numResults);
  auto once = [&] {
    bool ok = !failed(kiln_module_call(module, entryName.c_str(), args.size(),
                                       args.data(), numResults, raw.data()));
    results.clear();
    if (ok)
      for (kiln_tensor_t result : raw)
        results.push_back(Tensor(result));
    return ok;
  };
  if (!once())
    return false;
  if (benchCalls == 0)
    return true;
  // Later calls write into the first call's results, as a caller that keeps
  // its buffers would.
  for (size_t i = 0; i < numResults; ++i)
    raw[i] = results[i].get();
  std::vector<double> seconds;
  for (unsigned i = 0; i < benchCalls; ++i) {
    auto start = std::chrono::steady_clock::now();
    if (failed(kiln_module_call_into(module, entryName.c_str(), args.size(),
                                     args.data(), numResults, raw.data())))
      return false;
    seconds.push_back(std::chrono::duration<double>(
                          std::chrono::steady_clock::now() - start)
                          .count());
  }
  std::nth_element(seconds.begin(), seconds.begin() + seconds.size() / 2,
                   seconds.end());
  llvm::outs() << llvm::format("%s: median %.6f ms per call over %u calls\n",
                               entryName.c_str(),
                               seconds[seconds.size() / 2] * 1e3,
                               unsigned(benchCalls));
  return true;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  cl::ParseCommandLineOptions(argc, argv, "Run a function of a kiln program\n");
  kiln::Module owner;
  bool isSource = llvm::StringRef(inputFile).ends_with(".mlir");
  if (failed(isSource ? kiln::Module::compile(inputFile, owner)
                      : kiln::Module::load(inputFile, owner)))
    return 1;
  kiln_module_t module = owner.get();
  if (kiln_module_entry_num_args(module, entryName.c_str()) < 0) {
    llvm::errs() << "kiln-run: error: " << inputFile << " has no entry '"
                 << entryName << "'";
    size_t count = kiln_module_entry_count(module);
    for (size_t i = 0; i < count; ++i)
      llvm::errs() << (i ? ", " : "; its entries are: ")
                   << kiln_module_entry_name(module, i);
    llvm::errs() << "\n";
    return 1;
  }
  std::vector<Tensor> args, results;
  if (!readArguments(module, args))
    return 1;
  std::vector<kiln_tensor_t> rawArgs;
  for (Tensor &arg : args)
    rawArgs.push_back(arg.get());
  if (!call(module, rawArgs, results))
    return 1;

  std::vector<std::string> names;
  for (size_t i = 0; i < results.size(); ++i) {
    names.push_back("out" + std::to_string(i));
    if (kiln_tensor_dtype(results[i].get()) == KILN_BF16 &&
        !(results[i] = convertFloat(results[i].get(), KILN_F32)))
      return 1;
    if (printResults)
      llvm::outs() << names[i] << " = " << kiln::formatTensor(results[i].get())
                   << "\n";
  }
  if (!outputPath.empty()) {
    std::vector<const char *> cNames;
    std::vector<kiln_tensor_t> rawResults;
    for (size_t i = 0; i < results.size(); ++i) {
      cNames.push_back(names[i].c_str());
      rawResults.push_back(results[i].get());
    }
    if (failed(kiln_npz_write(outputPath.c_str(), results.size(), cNames.data(),
                              rawResults.data(), /*compress=*/1)))
      return 1;
  }
  return 0;
}
