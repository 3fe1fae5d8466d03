//===- ChloOps.td - the CHLO ops Kiln imports -----------------*- tablegen -*-===//
//
// The `chlo` ops JAX emits for ordinary models beside StableHLO's (Kiln's
// own definition, as for StableHLO): the elementwise functions of jax.lax
// that XLA expands (erf for jax.nn.gelu's exact form, erf_inv for
// truncated normal initializers, the hyperbolic and inverse trigonometric
// functions) and top_k.
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

class Chlo_UnaryOp<string mnemonic>
    : Op<Chlo_Dialect, mnemonic, [Elementwise]> {
  let summary = "an elementwise function of one tensor";
  let arguments = (ins AnyTensor:$operand);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = [{
    $operand attr-dict `:` type($operand) `->` type($result)
  }];
}

// [mnemonic, C++ name]
foreach op = [["erf", "Erf"], ["erfc", "Erfc"], ["erf_inv", "ErfInv"],
              ["tan", "Tan"],
              ["sinh", "Sinh"], ["cosh", "Cosh"], ["atan", "Atan"],
              ["asin", "Asin"], ["acos", "Acos"], ["asinh", "Asinh"],
              ["acosh", "Acosh"], ["atanh", "Atanh"], ["lgamma", "Lgamma"],
              ["digamma", "Digamma"], ["square", "Square"],
              ["bessel_i1e", "BesselI1e"]] in
  def Chlo_#op[1]#Op : Chlo_UnaryOp<op[0]>;

def Chlo_ZetaOp : Op<Chlo_Dialect, "zeta", [Elementwise]> {
  let summary = "Hurwitz's zeta(x, q), elementwise";
  let arguments = (ins AnyTensor:$x, AnyTensor:$q);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = [{
    $x `,` $q attr-dict `:` type($x) `,` type($q) `->` type($result)
  }];
}

def Chlo_PolygammaOp : Op<Chlo_Dialect, "polygamma", [Elementwise]> {
  let summary = "the n-th derivative of digamma at x, elementwise";
  let arguments = (ins AnyTensor:$n, AnyTensor:$x);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = [{
    $n `,` $x attr-dict `:` type($n) `,` type($x) `->` type($result)
  }];
}

def Chlo_NextAfterOp : Op<Chlo_Dialect, "next_after", [Elementwise]> {
  let summary = "the next float after `x` towards `y`, elementwise";
  let arguments = (ins AnyTensor:$x, AnyTensor:$y);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = [{
    $x `,` $y attr-dict `:` type($x) `,` type($y) `->` type($result)
  }];
}

def Chlo_TopKOp : Op<Chlo_Dialect, "top_k"> {
  let summary = "the k largest elements of the last dimension and their "
                "indices (jax.lax.top_k)";
  let arguments = (ins AnyTensor:$operand, I64Attr:$k);
  let results = (outs AnyTensor:$values, AnyTensor:$indices);
  let assemblyFormat = [{
    `(` $operand `,` `k` `=` $k `)` attr-dict `:` type($operand) `->`
        `(` type($values) `,` type($indices) `)`
  }];
}

#endif // KILN_FRONTEND_STABLEHLO_CHLOOPS_TD
