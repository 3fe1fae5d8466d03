//===- JitEntries.cpp - kiln_jit_*: entries compiled on first call --------===//
//
// A jit parses its source once; the first lookup of an entry and signature
// builds the entry's cache key, then looks in the process's memory cache,
// then on disk, and compiles on a miss (saying why it missed). Later
// lookups of that signature find the module in the jit's own table under a
// shared lock.
//
//===----------------------------------------------------------------------===//
#include "../Internal.h"
#include "CompileCache.h"
#include "HostTensors.h"
#include "compiler/Compiler.h"
#include "kiln/KilnDialect.h"
#include "lowering/common/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/OperationSupport.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SHA256.h"
#include "llvm/TargetParser/Host.h"

#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <dlfcn.h>
#include <functional>
#include <map>
#include <mutex>
#include <shared_mutex>
#include <thread>

using namespace kiln::jit;
using kiln::runtime::error;

namespace {
using ModuleRef = std::shared_ptr<kiln_module>;

/// Compiled modules by key hash, shared by every jit of the process, and
/// the keys they were compiled for (for explanations). Compiles run one at
/// a time under its mutex: threads asking for one entry compile it once.
struct MemoryCache {
  std::mutex mutex;
  std::map<std::string, ModuleRef> modules;
  std::vector<CacheKey> keys;
};

MemoryCache &memoryCache() {
  // Never destroyed: modules may be called until the process exits.
  static MemoryCache *cache = new MemoryCache;
  return *cache;
}

/// An entry compiled for arguments of these dtypes and shapes, and these
/// values of its static arguments (by index).
struct Specialization {
  std::vector<kiln_dtype_t> dtypes;
  std::vector<std::vector<int64_t>> shapes;
  std::vector<std::pair<unsigned, std::string>> staticValues;
  ModuleRef module;

  bool matches(size_t count, const kiln_tensor_t *args) const {
    if (count == 0 && !args)
      return staticValues.empty();
    if (count != dtypes.size())
      return false;
    for (size_t i = 0; i < count; ++i)
      if (!args[i] || args[i]->dtype != dtypes[i] ||
          args[i]->shape != shapes[i])
        return false;
    for (const auto &[index, bytes] : staticValues) {
      // A static value an asynchronous call computes is read once it is
      // there; if that call failed, the lookup's compile path says so.
      if (kiln_status_t status =
              kiln::runtime::waitForProducer(args[index], "")) {
        kiln_status_free(status);
        return false;
      }
      if (args[index]->device != KILN_DEVICE_CPU ||
          std::memcmp(args[index]->data.get(), bytes.data(), bytes.size()))
        return false;
    }
    return true;
  }
};

/// `status` (a failure) as an error; frees it.
llvm::Error errorOf(kiln_status_t status) {
  std::string why = status->message;
  kiln_status_free(status);
  return llvm::createStringError(why);
}

/// `type` as MLIR prints it ("tensor<4xf32>").
std::string textOf(mlir::Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return text;
}

/// The indices of `fn`'s arguments marked kiln.static.
std::vector<unsigned> staticArguments(mlir::func::FuncOp fn) {
  std::vector<unsigned> indices;
  for (unsigned i = 0; i < fn.getNumArguments(); ++i)
    if (fn.getArgAttr(i, kiln::KilnDialect::kStaticAttrName))
      indices.push_back(i);
  return indices;
}

/// What a call's argument of `type` must be, as checkArgument takes it
/// (-1 stays for a dynamic size).
kiln::runtime::TensorSpec specOf(mlir::RankedTensorType type) {
  return {kiln_dtype_t(kiln::runtimeDtypeCode(type.getElementType())),
          std::vector<int64_t>(type.getShape())};
}

/// The bytes of host tensor `tensor`.
llvm::StringRef bytesOf(kiln_tensor_t tensor) {
  return llvm::StringRef(static_cast<const char *>(tensor->data.get()),
                         tensor->byteLength);
}

/// Replaces `fn`'s static argument `index` in its body by a constant of
/// `value`'s elements; `text` describes the value for the cache key (the
/// elements when few, else a hash of them). Fails, naming the argument,
/// if `value` is not a host tensor of the argument's type.
llvm::Error bakeStaticArgument(mlir::func::FuncOp fn, unsigned index,
                               kiln_tensor_t value, std::string &text) {
  auto type = mlir::cast<mlir::RankedTensorType>(fn.getArgumentTypes()[index]);
  std::string name = "arg" + std::to_string(index);
  if (!value || value->device != KILN_DEVICE_CPU)
    return llvm::createStringError(name + ": a static argument must be a "
                                          "host tensor");
  if (kiln_status_t status = kiln::runtime::waitForProducer(value, name))
    return errorOf(status);
  std::string given = kiln::runtime::specText({value->dtype, value->shape});
  if (kiln::runtimeDtypeCode(type.getElementType()) != value->dtype ||
      llvm::ArrayRef<int64_t>(value->shape) != type.getShape())
    return llvm::createStringError(name + ": static argument of type " +
                                   textOf(type) + " given " + given);
  llvm::StringRef bytes = bytesOf(value);
  mlir::DenseElementsAttr elements;
  if (value->dtype == KILN_I1) {
    std::vector<char> flags(bytes.begin(), bytes.end());
    llvm::SmallVector<bool> bits(flags.begin(), flags.end());
    elements = mlir::DenseElementsAttr::get(type, bits);
  } else {
    elements = mlir::DenseElementsAttr::getFromRawBuffer(
        type, llvm::ArrayRef<char>(bytes.data(), bytes.size()));
  }
  if (type.getNumElements() <= 8) {
    std::string shown;
    llvm::raw_string_ostream os(shown);
    elements.print(os);
    // "dense<[1, 2]> : tensor<2xi32>": the values; the type is `given`.
    text = given + " " + shown.substr(0, shown.rfind(" : "));
  } else {
    text = given + " sha256:" +
           llvm::toHex(llvm::SHA256::hash(llvm::arrayRefFromStringRef(bytes)),
                       /*LowerCase=*/true)
               .substr(0, 16);
  }
  mlir::Block &body = fn.getBody().front();
  mlir::OpBuilder builder(&body, body.begin());
  auto constant = kiln::ConstantOp::create(
      builder, fn.getArgument(index).getLoc(), type, elements);
  fn.getArgument(index).replaceAllUsesWith(constant.getResult());
  return llvm::Error::success();
}

/// The Kiln build: its version and the compiler library's size and time,
/// which change with every build of it.
std::string kilnBuild() {
  std::string build = KILN_VERSION;
  Dl_info info;
  llvm::sys::fs::file_status status;
  if (dladdr(reinterpret_cast<void *>(&kiln_jit_create), &info) &&
      info.dli_fname && !llvm::sys::fs::status(info.dli_fname, status))
    build += " " + std::to_string(status.getSize()) + "-" +
             std::to_string(llvm::sys::toTimeT(
                 status.getLastModificationTime()));
  return build;
}

/// The host CPU's enabled features, sorted.
std::string hostFeatures() {
  std::vector<std::string> enabled;
  for (const auto &feature : llvm::sys::getHostCPUFeatures())
    if (feature.second)
      enabled.push_back(feature.first().str());
  std::sort(enabled.begin(), enabled.end());
  return llvm::join(enabled, ",");
}

/// The signature of a specialization, as kiln-run and logs show it.
std::string describe(llvm::StringRef entry, const CacheKey &key) {
  std::string args;
  for (const auto &[name, value] : key.parts)
    if (llvm::StringRef(name).starts_with("arg"))
      args += (args.empty() ? "" : ", ") + value;
  return "@" + entry.str() + "(" + args + ")";
}

/// A thread that runs tasks one at a time, in the order they came, and
/// finishes them all before it is destroyed.
class Worker {
public:
  ~Worker() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      stopping = true;
    }
    wake.notify_one();
    if (thread.joinable())
      thread.join();
  }
  void enqueue(std::function<void()> task) {
    bool asleep;
    {
      std::lock_guard<std::mutex> lock(mutex);
      tasks.push_back(std::move(task));
      if (!thread.joinable())
        thread = std::thread([this] { run(); });
      asleep = idle;
      idle = false;
    }
    // A busy worker finds the task when it takes its next batch.
    if (asleep)
      wake.notify_one();
  }

private:
  void run() {
    std::deque<std::function<void()>> batch;
    std::unique_lock<std::mutex> lock(mutex);
    while (true) {
      if (tasks.empty()) {
        if (stopping)
          return;
        idle = true;
        wake.wait(lock, [&] { return stopping || !tasks.empty(); });
        continue;
      }
      // The queue's lock is taken once per batch, not once per task.
      batch.swap(tasks);
      lock.unlock();
      for (std::function<void()> &task : batch)
        task();
      batch.clear();
      lock.lock();
    }
  }

  std::mutex mutex;
  std::condition_variable wake;
  std::deque<std::function<void()>> tasks;
  bool stopping = false, idle = false;
  std::thread thread;
};
} // namespace

struct kiln_jit {
  std::unique_ptr<mlir::MLIRContext> context;
  kiln::ParsedSource source;
  std::optional<DiskCache> disk;
  Log log;
  /// kiln_jit_options_t::cpu_options, and every CPU pipeline option's
  /// value they give (for the key).
  std::string cpuOptions;
  std::vector<std::pair<std::string, std::string>> cpuOptionValues;
  std::shared_mutex mutex;
  llvm::StringMap<std::vector<Specialization>> compiled;
  kiln_jit_stats_t stats{};
  /// Each entry's arguments as the source declares them, once asked for.
  struct Argument {
    kiln_dtype_t dtype;
    std::vector<int64_t> shape;
    bool isStatic;
  };
  llvm::StringMap<std::vector<Argument>> declared;
  /// Runs kiln_jit_call_async's calls; destroyed first, after its calls.
  Worker worker;

  /// The arguments of `entry` as the source declares them (-1 for a
  /// dynamic size), or null if it is no entry or an argument is no tensor.
  const std::vector<Argument> *arguments(llvm::StringRef entry);

  /// The module of `entry` for `args`, from the caches or compiled.
  kiln_status_t lookup(llvm::StringRef entry, size_t count,
                       const kiln_tensor_t *args, kiln_module_t *out);

  /// Runs `entry` on `args` with the reference interpreter
  /// (kiln_jit_interpret).
  kiln_status_t interpret(llvm::StringRef entry, size_t count,
                          const kiln_tensor_t *args, size_t numResults,
                          kiln_tensor_t *results);

private:
  /// `entry` and what it calls, with the values of its static arguments
  /// (from `args`) baked in, and its key; or why there is none.
  llvm::Error prepare(llvm::StringRef entry, size_t count,
                      const kiln_tensor_t *args,
                      mlir::OwningOpRef<mlir::ModuleOp> &pruned,
                      CacheKey &key, std::vector<unsigned> &statics);
  /// Gives the dynamic dimensions of `pruned`'s entry `fn` the sizes of
  /// `args`, which must be all of its arguments.
  llvm::Error specialize(mlir::ModuleOp pruned, mlir::func::FuncOp fn,
                         size_t count, const kiln_tensor_t *args);
  /// Compiles `pruned` (from prepare) into an artifact at `path`.
  llvm::Error compile(mlir::OwningOpRef<mlir::ModuleOp> pruned,
                      llvm::StringRef path);
  /// Loads the artifact `bytes`.
  kiln_status_t loadArtifact(llvm::StringRef bytes, ModuleRef &module);
};

llvm::Error kiln_jit::prepare(llvm::StringRef entry, size_t count,
                              const kiln_tensor_t *args,
                              mlir::OwningOpRef<mlir::ModuleOp> &pruned,
                              CacheKey &key, std::vector<unsigned> &statics) {
  if (llvm::Error failure = source.extractEntry(entry, pruned))
    return failure;
  // Printed without locations or the source's names: comments, formatting
  // and unreached functions do not change the key.
  std::string ir;
  llvm::raw_string_ostream os(ir);
  pruned->print(os);
  auto fn = pruned->lookupSymbol<mlir::func::FuncOp>(entry);
  if (kiln::hasDynamicSignature(fn))
    if (llvm::Error failure = specialize(*pruned, fn, count, args))
      return failure;
  key.parts.emplace_back("entry", entry.str());
  for (auto [i, type] : llvm::enumerate(fn.getArgumentTypes()))
    key.parts.emplace_back("arg" + std::to_string(i), textOf(type));
  key.parts.emplace_back(
      "ir", llvm::toHex(llvm::SHA256::hash(llvm::arrayRefFromStringRef(ir)),
                        /*LowerCase=*/true));
  statics = staticArguments(fn);
  for (unsigned i : statics) {
    if (!args || count != fn.getNumArguments())
      return llvm::createStringError(
          "@" + entry.str() + "'s argument " + std::to_string(i) +
          " is static (kiln.static): its value is part of the code, so "
          "pass all " + std::to_string(fn.getNumArguments()) + " arguments");
    std::string value;
    if (llvm::Error failure = bakeStaticArgument(fn, i, args[i], value))
      return failure;
    key.parts.emplace_back("static" + std::to_string(i), value);
  }
  key.parts.emplace_back("target", "cpu");
  for (const auto &[name, value] : cpuOptionValues)
    key.parts.emplace_back("option:" + name, value);
  // The same for every key of the process: found once.
  static const std::string cpu = llvm::sys::getHostCPUName().str(),
                           features = hostFeatures(), build = kilnBuild();
  key.parts.emplace_back("cpu", cpu);
  key.parts.emplace_back("features", features);
  key.parts.emplace_back("kiln", build);
  return llvm::Error::success();
}

llvm::Error kiln_jit::specialize(mlir::ModuleOp pruned, mlir::func::FuncOp fn,
                                 size_t count, const kiln_tensor_t *args) {
  if (!args || count != fn.getNumArguments())
    return llvm::createStringError(
        "@" + fn.getSymName().str() + " has dynamic dimensions: the shapes of "
        "its arguments decide what is compiled, so pass all " +
        std::to_string(fn.getNumArguments()) + " arguments");
  std::vector<std::string> types;
  for (auto [i, type] : llvm::enumerate(fn.getArgumentTypes())) {
    auto declared = mlir::cast<mlir::RankedTensorType>(type);
    std::string name = "arg" + std::to_string(i);
    if (!args[i])
      return llvm::createStringError(name + ": is null");
    // Checked as a call checks them, the declared sizes standing for
    // themselves and the dynamic ones taking what is given.
    kiln::runtime::TensorSpec spec = specOf(declared);
    if (spec.shape.size() == args[i]->shape.size())
      for (auto [size, given] : llvm::zip(spec.shape, args[i]->shape))
        if (mlir::ShapedType::isDynamic(size))
          size = given;
    if (kiln_status_t status = kiln::runtime::checkArgument(
            args[i], spec, args[i]->device, name))
      return errorOf(status);
    types.push_back(textOf(declared.clone(spec.shape)));
  }
  return source.specialize(pruned, fn.getSymName(), types);
}

llvm::Error kiln_jit::compile(mlir::OwningOpRef<mlir::ModuleOp> pruned,
                              llvm::StringRef path) {
  kiln::CompiledProgram program;
  program.module = std::move(pruned);
  kiln::CompileOptions options;
  options.cpuOptions = cpuOptions;
  if (llvm::Error failure = source.compile(options, program))
    return failure;
  return kiln::writeArtifact(program, path);
}

kiln_status_t kiln_jit::loadArtifact(llvm::StringRef bytes,
                                     ModuleRef &module) {
  llvm::SmallString<128> path;
  int fd;
  if (std::error_code code =
          llvm::sys::fs::createTemporaryFile("kiln-jit", "so", fd, path))
    return error("cannot create a temporary artifact: " + code.message());
  llvm::FileRemover remover(path);
  if (std::string why = writeAndClose(fd, bytes); !why.empty())
    return error("cannot write " + std::string(path) + ": " + why);
  kiln_module_t raw = nullptr;
  if (kiln_status_t status = kiln_module_load(path.c_str(), &raw))
    return status;
  module = ModuleRef(raw, kiln_module_free);
  return nullptr;
}

kiln_status_t kiln_jit::lookup(llvm::StringRef entry, size_t count,
                               const kiln_tensor_t *args, kiln_module_t *out) {
  {
    std::shared_lock<std::shared_mutex> lock(mutex);
    auto known = compiled.find(entry);
    if (known != compiled.end())
      for (const Specialization &specialization : known->second)
        if (specialization.matches(count, args)) {
          *out = specialization.module.get();
          return nullptr;
        }
  }
  MemoryCache &memory = memoryCache();
  std::lock_guard<std::mutex> compiling(memory.mutex);
  CacheKey key;
  mlir::OwningOpRef<mlir::ModuleOp> pruned;
  std::vector<unsigned> statics;
  if (llvm::Error failure = prepare(entry, count, args, pruned, key, statics))
    return error(llvm::toString(std::move(failure)));
  std::string hash = key.hash();
  std::string what = describe(entry, key);
  ModuleRef module;
  // What this lookup found, counted in `stats` once it succeeds.
  kiln_jit_stats_t found{};
  if (auto cached = memory.modules.find(hash); cached != memory.modules.end()) {
    module = cached->second;
    ++found.memory_hits;
  } else {
    bool corrupt = false;
    std::optional<std::string> artifact;
    if (disk)
      artifact = disk->load(key, corrupt);
    found.corrupt += corrupt;
    if (artifact) {
      if (kiln_status_t status = loadArtifact(*artifact, module))
        return status;
      ++found.disk_hits;
      log(what + ": loaded from the disk cache (" + disk->pathOf(key) + ")");
    } else {
      std::vector<CacheKey> known = memory.keys;
      if (disk)
        for (CacheKey &other : disk->keys())
          known.push_back(std::move(other));
      log(what + ": cache miss: " + explainMiss(key, known) + "; compiling");
      for (const std::string &line : kiln::donationReport(
               pruned->lookupSymbol<mlir::func::FuncOp>(entry)))
        log(line);
      auto start = std::chrono::steady_clock::now();
      llvm::SmallString<128> path;
      if (std::error_code code =
              llvm::sys::fs::createTemporaryFile("kiln-jit", "so", path))
        return error("cannot create a temporary artifact: " + code.message());
      llvm::FileRemover remover(path);
      if (llvm::Error failure = compile(std::move(pruned), path))
        return error(llvm::toString(std::move(failure)));
      auto bytes = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                               /*RequiresNullTerminator=*/false);
      if (!bytes)
        return error("cannot read the artifact " + std::string(path) + ": " +
                     bytes.getError().message());
      if (kiln_status_t status = loadArtifact((*bytes)->getBuffer(), module))
        return status;
      ++found.compiled;
      double ms = std::chrono::duration<double, std::milli>(
                      std::chrono::steady_clock::now() - start)
                      .count();
      if (disk)
        disk->store(key, (*bytes)->getBuffer());
      log(what + ": compiled in " + std::to_string(int64_t(ms)) + " ms" +
          (disk ? ", stored as " + disk->pathOf(key) : ""));
    }
    memory.modules.emplace(hash, module);
    memory.keys.push_back(key);
  }
  // The specialization is keyed by the types the entry was compiled for:
  // a call with other arguments fails in kiln_module_call, naming them.
  Specialization specialization;
  specialization.module = module;
  for (unsigned i : statics)
    specialization.staticValues.emplace_back(i, bytesOf(args[i]).str());
  std::string name = entry.str();
  int64_t numArgs = kiln_module_entry_num_args(module.get(), name.c_str());
  for (int64_t i = 0; i < numArgs; ++i) {
    kiln_dtype_t dtype;
    int64_t rank;
    const int64_t *shape;
    if (kiln_status_t status = kiln_module_entry_arg(module.get(), name.c_str(),
                                                     i, &dtype, &rank, &shape))
      return status;
    specialization.dtypes.push_back(dtype);
    specialization.shapes.emplace_back(shape, shape + rank);
  }
  std::unique_lock<std::shared_mutex> lock(mutex);
  stats.memory_hits += found.memory_hits;
  stats.disk_hits += found.disk_hits;
  stats.compiled += found.compiled;
  stats.corrupt += found.corrupt;
  compiled[entry].push_back(std::move(specialization));
  *out = module.get();
  return nullptr;
}

kiln_status_t kiln_jit::interpret(llvm::StringRef entry, size_t count,
                                  const kiln_tensor_t *args,
                                  size_t numResults, kiln_tensor_t *results) {
  // The source and its context are shared with compiles.
  std::lock_guard<std::mutex> compiling(memoryCache().mutex);
  CacheKey key;
  mlir::OwningOpRef<mlir::ModuleOp> pruned;
  std::vector<unsigned> statics;
  if (llvm::Error failure = prepare(entry, count, args, pruned, key, statics))
    return error(llvm::toString(std::move(failure)));
  auto fn = pruned->lookupSymbol<mlir::func::FuncOp>(entry);
  std::string name = "@" + entry.str();
  if (count != fn.getNumArguments())
    return error("num_args: " + name + " takes " +
                 std::to_string(fn.getNumArguments()) + " arguments, not " +
                 std::to_string(count));
  if (numResults != fn.getNumResults())
    return error("num_results: " + name + " returns " +
                 std::to_string(fn.getNumResults()) + " results, not " +
                 std::to_string(numResults));
  std::vector<kiln::HostTensor> values, outputs;
  for (auto [i, type] : llvm::enumerate(fn.getArgumentTypes())) {
    auto tensor = mlir::cast<mlir::RankedTensorType>(type);
    if (kiln_status_t status = kiln::runtime::checkArgument(
            args[i], specOf(tensor), KILN_DEVICE_CPU,
            "arg" + std::to_string(i)))
      return status;
    values.push_back(toHostTensor(args[i], tensor));
  }
  if (llvm::Error failure = source.interpret(*pruned, entry, values, outputs))
    return error(llvm::toString(std::move(failure)));
  for (size_t i = 0; i < numResults; ++i)
    if (kiln_status_t status = fromHostTensor(outputs[i], &results[i])) {
      for (size_t made = 0; made < i; ++made) {
        kiln_tensor_free(results[made]);
        results[made] = nullptr;
      }
      return status;
    }
  return nullptr;
}

const std::vector<kiln_jit::Argument> *
kiln_jit::arguments(llvm::StringRef entry) {
  std::unique_lock<std::shared_mutex> lock(mutex);
  if (auto found = declared.find(entry); found != declared.end())
    return &found->second;
  auto fn = source.module->lookupSymbol<mlir::func::FuncOp>(entry);
  if (!fn || !fn.isPublic() || fn.isExternal())
    return nullptr;
  std::vector<Argument> arguments;
  std::vector<unsigned> statics = staticArguments(fn);
  for (auto [i, type] : llvm::enumerate(fn.getArgumentTypes())) {
    auto tensor = mlir::dyn_cast<mlir::RankedTensorType>(type);
    int64_t code =
        tensor ? kiln::runtimeDtypeCode(tensor.getElementType()) : -1;
    if (code < 0)
      return nullptr;
    std::vector<int64_t> shape(tensor.getShape());
    for (int64_t &size : shape)
      if (mlir::ShapedType::isDynamic(size))
        size = -1;
    arguments.push_back({static_cast<kiln_dtype_t>(code), std::move(shape),
                         llvm::is_contained(statics, unsigned(i))});
  }
  return &declared.try_emplace(entry, std::move(arguments)).first->second;
}

kiln_status_t kiln_jit_create(const char *path,
                              const kiln_jit_options_t *options,
                              kiln_jit_t *out) {
  if (!out)
    return error("out: must not be null");
  *out = nullptr;
  if (!path)
    return error("path: must not be null");
  kiln::initializeNativeTarget();
  auto jit = std::make_unique<kiln_jit>();
  jit->context = std::make_unique<mlir::MLIRContext>();
  kiln::prepareContext(*jit->context);
  if (llvm::Error failure = jit->source.parse(*jit->context, path))
    return error(llvm::toString(std::move(failure)));
  if (options && options->cpu_options)
    jit->cpuOptions = options->cpu_options;
  auto values = kiln::cpuPipelineOptions(jit->cpuOptions);
  if (!values)
    return error("options->cpu_options: " + llvm::toString(values.takeError()));
  jit->cpuOptionValues = std::move(*values);
  if (options && options->log) {
    auto log = options->log;
    void *user = options->log_user;
    jit->log = [log, user](const std::string &line) { log(user, line.c_str()); };
  } else {
    jit->log = [](const std::string &) {};
  }
  std::string folder = options && options->cache_dir
                           ? std::string(options->cache_dir)
                           : defaultCacheFolder();
  if (!folder.empty())
    jit->disk.emplace(folder, jit->log);
  *out = jit.release();
  return nullptr;
}

void kiln_jit_free(kiln_jit_t jit) { delete jit; }

namespace {
/// The error of a jit call whose jit, entry or arguments are missing, or
/// null.
kiln_status_t checkCall(kiln_jit_t jit, const char *entry, size_t num_args,
                        const kiln_tensor_t *args) {
  if (!jit)
    return error("jit: must not be null");
  if (!entry)
    return error("entry: must not be null");
  if (num_args && !args)
    return error("args: must not be null when num_args is " +
                 std::to_string(num_args));
  return nullptr;
}
} // namespace

kiln_status_t kiln_jit_module(kiln_jit_t jit, const char *entry,
                              size_t num_args, const kiln_tensor_t *args,
                              kiln_module_t *module) {
  if (!module)
    return error("module: must not be null");
  *module = nullptr;
  if (kiln_status_t status = checkCall(jit, entry, num_args, args))
    return status;
  return jit->lookup(entry, num_args, args, module);
}

int64_t kiln_jit_entry_num_args(kiln_jit_t jit, const char *entry) {
  const std::vector<kiln_jit::Argument> *arguments =
      jit && entry ? jit->arguments(entry) : nullptr;
  return arguments ? int64_t(arguments->size()) : -1;
}

kiln_status_t kiln_jit_entry_arg(kiln_jit_t jit, const char *entry,
                                 size_t index, kiln_dtype_t *dtype,
                                 int64_t *rank, const int64_t **shape,
                                 int *is_static) {
  if (!jit || !entry || !dtype || !rank || !shape || !is_static)
    return error("jit, entry, dtype, rank, shape and is_static must not be "
                 "null");
  const std::vector<kiln_jit::Argument> *arguments = jit->arguments(entry);
  if (!arguments)
    return error(std::string("no entry '") + entry + "' taking tensors");
  if (index >= arguments->size())
    return error("index " + std::to_string(index) + ": @" + entry +
                 " takes " + std::to_string(arguments->size()) +
                 " arguments");
  const kiln_jit::Argument &argument = (*arguments)[index];
  *dtype = argument.dtype;
  *rank = int64_t(argument.shape.size());
  *shape = argument.shape.data();
  *is_static = argument.isStatic;
  return nullptr;
}

int64_t kiln_jit_entry_num_results(kiln_jit_t jit, const char *entry) {
  if (!jit || !entry)
    return -1;
  auto fn = jit->source.module->lookupSymbol<mlir::func::FuncOp>(entry);
  return fn && fn.isPublic() && !fn.isExternal() ? int64_t(fn.getNumResults())
                                                 : -1;
}

kiln_status_t kiln_jit_interpret(kiln_jit_t jit, const char *entry,
                                 size_t num_args, const kiln_tensor_t *args,
                                 size_t num_results, kiln_tensor_t *results) {
  if (kiln_status_t status = checkCall(jit, entry, num_args, args))
    return status;
  if (num_results && !results)
    return error("results: must not be null when num_results is " +
                 std::to_string(num_results));
  for (size_t i = 0; i < num_results; ++i)
    results[i] = nullptr;
  return jit->interpret(entry, num_args, args, num_results, results);
}

kiln_status_t kiln_jit_call(kiln_jit_t jit, const char *entry,
                            size_t num_args, const kiln_tensor_t *args,
                            size_t num_results, kiln_tensor_t *results) {
  kiln_module_t module;
  if (kiln_status_t status =
          kiln_jit_module(jit, entry, num_args, args, &module))
    return status;
  return kiln_module_call(module, entry, num_args, args, num_results, results);
}

namespace {
/// Donates the arguments `donors` (by index) of an asynchronous call of
/// `entry` now: once the calls that write or read them have finished, each
/// one's buffer moves to a tensor only the call holds, which replaces it in
/// `arguments`, and it is consumed, so that no later use can see the buffer
/// the call overwrites. Nothing is donated if one comes from a failed call.
kiln_status_t donateNow(const std::vector<int64_t> &donors, const char *entry,
                        std::vector<kiln_tensor_t> &arguments) {
  for (int64_t donor : donors) {
    if (kiln_status_t status = kiln::runtime::waitForProducer(
            arguments[donor], "arg" + std::to_string(donor)))
      return status;
    kiln::runtime::waitForReaders(arguments[donor]);
  }
  for (int64_t donor : donors) {
    kiln_tensor_t tensor = arguments[donor];
    auto *standIn = new kiln_tensor(tensor->dtype, tensor->device,
                                    tensor->shape, tensor->byteLength);
    standIn->data = std::move(tensor->data);
    tensor->donatedTo = entry;
    arguments[donor] = standIn;
  }
  return nullptr;
}
} // namespace

kiln_status_t kiln_jit_call_async(kiln_jit_t jit, const char *entry,
                                  size_t num_args, const kiln_tensor_t *args,
                                  size_t num_results, kiln_tensor_t *results) {
  kiln_module_t module;
  if (kiln_status_t status =
          kiln_jit_module(jit, entry, num_args, args, &module))
    return status;
  if (num_results && !results)
    return error("results: must not be null");
  // The entry, the counts and the arguments are checked now; the code
  // runs later.
  if (kiln_status_t status = kiln::runtime::checkArguments(
          module, entry, num_args, args, num_results))
    return status;
  std::vector<kiln_tensor_t> arguments(args, args + num_args);
  std::vector<int64_t> donors;
  for (size_t i = 0; i < num_results; ++i)
    donors.push_back(kiln_module_entry_result_donor(module, entry, i));
  std::vector<int64_t> donated;
  std::copy_if(donors.begin(), donors.end(), std::back_inserter(donated),
               [](int64_t donor) { return donor >= 0; });
  std::vector<kiln_tensor_t> outputs;
  if (kiln_status_t status = kiln::runtime::newResults(module, entry, outputs))
    return status;
  if (kiln_status_t status = donateNow(donated, entry, arguments)) {
    for (kiln_tensor_t output : outputs)
      kiln_tensor_free(output);
    return status;
  }
  // A donated buffer becomes its result when the call runs (invoke).
  for (size_t i = 0; i < num_results; ++i)
    if (kiln_tensor_t from = donors[i] >= 0 ? arguments[donors[i]] : nullptr)
      outputs[i] = new kiln_tensor(from->dtype, from->device, from->shape,
                                   from->byteLength);
  auto completion = std::make_shared<kiln::runtime::Completion>();
  for (size_t i = 0; i < outputs.size(); ++i) {
    outputs[i]->producer = completion;
    kiln::runtime::addAsyncUse(outputs[i]);
  }
  for (size_t i = 0; i < num_args; ++i) {
    // The call owns a donated buffer's stand-in alone.
    if (llvm::is_contained(donated, int64_t(i)))
      continue;
    kiln::runtime::addReader(arguments[i], completion);
    kiln::runtime::addAsyncUse(arguments[i]);
  }
  std::string name = entry;
  jit->worker.enqueue([module, name, arguments, outputs, completion] {
    kiln_status_t status = kiln::runtime::callInto(
        module, name.c_str(), arguments.size(), arguments.data(),
        outputs.size(), outputs.data(), /*waitForResults=*/false);
    completion->finish(status ? status->message : "");
    kiln_status_free(status);
    // The call's references: the caller may have freed them meanwhile.
    for (kiln_tensor_t tensor : arguments)
      kiln_tensor_free(tensor);
    for (kiln_tensor_t tensor : outputs)
      kiln_tensor_free(tensor);
  });
  std::copy(outputs.begin(), outputs.end(), results);
  return nullptr;
}

void kiln_jit_get_stats(kiln_jit_t jit, kiln_jit_stats_t *stats) {
  if (!stats)
    return;
  *stats = kiln_jit_stats_t{};
  if (jit) {
    std::shared_lock<std::shared_mutex> lock(jit->mutex);
    *stats = jit->stats;
  }
}
