//===- SdyDialect.cpp - Shardy's syntax as Kiln reads it ------------------===//
//
// `sdy.mesh @mesh = <["data"=2, "model"=4]>` and shardings written as
// `#kiln.sharding` writes them (`<@mesh, [{"data"}, {}]>`), whose parser
// they share.
//
//===----------------------------------------------------------------------===//
#include "frontend/stablehlo/SdyDialect.h"
#include "kiln/AsmDirectives.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::sdy;

#include "frontend/stablehlo/SdyDialect.cpp.inc"

void SdyDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "frontend/stablehlo/SdyAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "frontend/stablehlo/SdyOps.cpp.inc"
      >();
}

Attribute sdy::MeshAttr::parse(AsmParser &parser, Type) {
  SmallVector<Attribute> names;
  SmallVector<int64_t> sizes;
  if (parser.parseLess() || parseMeshAxes(parser, names, sizes) ||
      parser.parseGreater())
    return {};
  Builder &b = parser.getBuilder();
  return get(parser.getContext(), b.getArrayAttr(names),
             b.getDenseI64ArrayAttr(sizes));
}

void sdy::MeshAttr::print(AsmPrinter &printer) const {
  printer << "<[";
  for (auto [i, name] : llvm::enumerate(getAxisNames()))
    printer << (i ? ", " : "") << name << "=" << getAxisSizes()[i];
  printer << "]>";
}

Attribute sdy::ShardingAttr::parse(AsmParser &parser, Type type) {
  auto sharding =
      dyn_cast_or_null<kiln::ShardingAttr>(kiln::ShardingAttr::parse(parser, type));
  return sharding ? get(parser.getContext(), sharding) : Attribute();
}

void sdy::ShardingAttr::print(AsmPrinter &printer) const {
  getSharding().print(printer);
}

#define GET_ATTRDEF_CLASSES
#include "frontend/stablehlo/SdyAttrs.cpp.inc"

#define GET_OP_CLASSES
#include "frontend/stablehlo/SdyOps.cpp.inc"
