//===- kiln-compile.cpp - compile a kiln program to an artifact -----------===//
//
// kiln-compile FILE -o OUT [--emit=artifact|kiln|linalg|loops|llvm|llvm-ir|asm]
//
// The artifact is a shared object holding the program's native code and its
// manifest of entry signatures, which kiln-run and the runtime load. The
// other --emit values print the program at an earlier stage instead.
//
//===----------------------------------------------------------------------===//
#include "runtime/jit/Compiler.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace kiln::runtime;
namespace cl = llvm::cl;

namespace {
enum class Emit { Artifact, Kiln, Linalg, Loops, LLVMDialect, LLVMIR, Asm };

cl::opt<std::string> inputFile(cl::Positional, cl::Required,
                               cl::desc("<program .mlir>"));
cl::opt<std::string> outputFile("o", cl::Required,
                                cl::desc("The output file ('-': stdout)"));
cl::opt<Emit> emit(
    "emit", cl::init(Emit::Artifact), cl::desc("What to write"),
    cl::values(clEnumValN(Emit::Artifact, "artifact",
                          "a shared object for kiln-run and the runtime"),
               clEnumValN(Emit::Kiln, "kiln", "the verified kiln program"),
               clEnumValN(Emit::Linalg, "linalg", "linalg on tensors"),
               clEnumValN(Emit::Loops, "loops", "loops over memrefs"),
               clEnumValN(Emit::LLVMDialect, "llvm", "the LLVM dialect"),
               clEnumValN(Emit::LLVMIR, "llvm-ir", "optimized LLVM IR"),
               clEnumValN(Emit::Asm, "asm", "assembly for the host CPU")));

/// The pipeline stage that --emit needs, or nullopt for none.
std::optional<kiln::CpuStage> stageFor(Emit what) {
  switch (what) {
  case Emit::Kiln:
    return std::nullopt;
  case Emit::Linalg:
    return kiln::CpuStage::Linalg;
  case Emit::Loops:
    return kiln::CpuStage::Loops;
  default:
    return kiln::CpuStage::LLVM;
  }
}

bool failed(kiln_status_t status) {
  if (!status)
    return false;
  llvm::errs() << "kiln-compile: error: " << kiln_status_message(status)
               << "\n";
  kiln_status_free(status);
  return true;
}

/// Writes the non-artifact --emit forms of `program` to `os`.
kiln_status_t print(const CompiledProgram &program, llvm::raw_pwrite_stream &os) {
  if (emit != Emit::LLVMIR && emit != Emit::Asm) {
    program.module.get()->print(os);
    return nullptr;
  }
  NativeProgram native;
  if (kiln_status_t status = translateToLLVMIR(program, native))
    return status;
  if (emit == Emit::LLVMIR) {
    native.module->print(os, nullptr);
    return nullptr;
  }
  return emitMachineCode(*native.module, *native.machine, os,
                         /*assembly=*/true);
}
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  cl::ParseCommandLineOptions(argc, argv, "Compile a kiln program\n");
  mlir::MLIRContext context;
  prepareContext(context);
  CompiledProgram program;
  if (failed(compileSource(context, inputFile.c_str(), stageFor(emit),
                           program)))
    return 1;
  if (emit == Emit::Artifact)
    return failed(writeArtifact(program, outputFile.c_str())) ? 1 : 0;
  std::string error;
  auto output = mlir::openOutputFile(outputFile, &error);
  if (!output) {
    llvm::errs() << "kiln-compile: error: " << error << "\n";
    return 1;
  }
  if (failed(print(program, output->os())))
    return 1;
  output->keep();
  return 0;
}
