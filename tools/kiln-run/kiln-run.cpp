//===- kiln-run.cpp - run a function of a kiln program --------------------===//
//
// kiln-run FILE --entry NAME [--input IN.npz] [--output OUT.npz] [--print]
//          [--bench N] [--device cpu|cuda] [--check-grads]
//          [--check-vmap [--in-axes A,B,...]] [--report=memory]
//          [--interpret]
//
// FILE is a .mlir source (compiled in process for --device, the CPU by
// default) or an artifact from kiln-compile (which says where it runs).
// Arguments come from IN.npz arrays arg0, arg1, ...; results go to OUT.npz
// as out0, out1, ... and/or are printed. numpy has no bf16: a bf16 argument
// is given as float32 (rounded to nearest even) and a bf16 result is
// written as float32. Arguments are copied to the entry's device once and
// results back once; --bench times the calls alone. --check-grads checks
// the entry's derivatives at the arguments, --check-vmap its kiln.vmap on a
// batch of arguments, instead of printing its results (EntryChecks.h).
// --interpret runs a .mlir source's entry with the reference interpreter
// (interpreter/) instead of compiled code, to tell a miscompile from a
// wrong program.
//
// kiln-run links only the runtime core: it opens the compiler
// (libkiln_runtime_jit.so, beside libkiln_runtime.so) only for a .mlir
// source, so artifacts run on machines without LLVM, and MPI
// (libkiln_runtime_mpi.so) only when mpirun started it.
//
//===----------------------------------------------------------------------===//
#include "EntryChecks.h"
#include "ShowSharding.h"
#include "TensorText.h"
#include "kiln/mpi.h"
#include "kiln/runtime.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using kiln::Tensor;

/// The command line.
struct Options {
  std::string inputFile, entryName, inputPath, outputPath;
  bool printResults = false, checkGrads = false, checkVmap = false,
       reportMemory = false, interpret = false;
  /// --check-vmap's batch axis of each argument (empty: all 0).
  std::vector<int64_t> inAxes;
  unsigned benchCalls = 0;
  /// --threads: the threads parallel loops use (0: the runtime's default).
  unsigned threads = 0;
  /// Where a .mlir source runs; an artifact says where it runs.
  kiln_device_t device = KILN_DEVICE_CPU;
  bool deviceGiven = false;
  /// The jit's disk cache: --cache-dir (empty: the default), or none
  /// (--no-disk-cache); --explain-cache prints the cache's log.
  std::string cacheDir;
  bool diskCache = true, explainCache = false;
  /// --cpu-options: kiln-to-cpu-pipeline options for the jit's compiles.
  std::string cpuOptions;
  /// --devices: the in-process devices the entry must run on (0: any).
  unsigned devices = 0;
  /// --show-sharding: draw each argument's and result's layout.
  bool showSharding = false;
};
Options options;

const char *const kUsage =
    "usage: kiln-run FILE --entry NAME [--input IN.npz] [--output OUT.npz]\n"
    "                [--print] [--bench N] [--device cpu|cuda] "
    "[--check-grads]\n"
    "                [--check-vmap [--in-axes A,B,...]] [--report=memory]\n"
    "                [--threads N] [--cache-dir DIR] [--no-disk-cache]\n"
    "                [--explain-cache] [--cpu-options 'NAME=VALUE ...']\n"
    "                [--devices N] [--show-sharding] [--interpret]\n"
    "Run a function of a kiln program (.mlir source or artifact).\n"
    "A .mlir source's entry is compiled for the CPU once per signature and\n"
    "kept in a disk cache (--cache-dir, default $KILN_CACHE_DIR, else\n"
    "$XDG_CACHE_HOME/kiln, else ~/.cache/kiln); --no-disk-cache keeps it in\n"
    "memory only; --explain-cache prints each compile, load from disk and\n"
    "cache miss, with what differed from the closest cached entry.\n"
    "--cpu-options: kiln-to-cpu-pipeline options of those compiles\n"
    "(\"approximate-math=false\"; part of the cache key).\n"
    "--devices: check that a sharded program's mesh has N devices (it runs\n"
    "on them, one thread each, sharing --threads); --show-sharding: draw\n"
    "each argument's and result's layout over the mesh.\n"
    "Under mpirun (-np: the mesh's devices), each rank runs one device of a\n"
    "sharded program, the collectives going through MPI; rank 0 prints and\n"
    "writes the results.\n"
    "--threads: how many threads parallel loops use (default: the CPUs this\n"
    "process may run on).\n"
    "--report=memory: print the peak bytes of the buffers the call allocated\n"
    "(arguments and results not included).\n"
    "--check-grads: compare the entry's jvp with finite differences and its\n"
    "vjp with its jvp at the arguments (a .mlir source on the CPU).\n"
    "--interpret: run a .mlir source's entry with Kiln's reference\n"
    "interpreter (plain C++, op by op, no code generation) instead of\n"
    "compiled code: slow, for telling a miscompile from a wrong program.\n"
    "--check-vmap: compare the entry's kiln.vmap over a batch of arguments\n"
    "(batched along --in-axes, -1 for none; all 0 by default) with a loop\n"
    "of calls on each slice (a .mlir source on the CPU).\n";

/// Parses --in-axes' comma-separated integers into `options.inAxes`.
bool parseAxes(const std::string &value) {
  std::stringstream list(value);
  for (std::string item; std::getline(list, item, ',');) {
    char *end = nullptr;
    long long axis = std::strtoll(item.c_str(), &end, 10);
    if (item.empty() || *end || axis < -1 || axis > 64) {
      std::cerr << "kiln-run: error: --in-axes: '" << item
                << "' is not a batch axis (-1 for none, else 0 to 64)\n";
      return false;
    }
    options.inAxes.push_back(axis);
  }
  return true;
}

/// Parses `value`, the value of `flag`, as a count from `least` to
/// 1000000000 into `count`; prints the problem and returns false if it is
/// not one.
bool parseCount(const std::string &flag, const std::string &value,
                unsigned long least, unsigned &count) {
  char *end = nullptr;
  unsigned long parsed = std::strtoul(value.c_str(), &end, 10);
  if (value.empty() || value[0] == '-' || *end || parsed < least ||
      parsed > 1000000000) {
    std::cerr << "kiln-run: error: " << flag << ": '" << value
              << "' is not a count (" << least << " to 1000000000)\n";
    return false;
  }
  count = unsigned(parsed);
  return true;
}

/// Parses argv into `options`; prints the problem and returns false if it
/// is malformed.
bool parseCommandLine(int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i], value;
    size_t equals = arg.find('=');
    bool inlineValue = arg.rfind("--", 0) == 0 && equals != std::string::npos;
    if (inlineValue) {
      value = arg.substr(equals + 1);
      arg = arg.substr(0, equals);
    }
    auto takeValue = [&]() -> bool {
      if (inlineValue)
        return true;
      if (i + 1 >= argc) {
        std::cerr << "kiln-run: error: " << arg << " needs a value\n";
        return false;
      }
      value = argv[++i];
      return true;
    };
    if (arg == "--help" || arg == "-h") {
      std::cout << kUsage;
      std::exit(0);
    } else if (arg == "--print") {
      options.printResults = true;
    } else if (arg == "--check-grads") {
      options.checkGrads = true;
    } else if (arg == "--check-vmap") {
      options.checkVmap = true;
    } else if (arg == "--interpret") {
      options.interpret = true;
    } else if (arg == "--no-disk-cache") {
      options.diskCache = false;
    } else if (arg == "--show-sharding") {
      options.showSharding = true;
    } else if (arg == "--explain-cache") {
      options.explainCache = true;
    } else if (arg == "--report") {
      if (!takeValue())
        return false;
      if (value != "memory") {
        std::cerr << "kiln-run: error: --report: '" << value
                  << "' is not a report (memory)\n";
        return false;
      }
      options.reportMemory = true;
    } else if (arg == "--in-axes") {
      if (!takeValue() || !parseAxes(value))
        return false;
    } else if (arg == "--entry" || arg == "--input" || arg == "--output" ||
               arg == "--bench" || arg == "--device" || arg == "--threads" ||
               arg == "--cache-dir" || arg == "--cpu-options" ||
               arg == "--devices") {
      if (!takeValue())
        return false;
      if (arg == "--entry")
        options.entryName = value;
      else if (arg == "--input")
        options.inputPath = value;
      else if (arg == "--output")
        options.outputPath = value;
      else if (arg == "--cache-dir")
        options.cacheDir = value;
      else if (arg == "--cpu-options")
        options.cpuOptions = value;
      else if (arg == "--bench") {
        if (!parseCount(arg, value, 0, options.benchCalls))
          return false;
      } else if (arg == "--threads") {
        if (!parseCount(arg, value, 1, options.threads))
          return false;
      } else if (arg == "--devices") {
        if (!parseCount(arg, value, 1, options.devices))
          return false;
      } else if (value == "cpu" || value == "cuda") {
        options.device = value == "cpu" ? KILN_DEVICE_CPU : KILN_DEVICE_CUDA;
        options.deviceGiven = true;
      } else {
        std::cerr << "kiln-run: error: --device: '" << value
                  << "' is not a device (cpu, cuda)\n";
        return false;
      }
    } else if (arg.rfind("-", 0) == 0 && arg.size() > 1) {
      std::cerr << "kiln-run: error: unknown option '" << argv[i] << "'\n"
                << kUsage;
      return false;
    } else if (options.inputFile.empty()) {
      options.inputFile = arg;
    } else {
      std::cerr << "kiln-run: error: more than one FILE ('"
                << options.inputFile << "', '" << arg << "')\n";
      return false;
    }
  }
  if (options.inputFile.empty() || options.entryName.empty()) {
    std::cerr << "kiln-run: error: FILE and --entry NAME are required\n"
              << kUsage;
    return false;
  }
  return true;
}

/// The function `name` of `library`, a part of the runtime beside its
/// core, which stays loaded (a module's code may live in it: the JIT);
/// null, with the reason in `why`, if it cannot be loaded.
void *runtimeFunction(std::string library, const char *name,
                      std::string &why) {
  Dl_info info;
  if (dladdr(reinterpret_cast<void *>(&kiln_module_load), &info) &&
      info.dli_fname) {
    std::string core = info.dli_fname;
    size_t slash = core.rfind('/');
    if (slash != std::string::npos)
      library = core.substr(0, slash + 1) + library;
  }
  void *handle = dlopen(library.c_str(), RTLD_NOW | RTLD_GLOBAL);
  void *function = handle ? dlsym(handle, name) : nullptr;
  if (!function) {
    const char *error = dlerror();
    why = error ? error : library;
  }
  return function;
}

/// The function `name` of the compiler library, loaded for the source at
/// `path`; exits, saying why, if it cannot be.
void *compilerFunction(const char *name, const std::string &path) {
  std::string why;
  void *function = runtimeFunction("libkiln_runtime_jit.so", name, why);
  if (!function) {
    std::fprintf(stderr,
                 "kiln-run: error: %s is a source, and the Kiln compiler "
                 "cannot be loaded here (%s): compile it with kiln-compile "
                 "and run the artifact\n",
                 path.c_str(), why.c_str());
    std::exit(1);
  }
  return function;
}


/// Compiles the .mlir source at `path` for `device` with the compiler
/// library beside the runtime core.
kiln_status_t compileSource(const std::string &path, kiln_device_t device,
                            kiln_module_t *out) {
  using CompileFor = kiln_status_t (*)(const char *, kiln_device_t,
                                       kiln_module_t *);
  auto compile = reinterpret_cast<CompileFor>(
      compilerFunction("kiln_module_compile_for", path));
  return compile(path.c_str(), device, out);
}

/// Prints the error of `status` if it is one; true if it was.
bool failed(const kiln::Status &status) {
  if (status)
    return false;
  std::cerr << "kiln-run: error: " << status.message() << "\n";
  return true;
}

/// Prints the error of `status` (freeing it); true if there was one.
bool failed(kiln_status_t status) { return failed(kiln::Status(status)); }

/// This process's place among the ranks an MPI launcher (mpirun) started,
/// through libkiln_runtime_mpi (kiln/mpi.h), opened only then.
struct MpiRank {
  const kiln_transport_t *transport = nullptr;
  int64_t size = 0;
  void (*abort)(int) = nullptr;
  void (*finalize)() = nullptr;
};
/// Null unless an MPI launcher started this process.
const MpiRank *mpiRank = nullptr;

/// Whether an MPI launcher started this process (Open MPI's, MPICH's and
/// PMIx's environments say so).
bool launchedByMpi() {
  for (const char *name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"})
    if (std::getenv(name))
      return true;
  return false;
}

/// Initializes MPI and this rank's transport into `rank`; prints why and
/// returns false if it cannot.
bool joinRanks(MpiRank &rank) {
  std::string why;
  auto load = [&](auto &function, const char *name) {
    if (void *found = runtimeFunction("libkiln_runtime_mpi.so", name, why))
      function = reinterpret_cast<std::remove_reference_t<decltype(function)>>(
          found);
    return function != nullptr;
  };
  decltype(&kiln_mpi_transport) transport = nullptr;
  decltype(&kiln_mpi_size) size = nullptr;
  if (!load(transport, "kiln_mpi_transport") || !load(size, "kiln_mpi_size") ||
      !load(rank.abort, "kiln_mpi_abort") ||
      !load(rank.finalize, "kiln_mpi_finalize")) {
    std::cerr << "kiln-run: error: an MPI launcher started kiln-run, and "
                 "Kiln's MPI library cannot be loaded here ("
              << why << "): build Kiln where Open MPI is installed\n";
    return false;
  }
  if (failed(transport(&rank.transport)))
    return false;
  rank.size = size();
  return true;
}

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

/// The entry's `numArgs` arguments from the .npz at `path`, named arg0,
/// arg1, ..., each converted from f32 where `dtypeOf` its index is bf16.
/// Converts `arg`, read from a file, to the argument's `dtype`: numpy has
/// no bf16, so a bf16 argument comes as f32. False (reported) if it
/// cannot be allocated.
bool toArgumentDtype(Tensor &arg, kiln_dtype_t dtype) {
  return !(dtype == KILN_BF16 && kiln_tensor_dtype(arg.get()) == KILN_F32 &&
           !(arg = convertFloat(arg.get(), KILN_BF16)));
}

bool readArguments(int64_t numArgs,
                   const std::function<kiln_dtype_t(int64_t)> &dtypeOf,
                   std::vector<Tensor> &args) {
  if (options.inputPath.empty()) {
    if (numArgs == 0)
      return true;
    std::cerr << "kiln-run: error: " << options.entryName << " takes " << numArgs
                 << " arguments: give them as arg0, ... in --input IN.npz\n";
    return false;
  }
  size_t count;
  char **names;
  kiln_tensor_t *tensors;
  if (failed(kiln_npz_read(options.inputPath.c_str(), &count, &names, &tensors)))
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
      std::cerr << "kiln-run: error: " << options.inputPath << " has no array "
                   << name << " (" << options.entryName << " takes " << numArgs
                   << " arguments)\n";
      return false;
    }
    Tensor arg = std::move(found->second);
    if (!toArgumentDtype(arg, dtypeOf(i)))
      return false;
    args.push_back(std::move(arg));
    byName.erase(found);
  }
  if (!byName.empty()) {
    std::cerr << "kiln-run: error: " << options.inputPath << " has array '"
                 << byName.begin()->first << "', which is not an argument of "
                 << options.entryName << " (it takes arg0 to arg" << numArgs - 1
                 << ")\n";
    return false;
  }
  return true;
}

/// Reads this rank's device's part of each argument of the partitioned
/// `module`'s entry from --input (kiln_npz_read_block): no rank holds a
/// whole argument.
bool readArgumentParts(kiln_module_t module, int64_t numArgs,
                       const std::function<kiln_dtype_t(int64_t)> &dtypeOf,
                       std::vector<Tensor> &args) {
  // Without an input, readArguments says what is missing.
  if (options.inputPath.empty())
    return readArguments(numArgs, dtypeOf, args);
  const char *entry = options.entryName.c_str();
  int64_t device = mpiRank->transport->device;
  for (int64_t i = 0; i < numArgs; ++i) {
    int64_t rank = kiln_module_entry_part(module, entry, 0, i, device, nullptr,
                                          nullptr);
    std::vector<int64_t> offsets(rank), shape(rank);
    kiln_module_entry_part(module, entry, 0, i, device, offsets.data(),
                           shape.data());
    std::string name = "arg" + std::to_string(i);
    kiln_tensor_t part = nullptr;
    if (failed(kiln_npz_read_block(options.inputPath.c_str(), name.c_str(),
                                   rank, offsets.data(), shape.data(), &part)))
      return false;
    args.emplace_back(part);
    if (!toArgumentDtype(args.back(), dtypeOf(i)))
      return false;
  }
  return true;
}

/// The jit's C API, from the compiler library.
struct JitApi {
  decltype(&kiln_jit_create) create;
  decltype(&kiln_jit_module) module;
  decltype(&kiln_jit_entry_num_args) numArgs;
  decltype(&kiln_jit_entry_arg) arg;
};

/// The jit run() compiles through: it owns the module called, so it is
/// freed only as the process exits.
struct ExitingJit {
  void (*free)(kiln_jit_t) = nullptr;
  kiln_jit_t jit = nullptr;
  ~ExitingJit() {
    if (jit)
      free(jit);
  }
};
ExitingJit exitingJit;

/// A jit of the .mlir source at `path` with kiln-run's cache options, and
/// its API; the jit lives until the process exits.
kiln_status_t createJit(const std::string &path, JitApi &api,
                        kiln_jit_t *out) {
  auto load = [&](auto &function, const char *name) {
    function = reinterpret_cast<std::remove_reference_t<decltype(function)>>(
        compilerFunction(name, path));
  };
  load(api.create, "kiln_jit_create");
  load(api.module, "kiln_jit_module");
  load(api.numArgs, "kiln_jit_entry_num_args");
  load(api.arg, "kiln_jit_entry_arg");
  kiln_jit_options_t jitOptions{};
  if (!options.diskCache)
    jitOptions.cache_dir = "";
  else if (!options.cacheDir.empty())
    jitOptions.cache_dir = options.cacheDir.c_str();
  jitOptions.cpu_options = options.cpuOptions.c_str();
  if (options.explainCache)
    jitOptions.log = [](void *, const char *line) {
      std::fprintf(stderr, "kiln-run: cache: %s\n", line);
    };
  load(exitingJit.free, "kiln_jit_free");
  kiln_status_t status = api.create(path.c_str(), &jitOptions, out);
  exitingJit.jit = *out;
  return status;
}

/// The dtype of each argument of `entry` as the jit's source declares it.
std::function<kiln_dtype_t(int64_t)>
declaredDtypes(const JitApi &api, kiln_jit_t jit, const char *entry) {
  return [&api, jit, entry](int64_t i) {
    kiln_dtype_t dtype;
    int64_t rank;
    const int64_t *shape;
    int isStatic;
    failed(api.arg(jit, entry, i, &dtype, &rank, &shape, &isStatic));
    return dtype;
  };
}

/// Reads the entry's arguments as the jit's source declares them and
/// compiles the entry for them (or finds it in the cache): the values of
/// static arguments are part of the code.
bool jitEntry(const std::string &path, std::vector<Tensor> &args,
              kiln_module_t *module) {
  JitApi api;
  kiln_jit_t jit = nullptr;
  if (failed(createJit(path, api, &jit)))
    return false;
  const char *entry = options.entryName.c_str();
  int64_t numArgs = api.numArgs(jit, entry);
  // No such entry, or one the compiler rejects: its lookup says why.
  if (numArgs < 0)
    return !failed(api.module(jit, entry, 0, nullptr, module));
  // A rank compiles an entry whose source fixes every argument without
  // them, to read only its parts (readArgumentParts).
  if (mpiRank) {
    kiln_status_t status = api.module(jit, entry, 0, nullptr, module);
    if (!status)
      return true;
    kiln_status_free(status);
  }
  auto dtypeOf = declaredDtypes(api, jit, entry);
  if (!readArguments(numArgs, dtypeOf, args))
    return false;
  std::vector<kiln_tensor_t> raw;
  for (Tensor &arg : args)
    raw.push_back(arg.get());
  return !failed(api.module(jit, entry, raw.size(), raw.data(), module));
}

/// How long --bench calls the entry before timing it.
constexpr std::chrono::milliseconds kWarmUp(20);

/// Calls the entry; with --bench, N more times into the same results
/// (after kWarmUp of untimed ones), reporting the median time.
bool call(kiln_module_t module, std::vector<kiln_tensor_t> args,
          std::vector<Tensor> &results) {
  size_t numResults = kiln_module_entry_num_results(module, options.entryName.c_str());
  std::vector<kiln_tensor_t> raw(numResults);
  // A donated argument (kiln.donate) gives its buffer to a result: each
  // timed call gets a fresh copy of it, made outside the timing.
  auto copyOf = [](kiln_tensor_t tensor, Tensor &copy) {
    kiln_tensor_t raw = nullptr;
    if (failed(kiln_tensor_copy_to(tensor, kiln_tensor_device(tensor), &raw)))
      return false;
    copy = Tensor(raw);
    return true;
  };
  std::vector<std::pair<size_t, Tensor>> donated;
  for (size_t i = 0; options.benchCalls && i < numResults; ++i)
    if (int64_t arg = kiln_module_entry_result_donor(
            module, options.entryName.c_str(), i);
        arg >= 0) {
      donated.emplace_back(arg, Tensor());
      if (!copyOf(args[arg], donated.back().second))
        return false;
    }
  std::vector<Tensor> fresh(donated.size());
  auto once = [&] {
    const char *entry = options.entryName.c_str();
    bool ok = !failed(
        mpiRank && kiln_module_mesh_rank(module) > 0
            ? kiln_module_call_device(module, entry, mpiRank->transport,
                                          args.size(), args.data(), numResults,
                                          raw.data())
            : kiln_module_call(module, entry, args.size(), args.data(),
                               numResults, raw.data()));
    results.clear();
    if (ok)
      for (kiln_tensor_t result : raw)
        results.push_back(Tensor(result));
    return ok;
  };
  if (!once())
    return false;
  if (options.reportMemory) {
    uint64_t peak = kiln_last_call_peak_bytes();
    std::printf("%s: peak %llu bytes (%.3f MiB) of buffers allocated during "
                "the call\n",
                options.entryName.c_str(), (unsigned long long)peak,
                double(peak) / (1 << 20));
    std::fflush(stdout);
  }
  if (options.benchCalls == 0)
    return true;
  // Later calls write into the first call's results, as a caller that keeps
  // its buffers would.
  for (size_t i = 0; i < numResults; ++i)
    raw[i] = results[i].get();
  // One more call into those results, its time in seconds (negative where
  // it failed).
  auto timed = [&]() -> double {
    for (size_t d = 0; d < donated.size(); ++d) {
      if (!copyOf(donated[d].second.get(), fresh[d]))
        return -1;
      args[donated[d].first] = fresh[d].get();
    }
    auto start = std::chrono::steady_clock::now();
    if (failed(kiln_module_call_into(module, options.entryName.c_str(),
                                     args.size(), args.data(), numResults,
                                     raw.data())))
      return -1;
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start)
        .count();
  };
  // Untimed calls first, for kWarmUp: a fresh process's first calls ran
  // up to 5 times slower (150 x 200 x 50 on an AMD Zen 5: 0.09 ms a call
  // for about 1 ms, then 0.019), which a median of 10 calls took for the
  // product's time.
  for (auto start = std::chrono::steady_clock::now();
       std::chrono::steady_clock::now() - start < kWarmUp;)
    if (timed() < 0)
      return false;
  std::vector<double> seconds;
  for (unsigned i = 0; i < options.benchCalls; ++i) {
    double call = timed();
    if (call < 0)
      return false;
    seconds.push_back(call);
  }
  std::nth_element(seconds.begin(), seconds.begin() + seconds.size() / 2,
                   seconds.end());
  std::printf("%s: median %.6f ms per call over %u calls\n",
              options.entryName.c_str(), seconds[seconds.size() / 2] * 1e3,
              options.benchCalls);
  std::fflush(stdout);
  return true;
}

/// Replaces each of `tensors` by its copy on `device` (if elsewhere).
bool moveTo(std::vector<Tensor> &tensors, kiln_device_t device) {
  for (Tensor &tensor : tensors) {
    if (kiln_tensor_device(tensor.get()) == device)
      continue;
    kiln_tensor_t copy = nullptr;
    if (failed(kiln_tensor_copy_to(tensor.get(), device, &copy)))
      return false;
    tensor = Tensor(copy);
  }
  return true;
}

/// Whether `file` is a .mlir source (else an artifact).
bool isSource(const std::string &file) {
  return file.size() >= 5 && file.compare(file.size() - 5, 5, ".mlir") == 0;
}

/// The flag that makes the call a timing, a check or a report, if one
/// does: each runs alone, on one process.
const char *modeFlag() {
  return options.benchCalls     ? "--bench"
         : options.checkGrads   ? "--check-grads"
         : options.checkVmap    ? "--check-vmap"
         : options.reportMemory ? "--report=memory"
                                : nullptr;
}

/// Prints (--print) and writes (--output) `results`, bf16 ones as f32, if
/// this process `speaks` for the ranks; 0, or 1 when it failed (reported).
int writeResults(std::vector<Tensor> &results, bool speaks) {
  std::vector<std::string> names;
  for (size_t i = 0; i < results.size(); ++i) {
    names.push_back("out" + std::to_string(i));
    if (kiln_tensor_dtype(results[i].get()) == KILN_BF16 &&
        !(results[i] = convertFloat(results[i].get(), KILN_F32)))
      return 1;
    if (options.printResults && speaks)
      std::cout << names[i] << " = " << kiln::formatTensor(results[i].get())
                << "\n";
  }
  if (!options.outputPath.empty() && speaks) {
    std::vector<const char *> cNames;
    std::vector<kiln_tensor_t> rawResults;
    for (size_t i = 0; i < results.size(); ++i) {
      cNames.push_back(names[i].c_str());
      rawResults.push_back(results[i].get());
    }
    if (failed(kiln_npz_write(options.outputPath.c_str(), results.size(),
                              cNames.data(), rawResults.data(),
                              /*compress=*/1)))
      return 1;
  }
  return 0;
}

/// Runs the entry of the .mlir source `file` with the reference
/// interpreter (--interpret); 0, or 1 when it failed (reported).
int interpretEntry(const std::string &file) {
  const char *clash = modeFlag();
  if (!clash && options.device != KILN_DEVICE_CPU)
    clash = "--device cuda";
  if (clash) {
    std::cerr << "kiln-run: error: --interpret runs the interpreter alone: "
                 "drop "
              << clash << "\n";
    return 1;
  }
  if (!isSource(file)) {
    std::cerr << "kiln-run: error: --interpret needs a .mlir source, not the "
                 "artifact "
              << file << "\n";
    return 1;
  }
  JitApi api;
  kiln_jit_t jit = nullptr;
  if (failed(createJit(file, api, &jit)))
    return 1;
  auto numResults = reinterpret_cast<decltype(&kiln_jit_entry_num_results)>(
      compilerFunction("kiln_jit_entry_num_results", file));
  auto interpret = reinterpret_cast<decltype(&kiln_jit_interpret)>(
      compilerFunction("kiln_jit_interpret", file));
  const char *entry = options.entryName.c_str();
  int64_t numArgs = api.numArgs(jit, entry);
  // No such entry: the jit's lookup names the entries there are.
  if (numArgs < 0) {
    kiln_module_t module;
    failed(api.module(jit, entry, 0, nullptr, &module));
    return 1;
  }
  auto dtypeOf = declaredDtypes(api, jit, entry);
  std::vector<Tensor> args, results;
  if (!readArguments(numArgs, dtypeOf, args))
    return 1;
  std::vector<kiln_tensor_t> rawArgs, rawResults(numResults(jit, entry));
  for (Tensor &arg : args)
    rawArgs.push_back(arg.get());
  if (failed(interpret(jit, entry, rawArgs.size(), rawArgs.data(),
                       rawResults.size(), rawResults.data())))
    return 1;
  for (kiln_tensor_t result : rawResults)
    results.emplace_back(result);
  return writeResults(results, /*speaks=*/true);
}

} // namespace

/// Whether the ranks an MPI launcher started are the devices of `file`'s
/// mesh (`devices` of them) and the options are those that run under it;
/// prints why not.
bool checkRanks(const std::string &file, int64_t devices) {
  if (const char *alone = options.interpret ? "--interpret" : modeFlag()) {
    std::cerr << "kiln-run: error: " << alone
              << " runs on one process: run it without mpirun\n";
    return false;
  }
  if (devices != mpiRank->size) {
    std::cerr << "kiln-run: error: " << file << " runs on " << devices
              << " device" << (devices == 1 ? " (it is not sharded over a "
                                              "mesh)"
                                            : "s (the devices of its mesh)")
              << ", and mpirun started " << mpiRank->size
              << " processes: start one per device\n";
    return false;
  }
  return true;
}

/// Runs the command line's entry: 0, or 1 when it failed (reported).
int run() {
  if (options.threads && failed(kiln_set_num_threads(options.threads)))
    return 1;
  const std::string &file = options.inputFile;
  if (options.interpret && !mpiRank)
    return interpretEntry(file);
  kiln_module_t module = nullptr;
  bool source = isSource(file);
  bool jit = source && options.device == KILN_DEVICE_CPU;
  std::vector<Tensor> args, results;
  if (jit ? !jitEntry(file, args, &module)
          : failed(source ? compileSource(file, options.device, &module)
                            : kiln_module_load(file.c_str(), &module)))
    return 1;
  // A jit's module is the jit's.
  kiln::Module owner(jit ? nullptr : module);
  kiln_device_t device = kiln_module_device(module);
  if (options.deviceGiven && device != options.device) {
    std::cerr << "kiln-run: error: " << file << " runs on "
              << kiln_device_name(device) << ", not on "
              << kiln_device_name(options.device) << "\n";
    return 1;
  }
  if (kiln_module_entry_num_args(module, options.entryName.c_str()) < 0) {
    std::cerr << "kiln-run: error: " << file << " has no entry '"
              << options.entryName << "'";
    size_t count = kiln_module_entry_count(module);
    for (size_t i = 0; i < count; ++i)
      std::cerr << (i ? ", " : "; its entries are: ")
                << kiln_module_entry_name(module, i);
    std::cerr << "\n";
    return 1;
  }
  int64_t devices = kiln_module_device_count(module);
  if (options.devices && devices != int64_t(options.devices)) {
    std::cerr << "kiln-run: error: --devices " << options.devices << ": "
              << file << " runs on " << devices << " device"
              << (devices == 1 ? " (it is not sharded over a mesh)"
                               : "s (the devices of its mesh)")
              << "\n";
    return 1;
  }
  if (mpiRank && !checkRanks(file, devices))
    return 1;
  bool speaks = !mpiRank || mpiRank->transport->device == 0;
  if (options.showSharding && speaks)
    std::cout << kiln::showSharding(module, options.entryName);
  auto dtypeOf = [&](int64_t i) {
    kiln_dtype_t dtype;
    int64_t rank;
    const int64_t *shape;
    failed(kiln_module_entry_arg(module, options.entryName.c_str(), i, &dtype,
                                 &rank, &shape));
    return dtype;
  };
  // A jit's entry may have read its arguments to compile; a rank of a
  // partitioned entry reads its device's parts only.
  int64_t numArgs = kiln_module_entry_num_args(module, options.entryName.c_str());
  bool parts = mpiRank && kiln_module_mesh_rank(module) > 0;
  if ((int64_t(args.size()) != numArgs &&
       !(parts ? readArgumentParts(module, numArgs, dtypeOf, args)
               : readArguments(numArgs, dtypeOf, args))) ||
      !moveTo(args, device))
    return 1;
  std::vector<kiln_tensor_t> rawArgs;
  for (Tensor &arg : args)
    rawArgs.push_back(arg.get());
  if (options.checkGrads || options.checkVmap) {
    const char *flag = options.checkGrads ? "--check-grads" : "--check-vmap";
    if (!source || device != KILN_DEVICE_CPU) {
      std::cerr << "kiln-run: error: " << flag
                << " needs a .mlir source run on the CPU: the transformed "
                   "entry is compiled from it\n";
      return 1;
    }
    auto compile = [](const std::string &path, kiln_module_t *out) {
      return compileSource(path, KILN_DEVICE_CPU, out);
    };
    return options.checkGrads
               ? kiln::checkGradients(file, options.entryName, module,
                                      rawArgs, compile)
               : kiln::checkVmap(file, options.entryName, module, rawArgs,
                                 options.inAxes, compile);
  }
  if (!call(module, rawArgs, results) || !moveTo(results, KILN_DEVICE_CPU))
    return 1;

  return writeResults(results, speaks);
}

int main(int argc, char **argv) {
  if (!parseCommandLine(argc, argv))
    return 1;
  if (!launchedByMpi())
    return run();
  MpiRank rank;
  if (!joinRanks(rank))
    return 1;
  mpiRank = &rank;
  // A rank that fails ends them all: the others would wait for it.
  if (int status = run())
    rank.abort(status);
  rank.finalize();
  return 0;
}
