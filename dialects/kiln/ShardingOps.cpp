//===- ShardingOps.cpp - meshes and sharding constraints ------------------===//
#include "kiln/KilnDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace kiln;

//===----------------------------------------------------------------------===//
// mesh
//===----------------------------------------------------------------------===//

/// `@mesh ["data"=2, "model"=4]`.
ParseResult MeshOp::parse(OpAsmParser &parser, OperationState &result) {
  StringAttr name;
  SmallVector<Attribute> names;
  SmallVector<int64_t> sizes;
  if (parser.parseSymbolName(name, getSymNameAttrName(result.name),
                             result.attributes) ||
      parser.parseCommaSeparatedList(
          OpAsmParser::Delimiter::Square, [&]() -> ParseResult {
            std::string axis;
            int64_t size;
            if (parser.parseString(&axis) || parser.parseEqual() ||
                parser.parseInteger(size))
              return failure();
            names.push_back(parser.getBuilder().getStringAttr(axis));
            sizes.push_back(size);
            return success();
          }) ||
      parser.parseOptionalAttrDict(result.attributes))
    return failure();
  Builder &b = parser.getBuilder();
  result.addAttribute(getAxisNamesAttrName(result.name), b.getArrayAttr(names));
  result.addAttribute(getAxisSizesAttrName(result.name),
                      b.getDenseI64ArrayAttr(sizes));
  return success();
}

void MeshOp::print(OpAsmPrinter &printer) {
  printer << " ";
  printer.printSymbolName(getSymName());
  printer << " [";
  llvm::interleaveComma(
      llvm::zip(getAxisNames(), getAxisSizes()), printer, [&](auto axis) {
        printer << '"' << cast<StringAttr>(std::get<0>(axis)).getValue()
                << "\"=" << std::get<1>(axis);
      });
  printer << "]";
  printer.printOptionalAttrDict(
      (*this)->getAttrs(),
      {getSymNameAttrName(), getAxisNamesAttrName(), getAxisSizesAttrName()});
}

LogicalResult MeshOp::verify() {
  if (getAxisNames().size() != getAxisSizes().size())
    return emitOpError("has ")
           << getAxisNames().size() << " axis names but "
           << getAxisSizes().size() << " sizes";
  llvm::StringSet<> seen;
  for (auto [name, size] : llvm::zip(getAxisNames(), getAxisSizes())) {
    StringRef axis = cast<StringAttr>(name).getValue();
    if (axis.empty())
      return emitOpError("has an axis without a name");
    if (!seen.insert(axis).second)
      return emitOpError("names axis \"") << axis << "\" twice";
    if (size < 1)
      return emitOpError("axis \"")
             << axis << "\" has " << size << " devices; it needs at least 1";
  }
  return success();
}

std::optional<int64_t> MeshOp::getAxisSize(StringRef axis) {
  for (auto [name, size] : llvm::zip(getAxisNames(), getAxisSizes()))
    if (cast<StringAttr>(name).getValue() == axis)
      return size;
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// sharding_constraint
//===----------------------------------------------------------------------===//

LogicalResult ShardingConstraintOp::verify() {
  return verifyLayout(*this, getSharding(), getType(),
                      [&] { return emitOpError(); });
}

LogicalResult kiln::verifyLayout(Operation *user, Attribute layout, Type type,
                                 function_ref<InFlightDiagnostic()> emit) {
  if (auto sharding = dyn_cast<ShardingAttr>(layout))
    return sharding.verifyFor(user, type, emit);
  auto names = cast<LogicalAttr>(layout).getNames();
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || tensor.getRank() != static_cast<int64_t>(names.size()))
    return emit() << "logical naming has " << names.size()
                  << " dimensions but the value has type " << type;
  return success();
}

Attribute kiln::withWholeDimension(Attribute layout, int64_t dim) {
  if (auto sharding = dyn_cast<ShardingAttr>(layout))
    return sharding.withWholeDimension(dim);
  return cast<LogicalAttr>(layout).withWholeDimension(dim);
}
