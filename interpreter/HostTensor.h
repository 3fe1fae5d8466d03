//===- HostTensor.h - the reference interpreter's values --------*- C++ -*-===//
//
// A tensor as the reference interpreter holds it: its type and its
// elements, floats as doubles rounded to the element type after every
// write, integers as int64_t wrapped to their width (i1 as 0 or 1). One
// representation for every dtype keeps each op's rule a single loop; the
// rounding on write makes an f32 or bf16 op give what it gives in that
// dtype (an exactly rounded +, -, *, / and sqrt).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_INTERPRETER_HOSTTENSOR_H
#define KILN_INTERPRETER_HOSTTENSOR_H

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <vector>

namespace kiln {

class HostTensor {
public:
  HostTensor() = default;
  /// A tensor of `type` (static shape) filled with zeros.
  explicit HostTensor(mlir::RankedTensorType type);

  mlir::RankedTensorType getType() const { return type; }
  llvm::ArrayRef<int64_t> shape() const { return type.getShape(); }
  mlir::Type elementType() const { return type.getElementType(); }
  int64_t size() const { return count; }
  /// Whether the elements are floats (else integers or booleans).
  bool isFloat() const { return floating; }

  double getFloat(int64_t i) const { return floats[i]; }
  int64_t getInt(int64_t i) const { return ints[i]; }
  /// Element `i` as a double, whatever the dtype.
  double asDouble(int64_t i) const {
    return floating ? floats[i] : double(ints[i]);
  }
  /// Sets element `i` to `value` rounded to the element type (nearest
  /// even).
  void setFloat(int64_t i, double value);
  /// Sets element `i` to `value` wrapped to the element type's width (i1:
  /// its lowest bit).
  void setInt(int64_t i, int64_t value);
  /// Sets element `i` to element `j` of `from`, of the same element type.
  void copyElement(int64_t i, const HostTensor &from, int64_t j) {
    if (floating)
      floats[i] = from.floats[j];
    else
      ints[i] = from.ints[j];
  }

  /// The position of each dimension's step in the flat elements (row
  /// major).
  llvm::SmallVector<int64_t> strides() const;

private:
  mlir::RankedTensorType type;
  int64_t count = 0;
  bool floating = false;
  std::vector<double> floats;
  std::vector<int64_t> ints;
};

/// `value` rounded to the float type `type` (nearest even).
double roundToFloat(mlir::Type type, double value);
/// `value` wrapped to the width of the integer type `type`.
int64_t wrapToInt(mlir::Type type, int64_t value);

/// Calls `body` with every index of `shape`, in row-major order, and its
/// position in the flat elements.
void forEachIndex(llvm::ArrayRef<int64_t> shape,
                  llvm::function_ref<void(llvm::ArrayRef<int64_t> index,
                                          int64_t flat)>
                      body);

/// The flat position of `index` for `strides`.
int64_t flatIndex(llvm::ArrayRef<int64_t> index,
                  llvm::ArrayRef<int64_t> strides);

} // namespace kiln

#endif // KILN_INTERPRETER_HOSTTENSOR_H
