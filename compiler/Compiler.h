//===- Compiler.h - the Kiln compiler driver --------------------*- C++ -*-===//
//
// Source to the LLVM dialect, LLVM IR, machine code and artifacts, for every
// tool and for the runtime's in-process JIT. Errors carry every diagnostic
// with its location.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_COMPILER_H
#define KILN_COMPILER_COMPILER_H

#include "kiln/manifest.hpp"
#include "lowering/gpu/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace kiln {

class HostTensor;

/// What code is generated for.
enum class Target {
  /// The host CPU, through kiln-to-cpu-pipeline.
  Cpu,
  /// NVIDIA GPUs, through kiln-to-nvvm-pipeline: host code for this CPU
  /// that launches kernels compiled for `CompileOptions::chip`.
  Nvptx,
};

/// How far compilation goes; each stage ends in IR one can print.
enum class Stage {
  /// Parsed and verified kiln.
  Kiln,
  /// linalg, tensor, arith, math and scf on tensors.
  Linalg,
  /// Bufferized loops over memrefs (for NVPTX: kernels in gpu.module and
  /// the host code launching them).
  Loops,
  /// The LLVM dialect with the runtime's entry wrappers.
  LLVM,
};

/// What compileSource does.
struct CompileOptions {
  Target target = Target::Cpu;
  Stage stopAfter = Stage::LLVM;
  /// For NVPTX: the GPU, its PTX features and what its kernels become.
  std::string chip = "sm_90";
  std::string features = "+ptx80";
  GpuBinaryFormat gpuBinary = GpuBinaryFormat::Fatbin;
  /// For the CPU: kiln-to-cpu-pipeline options, space-separated
  /// ("approximate-math=false cache-tile-k=128"); the stage and the
  /// host's features are the compiler's to set.
  std::string cpuOptions;
};

/// Every kiln-to-cpu-pipeline option a compile uses, `cpuOptions` (see
/// CompileOptions) given: (name, value) pairs, or an error saying which
/// option is wrong.
llvm::Expected<std::vector<std::pair<std::string, std::string>>>
cpuPipelineOptions(llvm::StringRef cpuOptions);

/// A kiln program lowered as far as asked, with its entries.
struct CompiledProgram {
  mlir::OwningOpRef<mlir::ModuleOp> module;
  runtime::Manifest manifest;
};

/// Registers every dialect, interface model and LLVM IR translation that
/// parsing, lowering and translating a kiln program needs.
void registerAllDialects(mlir::DialectRegistry &registry);

/// Registers every upstream and kiln pass and pipeline (for kiln-opt).
void registerAllPassesAndPipelines();

/// Registers what compileSource needs in `context`.
void prepareContext(mlir::MLIRContext &context);

/// The kernels of a program lowered for NVPTX: the name of each gpu.module
/// and its compiled object (PTX text, cubin or fatbin, as compiled).
std::vector<std::pair<std::string, std::string>>
gpuObjects(const CompiledProgram &program);

/// Initializes LLVM's native target, once per process.
void initializeNativeTarget();

/// A kiln source parsed and verified, whose entries are compiled one at a
/// time (the runtime's jit): diagnostics quote its text.
struct ParsedSource {
  std::string path;
  llvm::SourceMgr sourceMgr;
  mlir::OwningOpRef<mlir::ModuleOp> module;

  /// Parses and verifies the source at `path` in `context`.
  llvm::Error parse(mlir::MLIRContext &context, llvm::StringRef path);
  /// A copy of the module with public function `entry` and what it calls,
  /// every other function gone; an error naming the entries if `entry` is
  /// not one.
  llvm::Error extractEntry(llvm::StringRef entry,
                           mlir::OwningOpRef<mlir::ModuleOp> &out);
  /// Gives the dynamic dimensions of `module`'s (from extractEntry) entry
  /// the sizes of `argTypes` (kiln-specialize-shapes); an error quoting the
  /// source if they disagree with it.
  llvm::Error specialize(mlir::ModuleOp module, llvm::StringRef entry,
                         llvm::ArrayRef<std::string> argTypes);
  /// Lowers `program.module` (from this source) as far as `options` says
  /// and fills its manifest. Runs on a large stack.
  llvm::Error compile(const CompileOptions &options, CompiledProgram &program);
  /// Runs `entry` of `module` (from extractEntry, its shapes static) on
  /// `args` with the reference interpreter (interpreter/Interpreter.h),
  /// once its transformations are expanded, and sets `results`. Runs on a
  /// large stack.
  llvm::Error interpret(mlir::ModuleOp module, llvm::StringRef entry,
                        llvm::ArrayRef<HostTensor> args,
                        std::vector<HostTensor> &results);
};

/// Parses and verifies the kiln source at `path`, then lowers it as far as
/// `options` says. Runs on a large stack.
llvm::Error compileSource(mlir::MLIRContext &context, llvm::StringRef path,
                          const CompileOptions &options,
                          CompiledProgram &program);

/// A program in LLVM IR with the target machine it was optimized for.
struct NativeProgram {
  llvm::LLVMContext context;
  std::unique_ptr<llvm::TargetMachine> machine;
  std::unique_ptr<llvm::Module> module;
};

/// The LLVM IR of a program lowered to the LLVM dialect, optimized for the
/// host CPU (position-independent, small code model), with the manifest as
/// the global string KILN_MANIFEST_SYMBOL.
llvm::Error translateToLLVMIR(const CompiledProgram &program,
                              NativeProgram &native);

/// Writes `module` as an object file or assembly for `machine` to `os`.
llvm::Error emitMachineCode(llvm::Module &module, llvm::TargetMachine &machine,
                            llvm::raw_pwrite_stream &os, bool assembly);

/// Writes the artifact of a program lowered to the LLVM dialect to `path`:
/// a shared object that kiln_module_load opens, linked by `linker` (an
/// ld.lld; empty: the ld.lld beside the LLVM Kiln was built with, found on
/// PATH or in LLVM's bin folder).
llvm::Error writeArtifact(const CompiledProgram &program, llvm::StringRef path,
                          llvm::StringRef linker = {});

} // namespace kiln

#endif // KILN_COMPILER_COMPILER_H
