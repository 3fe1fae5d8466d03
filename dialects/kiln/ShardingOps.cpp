//===- ShardingOps.cpp - meshes and sharding constraints ------------------===//
#include "kiln/KilnDialect.h"
#include "AsmDirectives.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace kiln;

//===----------------------------------------------------------------------===//
// mesh
//===----------------------------------------------------------------------===//

/// `@mesh ["data"=2, "model"=4]`.
ParseResult kiln::parseMeshAxes(AsmParser &parser,
                                SmallVectorImpl<Attribute> &names,
                                SmallVectorImpl<int64_t> &sizes) {
  return parser.parseCommaSeparatedList(
      AsmParser::Delimiter::Square, [&]() -> ParseResult {
        std::string axis;
        int64_t size;
        if (parser.parseString(&axis) || parser.parseEqual() ||
            parser.parseInteger(size))
          return failure();
        names.push_back(parser.getBuilder().getStringAttr(axis));
        sizes.push_back(size);
        return success();
      });
}

ParseResult MeshOp::parse(OpAsmParser &parser, OperationState &result) {
  StringAttr name;
  SmallVector<Attribute> names;
  SmallVector<int64_t> sizes;
  if (parser.parseSymbolName(name, getSymNameAttrName(result.name),
                             result.attributes) ||
      parseMeshAxes(parser, names, sizes) ||
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

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

/// The number of devices in each group of `op`'s `axes` over its mesh;
/// fails with an error at `op` when the mesh or an axis does not exist or
/// an axis is listed twice.
static FailureOr<int64_t> groupSize(Operation *op) {
  auto meshName = op->getAttrOfType<FlatSymbolRefAttr>("mesh");
  auto mesh = SymbolTable::lookupNearestSymbolFrom<MeshOp>(op, meshName);
  if (!mesh)
    return op->emitOpError("names ") << meshName << ", which is no kiln.mesh";
  llvm::StringSet<> seen;
  int64_t devices = 1;
  for (Attribute axis : op->getAttrOfType<ArrayAttr>("axes")) {
    StringRef name = cast<StringAttr>(axis).getValue();
    std::optional<int64_t> size = mesh.getAxisSize(name);
    if (!size)
      return op->emitOpError("mesh ")
             << meshName << " has no axis \"" << name << "\"";
    if (!seen.insert(name).second)
      return op->emitOpError("lists axis \"") << name << "\" twice";
    devices *= *size;
  }
  return devices;
}

static LogicalResult inRange(Operation *op, StringRef what, int64_t dim,
                             int64_t rank) {
  if (dim < 0 || dim >= rank)
    return op->emitOpError() << what << " " << dim
                             << " is out of range for rank " << rank;
  return success();
}

/// Checks that `result` is `operand` reshaped to `expected`.
static LogicalResult verifyResultShape(Operation *op, RankedTensorType operand,
                                       ArrayRef<int64_t> expected,
                                       RankedTensorType result) {
  if (operand.getElementType() != result.getElementType() ||
      failed(verifyCompatibleShape(expected, result.getShape())))
    return op->emitOpError("result type ")
           << result << " should be " << operand.clone(expected);
  return success();
}

/// `size` split among `devices` parts (dynamic stays dynamic); fails with
/// an error at `op` when it does not split evenly.
static FailureOr<int64_t> split(Operation *op, StringRef what, int64_t size,
                                int64_t devices) {
  if (ShapedType::isDynamic(size))
    return size;
  if (size % devices)
    return op->emitOpError() << what << " (size " << size
                             << ") does not split among the " << devices
                             << " devices of the group";
  return size / devices;
}

static int64_t times(int64_t size, int64_t devices) {
  return ShapedType::isDynamic(size) ? size : size * devices;
}

#define KILN_GROUP_SIZE(OpTy)                                                  \
  int64_t OpTy::getGroupSize() { return *::groupSize(*this); }
KILN_GROUP_SIZE(AllReduceOp)
KILN_GROUP_SIZE(AllGatherOp)
KILN_GROUP_SIZE(ReduceScatterOp)
KILN_GROUP_SIZE(AllToAllOp)
KILN_GROUP_SIZE(CollectivePermuteOp)
KILN_GROUP_SIZE(AxisIndexOp)
#undef KILN_GROUP_SIZE

LogicalResult AllReduceOp::verify() { return ::groupSize(*this); }

LogicalResult AxisIndexOp::verify() { return ::groupSize(*this); }

/// Checks that `op`'s result is its operand with dimension `dim` resized
/// by `resize` (of the size and the group's devices; dynamic stays
/// dynamic).
static LogicalResult
verifyResizedDim(Operation *op, RankedTensorType operand,
                 RankedTensorType result, int64_t dim,
                 function_ref<FailureOr<int64_t>(int64_t, int64_t)> resize) {
  FailureOr<int64_t> devices = ::groupSize(op);
  if (failed(devices) || failed(inRange(op, "dim", dim, operand.getRank())))
    return failure();
  SmallVector<int64_t> expected(operand.getShape());
  FailureOr<int64_t> size = resize(expected[dim], *devices);
  if (failed(size))
    return failure();
  expected[dim] = *size;
  return verifyResultShape(op, operand, expected, result);
}

LogicalResult AllGatherOp::verify() {
  return verifyResizedDim(
      *this, getOperand().getType(), getType(), getDim(),
      [](int64_t size, int64_t devices) -> FailureOr<int64_t> {
        return times(size, devices);
      });
}

LogicalResult ReduceScatterOp::verify() {
  return verifyResizedDim(*this, getOperand().getType(), getType(), getDim(),
                          [&](int64_t size, int64_t devices) {
                            return split(*this, "dim", size, devices);
                          });
}

LogicalResult AllToAllOp::verify() {
  FailureOr<int64_t> devices = ::groupSize(*this);
  RankedTensorType operand = getOperand().getType();
  int64_t splitDim = getSplitDim(), concatDim = getConcatDim();
  if (failed(devices) ||
      failed(inRange(*this, "split", splitDim, operand.getRank())) ||
      failed(inRange(*this, "concat", concatDim, operand.getRank())))
    return failure();
  SmallVector<int64_t> expected(operand.getShape());
  FailureOr<int64_t> part = split(*this, "split", expected[splitDim], *devices);
  if (failed(part))
    return failure();
  expected[splitDim] = *part;
  expected[concatDim] = times(expected[concatDim], *devices);
  return verifyResultShape(*this, operand, expected, getType());
}

LogicalResult CollectivePermuteOp::verify() {
  FailureOr<int64_t> devices = ::groupSize(*this);
  if (failed(devices))
    return failure();
  ArrayRef<int64_t> pairs = getPairs();
  if (pairs.size() % 2)
    return emitOpError("pairs lists (source, target) places: an even count, "
                       "not ")
           << pairs.size();
  llvm::SmallDenseSet<int64_t> sources, targets;
  for (size_t i = 0; i < pairs.size(); i += 2) {
    for (int64_t place : {pairs[i], pairs[i + 1]})
      if (place < 0 || place >= *devices)
        return emitOpError("place ")
               << place << " is not in a group of " << *devices << " devices";
    if (!sources.insert(pairs[i]).second)
      return emitOpError("device ") << pairs[i] << " is a source twice";
    if (!targets.insert(pairs[i + 1]).second)
      return emitOpError("device ") << pairs[i + 1] << " is a target twice";
  }
  return success();
}
