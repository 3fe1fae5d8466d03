//===- kiln-opt.cpp - the kiln optimizer driver ---------------------------===//
//
// MlirOptMain with the kiln dialect and every upstream dialect, pass and
// translation the kiln pipelines produce or need to read. Input nested past
// kMaxNestingDepth is refused before MLIR's recursive parser sees it.
//
//===----------------------------------------------------------------------===//
#include "compiler/Compiler.h"
#include "frontend/InputLimits.h"
#include "lowering/common/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;

/// Reads, checks and processes the input as mlir-opt does.
static LogicalResult run(StringRef inputFilename, StringRef outputFilename,
                         DialectRegistry &registry) {
  MlirOptMainConfig config = MlirOptMainConfig::createFromCLOptions();
  // Tensors no machine can hold are refused first; then the pipeline from
  // the command line, and a report naming any pass that fails (some
  // upstream passes fail without a diagnostic).
  config.setPassPipelineSetupFn([fromCommandLine = config](PassManager &pm) {
    pm.addPass(kiln::createKilnCheckTensorSizes());
    if (failed(fromCommandLine.setupPassPipeline(pm)))
      return failure();
    kiln::addPassFailureReport(pm);
    return success();
  });
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input = openInputFile(inputFilename, &error);
  if (!input) {
    llvm::errs() << error << "\n";
    return failure();
  }
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBuffer(input->getMemBufferRef()),
      llvm::SMLoc());
  if (std::optional<llvm::SMDiagnostic> deep =
          kiln::findNestingError(sourceMgr)) {
    deep->print(/*ProgName=*/nullptr, llvm::errs());
    return failure();
  }
  std::unique_ptr<llvm::ToolOutputFile> output =
      openOutputFile(outputFilename, &error);
  if (!output) {
    llvm::errs() << error << "\n";
    return failure();
  }
  if (failed(MlirOptMain(output->os(), std::move(input), registry, config)))
    return failure();
  output->keep();
  return success();
}

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  kiln::registerAllPassesAndPipelines();
  DialectRegistry registry;
  kiln::registerAllDialects(registry);
  std::pair<std::string, std::string> files =
      registerAndParseCLIOptions(argc, argv, "Kiln optimizer driver", registry);
  return kiln::runWithLargeStack([&] {
    return asMainReturnCode(run(files.first, files.second, registry));
  });
}
