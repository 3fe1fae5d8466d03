//===- ChloOps.td - the CHLO ops Kiln imports -----------------*- tablegen -*-===//
//
// The `chlo` ops JAX emits for ordinary models beside StableHLO's (Kiln's
// own definition, as for StableHLO): erf, for jax.nn.gelu's exact form and
// jax.scipy.special.erf.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_FRONTEND_STABLEHLO_CHLOOPS_TD
#define KILN_FRONTEND_STABLEHLO_CHLOOPS_TD

include "mlir/IR/OpBase.td"

def Chlo_Dialect : Dialect {
  let name = "chlo";
  let cppNamespace = "::kiln::chlo";
  let summary = "CHLO ops as JAX exports them, read by Kiln's importer";
}

def Chlo_ErfOp : Op<Chlo_Dialect, "erf", [Elementwise]> {
  let summary = "the error function";
  let arguments = (ins AnyTensor:$operand);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = [{
    $operand attr-dict `:` type($operand) `->` type($result)
  }];
}

#endif // KILN_FRONTEND_STABLEHLO_CHLOOPS_TD
