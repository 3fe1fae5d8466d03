//===- ChloDialect.cpp - the CHLO ops Kiln imports ------------------------===//
#include "frontend/stablehlo/ChloDialect.h"

using namespace mlir;
using namespace kiln::chlo;

#include "frontend/stablehlo/ChloDialect.cpp.inc"

void ChloDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "frontend/stablehlo/ChloOps.cpp.inc"
      >();
}

#define GET_OP_CLASSES
#include "frontend/stablehlo/ChloOps.cpp.inc"
