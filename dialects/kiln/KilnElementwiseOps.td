//===- KilnElementwiseOps.td - elementwise ops -------------*- tablegen -*-===//
//
// Elementwise ops take no attributes; operands and result share one type.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_ELEMENTWISE_OPS_TD
#define KILN_ELEMENTWISE_OPS_TD

include "KilnDialect.td"
include "KilnInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

class Kiln_UnaryOp<string mnemonic, Type tensorType, string doc,
                   string exampleType = "tensor<4xf32>">
    : Kiln_Op<mnemonic, [Pure, Elementwise, SameOperandsAndResultType,
                         InferTypeOpInterface]> {
  let summary = doc;
  let description = !strconcat(doc, " of every element, as `jax.lax.",
      mnemonic, "`.\n\nExample:\n\n```mlir\n%y = kiln.", mnemonic, " %x : ",
      exampleType, "\n```");
  let arguments = (ins tensorType:$operand);
  let results = (outs tensorType:$result);
  let assemblyFormat = "$operand attr-dict `:` type($result)";
  let hasFolder = 1;
}

class Kiln_BinaryOp<string mnemonic, Type tensorType, string doc,
                    list<Trait> traits = [],
                    string exampleType = "tensor<4xf32>">
    : Kiln_Op<mnemonic, !listconcat(traits, [Pure, Elementwise,
                         SameOperandsAndResultType, InferTypeOpInterface])> {
  let summary = doc;
  let description = !strconcat(doc, ", elementwise, as `jax.lax.", mnemonic,
      "`.\n\nExample:\n\n```mlir\n%z = kiln.", mnemonic, " %x, %y : ",
      exampleType, "\n```");
  let arguments = (ins tensorType:$lhs, tensorType:$rhs);
  let results = (outs tensorType:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($result)";
  let hasFolder = 1;
}

// Unary arithmetic on floats and integers.
def Kiln_NegOp : Kiln_UnaryOp<"neg", Kiln_NumericTensor, "negation">;
def Kiln_AbsOp : Kiln_UnaryOp<"abs", Kiln_NumericTensor, "absolute value">;
def Kiln_SignOp : Kiln_UnaryOp<"sign", Kiln_NumericTensor,
    "sign (-1, 0 or 1; NaN stays NaN)">;

// Unary functions of floats.
def Kiln_ExpOp : Kiln_UnaryOp<"exp", Kiln_FloatTensor, "exponential">;
def Kiln_Expm1Op : Kiln_UnaryOp<"expm1", Kiln_FloatTensor,
    "exponential minus one">;
def Kiln_LogOp : Kiln_UnaryOp<"log", Kiln_FloatTensor, "natural logarithm">;
def Kiln_Log1pOp : Kiln_UnaryOp<"log1p", Kiln_FloatTensor,
    "natural logarithm of one plus the value">;
def Kiln_TanhOp : Kiln_UnaryOp<"tanh", Kiln_FloatTensor,
    "hyperbolic tangent">;
def Kiln_LogisticOp : Kiln_UnaryOp<"logistic", Kiln_FloatTensor,
    "logistic sigmoid 1 / (1 + exp(-x))">;
def Kiln_SqrtOp : Kiln_UnaryOp<"sqrt", Kiln_FloatTensor, "square root">;
def Kiln_RsqrtOp : Kiln_UnaryOp<"rsqrt", Kiln_FloatTensor,
    "reciprocal square root">;
def Kiln_SinOp : Kiln_UnaryOp<"sin", Kiln_FloatTensor, "sine">;
def Kiln_CosOp : Kiln_UnaryOp<"cos", Kiln_FloatTensor, "cosine">;
def Kiln_FloorOp : Kiln_UnaryOp<"floor", Kiln_FloatTensor,
    "rounding toward negative infinity">;
def Kiln_CeilOp : Kiln_UnaryOp<"ceil", Kiln_FloatTensor,
    "rounding toward positive infinity">;

// Bitwise / logical negation of integers and booleans.
def Kiln_NotOp : Kiln_UnaryOp<"not", Kiln_LogicalTensor,
    "logical (i1) or bitwise (integer) negation", "tensor<4xi1>">;

// Binary arithmetic on floats and integers.
def Kiln_AddOp : Kiln_BinaryOp<"add", Kiln_NumericTensor, "addition",
    [Commutative]>;
def Kiln_SubOp : Kiln_BinaryOp<"sub", Kiln_NumericTensor, "subtraction">;
def Kiln_MulOp : Kiln_BinaryOp<"mul", Kiln_NumericTensor, "multiplication",
    [Commutative]>;
def Kiln_DivOp : Kiln_BinaryOp<"div", Kiln_NumericTensor,
    "division (integers round toward zero; as in XLA, x / 0 = -1 and "
    "INT_MIN / -1 = INT_MIN)">;
def Kiln_RemOp : Kiln_BinaryOp<"rem", Kiln_NumericTensor,
    "remainder with the sign of the dividend (as in XLA, x % 0 = x and "
    "INT_MIN % -1 = 0)">;
def Kiln_MaxOp : Kiln_BinaryOp<"max", Kiln_Tensor,
    "maximum (NaN if either operand is NaN; logical or on i1, as in "
    "StableHLO)", [Commutative]>;
def Kiln_MinOp : Kiln_BinaryOp<"min", Kiln_Tensor,
    "minimum (NaN if either operand is NaN; logical and on i1, as in "
    "StableHLO)", [Commutative]>;
def Kiln_PowOp : Kiln_BinaryOp<"pow", Kiln_NumericTensor,
    "power lhs ^ rhs (integers, as in XLA: wrapping for rhs >= 0; for "
    "rhs < 0, 1 if lhs = 1 and 0 otherwise, also for lhs = -1)">;
def Kiln_Atan2Op : Kiln_BinaryOp<"atan2", Kiln_FloatTensor,
    "arc tangent of lhs / rhs in the quadrant of (rhs, lhs)">;

// Logical (i1) or bitwise (integer) binary ops.
def Kiln_AndOp : Kiln_BinaryOp<"and", Kiln_LogicalTensor,
    "logical or bitwise and", [Commutative], "tensor<4xi1>">;
def Kiln_OrOp : Kiln_BinaryOp<"or", Kiln_LogicalTensor,
    "logical or bitwise or", [Commutative], "tensor<4xi1>">;
def Kiln_XorOp : Kiln_BinaryOp<"xor", Kiln_LogicalTensor,
    "logical or bitwise exclusive or", [Commutative], "tensor<4xi1>">;

// Shifts of integers; the amount reads as unsigned, and from the bit width
// on a shift gives 0 (an arithmetic right shift the sign's fill), as
// StableHLO's.
def Kiln_ShiftLeftOp : Kiln_BinaryOp<"shift_left", Kiln_IntTensor,
    "left shift of lhs by rhs bits", [], "tensor<4xi32>">;
def Kiln_ShiftRightLogicalOp : Kiln_BinaryOp<"shift_right_logical",
    Kiln_IntTensor, "right shift of lhs by rhs bits, filling with zeros", [],
    "tensor<4xi32>">;
def Kiln_ShiftRightArithmeticOp : Kiln_BinaryOp<"shift_right_arithmetic",
    Kiln_IntTensor, "right shift of lhs by rhs bits, filling with its sign",
    [], "tensor<4xi32>">;

//===----------------------------------------------------------------------===//
// compare, select, convert
//===----------------------------------------------------------------------===//

def Kiln_CompareOp : Kiln_Op<"compare", [Pure, Elementwise, SameTypeOperands,
    InferTypeOpAdaptor]> {
  let summary = "elementwise comparison producing booleans";
  let description = [{
    Compares `lhs` and `rhs` elementwise in the direction
    `comparison_direction` (EQ, NE, LT, LE, GT, GE), as `jax.lax.eq` etc.
    Floats compare as IEEE ordered comparisons (any comparison with NaN is
    false, except NE which is true); integers compare as signed and booleans
    as false < true. The result
    is an `i1` tensor of the operands' shape.

    Example:

    ```mlir
    %p = kiln.compare LT, %x, %y : tensor<4xf32>
    // generic form: {comparison_direction = #kiln<comparison_direction LT>}
    ```
  }];
  let arguments = (ins Kiln_ComparisonDirectionAttr:$comparison_direction,
                       Kiln_Tensor:$lhs, Kiln_Tensor:$rhs);
  let results = (outs Kiln_PredTensor:$result);
  let assemblyFormat = [{
    $comparison_direction `,` $lhs `,` $rhs attr-dict `:` type($lhs)
  }];
  let hasFolder = 1;
}

def Kiln_SelectOp : Kiln_Op<"select", [Pure,
    AllTypesMatch<["on_true", "on_false", "result"]>,
    DeclareOpInterfaceMethods<Kiln_ShapeSpecializationOpInterface>]> {
  let summary = "elementwise choice between two tensors";
  let description = [{
    Picks `on_true` where `pred` is true and `on_false` elsewhere, as
    `jax.lax.select`. `pred` has the operands' shape or is a scalar
    `tensor<i1>` that chooses whole tensors.

    Example:

    ```mlir
    %z = kiln.select %p, %x, %y : tensor<4xi1>, tensor<4xf32>
    ```
  }];
  let arguments = (ins Kiln_PredTensor:$pred, Kiln_Tensor:$on_true,
                       Kiln_Tensor:$on_false);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = [{
    $pred `,` $on_true `,` $on_false attr-dict `:` type($pred) `,` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Kiln_BitcastConvertOp : Kiln_Op<"bitcast_convert", [Pure, Elementwise,
    SameOperandsAndResultShape,
    DeclareOpInterfaceMethods<Kiln_ShapeSpecializationOpInterface>]> {
  let summary = "each element's bits read as another type of their width";
  let description = [{
    Reinterprets the bits of every element as the result's element type, of
    the same bit width (f32 and i32, f64 and i64), as
    `jax.lax.bitcast_convert_type` between types of one width.

    Example:

    ```mlir
    %y = kiln.bitcast_convert %x : (tensor<4xi32>) -> tensor<4xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$operand);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = "$operand attr-dict `:` functional-type($operand, $result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Kiln_ConvertOp : Kiln_Op<"convert", [Pure, Elementwise,
    SameOperandsAndResultShape, DeclareOpInterfaceMethods<Kiln_ShapeSpecializationOpInterface>]> {
  let summary = "elementwise conversion to another element type";
  let description = [{
    Converts every element to the result's element type, as
    `jax.lax.convert_element_type`: floats round to nearest even, floats to
    integers round toward zero (saturating, NaN to 0), integers are
    sign-extended or truncated, and anything converts to `i1` as `x != 0`.

    Example:

    ```mlir
    %y = kiln.convert %x : (tensor<4xf32>) -> tensor<4xbf16>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$operand);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = "$operand attr-dict `:` functional-type($operand, $result)";
  let hasFolder = 1;
}

#endif // KILN_ELEMENTWISE_OPS_TD
