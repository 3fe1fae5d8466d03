//===- AsmDirectives.h - custom syntax shared with imported dialects -*- C++ -*-===//
//
// The custom directives of kiln ops whose syntax StableHLO shares, so that
// the StableHLO ops Kiln imports (frontend/stablehlo) read the same way.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_DIALECTS_KILN_ASMDIRECTIVES_H
#define KILN_DIALECTS_KILN_ASMDIRECTIVES_H

#include "mlir/IR/OpImplementation.h"

namespace kiln {

/// `[1:3, 0:4:2]`: start, limit and (when not 1) stride per dimension.
mlir::ParseResult parseSliceRanges(mlir::OpAsmParser &parser,
                                   mlir::DenseI64ArrayAttr &starts,
                                   mlir::DenseI64ArrayAttr &limits,
                                   mlir::DenseI64ArrayAttr &strides);
void printSliceRanges(mlir::OpAsmPrinter &printer, mlir::Operation *,
                      mlir::DenseI64ArrayAttr starts,
                      mlir::DenseI64ArrayAttr limits,
                      mlir::DenseI64ArrayAttr strides);

/// `%a, %b, dim = 0`: operands up to the `dim` keyword, then the dimension.
mlir::ParseResult parseConcatenateInputs(
    mlir::OpAsmParser &parser,
    llvm::SmallVectorImpl<mlir::OpAsmParser::UnresolvedOperand> &inputs,
    mlir::IntegerAttr &dimension);
void printConcatenateInputs(mlir::OpAsmPrinter &printer, mlir::Operation *,
                            mlir::OperandRange inputs,
                            mlir::IntegerAttr dimension);

/// `["data"=2, "model"=4]`: a mesh's axis names and sizes.
mlir::ParseResult parseMeshAxes(mlir::AsmParser &parser,
                                llvm::SmallVectorImpl<mlir::Attribute> &names,
                                llvm::SmallVectorImpl<int64_t> &sizes);

} // namespace kiln

#endif // KILN_DIALECTS_KILN_ASMDIRECTIVES_H
