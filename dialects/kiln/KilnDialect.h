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

#define GET_ATTRDEF_CLASSES
#include "kiln/KilnAttrs.h.inc"

#define GET_OP_CLASSES
#include "kiln/KilnOps.h.inc"

namespace kiln {
/// Checks a layout (a #kiln.sharding or #kiln.logical) of a value of `type`
/// that `user` gives it; `emit` reports errors.
mlir::LogicalResult verifyLayout(mlir::Operation *user, mlir::Attribute layout,
                                 mlir::Type type,
                                 llvm::function_ref<mlir::InFlightDiagnostic()> emit);
/// `layout` with a whole (unsharded, unnamed) dimension inserted at `dim`:
/// that of a value batched there.
mlir::Attribute withWholeDimension(mlir::Attribute layout, int64_t dim);

/// Whether an argument or result of `fn` has the attribute `name`.
inline bool signatureHasAttr(mlir::func::FuncOp fn, llvm::StringRef name) {
  for (unsigned i = 0; i < fn.getNumArguments(); ++i)
    if (fn.getArgAttr(i, name))
      return true;
  for (unsigned i = 0; i < fn.getNumResults(); ++i)
    if (fn.getResultAttr(i, name))
      return true;
  return false;
}

/// Whether a tensor in `fn`'s signature has a dynamic dimension: such a
/// function is specialized (kiln-specialize-shapes) before it lowers.
inline bool hasDynamicSignature(mlir::func::FuncOp fn) {
  auto isDynamic = [](mlir::Type type) {
    auto shaped = mlir::dyn_cast<mlir::ShapedType>(type);
    return shaped && !shaped.hasStaticShape();
  };
  return llvm::any_of(fn.getArgumentTypes(), isDynamic) ||
         llvm::any_of(fn.getResultTypes(), isDynamic);
}
} // namespace kiln

#endif // KILN_KILNDIALECT_H
