//===- StablehloDialect.h - the StableHLO ops Kiln imports -----*- C++ -*-===//
#ifndef KILN_FRONTEND_STABLEHLO_STABLEHLODIALECT_H
#define KILN_FRONTEND_STABLEHLO_STABLEHLODIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "frontend/stablehlo/StablehloDialect.h.inc"
#include "frontend/stablehlo/StablehloEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "frontend/stablehlo/StablehloAttrs.h.inc"

#define GET_OP_CLASSES
#include "frontend/stablehlo/StablehloOps.h.inc"

#endif // KILN_FRONTEND_STABLEHLO_STABLEHLODIALECT_H
