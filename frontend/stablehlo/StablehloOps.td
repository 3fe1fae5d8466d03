//===- StablehloOps.td - the StableHLO ops Kiln imports ------*- tablegen -*-===//
//
// Kiln's own definition of the `stablehlo` ops its importer reads, with
// StableHLO's names, attributes and both textual forms (what JAX prints, and
// the generic form), so that JAX's exported modules parse without a
// StableHLO build. They are input only: kiln-import-stablehlo turns each
// into kiln ops, and nothing else reads them.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_FRONTEND_STABLEHLO_OPS_TD
#define KILN_FRONTEND_STABLEHLO_OPS_TD

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Stablehlo_Dialect : Dialect {
  let name = "stablehlo";
  let cppNamespace = "::kiln::shlo";
  let summary = "StableHLO ops as JAX exports them, read by Kiln's importer";
  let useDefaultAttributePrinterParser = 1;
}

class Stablehlo_Op<string mnemonic, list<Trait> traits = []>
    : Op<Stablehlo_Dialect, mnemonic, traits>;

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

def Stablehlo_ComparisonDirection : I32EnumAttr<"ComparisonDirection",
    "stablehlo.compare's direction", [
      I32EnumAttrCase<"EQ", 0>, I32EnumAttrCase<"NE", 1>,
      I32EnumAttrCase<"GE", 2>, I32EnumAttrCase<"GT", 3>,
      I32EnumAttrCase<"LE", 4>, I32EnumAttrCase<"LT", 5>]> {
  let cppNamespace = "::kiln::shlo";
  let genSpecializedAttr = 0;
}
def Stablehlo_ComparisonDirectionAttr : EnumAttr<Stablehlo_Dialect,
    Stablehlo_ComparisonDirection, "comparison_direction">;

def Stablehlo_ComparisonType : I32EnumAttr<"ComparisonType",
    "how stablehlo.compare orders its operands", [
      I32EnumAttrCase<"NOTYPE", 0>, I32EnumAttrCase<"FLOAT", 1>,
      I32EnumAttrCase<"TOTALORDER", 2>, I32EnumAttrCase<"SIGNED", 3>,
      I32EnumAttrCase<"UNSIGNED", 4>]> {
  let cppNamespace = "::kiln::shlo";
  let genSpecializedAttr = 0;
}
def Stablehlo_ComparisonTypeAttr : EnumAttr<Stablehlo_Dialect,
    Stablehlo_ComparisonType, "comparison_type">;

def Stablehlo_Precision : I32EnumAttr<"Precision",
    "stablehlo.dot_general's precision", [
      I32EnumAttrCase<"DEFAULT", 0>, I32EnumAttrCase<"HIGH", 1>,
      I32EnumAttrCase<"HIGHEST", 2>]> {
  let cppNamespace = "::kiln::shlo";
  let genSpecializedAttr = 0;
}
def Stablehlo_PrecisionAttr : EnumAttr<Stablehlo_Dialect, Stablehlo_Precision,
    "precision">;

def Stablehlo_DotDimensionNumbers
    : AttrDef<Stablehlo_Dialect, "DotDimensionNumbers"> {
  let mnemonic = "dot";
  let summary = "stablehlo.dot_general's batching and contracting dimensions";
  let parameters = (ins
    OptionalArrayRefParameter<"int64_t">:$lhsBatchingDimensions,
    OptionalArrayRefParameter<"int64_t">:$rhsBatchingDimensions,
    OptionalArrayRefParameter<"int64_t">:$lhsContractingDimensions,
    OptionalArrayRefParameter<"int64_t">:$rhsContractingDimensions);
  let hasCustomAssemblyFormat = 1;
}

def Stablehlo_GatherDimensionNumbers
    : AttrDef<Stablehlo_Dialect, "GatherDimensionNumbers"> {
  let mnemonic = "gather";
  let summary = "how stablehlo.gather's indices pick slices";
  let parameters = (ins
    OptionalArrayRefParameter<"int64_t">:$offsetDims,
    OptionalArrayRefParameter<"int64_t">:$collapsedSliceDims,
    OptionalArrayRefParameter<"int64_t">:$operandBatchingDims,
    OptionalArrayRefParameter<"int64_t">:$startIndicesBatchingDims,
    OptionalArrayRefParameter<"int64_t">:$startIndexMap,
    "int64_t":$indexVectorDim);
  let hasCustomAssemblyFormat = 1;
}

def Stablehlo_ScatterDimensionNumbers
    : AttrDef<Stablehlo_Dialect, "ScatterDimensionNumbers"> {
  let mnemonic = "scatter";
  let summary = "how stablehlo.scatter's indices place updates";
  let parameters = (ins
    OptionalArrayRefParameter<"int64_t">:$updateWindowDims,
    OptionalArrayRefParameter<"int64_t">:$insertedWindowDims,
    OptionalArrayRefParameter<"int64_t">:$inputBatchingDims,
    OptionalArrayRefParameter<"int64_t">:$scatterIndicesBatchingDims,
    OptionalArrayRefParameter<"int64_t">:$scatterDimsToOperandDims,
    "int64_t":$indexVectorDim);
  let hasCustomAssemblyFormat = 1;
}

def Stablehlo_ConvDimensionNumbers
    : AttrDef<Stablehlo_Dialect, "ConvDimensionNumbers"> {
  let mnemonic = "conv";
  let summary = "stablehlo.convolution's layouts: `[b, 0, 1, f]x[0, 1, i, o]"
                "->[b, 0, 1, f]`";
  let parameters = (ins
    "int64_t":$inputBatchDimension, "int64_t":$inputFeatureDimension,
    OptionalArrayRefParameter<"int64_t">:$inputSpatialDimensions,
    "int64_t":$kernelInputFeatureDimension,
    "int64_t":$kernelOutputFeatureDimension,
    OptionalArrayRefParameter<"int64_t">:$kernelSpatialDimensions,
    "int64_t":$outputBatchDimension, "int64_t":$outputFeatureDimension,
    OptionalArrayRefParameter<"int64_t">:$outputSpatialDimensions);
  let hasCustomAssemblyFormat = 1;
}

//===----------------------------------------------------------------------===//
// Ops
//===----------------------------------------------------------------------===//

def Stablehlo_ConstantOp : Stablehlo_Op<"constant",
    [ConstantLike, AllTypesMatch<["value", "output"]>]> {
  let summary = "a constant tensor";
  let arguments = (ins ElementsAttr:$value);
  let results = (outs AnyTensor:$output);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
}

def Stablehlo_IotaOp : Stablehlo_Op<"iota"> {
  let summary = "indices along one dimension";
  let arguments = (ins I64Attr:$iota_dimension);
  let results = (outs AnyTensor:$output);
  let assemblyFormat = "`dim` `=` $iota_dimension attr-dict `:` type($output)";
}

class Stablehlo_UnaryOp<string mnemonic>
    : Stablehlo_Op<mnemonic, [Elementwise]> {
  let summary = "an elementwise function of one tensor";
  let arguments = (ins AnyTensor:$operand);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = [{
    $operand attr-dict `:`
        custom<SameOperandsAndResultType>(type($operand), type($result))
  }];
}

class Stablehlo_BinaryOp<string mnemonic>
    : Stablehlo_Op<mnemonic, [Elementwise]> {
  let summary = "an elementwise function of two tensors";
  let arguments = (ins AnyTensor:$lhs, AnyTensor:$rhs);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:`
        custom<SameOperandsAndResultType>(type($lhs), type($rhs), type($result))
  }];
}

// [mnemonic, C++ name]
foreach op = [["abs", "Abs"], ["negate", "Negate"],
              ["exponential", "Exponential"],
              ["exponential_minus_one", "ExponentialMinusOne"],
              ["log", "Log"], ["log_plus_one", "LogPlusOne"],
              ["tanh", "Tanh"], ["logistic", "Logistic"], ["sqrt", "Sqrt"],
              ["rsqrt", "Rsqrt"], ["sine", "Sine"], ["cosine", "Cosine"],
              ["tan", "Tan"], ["cbrt", "Cbrt"],
              ["round_nearest_afz", "RoundNearestAfz"],
              ["round_nearest_even", "RoundNearestEven"],
              ["floor", "Floor"], ["ceil", "Ceil"], ["not", "Not"],
              ["sign", "Sign"], ["convert", "Convert"],
              ["bitcast_convert", "BitcastConvert"],
              ["is_finite", "IsFinite"], ["popcnt", "Popcnt"],
              ["count_leading_zeros", "CountLeadingZeros"]] in
  def Stablehlo_#op[1]#Op : Stablehlo_UnaryOp<op[0]>;

foreach op = [["add", "Add"], ["subtract", "Subtract"],
              ["multiply", "Multiply"], ["divide", "Divide"],
              ["remainder", "Remainder"], ["maximum", "Maximum"],
              ["minimum", "Minimum"], ["power", "Power"], ["atan2", "Atan2"],
              ["and", "And"], ["or", "Or"], ["xor", "Xor"],
              ["shift_left", "ShiftLeft"],
              ["shift_right_logical", "ShiftRightLogical"],
              ["shift_right_arithmetic", "ShiftRightArithmetic"]] in
  def Stablehlo_#op[1]#Op : Stablehlo_BinaryOp<op[0]>;

def Stablehlo_CompareOp : Stablehlo_Op<"compare", [Elementwise]> {
  let summary = "elementwise comparison";
  let arguments = (ins AnyTensor:$lhs, AnyTensor:$rhs,
                   Stablehlo_ComparisonDirectionAttr:$comparison_direction,
                   OptionalAttr<Stablehlo_ComparisonTypeAttr>:$compare_type);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = [{
    custom<EnumKeyword>($comparison_direction) `,` $lhs `,` $rhs
        (`,` custom<EnumKeyword>($compare_type)^)? attr-dict `:`
        functional-type(operands, results)
  }];
}

def Stablehlo_SelectOp : Stablehlo_Op<"select"> {
  let summary = "elementwise choice (the predicate may be a scalar)";
  let arguments = (ins AnyTensor:$pred, AnyTensor:$on_true,
                   AnyTensor:$on_false);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = [{
    $pred `,` $on_true `,` $on_false attr-dict `:`
        custom<SelectType>(type($pred), type($on_true), type($on_false),
                           type($result))
  }];
}

def Stablehlo_BroadcastInDimOp : Stablehlo_Op<"broadcast_in_dim"> {
  let summary = "broadcasts a tensor into a larger shape";
  let arguments = (ins AnyTensor:$operand,
                   DenseI64ArrayAttr:$broadcast_dimensions);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = [{
    $operand `,` `dims` `=` custom<Dims>($broadcast_dimensions) attr-dict `:`
        functional-type(operands, results)
  }];
}

def Stablehlo_ReshapeOp : Stablehlo_Op<"reshape"> {
  let summary = "the same elements in another shape";
  let arguments = (ins AnyTensor:$operand);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = "$operand attr-dict `:` functional-type(operands, results)";
}

def Stablehlo_TransposeOp : Stablehlo_Op<"transpose"> {
  let summary = "permutes a tensor's dimensions";
  let arguments = (ins AnyTensor:$operand, DenseI64ArrayAttr:$permutation);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = [{
    $operand `,` `dims` `=` custom<Dims>($permutation) attr-dict `:`
        functional-type(operands, results)
  }];
}

def Stablehlo_SliceOp : Stablehlo_Op<"slice"> {
  let summary = "a strided static slice";
  let arguments = (ins AnyTensor:$operand, DenseI64ArrayAttr:$start_indices,
                   DenseI64ArrayAttr:$limit_indices,
                   DenseI64ArrayAttr:$strides);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = [{
    $operand custom<SliceRanges>($start_indices, $limit_indices, $strides)
        attr-dict `:` functional-type(operands, results)
  }];
}

def Stablehlo_ConcatenateOp : Stablehlo_Op<"concatenate"> {
  let summary = "joins tensors along a dimension";
  let arguments = (ins Variadic<AnyTensor>:$inputs, I64Attr:$dimension);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = [{
    custom<ConcatenateInputs>($inputs, $dimension) attr-dict `:`
        functional-type(operands, results)
  }];
}

def Stablehlo_DotGeneralOp : Stablehlo_Op<"dot_general"> {
  let summary = "a generalized matrix product";
  let arguments = (ins AnyTensor:$lhs, AnyTensor:$rhs,
                   Stablehlo_DotDimensionNumbers:$dot_dimension_numbers,
                   OptionalAttr<TypedArrayAttrBase<Stablehlo_PrecisionAttr,
                                "precisions">>:$precision_config,
                   OptionalAttr<DictionaryAttr>:$algorithm);
  let results = (outs AnyTensor:$result);
  let hasCustomAssemblyFormat = 1;
}

def Stablehlo_ReduceOp : Stablehlo_Op<"reduce", [SameVariadicOperandSize,
    RecursiveMemoryEffects]> {
  let summary = "reduces tensors over dimensions with a body";
  let arguments = (ins Variadic<AnyTensor>:$inputs,
                   Variadic<AnyTensor>:$init_values,
                   DenseI64ArrayAttr:$dimensions);
  let results = (outs Variadic<AnyTensor>);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def Stablehlo_ReduceWindowOp : Stablehlo_Op<"reduce_window", [
    SameVariadicOperandSize, RecursiveMemoryEffects]> {
  let summary = "reduces windows with a body (pooling; generic syntax only)";
  let arguments = (ins Variadic<AnyTensor>:$inputs,
                   Variadic<AnyTensor>:$init_values,
                   DenseI64ArrayAttr:$window_dimensions,
                   OptionalAttr<DenseI64ArrayAttr>:$window_strides,
                   OptionalAttr<DenseI64ArrayAttr>:$base_dilations,
                   OptionalAttr<DenseI64ArrayAttr>:$window_dilations,
                   OptionalAttr<I64ElementsAttr>:$padding);
  let results = (outs Variadic<AnyTensor>);
  let regions = (region SizedRegion<1>:$body);
}

def Stablehlo_SelectAndScatterOp : Stablehlo_Op<"select_and_scatter",
    [RecursiveMemoryEffects]> {
  let summary = "scatters into the element each window selects (the "
                "gradient of max pooling; generic syntax only)";
  let arguments = (ins AnyTensor:$operand, AnyTensor:$source,
                   AnyTensor:$init_value,
                   OptionalAttr<DenseI64ArrayAttr>:$window_dimensions,
                   OptionalAttr<DenseI64ArrayAttr>:$window_strides,
                   OptionalAttr<I64ElementsAttr>:$padding);
  let results = (outs AnyTensor:$result);
  let regions = (region SizedRegion<1>:$select, SizedRegion<1>:$scatter);
}

def Stablehlo_SortOp : Stablehlo_Op<"sort", [RecursiveMemoryEffects]> {
  let summary = "sorts tensors along a dimension by a comparator (generic "
                "syntax only)";
  let arguments = (ins Variadic<AnyTensor>:$inputs,
                   DefaultValuedAttr<I64Attr, "-1">:$dimension,
                   OptionalAttr<BoolAttr>:$is_stable);
  let results = (outs Variadic<AnyTensor>);
  let regions = (region SizedRegion<1>:$comparator);
}

def Stablehlo_ConvolutionOp : Stablehlo_Op<"convolution"> {
  let summary = "a convolution (jax.lax.conv_general_dilated)";
  let arguments = (ins AnyTensor:$lhs, AnyTensor:$rhs,
                   OptionalAttr<DenseI64ArrayAttr>:$window_strides,
                   OptionalAttr<I64ElementsAttr>:$padding,
                   OptionalAttr<DenseI64ArrayAttr>:$lhs_dilation,
                   OptionalAttr<DenseI64ArrayAttr>:$rhs_dilation,
                   OptionalAttr<DenseBoolArrayAttr>:$window_reversal,
                   Stablehlo_ConvDimensionNumbers:$dimension_numbers,
                   I64Attr:$feature_group_count, I64Attr:$batch_group_count,
                   OptionalAttr<TypedArrayAttrBase<Stablehlo_PrecisionAttr,
                                "precisions">>:$precision_config);
  let results = (outs AnyTensor:$result);
  let hasCustomAssemblyFormat = 1;
}

def Stablehlo_PadOp : Stablehlo_Op<"pad"> {
  let summary = "pads a tensor at its edges and between its elements";
  let arguments = (ins AnyTensor:$operand, AnyTensor:$padding_value,
                   DenseI64ArrayAttr:$edge_padding_low,
                   DenseI64ArrayAttr:$edge_padding_high,
                   DenseI64ArrayAttr:$interior_padding);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = [{
    $operand `,` $padding_value `,` `low` `=` custom<Dims>($edge_padding_low)
        `,` `high` `=` custom<Dims>($edge_padding_high) `,` `interior` `=`
        custom<Dims>($interior_padding) attr-dict `:`
        functional-type(operands, results)
  }];
}

def Stablehlo_ReverseOp : Stablehlo_Op<"reverse"> {
  let summary = "reverses a tensor along dimensions";
  let arguments = (ins AnyTensor:$operand, DenseI64ArrayAttr:$dimensions);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = [{
    $operand `,` `dims` `=` custom<Dims>($dimensions) attr-dict `:`
        custom<SameOperandsAndResultType>(type($operand), type($result))
  }];
}

def Stablehlo_DynamicSliceOp : Stablehlo_Op<"dynamic_slice"> {
  let summary = "a slice at indices known at run time";
  let arguments = (ins AnyTensor:$operand, Variadic<AnyTensor>:$start_indices,
                   DenseI64ArrayAttr:$slice_sizes);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = [{
    $operand `,` custom<SliceStarts>($start_indices, $slice_sizes) attr-dict
        `:` functional-type(operands, results)
  }];
}

def Stablehlo_DynamicUpdateSliceOp : Stablehlo_Op<"dynamic_update_slice"> {
  let summary = "writes a tensor into another at indices known at run time";
  let arguments = (ins AnyTensor:$operand, AnyTensor:$update,
                   Variadic<AnyTensor>:$start_indices);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = [{
    $operand `,` $update `,` $start_indices attr-dict `:`
        functional-type(operands, results)
  }];
}

def Stablehlo_ClampOp : Stablehlo_Op<"clamp"> {
  let summary = "bounds each element (bounds may be scalars)";
  let arguments = (ins AnyTensor:$min, AnyTensor:$operand, AnyTensor:$max);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = [{
    $min `,` $operand `,` $max attr-dict `:`
        custom<SameOperandsAndResultType>(type($min), type($operand),
                                          type($max), type($result))
  }];
}

def Stablehlo_WhileOp : Stablehlo_Op<"while", [RecursiveMemoryEffects]> {
  let summary = "a loop (lax.while_loop, lax.fori_loop, lax.scan)";
  let arguments = (ins Variadic<AnyTensor>:$operand);
  let results = (outs Variadic<AnyTensor>);
  let regions = (region SizedRegion<1>:$cond, SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def Stablehlo_IfOp : Stablehlo_Op<"if", [RecursiveMemoryEffects]> {
  let summary = "one of two regions on a predicate (generic syntax only)";
  let arguments = (ins AnyTensor:$pred);
  let results = (outs Variadic<AnyTensor>);
  let regions = (region SizedRegion<1>:$true_branch,
                        SizedRegion<1>:$false_branch);
}

def Stablehlo_CaseOp : Stablehlo_Op<"case", [RecursiveMemoryEffects]> {
  let summary = "one of several regions on an index, the last when out of "
                "range (lax.cond, lax.switch; generic syntax only)";
  let arguments = (ins AnyTensor:$index);
  let results = (outs Variadic<AnyTensor>);
  let regions = (region VariadicRegion<SizedRegion<1>>:$branches);
}

def Stablehlo_GatherOp : Stablehlo_Op<"gather"> {
  let summary = "slices at indices (jnp.take, x[i]; generic syntax only)";
  let arguments = (ins AnyTensor:$operand, AnyTensor:$start_indices,
                   Stablehlo_GatherDimensionNumbers:$dimension_numbers,
                   DenseI64ArrayAttr:$slice_sizes,
                   OptionalAttr<BoolAttr>:$indices_are_sorted);
  let results = (outs AnyTensor:$result);
}

def Stablehlo_ScatterOp : Stablehlo_Op<"scatter", [SameVariadicOperandSize,
    RecursiveMemoryEffects]> {
  let summary = "combines updates into slices at indices (x.at[i].add(u); "
                "generic syntax only)";
  let arguments = (ins Variadic<AnyTensor>:$inputs,
                   AnyTensor:$scatter_indices,
                   Variadic<AnyTensor>:$updates,
                   Stablehlo_ScatterDimensionNumbers:$scatter_dimension_numbers,
                   OptionalAttr<BoolAttr>:$indices_are_sorted,
                   OptionalAttr<BoolAttr>:$unique_indices);
  let results = (outs Variadic<AnyTensor>);
  let regions = (region SizedRegion<1>:$update_computation);
}

def Stablehlo_DotOp : Stablehlo_Op<"dot"> {
  let summary = "a matrix or vector product (older exports)";
  let arguments = (ins AnyTensor:$lhs, AnyTensor:$rhs,
                   OptionalAttr<TypedArrayAttrBase<Stablehlo_PrecisionAttr,
                                "precisions">>:$precision_config);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` functional-type(operands, results)
  }];
}

def Stablehlo_OptimizationBarrierOp
    : Stablehlo_Op<"optimization_barrier"> {
  let summary = "its operands, kept from being moved across (jax.checkpoint)";
  let arguments = (ins Variadic<AnyTensor>:$operand);
  let results = (outs Variadic<AnyTensor>:$result);
  let assemblyFormat = [{
    attr-dict ($operand^ `:` custom<BarrierTypes>(type($operand), type($result)))?
  }];
}

def Stablehlo_CompositeOp : Stablehlo_Op<"composite"> {
  let summary = "a named op and the function that decomposes it "
                "(jax.lax.composite)";
  let arguments = (ins Variadic<AnyTensor>:$inputs, StrAttr:$name,
                   OptionalAttr<DictionaryAttr>:$composite_attributes,
                   FlatSymbolRefAttr:$decomposition,
                   OptionalAttr<I32Attr>:$version);
  let results = (outs Variadic<AnyTensor>);
  let assemblyFormat = [{
    $name $inputs attr-dict `:` functional-type($inputs, results)
  }];
}

def Stablehlo_ReturnOp : Stablehlo_Op<"return", [Terminator]> {
  let summary = "a region's results";
  let arguments = (ins Variadic<AnyTensor>:$results);
  let assemblyFormat = "$results attr-dict (`:` type($results)^)?";
}

def Stablehlo_CustomCallOp : Stablehlo_Op<"custom_call"> {
  let summary = "a call of a backend's own function (refused on import, "
                "but for GSPMD's sharding annotation)";
  let arguments = (ins Variadic<AnyType>:$inputs, StrAttr:$call_target_name);
  let results = (outs Variadic<AnyType>);
  let assemblyFormat = [{
    custom<CallTarget>($call_target_name) `(` $inputs `)` attr-dict `:`
        functional-type(operands, results)
  }];
}

#endif // KILN_FRONTEND_STABLEHLO_OPS_TD
