//===- KilnDialect.h - the kiln dialect, its attributes and ops -*- C++ -*-===//
#ifndef KILN_KILNDIALECT_H
#define KILN_KILNDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "kiln/KilnInterfaces.h"

#include "kiln/KilnDialect.h.inc"
#include "kiln/KilnEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "kiln/KilnAttrs.h.inc"

#define GET_OP_CLASSES
#include "kiln/KilnOps.h.inc"

#endif // KILN_KILNDIALECT_H
