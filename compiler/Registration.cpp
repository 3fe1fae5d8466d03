//===- Registration.cpp - every dialect, pass and pipeline Kiln uses ------===//
//
// The one file that includes the umbrella registration headers: every
// dialect, the external interface models bufferization and convert-to-llvm
// rely on, the kiln ops' rules (transformations and interpreter), the LLVM IR translations, and every pass and pipeline.
//
//===----------------------------------------------------------------------===//
#include "Compiler.h"

#include "frontend/stablehlo/Passes.h"
#include "interpreter/Interpreter.h"
#include "kiln/KilnDialect.h"
#include "lowering/common/Passes.h"
#include "lowering/cpu/Passes.h"
#include "lowering/gpu/Passes.h"
#include "lowering/linalg/Passes.h"
#include "passes/Passes.h"

#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

void kiln::registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<KilnDialect, shlo::StablehloDialect, chlo::ChloDialect,
                  sdy::SdyDialect>();
  registerAllKilnRules(registry);
  registerEvaluationRules(registry);
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllToLLVMIRTranslations(registry);
  registerX86VectorToLLVMInterface(registry);
}

void kiln::registerAllPassesAndPipelines() {
  mlir::registerAllPasses();
  registerAllKilnPasses();
  registerKilnStablehloPasses();
  registerKilnShardingPipeline();
  registerKilnLoweringLinalgPasses();
  registerKilnLoweringCommonPasses();
  registerKilnLoweringCpuPasses();
  registerKilnToCpuPipeline();
  registerKilnLoweringGpuPasses();
  registerKilnToNvvmPipeline();
}
