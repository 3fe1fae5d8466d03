//===- KilnDialect.cpp - the kiln dialect and its custom syntax -----------===//
#include "kiln/KilnDialect.h"
#include "AsmDirectives.h"
#include "TypeInference.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Transforms/InliningUtils.h"

using namespace mlir;
using namespace kiln;

//===----------------------------------------------------------------------===//
// Custom directives
//===----------------------------------------------------------------------===//

/// Parses one `start:limit[:stride]` triple of `kiln.slice`.
static ParseResult parseSliceRange(OpAsmParser &parser,
                                   SmallVectorImpl<int64_t> &starts,
                                   SmallVectorImpl<int64_t> &limits,
                                   SmallVectorImpl<int64_t> &strides) {
  int64_t start, limit, stride = 1;
  if (parser.parseInteger(start) || parser.parseColon() ||
      parser.parseInteger(limit))
    return failure();
  if (succeeded(parser.parseOptionalColon()) && parser.parseInteger(stride))
    return failure();
  starts.push_back(start);
  limits.push_back(limit);
  strides.push_back(stride);
  return success();
}

/// `[1:3, 0:4:2]`: start, limit and (when not 1) stride per dimension.
ParseResult kiln::parseSliceRanges(OpAsmParser &parser,
                                    DenseI64ArrayAttr &starts,
                                    DenseI64ArrayAttr &limits,
                                    DenseI64ArrayAttr &strides) {
  SmallVector<int64_t> startList, limitList, strideList;
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&] {
        return parseSliceRange(parser, startList, limitList, strideList);
      }))
    return failure();
  Builder &b = parser.getBuilder();
  starts = b.getDenseI64ArrayAttr(startList);
  limits = b.getDenseI64ArrayAttr(limitList);
  strides = b.getDenseI64ArrayAttr(strideList);
  return success();
}

void kiln::printSliceRanges(OpAsmPrinter &printer, Operation *,
                             DenseI64ArrayAttr starts, DenseI64ArrayAttr limits,
                             DenseI64ArrayAttr strides) {
  // The verifier checks that the lists have one entry per dimension, but an
  // op is printed before it is verified too (e.g. in diagnostics).
  size_t rank = std::min({starts.size(), limits.size(), strides.size()});
  printer << "[";
  for (size_t i = 0; i < rank; ++i) {
    if (i)
      printer << ", ";
    printer << starts[i] << ":" << limits[i];
    if (strides[i] != 1)
      printer << ":" << strides[i];
  }
  printer << "]";
}

/// `[0] x [1]`: a pair of dimension lists.
static ParseResult parseDimensionPair(OpAsmParser &parser,
                                      DenseI64ArrayAttr &lhs,
                                      DenseI64ArrayAttr &rhs) {
  if (parser.parseEqual())
    return failure();
  lhs = dyn_cast_or_null<DenseI64ArrayAttr>(
      DenseI64ArrayAttr::parse(parser, Type()));
  if (!lhs || parser.parseKeyword("x"))
    return failure();
  rhs = dyn_cast_or_null<DenseI64ArrayAttr>(
      DenseI64ArrayAttr::parse(parser, Type()));
  return success(rhs != nullptr);
}

static void printDimensionPair(OpAsmPrinter &printer, StringRef name,
                               DenseI64ArrayAttr lhs, DenseI64ArrayAttr rhs) {
  printer << name << " = ";
  lhs.print(printer);
  printer << " x ";
  rhs.print(printer);
}

/// `batching = [0] x [0], contracting = [2] x [1]` for `kiln.dot_general`;
/// empty batching lists are left out.
static ParseResult parseDotDimensions(OpAsmParser &parser,
                                      DenseI64ArrayAttr &lhsBatching,
                                      DenseI64ArrayAttr &rhsBatching,
                                      DenseI64ArrayAttr &lhsContracting,
                                      DenseI64ArrayAttr &rhsContracting) {
  if (succeeded(parser.parseOptionalKeyword("batching")) &&
      (parseDimensionPair(parser, lhsBatching, rhsBatching) ||
       parser.parseComma()))
    return failure();
  if (parser.parseKeyword("contracting"))
    return failure();
  return parseDimensionPair(parser, lhsContracting, rhsContracting);
}

static void printDotDimensions(OpAsmPrinter &printer, Operation *,
                               DenseI64ArrayAttr lhsBatching,
                               DenseI64ArrayAttr rhsBatching,
                               DenseI64ArrayAttr lhsContracting,
                               DenseI64ArrayAttr rhsContracting) {
  if (!lhsBatching.empty() || !rhsBatching.empty()) {
    printDimensionPair(printer, "batching", lhsBatching, rhsBatching);
    printer << ", ";
  }
  printDimensionPair(printer, "contracting", lhsContracting, rhsContracting);
}

/// `%a, %b, dim = 0`: operands up to the `dim` keyword, then the dimension.
ParseResult kiln::parseConcatenateInputs(
    OpAsmParser &parser, SmallVectorImpl<OpAsmParser::UnresolvedOperand> &inputs,
    IntegerAttr &dimension) {
  do {
    if (succeeded(parser.parseOptionalKeyword("dim"))) {
      int64_t value;
      if (parser.parseEqual() || parser.parseInteger(value))
        return failure();
      dimension = parser.getBuilder().getI64IntegerAttr(value);
      return success();
    }
    if (parser.parseOperand(inputs.emplace_back()))
      return failure();
  } while (succeeded(parser.parseComma()));
  return failure();
}

void kiln::printConcatenateInputs(OpAsmPrinter &printer, Operation *,
                                   OperandRange inputs, IntegerAttr dimension) {
  for (Value input : inputs)
    printer << input << ", ";
  printer << "dim = " << dimension.getInt();
}

/// `<@mesh, [{"data"}, {}]>` (a sharding) or `logical<["batch", ""]>` (a
/// logical naming): the attribute's body.
static ParseResult parseShardingBody(OpAsmParser &parser, Attribute &layout) {
  if (succeeded(parser.parseOptionalKeyword("logical")))
    layout = LogicalAttr::parse(parser, Type());
  else
    layout = ShardingAttr::parse(parser, Type());
  return success(bool(layout));
}

static void printShardingBody(OpAsmPrinter &printer, Operation *,
                              Attribute layout) {
  if (auto logical = dyn_cast<LogicalAttr>(layout)) {
    printer << "logical";
    logical.print(printer);
  } else {
    cast<ShardingAttr>(layout).print(printer);
  }
}

//===----------------------------------------------------------------------===//
// Generated definitions
//===----------------------------------------------------------------------===//

#include "kiln/KilnDialect.cpp.inc"

#define GET_OP_CLASSES
#include "kiln/KilnOps.cpp.inc"

namespace {
/// Every kiln op may move into another function or region: the ops are
/// pure or touch only their operands, and regions take their values as
/// arguments.
struct KilnInlinerInterface : DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;
  bool isLegalToInline(Operation *, Region *, bool, IRMapping &) const final {
    return true;
  }
  bool isLegalToInline(Region *, Region *, bool, IRMapping &) const final {
    return true;
  }
};
} // namespace

void KilnDialect::initialize() {
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "kiln/KilnOps.cpp.inc"
      >();
  addInterfaces<KilnInlinerInterface>();
}

/// The type of which `part`, laid out as `sharding` over the mesh `user`
/// sees, is one device's part (`part` itself where the sharding does not
/// fit it, for the verifier to report).
static Type wholeOf(Operation *user, ShardingAttr sharding, Type part) {
  auto mesh =
      SymbolTable::lookupNearestSymbolFrom<MeshOp>(user, sharding.getMesh());
  auto tensor = dyn_cast<RankedTensorType>(part);
  if (!mesh || !tensor ||
      tensor.getRank() != static_cast<int64_t>(sharding.getDims().size()))
    return part;
  SmallVector<int64_t> shape(tensor.getShape());
  for (int64_t d = 0; d < tensor.getRank(); ++d)
    for (StringRef axis : sharding.getAxes(d))
      if (!tensor.isDynamicDim(d))
        shape[d] *= mesh.getAxisSize(axis).value_or(1);
  return tensor.clone(shape);
}

/// Checks a kiln.sharding (or kiln.part) on argument or result `index`
/// (`what`) of `op`'s region `regionIndex`: a sharding of that value's type
/// (of the whole value it is a part of).
static LogicalResult verifyShardingOf(Operation *op, unsigned regionIndex,
                                      unsigned index, NamedAttribute attribute,
                                      StringRef what) {
  Attribute layout = attribute.getValue();
  if (!isa<ShardingAttr, LogicalAttr>(layout))
    return op->emitError("'") << attribute.getName().getValue()
                              << "' takes a #kiln.sharding or #kiln.logical";
  auto fn = dyn_cast<func::FuncOp>(op);
  if (!fn || regionIndex != 0)
    return op->emitError("'") << attribute.getName().getValue()
                              << "' marks a function's arguments and results";
  Type type = what == "argument" ? fn.getArgumentTypes()[index]
                                 : fn.getResultTypes()[index];
  if (auto sharding = dyn_cast<ShardingAttr>(layout);
      sharding && attribute.getName().getValue() == KilnDialect::kPartAttrName)
    type = wholeOf(op, sharding, type);
  return verifyLayout(op, layout, type, [&] {
    return op->emitError() << what << " #" << index << ": ";
  });
}

LogicalResult KilnDialect::verifyRegionResultAttribute(
    Operation *op, unsigned regionIndex, unsigned resultIndex,
    NamedAttribute attribute) {
  StringRef name = attribute.getName().getValue();
  if (name != kShardingAttrName && name != kPartAttrName)
    return op->emitError("unknown result attribute '")
           << name << "' (kiln's are " << kShardingAttrName << " and "
           << kPartAttrName << ")";
  return verifyShardingOf(op, regionIndex, resultIndex, attribute, "result");
}

LogicalResult KilnDialect::verifyRegionArgAttribute(Operation *op,
                                                   unsigned regionIndex,
                                                   unsigned argIndex,
                                                   NamedAttribute attribute) {
  StringRef name = attribute.getName().getValue();
  if (name == kShardingAttrName || name == kPartAttrName)
    return verifyShardingOf(op, regionIndex, argIndex, attribute, "argument");
  if (name != kStaticAttrName && name != kDonateAttrName)
    return op->emitError("unknown argument attribute '")
           << name << "' (kiln's are " << kStaticAttrName << ", "
           << kDonateAttrName << ", " << kShardingAttrName << " and "
           << kPartAttrName << ")";
  if (!isa<UnitAttr>(attribute.getValue()))
    return op->emitError("'") << name << "' takes no value";
  auto fn = dyn_cast<func::FuncOp>(op);
  if (!fn || !fn.isPublic() || fn.isExternal())
    return op->emitError("'") << name << "' marks an argument of an entry "
                              << "(a public function with a body)";
  return success();
}

LogicalResult KilnDialect::verifyOperationAttribute(Operation *op,
                                                   NamedAttribute attribute) {
  // The other kiln.* attributes are checked by the passes that read them.
  StringRef name = attribute.getName().getValue();
  if (name != kShardingsAttrName)
    return success();
  auto shardings = dyn_cast<ArrayAttr>(attribute.getValue());
  if (!shardings || shardings.size() != op->getNumResults())
    return op->emitError("'") << name << "' lists one #kiln.sharding per "
                              << "result (" << op->getNumResults() << ")";
  for (auto [i, sharding] : llvm::enumerate(shardings)) {
    if (!isa<ShardingAttr>(sharding))
      return op->emitError("'") << name << "' lists #kiln.sharding values";
    if (failed(verifyLayout(op, sharding, op->getResult(i).getType(), [&] {
          return op->emitError() << "result #" << i << ": ";
        })))
      return failure();
  }
  return success();
}

Operation *KilnDialect::materializeConstant(OpBuilder &builder,
                                            Attribute value, Type type,
                                            Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, type, elements);
}
