//===- SdyDialect.h - the Shardy annotations Kiln imports -------*- C++ -*-===//
#ifndef KILN_FRONTEND_STABLEHLO_SDYDIALECT_H
#define KILN_FRONTEND_STABLEHLO_SDYDIALECT_H

#include "kiln/KilnDialect.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"

#include "frontend/stablehlo/SdyDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "frontend/stablehlo/SdyAttrs.h.inc"

#define GET_OP_CLASSES
#include "frontend/stablehlo/SdyOps.h.inc"

#endif // KILN_FRONTEND_STABLEHLO_SDYDIALECT_H
