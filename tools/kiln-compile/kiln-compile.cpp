//===- kiln-compile.cpp - compile a kiln program to an artifact -----------===//
//
// kiln-compile FILE -o OUT [--target=cpu|nvptx] [--chip=sm_90]
//              [--emit=artifact|kiln|linalg|loops|llvm|llvm-ir|asm|ptx|cubin]
//              [--report=memory|calls|donation]
//
// The artifact is a shared object holding the program's native code and its
// manifest of entry signatures, which kiln-run and the runtime load; for
// NVPTX its host code carries the kernels as a CUDA binary. The other --emit
// values print the program at an earlier stage instead, or (ptx, cubin) the
// kernels alone. --report=memory prints, before the output, each entry's
// peak bytes of intermediate buffers and the buffers that make it up;
// --report=calls how many times each entry runs each function per call;
// --report=donation which result reuses each donated argument's buffer.
//
//===----------------------------------------------------------------------===//
#include "compiler/Compiler.h"
#include "compiler/CallReport.h"
#include "compiler/MemoryReport.h"
#include "lowering/common/Passes.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace kiln;
namespace cl = llvm::cl;

namespace {
enum class Emit {
  Artifact, Kiln, Linalg, Loops, LLVMDialect, LLVMIR, Asm, Ptx, Cubin
};

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
               clEnumValN(Emit::Asm, "asm", "assembly for the host CPU"),
               clEnumValN(Emit::Ptx, "ptx",
                          "the kernels' PTX, one gpu.module after another"),
               clEnumValN(Emit::Cubin, "cubin",
                          "the kernels' cubins, as OUT/MODULE.cubin")));
cl::opt<Target> target(
    "target", cl::init(Target::Cpu), cl::desc("What to compile for"),
    cl::values(clEnumValN(Target::Cpu, "cpu", "the host CPU"),
               clEnumValN(Target::Nvptx, "nvptx", "NVIDIA GPUs")));
cl::opt<std::string> chip("chip", cl::init("sm_90"),
                          cl::desc("The NVIDIA GPU (--target=nvptx)"));
cl::opt<std::string> features("features", cl::init("+ptx80"),
                              cl::desc("PTX features (--target=nvptx)"));
cl::opt<std::string> cpuOptions(
    "cpu-options", cl::init(""),
    cl::desc("kiln-to-cpu-pipeline options, space-separated "
             "(\"approximate-math=false\")"));
cl::opt<GpuBinaryFormat> gpuBinary(
    "gpu-binary", cl::init(GpuBinaryFormat::Fatbin),
    cl::desc("What an NVPTX artifact carries"),
    cl::values(clEnumValN(GpuBinaryFormat::Fatbin, "fatbin",
                          "the cubin and the PTX (newer chips JIT it)"),
               clEnumValN(GpuBinaryFormat::Cubin, "cubin", "the cubin alone"),
               clEnumValN(GpuBinaryFormat::Ptx, "ptx",
                          "PTX alone (the driver compiles it at load)")));

enum class Report { None, Memory, Calls, Donation };
cl::opt<Report> report(
    "report", cl::init(Report::None), cl::desc("What to report on stdout"),
    cl::values(clEnumValN(Report::Memory, "memory",
                          "each entry's peak bytes of intermediate buffers "
                          "and the buffers live then (CPU)"),
               clEnumValN(Report::Calls, "calls",
                          "how many times each entry runs each function "
                          "per call (CPU)"),
               clEnumValN(Report::Donation, "donation",
                          "which result reuses each donated argument's "
                          "buffer (kiln.donate), or why none does")));

/// The stage that --emit needs.
Stage stageFor(Emit what) {
  switch (what) {
  case Emit::Kiln:
    return Stage::Kiln;
  case Emit::Linalg:
    return Stage::Linalg;
  case Emit::Loops:
    return Stage::Loops;
  default:
    return Stage::LLVM;
  }
}

/// Prints `error` if it is one; true if it was.
bool failed(llvm::Error error) {
  if (!error)
    return false;
  llvm::logAllUnhandledErrors(std::move(error), llvm::errs(),
                              "kiln-compile: error: ");
  return true;
}

/// Writes each kernel module's cubin to DIR/MODULE.cubin.
llvm::Error writeCubins(const CompiledProgram &program, llvm::StringRef dir) {
  if (std::error_code error = llvm::sys::fs::create_directories(dir))
    return llvm::createStringError(error, "cannot create " + dir);
  for (auto &[name, object] : gpuObjects(program)) {
    std::string error;
    std::string path = (dir + "/" + name + ".cubin").str();
    auto output = mlir::openOutputFile(path, &error);
    if (!output)
      return llvm::createStringError(error);
    output->os() << object;
    output->keep();
  }
  return llvm::Error::success();
}

/// Writes the non-artifact --emit forms of `program` to `os`.
llvm::Error print(const CompiledProgram &program, llvm::raw_pwrite_stream &os) {
  if (emit == Emit::Ptx) {
    for (auto &[name, ptx] : gpuObjects(program))
      os << "// kiln-compile: gpu.module @" << name << " for " << chip << "\n"
         << ptx << "\n";
    return llvm::Error::success();
  }
  if (emit != Emit::LLVMIR && emit != Emit::Asm) {
    program.module.get()->print(os);
    return llvm::Error::success();
  }
  NativeProgram native;
  if (llvm::Error error = translateToLLVMIR(program, native))
    return error;
  if (emit == Emit::LLVMIR) {
    native.module->print(os, nullptr);
    return llvm::Error::success();
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
  CompileOptions options;
  options.stopAfter = stageFor(emit);
  options.target = target;
  options.chip = chip;
  options.features = features;
  options.gpuBinary = emit == Emit::Ptx     ? GpuBinaryFormat::Ptx
                      : emit == Emit::Cubin ? GpuBinaryFormat::Cubin
                                            : gpuBinary.getValue();
  options.cpuOptions = cpuOptions;
  if (failed(cpuPipelineOptions(cpuOptions).takeError()))
    return 1;
  if ((emit == Emit::Ptx || emit == Emit::Cubin) && target != Target::Nvptx) {
    llvm::errs() << "kiln-compile: error: --emit=ptx and --emit=cubin need "
                    "--target=nvptx\n";
    return 1;
  }
  if (report == Report::Donation) {
    CompileOptions parsed = options;
    parsed.stopAfter = Stage::Kiln;
    CompiledProgram source;
    if (failed(compileSource(context, inputFile, parsed, source)))
      return 1;
    bool any = false;
    for (auto fn : source.module->getOps<mlir::func::FuncOp>())
      if (fn.isPublic() && !fn.isExternal())
        for (const std::string &line : donationReport(fn)) {
          llvm::outs() << line << "\n";
          any = true;
        }
    if (!any)
      llvm::outs() << "no entry donates an argument (kiln.donate)\n";
    llvm::outs().flush();
  } else if (report != Report::None) {
    if (target != Target::Cpu) {
      llvm::errs() << "kiln-compile: error: --report needs --target=cpu\n";
      return 1;
    }
    CompileOptions loops = options;
    loops.stopAfter = Stage::Loops;
    CompiledProgram bufferized;
    if (failed(compileSource(context, inputFile, loops, bufferized)))
      return 1;
    if (report == Report::Memory)
      printMemoryReport(analyzeMemory(*bufferized.module), llvm::outs());
    else
      printCallReport(countCalls(*bufferized.module), llvm::outs());
    llvm::outs().flush();
  }
  if (failed(compileSource(context, inputFile, options, program)))
    return 1;
  if (emit == Emit::Artifact)
    return failed(writeArtifact(program, outputFile)) ? 1 : 0;
  if (emit == Emit::Cubin)
    return failed(writeCubins(program, outputFile)) ? 1 : 0;
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
