//===- KilnAttrs.cpp - attributes of the kiln dialect ---------------------===//
#include "kiln/KilnDialect.h"

#include "mlir/IR/DialectImplementation.h"
// The generated attribute printer and parser dispatch with TypeSwitch.
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace kiln;

#include "kiln/KilnEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "kiln/KilnAttrs.cpp.inc"

void KilnDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "kiln/KilnAttrs.cpp.inc"
      >();
}
