//===- KilnEnums.td - enum attributes of the kiln dialect -*- tablegen -*-===//
#ifndef KILN_ENUMS_TD
#define KILN_ENUMS_TD

include "mlir/IR/EnumAttr.td"
include "KilnDialect.td"

def Kiln_ComparisonDirection : I32EnumAttr<"ComparisonDirection",
    "how `kiln.compare` compares its operands", [
      I32EnumAttrCase<"EQ", 0>, I32EnumAttrCase<"NE", 1>,
      I32EnumAttrCase<"LT", 2>, I32EnumAttrCase<"LE", 3>,
      I32EnumAttrCase<"GT", 4>, I32EnumAttrCase<"GE", 5>]> {
  let cppNamespace = "::kiln";
  let genSpecializedAttr = 0;
}

def Kiln_Precision : I32EnumAttr<"Precision",
    "the arithmetic precision of `kiln.dot_general` (jax.lax.Precision)", [
      I32EnumAttrCase<"DEFAULT", 0>, I32EnumAttrCase<"HIGH", 1>,
      I32EnumAttrCase<"HIGHEST", 2>]> {
  let cppNamespace = "::kiln";
  let genSpecializedAttr = 0;
}

def Kiln_RematPolicy : I32EnumAttr<"RematPolicy",
    "which values `kiln.checkpoint` saves for the backward pass", [
      I32EnumAttrCase<"everything_saveable", 0>,
      I32EnumAttrCase<"nothing_saveable", 1>,
      I32EnumAttrCase<"dots_saveable", 2>,
      I32EnumAttrCase<"dots_with_no_batch_dims_saveable", 3>,
      I32EnumAttrCase<"save_only_these_names", 4>]> {
  let cppNamespace = "::kiln";
  let genSpecializedAttr = 0;
}

def Kiln_ReductionKind : I32EnumAttr<"ReductionKind",
    "how `kiln.all_reduce` and `kiln.reduce_scatter` combine the devices' "
    "values", [
      I32EnumAttrCase<"sum", 0>, I32EnumAttrCase<"prod", 1>,
      I32EnumAttrCase<"max", 2>, I32EnumAttrCase<"min", 3>]> {
  let cppNamespace = "::kiln";
  let genSpecializedAttr = 0;
}

#endif // KILN_ENUMS_TD
