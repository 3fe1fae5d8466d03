//===- Passes.h - specialization for the jit --------------------*- C++ -*-===//
#ifndef KILN_PASSES_JIT_PASSES_H
#define KILN_PASSES_JIT_PASSES_H

#include "kiln/KilnDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace kiln {

#define GEN_PASS_DECL
#include "passes/jit/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/jit/Passes.h.inc"

} // namespace kiln

#endif // KILN_PASSES_JIT_PASSES_H
