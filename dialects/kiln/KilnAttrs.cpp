//===- KilnAttrs.cpp - attributes of the kiln dialect ---------------------===//
#include "kiln/KilnDialect.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/StringSet.h"
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

//===----------------------------------------------------------------------===//
// sharding
//===----------------------------------------------------------------------===//

/// `{"a", "b", ?}`: axis names, then `?` for an open dimension when
/// `allowOpen`.
static ParseResult parseAxisList(AsmParser &parser,
                                 SmallVectorImpl<Attribute> &axes,
                                 bool *open) {
  if (parser.parseLBrace())
    return failure();
  if (succeeded(parser.parseOptionalRBrace()))
    return success();
  do {
    if (open && succeeded(parser.parseOptionalQuestion())) {
      *open = true;
      break;
    }
    std::string name;
    if (parser.parseString(&name))
      return failure();
    axes.push_back(parser.getBuilder().getStringAttr(name));
  } while (succeeded(parser.parseOptionalComma()));
  return parser.parseRBrace();
}

static void printAxisList(AsmPrinter &printer, ArrayAttr axes, bool open) {
  printer << "{";
  llvm::interleaveComma(axes, printer, [&](Attribute axis) {
    printer << '"' << cast<StringAttr>(axis).getValue() << '"';
  });
  if (open)
    printer << (axes.empty() ? "?" : ", ?");
  printer << "}";
}

Attribute ShardingAttr::parse(AsmParser &parser, Type) {
  FlatSymbolRefAttr mesh;
  SmallVector<Attribute> dims, replicated;
  SmallVector<bool> open;
  if (parser.parseLess() || parser.parseAttribute(mesh) ||
      parser.parseComma() || parser.parseLSquare())
    return {};
  if (failed(parser.parseOptionalRSquare())) {
    do {
      SmallVector<Attribute> axes;
      bool isOpen = false;
      if (parseAxisList(parser, axes, &isOpen))
        return {};
      dims.push_back(parser.getBuilder().getArrayAttr(axes));
      open.push_back(isOpen);
    } while (succeeded(parser.parseOptionalComma()));
    if (parser.parseRSquare())
      return {};
  }
  if (succeeded(parser.parseOptionalComma()) &&
      (parser.parseKeyword("replicated") || parser.parseEqual() ||
       parseAxisList(parser, replicated, nullptr)))
    return {};
  if (parser.parseGreater())
    return {};
  Builder &b = parser.getBuilder();
  return parser.getChecked<ShardingAttr>(
      parser.getContext(), mesh, b.getArrayAttr(dims),
      b.getDenseBoolArrayAttr(open), b.getArrayAttr(replicated));
}

void ShardingAttr::print(AsmPrinter &printer) const {
  printer << "<" << getMesh() << ", [";
  for (auto [i, dim] : llvm::enumerate(getDims())) {
    if (i)
      printer << ", ";
    printAxisList(printer, cast<ArrayAttr>(dim), getOpen()[i]);
  }
  printer << "]";
  if (!getReplicated().empty()) {
    printer << ", replicated=";
    printAxisList(printer, getReplicated(), false);
  }
  printer << ">";
}

LogicalResult
ShardingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                     FlatSymbolRefAttr mesh, ArrayAttr dims,
                     DenseBoolArrayAttr open, ArrayAttr replicated) {
  if (!mesh)
    return emitError() << "a sharding names its mesh";
  if (static_cast<int64_t>(dims.size()) != open.size())
    return emitError() << "a sharding has " << dims.size()
                       << " dimensions but " << open.size()
                       << " open flags";
  llvm::StringSet<> seen;
  auto use = [&](Attribute axis) -> LogicalResult {
    auto name = dyn_cast<StringAttr>(axis);
    if (!name || name.getValue().empty())
      return emitError() << "a sharding's axes are non-empty strings";
    if (!seen.insert(name.getValue()).second)
      return emitError() << "axis \"" << name.getValue()
                         << "\" is used twice in a sharding";
    return success();
  };
  for (Attribute dim : dims) {
    auto axes = dyn_cast<ArrayAttr>(dim);
    if (!axes)
      return emitError() << "a sharding's dimensions are lists of axes";
    for (Attribute axis : axes)
      if (failed(use(axis)))
        return failure();
  }
  for (Attribute axis : replicated)
    if (failed(use(axis)))
      return failure();
  return success();
}

SmallVector<StringRef> ShardingAttr::getAxes(int64_t dim) const {
  SmallVector<StringRef> axes;
  for (Attribute axis : cast<ArrayAttr>(getDims()[dim]))
    axes.push_back(cast<StringAttr>(axis).getValue());
  return axes;
}

LogicalResult
ShardingAttr::verifyFor(Operation *user, Type type,
                        function_ref<InFlightDiagnostic()> emit) const {
  auto mesh = SymbolTable::lookupNearestSymbolFrom<MeshOp>(user, getMesh());
  if (!mesh)
    return emit() << "sharding names " << getMesh()
                  << ", which is no kiln.mesh";
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return emit() << "a sharding lays out ranked tensors, not " << type;
  if (tensor.getRank() != static_cast<int64_t>(getDims().size()))
    return emit() << "sharding has " << getDims().size()
                  << " dimensions but the tensor " << type << " has rank "
                  << tensor.getRank();
  for (Attribute axis : getReplicated())
    if (!mesh.getAxisSize(cast<StringAttr>(axis).getValue()))
      return emit() << "mesh " << getMesh() << " has no axis " << axis;
  for (int64_t d = 0; d < tensor.getRank(); ++d) {
    int64_t devices = 1;
    for (StringRef axis : getAxes(d)) {
      std::optional<int64_t> size = mesh.getAxisSize(axis);
      if (!size)
        return emit() << "mesh " << getMesh() << " has no axis \"" << axis
                      << "\"";
      devices *= *size;
    }
    if (!tensor.isDynamicDim(d) && tensor.getDimSize(d) % devices)
      return emit() << "dimension " << d << " of " << type << " (size "
                    << tensor.getDimSize(d) << ") does not divide among the "
                    << devices << " devices of its axes; pad it to a "
                    << "multiple of " << devices;
  }
  return success();
}

ShardingAttr
ShardingAttr::getClosed(FlatSymbolRefAttr mesh,
                        ArrayRef<SmallVector<StringAttr>> dims) {
  Builder b(mesh.getContext());
  SmallVector<Attribute> lists;
  for (const SmallVector<StringAttr> &axes : dims)
    lists.push_back(
        b.getArrayAttr(SmallVector<Attribute>(axes.begin(), axes.end())));
  SmallVector<bool> open(dims.size(), false);
  return get(b.getContext(), mesh, b.getArrayAttr(lists),
             b.getDenseBoolArrayAttr(open), b.getArrayAttr({}));
}

ShardingAttr ShardingAttr::withWholeDimension(int64_t dim) const {
  SmallVector<Attribute> dims(getDims().getValue());
  SmallVector<bool> open(getOpen().asArrayRef());
  Builder b(getContext());
  dims.insert(dims.begin() + dim, b.getArrayAttr({}));
  open.insert(open.begin() + dim, false);
  return get(getContext(), getMesh(), b.getArrayAttr(dims),
             b.getDenseBoolArrayAttr(open), getReplicated());
}

//===----------------------------------------------------------------------===//
// logical, axis_rules
//===----------------------------------------------------------------------===//

LogicalResult LogicalAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                  ArrayAttr names) {
  for (Attribute name : names)
    if (!isa<StringAttr>(name))
      return emitError() << "logical axis names are strings";
  return success();
}

LogicalAttr LogicalAttr::withWholeDimension(int64_t dim) const {
  SmallVector<Attribute> names(getNames().getValue());
  Builder b(getContext());
  names.insert(names.begin() + dim, b.getStringAttr(""));
  return get(getContext(), b.getArrayAttr(names));
}

/// `"batch" -> "data"` or `"embed" -> none`.
Attribute AxisRulesAttr::parse(AsmParser &parser, Type) {
  FlatSymbolRefAttr mesh;
  SmallVector<Attribute> roles, axes;
  Builder &b = parser.getBuilder();
  if (parser.parseLess() || parser.parseAttribute(mesh) ||
      parser.parseComma() ||
      parser.parseCommaSeparatedList(
          AsmParser::Delimiter::Square, [&]() -> ParseResult {
            std::string role, axis;
            if (parser.parseString(&role) || parser.parseArrow())
              return failure();
            if (failed(parser.parseOptionalKeyword("none")) &&
                parser.parseString(&axis))
              return failure();
            roles.push_back(b.getStringAttr(role));
            axes.push_back(b.getStringAttr(axis));
            return success();
          }) ||
      parser.parseGreater())
    return {};
  return parser.getChecked<AxisRulesAttr>(parser.getContext(), mesh,
                                          b.getArrayAttr(roles),
                                          b.getArrayAttr(axes));
}

void AxisRulesAttr::print(AsmPrinter &printer) const {
  printer << "<" << getMesh() << ", [";
  llvm::interleaveComma(llvm::zip(getRoles(), getAxes()), printer,
                        [&](auto rule) {
                          StringRef axis =
                              cast<StringAttr>(std::get<1>(rule)).getValue();
                          printer << std::get<0>(rule) << " -> ";
                          if (axis.empty())
                            printer << "none";
                          else
                            printer << '"' << axis << '"';
                        });
  printer << "]>";
}

LogicalResult
AxisRulesAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                      FlatSymbolRefAttr mesh, ArrayAttr roles, ArrayAttr axes) {
  if (!mesh)
    return emitError() << "axis rules name their mesh";
  if (roles.size() != axes.size())
    return emitError() << "axis rules have " << roles.size() << " roles but "
                       << axes.size() << " axes";
  for (auto [role, axis] : llvm::zip(roles, axes))
    if (!isa<StringAttr>(role) || !isa<StringAttr>(axis) ||
        cast<StringAttr>(role).getValue().empty())
      return emitError() << "axis rules map named roles to axis names";
  return success();
}
