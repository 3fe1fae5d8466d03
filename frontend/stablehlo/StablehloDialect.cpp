//===- StablehloDialect.cpp - the StableHLO syntax Kiln reads -------------===//
//
// StableHLO's custom syntax, as JAX prints it: one type for elementwise ops
// whose operands and result agree, `dims = [1, 0]`, bare enum keywords,
// `contracting_dims = [1] x [0]`, reductions written
// `stablehlo.reduce(%x init: %c) applies stablehlo.add across dimensions =
// [1]` or with a `reducer` region, and convolutions' layouts and windows
// (`dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {...}`).
//
//===----------------------------------------------------------------------===//
#include "frontend/stablehlo/StablehloDialect.h"
#include "kiln/AsmDirectives.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/TypeSwitch.h"

#include <array>

using namespace mlir;
using namespace kiln;
using namespace kiln::shlo;

#include "frontend/stablehlo/StablehloDialect.cpp.inc"
#include "frontend/stablehlo/StablehloEnums.cpp.inc"

void StablehloDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "frontend/stablehlo/StablehloAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "frontend/stablehlo/StablehloOps.cpp.inc"
      >();
}

/// Constants are what the importer matches init values against.
OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

//===----------------------------------------------------------------------===//
// Custom directives
//===----------------------------------------------------------------------===//

/// A type, or a function type `(T0, T1) -> R` (which parseType refuses).
static ParseResult parseTypeOrFunction(OpAsmParser &parser, Type &type) {
  if (failed(parser.parseOptionalLParen()))
    return parser.parseType(type);
  SmallVector<Type> inputs, results;
  if (failed(parser.parseOptionalRParen()) &&
      (parser.parseTypeList(inputs) || parser.parseRParen()))
    return failure();
  if (parser.parseArrowTypeList(results))
    return failure();
  type = FunctionType::get(parser.getContext(), inputs, results);
  return success();
}

/// `: T` when every operand and the result have type T, else
/// `: (T0, T1) -> R`.
template <typename... Types>
static ParseResult parseSameOperandsAndResultType(OpAsmParser &parser,
                                                  Types &...types) {
  SmallVector<Type *> slots = {&types...};
  Type type;
  llvm::SMLoc loc = parser.getCurrentLocation();
  if (parseTypeOrFunction(parser, type))
    return failure();
  auto function = dyn_cast<FunctionType>(type);
  if (!function) {
    for (Type *slot : slots)
      *slot = type;
    return success();
  }
  if (function.getNumInputs() + 1 != slots.size() ||
      function.getNumResults() != 1)
    return parser.emitError(loc) << "expected " << slots.size() - 1
                                 << " operand types and 1 result type";
  for (size_t i = 0; i + 1 < slots.size(); ++i)
    *slots[i] = function.getInput(i);
  *slots.back() = function.getResult(0);
  return success();
}

template <typename... Types>
static void printSameOperandsAndResultType(OpAsmPrinter &printer, Operation *,
                                           Types... types) {
  SmallVector<Type> all = {types...};
  if (llvm::all_equal(all)) {
    printer << all.front();
    return;
  }
  printer << FunctionType::get(all.front().getContext(),
                               ArrayRef(all).drop_back(), all.back());
}

/// `: tensor<4xi1>, tensor<4xf32>` (predicate, then the type of both
/// choices and the result), else a function type.
static ParseResult parseSelectType(OpAsmParser &parser, Type &pred,
                                   Type &onTrue, Type &onFalse, Type &result) {
  Type first;
  llvm::SMLoc loc = parser.getCurrentLocation();
  if (parseTypeOrFunction(parser, first))
    return failure();
  if (auto function = dyn_cast<FunctionType>(first)) {
    if (function.getNumInputs() != 3 || function.getNumResults() != 1)
      return parser.emitError(loc)
             << "expected 3 operand types and 1 result type";
    pred = function.getInput(0);
    onTrue = function.getInput(1);
    onFalse = function.getInput(2);
    result = function.getResult(0);
    return success();
  }
  pred = first;
  if (parser.parseComma() || parser.parseType(onTrue))
    return failure();
  onFalse = result = onTrue;
  return success();
}

static void printSelectType(OpAsmPrinter &printer, Operation *op, Type pred,
                            Type onTrue, Type onFalse, Type result) {
  if (onTrue == onFalse && onTrue == result)
    printer << pred << ", " << result;
  else
    printSameOperandsAndResultType(printer, op, pred, onTrue, onFalse, result);
}

/// `[1, 0]`.
static ParseResult parseDims(OpAsmParser &parser, DenseI64ArrayAttr &dims) {
  SmallVector<int64_t> values;
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&] {
        return parser.parseInteger(values.emplace_back());
      }))
    return failure();
  dims = parser.getBuilder().getDenseI64ArrayAttr(values);
  return success();
}

static void printDims(OpAsmPrinter &printer, Operation *,
                      DenseI64ArrayAttr dims) {
  printer << "[";
  llvm::interleaveComma(dims.asArrayRef(), printer);
  printer << "]";
}

/// `%i, %j, sizes = [2, 2]`: a dynamic slice's start indices and sizes.
static ParseResult parseSliceStarts(
    OpAsmParser &parser,
    SmallVectorImpl<OpAsmParser::UnresolvedOperand> &starts,
    DenseI64ArrayAttr &sizes) {
  while (failed(parser.parseOptionalKeyword("sizes")))
    if (parser.parseOperand(starts.emplace_back()) || parser.parseComma())
      return failure();
  return failure(parser.parseEqual() || parseDims(parser, sizes));
}

static void printSliceStarts(OpAsmPrinter &printer, Operation *op,
                             OperandRange starts, DenseI64ArrayAttr sizes) {
  for (Value start : starts)
    printer << start << ", ";
  printer << "sizes = ";
  printDims(printer, op, sizes);
}

/// `A, B`: an optimization barrier's operand types, which its results
/// have too.
static ParseResult parseBarrierTypes(OpAsmParser &parser,
                                     SmallVectorImpl<Type> &operands,
                                     SmallVectorImpl<Type> &results) {
  if (parser.parseTypeList(operands))
    return failure();
  results.assign(operands.begin(), operands.end());
  return success();
}

static void printBarrierTypes(OpAsmPrinter &printer, Operation *,
                              TypeRange operands, TypeRange) {
  llvm::interleaveComma(operands, printer);
}

/// An enum attribute written as its bare keyword (`GT`).
template <typename AttrT>
static ParseResult parseEnumKeyword(OpAsmParser &parser, AttrT &attr) {
  using Enum = decltype(std::declval<AttrT>().getValue());
  StringRef keyword;
  llvm::SMLoc loc = parser.getCurrentLocation();
  if (parser.parseKeyword(&keyword))
    return failure();
  std::optional<Enum> value = symbolizeEnum<Enum>(keyword);
  if (!value)
    return parser.emitError(loc) << "unknown keyword '" << keyword << "'";
  attr = AttrT::get(parser.getContext(), *value);
  return success();
}

template <typename AttrT>
static void printEnumKeyword(OpAsmPrinter &printer, Operation *, AttrT attr) {
  printer << stringifyEnum(attr.getValue());
}

/// `@target`: a custom call's target name.
static ParseResult parseCallTarget(OpAsmParser &parser, StringAttr &target) {
  return parser.parseSymbolName(target);
}

static void printCallTarget(OpAsmPrinter &printer, Operation *,
                            StringAttr target) {
  printer.printSymbolName(target.getValue());
}

//===----------------------------------------------------------------------===//
// #stablehlo.dot
//===----------------------------------------------------------------------===//

/// `<name = [0, 1], name = 2, ...>`: the dimension lists of `names` in any
/// order, each into `fields` (a single integer is a list of one).
static ParseResult parseDimensionFields(AsmParser &parser,
                                        ArrayRef<StringLiteral> names,
                                        MutableArrayRef<SmallVector<int64_t>> fields) {
  return parser.parseCommaSeparatedList(
      AsmParser::Delimiter::LessGreater, [&]() -> ParseResult {
        StringRef name;
        llvm::SMLoc loc = parser.getCurrentLocation();
        if (parser.parseKeyword(&name) || parser.parseEqual())
          return failure();
        const StringLiteral *found = llvm::find(names, name);
        if (found == names.end())
          return parser.emitError(loc) << "unknown field '" << name << "'";
        SmallVector<int64_t> &field = fields[found - names.begin()];
        if (failed(parser.parseOptionalLSquare()))
          return parser.parseInteger(field.emplace_back());
        if (succeeded(parser.parseOptionalRSquare()))
          return success();
        return failure(parser.parseCommaSeparatedList([&] {
                         return parser.parseInteger(field.emplace_back());
                       }) ||
                       parser.parseRSquare());
      });
}

/// Prints the non-empty `lists` under `names`, then the integer `last`
/// under the last name (if there is one more name).
static void printDimensionFields(AsmPrinter &printer,
                                 ArrayRef<StringLiteral> names,
                                 ArrayRef<ArrayRef<int64_t>> lists,
                                 std::optional<int64_t> last = std::nullopt) {
  printer << "<";
  bool first = true;
  for (size_t i = 0; i < lists.size(); ++i) {
    if (lists[i].empty())
      continue;
    printer << (first ? "" : ", ") << names[i] << " = [";
    llvm::interleaveComma(lists[i], printer);
    printer << "]";
    first = false;
  }
  if (last)
    printer << (first ? "" : ", ") << names.back() << " = " << *last;
  printer << ">";
}

static constexpr StringLiteral kDotFields[] = {
    "lhs_batching_dimensions", "rhs_batching_dimensions",
    "lhs_contracting_dimensions", "rhs_contracting_dimensions"};

Attribute DotDimensionNumbersAttr::parse(AsmParser &parser, Type) {
  SmallVector<int64_t> fields[4];
  if (parseDimensionFields(parser, kDotFields, fields))
    return {};
  return get(parser.getContext(), fields[0], fields[1], fields[2], fields[3]);
}

void DotDimensionNumbersAttr::print(AsmPrinter &printer) const {
  printDimensionFields(
      printer, kDotFields,
      {getLhsBatchingDimensions(), getRhsBatchingDimensions(),
       getLhsContractingDimensions(), getRhsContractingDimensions()});
}

static constexpr StringLiteral kGatherFields[] = {
    "offset_dims",       "collapsed_slice_dims",
    "operand_batching_dims", "start_indices_batching_dims",
    "start_index_map",   "index_vector_dim"};

/// The single integer of field `name` of `fields`, or an error.
static std::optional<int64_t> singleField(AsmParser &parser,
                                          ArrayRef<int64_t> field,
                                          StringRef name) {
  if (field.size() == 1)
    return field.front();
  parser.emitError(parser.getCurrentLocation())
      << "expected one integer for " << name;
  return std::nullopt;
}

/// A gather's or scatter's dimension numbers: five lists, then the index
/// vector dimension.
template <typename AttrT>
static Attribute parseIndexingDims(AsmParser &parser,
                                   ArrayRef<StringLiteral> names) {
  SmallVector<int64_t> fields[6];
  if (parseDimensionFields(parser, names, fields))
    return {};
  std::optional<int64_t> indexVectorDim =
      singleField(parser, fields[5], names[5]);
  if (!indexVectorDim)
    return {};
  return AttrT::get(parser.getContext(), fields[0], fields[1], fields[2],
                    fields[3], fields[4], *indexVectorDim);
}

Attribute GatherDimensionNumbersAttr::parse(AsmParser &parser, Type) {
  return parseIndexingDims<GatherDimensionNumbersAttr>(parser, kGatherFields);
}

void GatherDimensionNumbersAttr::print(AsmPrinter &printer) const {
  printDimensionFields(printer, kGatherFields,
                       {getOffsetDims(), getCollapsedSliceDims(),
                        getOperandBatchingDims(), getStartIndicesBatchingDims(),
                        getStartIndexMap()},
                       getIndexVectorDim());
}

static constexpr StringLiteral kScatterFields[] = {
    "update_window_dims",    "inserted_window_dims",
    "input_batching_dims",   "scatter_indices_batching_dims",
    "scatter_dims_to_operand_dims", "index_vector_dim"};

Attribute ScatterDimensionNumbersAttr::parse(AsmParser &parser, Type) {
  return parseIndexingDims<ScatterDimensionNumbersAttr>(parser, kScatterFields);
}

void ScatterDimensionNumbersAttr::print(AsmPrinter &printer) const {
  printDimensionFields(printer, kScatterFields,
                       {getUpdateWindowDims(), getInsertedWindowDims(),
                        getInputBatchingDims(), getScatterIndicesBatchingDims(),
                        getScatterDimsToOperandDims()},
                       getIndexVectorDim());
}

/// `{attrs} : (A, B) -> R` after an op's operands, resolving them.
static ParseResult
parseAttrsAndFunctionType(OpAsmParser &parser,
                          ArrayRef<OpAsmParser::UnresolvedOperand> operands,
                          OperationState &result) {
  FunctionType type;
  if (parser.parseOptionalAttrDict(result.attributes) ||
      parser.parseColonType(type) ||
      parser.resolveOperands(operands, type.getInputs(),
                             parser.getCurrentLocation(), result.operands))
    return failure();
  result.addTypes(type.getResults());
  return success();
}

//===----------------------------------------------------------------------===//
// stablehlo.dot_general
//===----------------------------------------------------------------------===//

/// `[0] x [1]`.
static ParseResult parseDimsPair(OpAsmParser &parser,
                                 SmallVectorImpl<int64_t> &lhs,
                                 SmallVectorImpl<int64_t> &rhs) {
  auto parseList = [&](SmallVectorImpl<int64_t> &list) {
    return parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&] {
      return parser.parseInteger(list.emplace_back());
    });
  };
  return failure(parseList(lhs) || parser.parseKeyword("x") ||
                 parseList(rhs));
}

/// `<lhs_precision_type = tf32, lhs_component_count = 1,
/// allow_imprecise_accumulation = false, ...>`, kept as a dictionary of
/// types, integers and booleans.
static ParseResult parseDotAlgorithm(OpAsmParser &parser,
                                     DictionaryAttr &algorithm) {
  Builder &builder = parser.getBuilder();
  SmallVector<NamedAttribute> fields;
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::LessGreater, [&] {
        StringRef key;
        if (parser.parseKeyword(&key) || parser.parseEqual())
          return failure();
        Attribute value;
        int64_t number;
        if (succeeded(parser.parseOptionalKeyword("true")))
          value = builder.getBoolAttr(true);
        else if (succeeded(parser.parseOptionalKeyword("false")))
          value = builder.getBoolAttr(false);
        else if (OptionalParseResult parsed =
                     parser.parseOptionalInteger(number);
                 parsed.has_value()) {
          if (failed(*parsed))
            return failure();
          value = builder.getI64IntegerAttr(number);
        } else {
          Type type;
          if (parser.parseType(type))
            return failure();
          value = TypeAttr::get(type);
        }
        fields.push_back(builder.getNamedAttr(key, value));
        return success();
      }))
    return failure();
  algorithm = builder.getDictionaryAttr(fields);
  return success();
}

/// `%a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1],
/// precision = [DEFAULT, DEFAULT], algorithm = <...> : (A, B) -> R`.
ParseResult DotGeneralOp::parse(OpAsmParser &parser, OperationState &result) {
  SmallVector<OpAsmParser::UnresolvedOperand, 2> operands(2);
  if (parser.parseOperand(operands[0]) || parser.parseComma() ||
      parser.parseOperand(operands[1]))
    return failure();
  SmallVector<int64_t> lhsBatch, rhsBatch, lhsContract, rhsContract;
  while (succeeded(parser.parseOptionalComma())) {
    StringRef keyword;
    llvm::SMLoc loc = parser.getCurrentLocation();
    if (parser.parseKeyword(&keyword) || parser.parseEqual())
      return failure();
    if (keyword == "batching_dims") {
      if (parseDimsPair(parser, lhsBatch, rhsBatch))
        return failure();
    } else if (keyword == "contracting_dims") {
      if (parseDimsPair(parser, lhsContract, rhsContract))
        return failure();
    } else if (keyword == "precision") {
      SmallVector<Attribute> precisions;
      if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&] {
            PrecisionAttr precision;
            if (parseEnumKeyword(parser, precision))
              return failure();
            precisions.push_back(precision);
            return success();
          }))
        return failure();
      result.addAttribute("precision_config",
                          parser.getBuilder().getArrayAttr(precisions));
    } else if (keyword == "algorithm") {
      DictionaryAttr algorithm;
      if (parseDotAlgorithm(parser, algorithm))
        return failure();
      result.addAttribute("algorithm", algorithm);
    } else {
      return parser.emitError(loc) << "expected batching_dims, "
                                      "contracting_dims, precision or "
                                      "algorithm, got '"
                                   << keyword << "'";
    }
  }
  result.addAttribute("dot_dimension_numbers",
                      DotDimensionNumbersAttr::get(parser.getContext(),
                                                   lhsBatch, rhsBatch,
                                                   lhsContract, rhsContract));
  return parseAttrsAndFunctionType(parser, operands, result);
}

void DotGeneralOp::print(OpAsmPrinter &printer) {
  printer << " " << getLhs() << ", " << getRhs();
  DotDimensionNumbersAttr dims = getDotDimensionNumbers();
  auto printPair = [&](StringRef name, ArrayRef<int64_t> lhs,
                       ArrayRef<int64_t> rhs) {
    printer << ", " << name << " = [";
    llvm::interleaveComma(lhs, printer);
    printer << "] x [";
    llvm::interleaveComma(rhs, printer);
    printer << "]";
  };
  if (!dims.getLhsBatchingDimensions().empty())
    printPair("batching_dims", dims.getLhsBatchingDimensions(),
              dims.getRhsBatchingDimensions());
  printPair("contracting_dims", dims.getLhsContractingDimensions(),
            dims.getRhsContractingDimensions());
  if (std::optional<ArrayAttr> precisions = getPrecisionConfig()) {
    printer << ", precision = [";
    llvm::interleaveComma(*precisions, printer, [&](Attribute precision) {
      printer << stringifyEnum(cast<PrecisionAttr>(precision).getValue());
    });
    printer << "]";
  }
  if (std::optional<DictionaryAttr> algorithm = getAlgorithm()) {
    // In the order StableHLO prints the fields (the dictionary sorts them).
    SmallVector<NamedAttribute> fields(algorithm->getValue());
    static constexpr StringLiteral order[] = {
        "lhs_precision_type",  "rhs_precision_type",
        "accumulation_type",   "lhs_component_count",
        "rhs_component_count", "num_primitive_operations",
        "allow_imprecise_accumulation"};
    llvm::sort(fields, [](NamedAttribute a, NamedAttribute b) {
      return llvm::find(order, a.getName().getValue()) <
             llvm::find(order, b.getName().getValue());
    });
    printer << ", algorithm = <";
    llvm::interleaveComma(fields, printer, [&](NamedAttribute field) {
      printer << field.getName().getValue() << " = ";
      if (auto type = dyn_cast<TypeAttr>(field.getValue()))
        printer << type.getValue();
      else if (auto flag = dyn_cast<BoolAttr>(field.getValue()))
        printer << (flag.getValue() ? "true" : "false");
      else
        printer << cast<IntegerAttr>(field.getValue()).getInt();
    });
    printer << ">";
  }
  printer.printOptionalAttrDict(
      (*this)->getAttrs(),
      {"dot_dimension_numbers", "precision_config", "algorithm"});
  printer << " : "
          << FunctionType::get(getContext(), getOperandTypes(),
                               getResult().getType());
}

//===----------------------------------------------------------------------===//
// stablehlo.reduce
//===----------------------------------------------------------------------===//

/// `(%x init: %c), (%y init: %d) applies stablehlo.add across dimensions =
/// [1] : (X, Y, C, D) -> (R, S)`, or with `across ...` then `reducer(%a: T,
/// %b: T) (%c: U, %d: U) { ... }` for a body of more than one op.
ParseResult ReduceOp::parse(OpAsmParser &parser, OperationState &result) {
  SmallVector<OpAsmParser::UnresolvedOperand> inputs, inits;
  if (parser.parseCommaSeparatedList([&] {
        return failure(parser.parseLParen() ||
                       parser.parseOperand(inputs.emplace_back()) ||
                       parser.parseKeyword("init") || parser.parseColon() ||
                       parser.parseOperand(inits.emplace_back()) ||
                       parser.parseRParen());
      }))
    return failure();
  std::optional<OperationName> applied;
  llvm::SMLoc appliedLoc = parser.getCurrentLocation();
  if (succeeded(parser.parseOptionalKeyword("applies"))) {
    FailureOr<OperationName> name = parser.parseCustomOperationName();
    if (failed(name))
      return failure();
    applied = *name;
    if (!applied->isRegistered())
      return parser.emitError(appliedLoc)
             << "unknown op '" << applied->getStringRef() << "'";
  }
  DenseI64ArrayAttr dims;
  FunctionType type;
  if (parser.parseKeyword("across") || parser.parseKeyword("dimensions") ||
      parser.parseEqual() || parseDims(parser, dims) ||
      parser.parseOptionalAttrDict(result.attributes) ||
      parser.parseColonType(type))
    return failure();
  result.addAttribute("dimensions", dims);
  SmallVector<OpAsmParser::UnresolvedOperand> operands(inputs);
  operands.append(inits);
  if (parser.resolveOperands(operands, type.getInputs(),
                             parser.getCurrentLocation(), result.operands))
    return failure();
  result.addTypes(type.getResults());
  Region *body = result.addRegion();
  // The body takes an accumulator and an element per input, all scalar
  // tensors of the inits' types.
  SmallVector<Type> scalars;
  for (Type init : type.getInputs().drop_front(inputs.size()))
    scalars.push_back(init);
  if (applied) {
    OpBuilder builder(parser.getContext());
    Block *block = builder.createBlock(body);
    SmallVector<Location> locs(2 * scalars.size(), result.location);
    SmallVector<Type> argTypes(scalars);
    argTypes.append(scalars);
    block->addArguments(argTypes, locs);
    OperationState combine(result.location, *applied);
    combine.addOperands(block->getArguments());
    combine.addTypes(scalars);
    Operation *op = builder.create(combine);
    ReturnOp::create(builder, result.location, op->getResults());
    return success();
  }
  // `reducer(%a: T, %b: T) (%c: U, %d: U)`: (accumulator, element) per
  // input; the block takes the accumulators first.
  SmallVector<OpAsmParser::Argument> accumulators, elements;
  if (parser.parseKeyword("reducer"))
    return failure();
  for (size_t i = 0; i < inputs.size(); ++i)
    if (parser.parseLParen() ||
        parser.parseArgument(accumulators.emplace_back(), true) ||
        parser.parseComma() ||
        parser.parseArgument(elements.emplace_back(), true) ||
        parser.parseRParen())
      return failure();
  SmallVector<OpAsmParser::Argument> arguments(accumulators);
  arguments.append(elements);
  return parser.parseRegion(*body, arguments);
}

/// The body takes an accumulator and an element per input (what printing
/// and importing rely on; StableHLO's own verifier checks more).
LogicalResult ReduceOp::verify() {
  if (getBody().front().getNumArguments() != 2 * getInputs().size())
    return emitOpError("expected a body of ")
           << 2 * getInputs().size() << " arguments, got "
           << getBody().front().getNumArguments();
  return success();
}

/// The op a reduction's body applies to its arguments in order, if that is
/// all it does.
static Operation *appliedOp(ReduceOp op) {
  Block &block = op.getBody().front();
  if (!llvm::hasSingleElement(block.without_terminator()))
    return nullptr;
  Operation &combine = block.front();
  if (combine.getNumRegions() || !combine.getAttrs().empty() ||
      combine.getOperands() != ValueRange(block.getArguments()) ||
      block.getTerminator()->getOperands() != ValueRange(combine.getResults()))
    return nullptr;
  return &combine;
}

void ReduceOp::print(OpAsmPrinter &printer) {
  size_t n = getInputs().size();
  printer << "(";
  for (size_t i = 0; i < n; ++i)
    printer << (i ? "), (" : "") << getInputs()[i]
            << " init: " << getInitValues()[i];
  printer << ")";
  Operation *applied = appliedOp(*this);
  if (applied)
    printer << " applies " << applied->getName();
  printer << " across dimensions = ";
  printDims(printer, *this, getDimensionsAttr());
  printer.printOptionalAttrDict((*this)->getAttrs(), {"dimensions"});
  printer << " : "
          << FunctionType::get(getContext(), getOperandTypes(),
                               getResultTypes());
  if (applied)
    return;
  Block &block = getBody().front();
  printer << " reducer";
  for (size_t i = 0; i < n; ++i) {
    printer << "(";
    printer.printRegionArgument(block.getArgument(i));
    printer << ", ";
    printer.printRegionArgument(block.getArgument(n + i));
    printer << ")";
  }
  printer << " ";
  printer.printRegion(getBody(), /*printEntryBlockArgs=*/false);
}

//===----------------------------------------------------------------------===//
// stablehlo.while
//===----------------------------------------------------------------------===//

/// `(%iterArg = %a, %iterArg_0 = %b) : A, B cond { ... } do { ... }`: both
/// regions take the loop's values under the names given here.
ParseResult WhileOp::parse(OpAsmParser &parser, OperationState &result) {
  SmallVector<OpAsmParser::Argument> arguments;
  SmallVector<OpAsmParser::UnresolvedOperand> operands;
  SmallVector<Type> types;
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Paren, [&] {
        return failure(parser.parseArgument(arguments.emplace_back()) ||
                       parser.parseEqual() ||
                       parser.parseOperand(operands.emplace_back()));
      }))
    return failure();
  llvm::SMLoc typesLoc = parser.getCurrentLocation();
  if (!operands.empty() &&
      (parser.parseColon() || parser.parseTypeList(types)))
    return failure();
  if (types.size() != operands.size())
    return parser.emitError(typesLoc)
           << "expected " << operands.size() << " types";
  for (auto [argument, type] : llvm::zip(arguments, types))
    argument.type = type;
  if (parser.resolveOperands(operands, types, typesLoc, result.operands) ||
      parser.parseOptionalAttrDictWithKeyword(result.attributes) ||
      parser.parseKeyword("cond") ||
      parser.parseRegion(*result.addRegion(), arguments) ||
      parser.parseKeyword("do") ||
      parser.parseRegion(*result.addRegion(), arguments))
    return failure();
  result.addTypes(types);
  return success();
}

/// Both regions take the loop's values.
LogicalResult WhileOp::verify() {
  for (Region *region : {&getCond(), &getBody()})
    if (region->front().getArgumentTypes() != getOperand().getTypes())
      return emitOpError("expected both regions to take the loop's ")
             << getOperand().size() << " values, of their types";
  return success();
}

void WhileOp::print(OpAsmPrinter &printer) {
  Block &cond = getCond().front();
  printer << "(";
  for (auto [i, value] : llvm::enumerate(getOperand())) {
    printer << (i ? ", " : "");
    printer.printRegionArgument(cond.getArgument(i), {}, /*omitType=*/true);
    printer << " = " << value;
  }
  printer << ")";
  if (!getOperand().empty())
    printer << " : " << getOperand().getTypes();
  printer.printOptionalAttrDictWithKeyword((*this)->getAttrs());
  printer << " cond ";
  printer.printRegion(getCond(), /*printEntryBlockArgs=*/false);
  printer << " do ";
  // The body's arguments print under the names the header gave.
  printer.shadowRegionArgs(getBody(), cond.getArguments());
  printer.printRegion(getBody(), /*printEntryBlockArgs=*/false);
}

//===----------------------------------------------------------------------===//
// stablehlo.convolution
//===----------------------------------------------------------------------===//

/// One layout, `[b, 0, 1, f]`: the positions of the dimensions named
/// `names[0]` and `names[1]` and of spatial dimensions 0, 1, ...
static ParseResult parseConvLayout(AsmParser &parser,
                                   std::array<StringRef, 2> names,
                                   std::array<int64_t, 2> &named,
                                   SmallVectorImpl<int64_t> &spatial) {
  named = {-1, -1};
  SmallVector<std::pair<int64_t, int64_t>> numbered; // (index, position)
  int64_t position = 0;
  llvm::SMLoc loc = parser.getCurrentLocation();
  if (parser.parseCommaSeparatedList(
          AsmParser::Delimiter::Square, [&]() -> ParseResult {
            int64_t index;
            OptionalParseResult number = parser.parseOptionalInteger(index);
            if (number.has_value()) {
              numbered.push_back({index, position++});
              return *number;
            }
            StringRef name;
            llvm::SMLoc at = parser.getCurrentLocation();
            if (parser.parseKeyword(&name))
              return failure();
            const StringRef *found = llvm::find(names, name);
            if (found == names.end() || named[found - names.begin()] >= 0)
              return parser.emitError(at)
                     << "expected '" << names[0] << "', '" << names[1]
                     << "' or a spatial dimension, each once, got '" << name
                     << "'";
            named[found - names.begin()] = position++;
            return success();
          }))
    return failure();
  if (named[0] < 0 || named[1] < 0)
    return parser.emitError(loc)
           << "expected '" << names[0] << "' and '" << names[1] << "'";
  spatial.assign(numbered.size(), -1);
  for (auto [index, at] : numbered) {
    if (index < 0 || index >= int64_t(numbered.size()) || spatial[index] >= 0)
      return parser.emitError(loc) << "expected spatial dimensions 0 to "
                                   << numbered.size() - 1 << ", each once";
    spatial[index] = at;
  }
  return success();
}

/// `[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]`.
static Attribute parseConvLayouts(AsmParser &parser) {
  std::array<int64_t, 2> input, kernel, output;
  SmallVector<int64_t> inputSpatial, kernelSpatial, outputSpatial;
  llvm::SMLoc loc = parser.getCurrentLocation();
  if (parseConvLayout(parser, {"b", "f"}, input, inputSpatial) ||
      parser.parseKeyword("x") ||
      parseConvLayout(parser, {"i", "o"}, kernel, kernelSpatial) ||
      parser.parseArrow() ||
      parseConvLayout(parser, {"b", "f"}, output, outputSpatial))
    return {};
  if (inputSpatial.size() != kernelSpatial.size() ||
      inputSpatial.size() != outputSpatial.size()) {
    parser.emitError(loc) << "expected layouts of as many spatial dimensions";
    return {};
  }
  return ConvDimensionNumbersAttr::get(
      parser.getContext(), input[0], input[1], inputSpatial, kernel[0],
      kernel[1], kernelSpatial, output[0], output[1], outputSpatial);
}

static void printConvLayout(AsmPrinter &printer, std::array<char, 2> names,
                            std::array<int64_t, 2> named,
                            ArrayRef<int64_t> spatial) {
  SmallVector<std::string> entries(spatial.size() + 2);
  for (int k = 0; k < 2; ++k)
    if (named[k] >= 0 && named[k] < int64_t(entries.size()))
      entries[named[k]] = std::string(1, names[k]);
  for (auto [index, at] : llvm::enumerate(spatial))
    if (at >= 0 && at < int64_t(entries.size()))
      entries[at] = std::to_string(index);
  printer << "[";
  llvm::interleaveComma(entries, printer);
  printer << "]";
}

static void printConvLayouts(AsmPrinter &printer,
                             ConvDimensionNumbersAttr dims) {
  printConvLayout(printer, {'b', 'f'},
                  {dims.getInputBatchDimension(),
                   dims.getInputFeatureDimension()},
                  dims.getInputSpatialDimensions());
  printer << "x";
  printConvLayout(printer, {'i', 'o'},
                  {dims.getKernelInputFeatureDimension(),
                   dims.getKernelOutputFeatureDimension()},
                  dims.getKernelSpatialDimensions());
  printer << "->";
  printConvLayout(printer, {'b', 'f'},
                  {dims.getOutputBatchDimension(),
                   dims.getOutputFeatureDimension()},
                  dims.getOutputSpatialDimensions());
}

Attribute ConvDimensionNumbersAttr::parse(AsmParser &parser, Type) {
  Attribute dims;
  if (parser.parseLess() || !(dims = parseConvLayouts(parser)) ||
      parser.parseGreater())
    return {};
  return dims;
}

void ConvDimensionNumbersAttr::print(AsmPrinter &printer) const {
  printer << "<";
  printConvLayouts(printer, *this);
  printer << ">";
}

/// `window = {stride = [2, 2], pad = [[0, 1], [0, 1]], lhs_dilate = [1, 1],
/// rhs_dilate = [1, 1], reverse = [false, false]}`, into `result`'s
/// attributes.
static ParseResult parseConvWindow(OpAsmParser &parser,
                                   OperationState &result) {
  Builder &b = parser.getBuilder();
  auto parseInts = [&](SmallVectorImpl<int64_t> &values) {
    return parser.parseCommaSeparatedList(
        AsmParser::Delimiter::Square, [&]() -> ParseResult {
      if (succeeded(parser.parseOptionalKeyword("true")))
        values.push_back(1);
      else if (succeeded(parser.parseOptionalKeyword("false")))
        values.push_back(0);
      else
        return parser.parseInteger(values.emplace_back());
      return success();
    });
  };
  return parser.parseCommaSeparatedList(
      AsmParser::Delimiter::Braces, [&]() -> ParseResult {
        StringRef key;
        llvm::SMLoc loc = parser.getCurrentLocation();
        if (parser.parseKeyword(&key) || parser.parseEqual())
          return failure();
        SmallVector<int64_t> values;
        if (key == "pad") {
          int64_t rows = 0;
          if (parser.parseCommaSeparatedList(
                  AsmParser::Delimiter::Square, [&]() -> ParseResult {
                    size_t before = values.size();
                    if (parseInts(values))
                      return failure();
                    ++rows;
                    if (values.size() - before != 2)
                      return parser.emitError(loc) << "expected pairs";
                    return success();
                  }))
            return failure();
          result.addAttribute(
              "padding",
              DenseIntElementsAttr::get(
                  RankedTensorType::get({rows, 2}, b.getI64Type()), values));
          return success();
        }
        if (parseInts(values))
          return failure();
        if (key == "reverse") {
          SmallVector<bool> flags(values.begin(), values.end());
          result.addAttribute("window_reversal", b.getDenseBoolArrayAttr(flags));
          return success();
        }
        StringRef name = llvm::StringSwitch<StringRef>(key)
                             .Case("stride", "window_strides")
                             .Case("lhs_dilate", "lhs_dilation")
                             .Case("rhs_dilate", "rhs_dilation")
                             .Default("");
        if (name.empty())
          return parser.emitError(loc)
                 << "expected stride, pad, lhs_dilate, rhs_dilate or "
                    "reverse, got '"
                 << key << "'";
        result.addAttribute(name, b.getDenseI64ArrayAttr(values));
        return success();
      });
}

/// `(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f],
/// window = {...} {feature_group_count = 1 : i64, ...} : (X, K) -> R`.
ParseResult ConvolutionOp::parse(OpAsmParser &parser, OperationState &result) {
  SmallVector<OpAsmParser::UnresolvedOperand, 2> operands;
  Attribute dims;
  if (parser.parseOperandList(operands, 2, AsmParser::Delimiter::Paren) ||
      parser.parseKeyword("dim_numbers") || parser.parseEqual() ||
      !(dims = parseConvLayouts(parser)))
    return failure();
  result.addAttribute("dimension_numbers", dims);
  if (succeeded(parser.parseOptionalComma()) &&
      (parser.parseKeyword("window") || parser.parseEqual() ||
       parseConvWindow(parser, result)))
    return failure();
  return parseAttrsAndFunctionType(parser, operands, result);
}

void ConvolutionOp::print(OpAsmPrinter &printer) {
  printer << "(" << getLhs() << ", " << getRhs() << ") dim_numbers = ";
  printConvLayouts(printer, getDimensionNumbers());
  SmallVector<std::string> window;
  auto list = [](auto values) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << "[";
    llvm::interleaveComma(values, os);
    os << "]";
    return text;
  };
  if (auto strides = getWindowStridesAttr())
    window.push_back("stride = " + list(strides.asArrayRef()));
  if (auto padding = getPaddingAttr()) {
    SmallVector<std::string> pairs;
    SmallVector<int64_t> values(padding.getValues<int64_t>());
    for (size_t i = 0; i + 1 < values.size(); i += 2)
      pairs.push_back(list(ArrayRef<int64_t>{values[i], values[i + 1]}));
    window.push_back("pad = " + list(pairs));
  }
  if (auto dilation = getLhsDilationAttr())
    window.push_back("lhs_dilate = " + list(dilation.asArrayRef()));
  if (auto dilation = getRhsDilationAttr())
    window.push_back("rhs_dilate = " + list(dilation.asArrayRef()));
  if (auto reversal = getWindowReversalAttr()) {
    SmallVector<StringRef> flags;
    for (bool flag : reversal.asArrayRef())
      flags.push_back(flag ? "true" : "false");
    window.push_back("reverse = " + list(flags));
  }
  if (!window.empty()) {
    printer << ", window = {";
    llvm::interleaveComma(window, printer);
    printer << "}";
  }
  printer.printOptionalAttrDict(
      (*this)->getAttrs(),
      {"dimension_numbers", "window_strides", "padding", "lhs_dilation",
       "rhs_dilation", "window_reversal"});
  printer << " : ";
  printer.printFunctionalType(*this);
}

#define GET_ATTRDEF_CLASSES
#include "frontend/stablehlo/StablehloAttrs.cpp.inc"

#define GET_OP_CLASSES
#include "frontend/stablehlo/StablehloOps.cpp.inc"
