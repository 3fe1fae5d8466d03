//===- Compiler.cpp - kiln source to the LLVM dialect ---------------------===//
#include "Compiler.h"

#include "frontend/InputLimits.h"
#include "frontend/SourceParser.h"
#include "interpreter/Interpreter.h"
#include "kiln/KilnDialect.h"
#include "kiln/TypeInference.h"
#include "lowering/common/Passes.h"
#include "lowering/cpu/Passes.h"
#include "passes/expand/Passes.h"
#include "passes/jit/Passes.h"
#include "passes/sharding/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/TargetParser/Host.h"

#include <unistd.h>

using namespace mlir;

using kiln::runtime::EntrySignature;
using kiln::runtime::Manifest;
using kiln::runtime::TensorSpec;

void kiln::prepareContext(MLIRContext &context) {
  DialectRegistry registry;
  registerAllDialects(registry);
  context.appendDialectRegistry(registry);
}

namespace {
/// The runtime dtype of a tensor element type, if it has one.
std::optional<kiln_dtype_t> dtypeOf(Type type) {
  int64_t code = kiln::runtimeDtypeCode(type);
  if (code < 0)
    return std::nullopt;
  return static_cast<kiln_dtype_t>(code);
}

/// Appends the spec of each of `types` to `specs`, or reports at `fn` why
/// it cannot be an entry.
LogicalResult collectSpecs(func::FuncOp fn, TypeRange types, StringRef kind,
                           std::vector<TensorSpec> &specs) {
  for (auto [i, type] : llvm::enumerate(types)) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    std::optional<kiln_dtype_t> dtype =
        tensor ? dtypeOf(tensor.getElementType()) : std::nullopt;
    if (tensor && dtype && !tensor.hasStaticShape())
      return fn.emitError("public function @")
             << fn.getName() << "'s " << kind << " #" << i << " has type "
             << type << ", with dynamic dimensions: call it through the jit "
             << "(kiln-run, kiln_jit_call), which compiles it for each "
             << "call's shapes, or give them sizes with kiln-opt "
             << "--kiln-specialize-shapes";
    if (!tensor || !dtype)
      return fn.emitError("public function @")
             << fn.getName() << " cannot be an entry point: its " << kind
             << " #" << i << " has type " << type
             << "; entries take and return statically shaped tensors (make "
                "helpers private)";
    // Declaring one is fine; an entry taking one could never be called.
    if (!kiln::hasAddressableSize(tensor))
      return fn.emitError("public function @")
             << fn.getName() << "'s " << kind << " #" << i << " has type "
             << type << ", of 2^63 bytes or more: no machine can hold it";
    specs.push_back({*dtype, std::vector<int64_t>(tensor.getShape())});
  }
  return success();
}

/// The mesh a partitioned module's entries run on, into `manifest`; the
/// parts of `fn`'s arguments and results (kiln.part) into `entry`, whose
/// specs become those of the whole tensors.
LogicalResult collectParts(ModuleOp module, func::FuncOp fn,
                           EntrySignature &entry, Manifest &manifest) {
  if (llvm::any_of(entry.donors, [](int64_t arg) { return arg >= 0; }))
    return fn.emitError("public function @")
           << fn.getName() << " donates an argument (kiln.donate), which "
           << "partitioned entries do not support yet";
  StringRef name = kiln::KilnDialect::kPartAttrName;
  for (unsigned t = 0; t < fn.getNumArguments() + fn.getNumResults(); ++t) {
    bool isArg = t < fn.getNumArguments();
    unsigned i = isArg ? t : t - fn.getNumArguments();
    auto part = isArg ? fn.getArgAttrOfType<kiln::ShardingAttr>(i, name)
                      : fn.getResultAttrOfType<kiln::ShardingAttr>(i, name);
    TensorSpec &spec = isArg ? entry.args[i] : entry.results[i];
    entry.parts.emplace_back(spec.shape.size());
    if (!part)
      continue;
    auto mesh = module.lookupSymbol<kiln::MeshOp>(part.getMesh());
    if (manifest.meshAxes.empty())
      for (auto [axis, size] : llvm::zip(mesh.getAxisNames(),
                                         mesh.getAxisSizes())) {
        manifest.meshAxes.push_back(cast<StringAttr>(axis).str());
        manifest.meshSizes.push_back(size);
      }
    for (size_t d = 0; d < spec.shape.size(); ++d)
      for (StringRef axis : part.getAxes(d)) {
        auto index = llvm::find(manifest.meshAxes, axis.str()) -
                     manifest.meshAxes.begin();
        entry.parts[t][d].push_back(index);
        spec.shape[d] *= manifest.meshSizes[index];
      }
  }
  return success();
}

/// The entries of `module`: its public functions with bodies.
LogicalResult collectManifest(ModuleOp module, Manifest &manifest,
                              bool partitioned) {
  for (auto fn : module.getOps<func::FuncOp>()) {
    if (!fn.isPublic() || fn.isExternal())
      continue;
    EntrySignature entry;
    entry.name = fn.getName().str();
    if (entry.name.find_first_not_of("abcdefghijklmnopqrstuvwxyz"
                                     "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") !=
        std::string::npos)
      return fn.emitError("public function @")
             << fn.getName()
             << " cannot be an entry point: entry names are identifiers";
    if (failed(collectSpecs(fn, fn.getArgumentTypes(), "argument", entry.args)) ||
        failed(collectSpecs(fn, fn.getResultTypes(), "result", entry.results)))
      return failure();
    SmallVector<int64_t> donors = kiln::donatedBuffers(fn);
    if (llvm::any_of(donors, [](int64_t argument) { return argument >= 0; }))
      entry.donors.assign(donors.begin(), donors.end());
    if (partitioned && failed(collectParts(module, fn, entry, manifest)))
      return failure();
    entry.text = kiln::runtime::signatureText(entry);
    manifest.entries.push_back(std::move(entry));
  }
  return success();
}

/// The CPU pipeline's last stage for `stage` (not Stage::Kiln).
kiln::CpuStage cpuStage(kiln::Stage stage) {
  switch (stage) {
  case kiln::Stage::Linalg:
    return kiln::CpuStage::Linalg;
  case kiln::Stage::Loops:
    return kiln::CpuStage::Loops;
  default:
    return kiln::CpuStage::LLVM;
  }
}

/// The GPU pipeline's last stage for `stage` (not Stage::Kiln).
kiln::GpuStage gpuStage(kiln::Stage stage) {
  switch (stage) {
  case kiln::Stage::Linalg:
    return kiln::GpuStage::Linalg;
  case kiln::Stage::Loops:
    return kiln::GpuStage::Gpu;
  default:
    return kiln::GpuStage::LLVM;
  }
}

/// Sets kiln-to-nvvm-pipeline's options `gpu` from `options`.
void setNvvmOptions(const kiln::CompileOptions &options,
                    kiln::KilnToNvvmPipelineOptions &gpu) {
  gpu.stopAfter = gpuStage(options.stopAfter);
  gpu.chip = options.chip;
  gpu.features = options.features;
  gpu.format = options.gpuBinary;
}

/// Describes the host CPU in `cpu`: the code is compiled for the host
/// (compiler/Artifact.cpp), and its manifest names the features it needs.
void setHostTarget(kiln::KilnToCpuPipelineOptions &cpu) {
  llvm::StringMap<bool> host = llvm::sys::getHostCPUFeatures();
  cpu.avx512Bf16 = host.lookup("avx512bf16");
  // Unless the options turn it off, and only where the kernel lets this
  // process (and so the one that loads the code, on this machine) use AMX
  // tile data.
  cpu.amxBf16 = (cpu.amxBf16 || !cpu.amxBf16.getNumOccurrences()) &&
                host.lookup("amx-tile") && host.lookup("amx-bf16") &&
                kiln::runtime::requestAmxTiles().empty();
  cpu.avx512Vnni = host.lookup("avx512vnni");
  cpu.avx2 = host.lookup("avx2");
  // Unless the options set it, an f32 matmul's register tile is two
  // vectors of columns by as many rows as leave 4 registers for B's
  // vectors and A's broadcasts, at most 8: 8 x 32 on AVX-512's 32 zmm
  // registers, 6 x 16 on AVX2's 16 ymm (where 8 x 32 spilled its 32
  // accumulators and ran 256 x 784 x 512 at 31 GFLOP/s, 6 x 16 at 87, on
  // an AMD Zen 3).
  int64_t lanes = host.lookup("avx512f") ? 16 : host.lookup("avx") ? 8 : 4;
  int64_t registers = host.lookup("avx512f") ? 32 : 16;
  if (!cpu.registerTileN.getNumOccurrences())
    cpu.registerTileN = 2 * lanes;
  if (!cpu.registerTileM.getNumOccurrences())
    cpu.registerTileM = std::min<int64_t>(8, (registers - 4) / 2);
  if (!cpu.vectorBytes.getNumOccurrences())
    cpu.vectorBytes = lanes * int64_t(sizeof(float));
  if (!cpu.vectorRegisters.getNumOccurrences())
    cpu.vectorRegisters = registers;
}

/// The bytes of memory this machine has, or 0 if unknown.
uint64_t physicalMemory() {
  long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && pageSize > 0 ? uint64_t(pages) * uint64_t(pageSize) : 0;
}

/// Lowers `module` as far as `options` says.
LogicalResult lower(ModuleOp module, const kiln::CompileOptions &options) {
  if (options.stopAfter == kiln::Stage::Kiln)
    return success();
  PassManager pm(module.getContext());
  kiln::addPassFailureReport(pm);
  // Host code runs here: a tensor larger than this machine's memory would
  // fail to allocate at run time, so it is refused now, where it is.
  kiln::KilnCheckTensorSizesOptions sizes;
  if (uint64_t memory = physicalMemory();
      memory && options.target == kiln::Target::Cpu) {
    sizes.maxBytes = memory;
    sizes.limitReason = "the memory of this machine";
  }
  pm.addPass(kiln::createKilnCheckTensorSizes(sizes));
  if (options.target == kiln::Target::Nvptx) {
    kiln::KilnToNvvmPipelineOptions gpu;
    setNvvmOptions(options, gpu);
    kiln::buildKilnToNvvmPipeline(pm, gpu);
  } else {
    kiln::KilnToCpuPipelineOptions cpu;
    // Checked by cpuPipelineOptions before compiles begin.
    if (failed(cpu.parseFromString(options.cpuOptions, llvm::nulls())))
      return module.emitError("bad CPU options '") << options.cpuOptions
                                                   << "'";
    cpu.stopAfter = cpuStage(options.stopAfter);
    setHostTarget(cpu);
    kiln::buildKilnToCpuPipeline(pm, cpu);
  }
  return pm.run(module);
}
} // namespace

namespace {
/// Runs `body` on a large stack with the diagnostics of `context` rendered
/// against `sourceMgr`; an error carrying them (or saying that `what`
/// cannot be compiled) if it fails.
llvm::Error withDiagnostics(llvm::SourceMgr &sourceMgr, MLIRContext &context,
                            llvm::StringRef what,
                            llvm::function_ref<bool()> body) {
  std::string diagnostics;
  llvm::raw_string_ostream os(diagnostics);
  SourceMgrDiagnosticHandler handler(sourceMgr, &context, os);
  if (kiln::runWithLargeStack([&] { return body() ? 0 : 1; }) == 0)
    return llvm::Error::success();
  if (diagnostics.empty())
    diagnostics = what.str() + ": cannot be compiled";
  while (!diagnostics.empty() && diagnostics.back() == '\n')
    diagnostics.pop_back();
  return llvm::createStringError(diagnostics);
}

/// Whether an entry of `module` says its arguments or results are parts
/// (kiln.part): a program partitioned by kiln-partition or by hand.
bool hasParts(ModuleOp module) {
  return llvm::any_of(module.getOps<func::FuncOp>(), [](func::FuncOp fn) {
    return kiln::signatureHasAttr(fn, kiln::KilnDialect::kPartAttrName);
  });
}

/// Partitions `module` for its mesh's devices (kiln-sharding-pipeline) if
/// it is sharded; whether its entries run on the mesh's devices in
/// `partitioned`.
LogicalResult partition(ModuleOp module, const kiln::CompileOptions &options,
                        bool &partitioned) {
  bool sharded = kiln::isSharded(module);
  if ((sharded || hasParts(module)) && options.target == kiln::Target::Nvptx)
    return module.emitError("a sharded program runs on in-process CPU "
                            "devices; GPUs run unsharded programs for now");
  if (sharded) {
    PassManager pm(module.getContext());
    kiln::addPassFailureReport(pm);
    kiln::buildKilnShardingPipeline(pm);
    if (failed(pm.run(module)))
      return failure();
  }
  partitioned = hasParts(module);
  if (partitioned)
    return success();
  // Collectives run between the devices a partitioned entry runs on.
  WalkResult collective = module.walk([](Operation *op) {
    if (!isa<kiln::AllReduceOp, kiln::AllGatherOp, kiln::ReduceScatterOp,
             kiln::AllToAllOp, kiln::CollectivePermuteOp, kiln::AxisIndexOp>(
            op))
      return WalkResult::advance();
    op->emitOpError("runs between the devices of a partitioned program: "
                    "shard the entry's arguments (kiln.sharding) or mark "
                    "them and its results as parts (kiln.part)");
    return WalkResult::interrupt();
  });
  return failure(collective.wasInterrupted());
}

/// Fills `program`'s manifest from its module and lowers it.
bool lowerWithManifest(kiln::CompiledProgram &program,
                       const kiln::CompileOptions &options) {
  bool partitioned;
  if (failed(partition(*program.module, options, partitioned)) ||
      failed(collectManifest(*program.module, program.manifest,
                             partitioned)) ||
      failed(lower(*program.module, options)))
    return false;
  if (options.target == kiln::Target::Nvptx) {
    program.manifest.device = "cuda";
    program.manifest.chip = options.chip;
  }
  return true;
}
} // namespace

llvm::Expected<std::vector<std::pair<std::string, std::string>>>
kiln::cpuPipelineOptions(llvm::StringRef cpuOptions) {
  KilnToCpuPipelineOptions cpu;
  std::string why;
  llvm::raw_string_ostream errors(why);
  if (failed(cpu.parseFromString(cpuOptions, errors)))
    return llvm::createStringError(
        "CPU options '" + cpuOptions.str() + "': " +
        (why.empty() ? std::string("a value is invalid")
                     : llvm::StringRef(why).trim().str()));
  // Printed as "{name=value name=value ...}".
  std::string text;
  llvm::raw_string_ostream os(text);
  cpu.print(os);
  std::vector<std::pair<std::string, std::string>> pairs;
  llvm::SmallVector<llvm::StringRef> words;
  llvm::StringRef(text).trim("{} ").split(words, ' ', -1, false);
  for (llvm::StringRef word : words) {
    auto [name, value] = word.split('=');
    // The compiler sets these from the stage and the host.
    if (name != "stop-after" && name != "avx512-bf16")
      pairs.emplace_back(name.str(), value.str());
  }
  return pairs;
}

llvm::Error kiln::ParsedSource::parse(MLIRContext &context,
                                      llvm::StringRef path) {
  this->path = path.str();
  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> input =
      openInputFile(path, &errorMessage);
  if (!input)
    return llvm::createStringError(errorMessage);
  sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  return withDiagnostics(sourceMgr, context, path, [&] {
    module = parseKilnSource(sourceMgr, context);
    return bool(module);
  });
}

llvm::Error kiln::ParsedSource::extractEntry(
    llvm::StringRef entry, mlir::OwningOpRef<mlir::ModuleOp> &out) {
  auto fn = module->lookupSymbol<func::FuncOp>(entry);
  if (!fn || !fn.isPublic() || fn.isExternal()) {
    std::string names;
    for (auto other : module->getOps<func::FuncOp>())
      if (other.isPublic() && !other.isExternal())
        names += (names.empty() ? "" : ", ") + other.getName().str();
    return llvm::createStringError(
        path + " has no entry '" + entry.str() + "'" +
        (names.empty() ? "" : "; its entries are: " + names));
  }
  out = cast<ModuleOp>(module->clone());
  for (auto other : out->getOps<func::FuncOp>())
    if (other.getName() != entry && other.isPublic())
      other.setPrivate();
  MLIRContext &context = *module->getContext();
  return withDiagnostics(sourceMgr, context, path, [&] {
    PassManager pm(&context);
    pm.addPass(createSymbolDCEPass());
    if (failed(pm.run(*out)))
      return false;
    // What the entry reaches must be defined here: a declaration would be
    // an undefined symbol when the compiled entry is loaded.
    for (auto callee : out->getOps<func::FuncOp>())
      if (callee.isExternal()) {
        callee.emitError("function @")
            << callee.getName() << " has no body, and entry @" << entry
            << " calls it: it cannot be compiled";
        return false;
      }
    return true;
  });
}

llvm::Error kiln::ParsedSource::specialize(ModuleOp module,
                                           llvm::StringRef entry,
                                           llvm::ArrayRef<std::string> argTypes) {
  return withDiagnostics(sourceMgr, *module.getContext(), path, [&] {
    PassManager pm(module.getContext());
    KilnSpecializeShapesOptions options;
    options.entry = entry.str();
    options.argTypes = llvm::to_vector(argTypes);
    pm.addPass(createKilnSpecializeShapes(options));
    return succeeded(pm.run(module));
  });
}

llvm::Error kiln::ParsedSource::compile(const CompileOptions &options,
                                        CompiledProgram &program) {
  return withDiagnostics(sourceMgr, *program.module->getContext(), path,
                         [&] { return lowerWithManifest(program, options); });
}

llvm::Error kiln::ParsedSource::interpret(ModuleOp module, llvm::StringRef entry,
                                          llvm::ArrayRef<HostTensor> args,
                                          std::vector<HostTensor> &results) {
  return withDiagnostics(sourceMgr, *module.getContext(), path, [&] {
    PassManager pm(module.getContext());
    addPassFailureReport(pm);
    // The interpreter holds each element in 8 bytes: a tensor that would
    // not fit in this machine's memory so is refused before it runs.
    KilnCheckTensorSizesOptions sizes;
    if (uint64_t memory = physicalMemory()) {
      sizes.maxBytes = memory / 8;
      sizes.limitReason = "an eighth of this machine's memory, as the "
                          "interpreter holds 8 bytes an element";
    }
    pm.addPass(createKilnCheckTensorSizes(sizes));
    pm.addPass(createKilnExpandTransforms());
    if (failed(pm.run(module)))
      return false;
    Interpreter interpreter;
    llvm::SmallVector<HostTensor> values;
    if (failed(interpreter.call(module.lookupSymbol<func::FuncOp>(entry), args,
                                values)))
      return false;
    results.assign(values.begin(), values.end());
    return true;
  });
}

llvm::Error kiln::compileSource(MLIRContext &context, llvm::StringRef path,
                                const CompileOptions &options,
                                CompiledProgram &program) {
  ParsedSource source;
  if (llvm::Error failure = source.parse(context, path))
    return failure;
  program.module = std::move(source.module);
  return source.compile(options, program);
}

std::vector<std::pair<std::string, std::string>>
kiln::gpuObjects(const CompiledProgram &program) {
  std::vector<std::pair<std::string, std::string>> objects;
  Operation *module = program.module.get();
  module->walk([&](gpu::BinaryOp binary) {
    for (Attribute object : binary.getObjects())
      objects.emplace_back(binary.getName().str(),
                           cast<gpu::ObjectAttr>(object).getObject().str());
  });
  return objects;
}
