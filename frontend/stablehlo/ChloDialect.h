//===- ChloDialect.h - the CHLO ops Kiln imports ----------------*- C++ -*-===//
#ifndef KILN_FRONTEND_STABLEHLO_CHLODIALECT_H
#define KILN_FRONTEND_STABLEHLO_CHLODIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"

#include "frontend/stablehlo/ChloDialect.h.inc"

#define GET_OP_CLASSES
#include "frontend/stablehlo/ChloOps.h.inc"

#endif // KILN_FRONTEND_STABLEHLO_CHLODIALECT_H
