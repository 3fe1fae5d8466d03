//===- Passes.h - importing StableHLO ---------------------------*- C++ -*-===//
#ifndef KILN_FRONTEND_STABLEHLO_PASSES_H
#define KILN_FRONTEND_STABLEHLO_PASSES_H

#include "frontend/stablehlo/ChloDialect.h"
#include "frontend/stablehlo/SdyDialect.h"
#include "frontend/stablehlo/StablehloDialect.h"
#include "kiln/KilnDialect.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace kiln {

#define GEN_PASS_DECL
#include "frontend/stablehlo/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "frontend/stablehlo/Passes.h.inc"

} // namespace kiln

#endif // KILN_FRONTEND_STABLEHLO_PASSES_H
