//===- KilnDialect.td - the kiln dialect and its type constraints -*- tablegen -*-===//
#ifndef KILN_DIALECT_TD
#define KILN_DIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def Kiln_Dialect : Dialect {
  let name = "kiln";
  let cppNamespace = "::kiln";
  let summary = "Tensor programs with jax.lax semantics and IR-level transformations";
  let description = [{
    The `kiln` dialect holds tensor programs written with the primitives of
    `jax.lax` (elementwise arithmetic, shape manipulation, `dot_general`,
    reductions, structured control flow) and the transformation ops that
    JAX users know as `grad`, `vmap`, `scan` and `checkpoint`. Values are
    ranked builtin tensors of f16, bf16, f32, f64, i1, i32 or i64. A
    dimension may be dynamic (`tensor<?x784xf32>`): it propagates exactly
    (a result dimension is dynamic where the operands leave it unknown), and
    `kiln-specialize-shapes` replaces it by a size before anything lowers.

    Transformation ops name a `func.func` by symbol; each one expands into an
    ordinary function, so they compose in any order.
  }];
  let hasConstantMaterializer = 1;
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
  let hasOperationAttrVerify = 1;
  let useDefaultAttributePrinterParser = 1;
  let dependentDialects = ["::mlir::func::FuncDialect"];
  let extraClassDeclaration = [{
    /// Adds the attributes of KilnAttrs.td (in KilnAttrs.cpp).
    void registerAttributes();
    /// The unit attribute marking an entry's argument whose value the jit
    /// bakes into the code (JAX's static_argnums).
    static constexpr ::llvm::StringLiteral kStaticAttrName = "kiln.static";
    /// The unit attribute marking an entry's argument whose buffer results
    /// may reuse.
    static constexpr ::llvm::StringLiteral kDonateAttrName = "kiln.donate";
    /// The #kiln.sharding of an entry's argument or result.
    static constexpr ::llvm::StringLiteral kShardingAttrName = "kiln.sharding";
    /// The #kiln.sharding of which an argument or result of a partitioned
    /// function (kiln-partition) is one device's part.
    static constexpr ::llvm::StringLiteral kPartAttrName = "kiln.part";
    /// The shardings kiln-propagate-sharding gives an op's results: an
    /// array of one #kiln.sharding per result.
    static constexpr ::llvm::StringLiteral kShardingsAttrName =
        "kiln.shardings";
  }];
}

class Kiln_Op<string mnemonic, list<Trait> traits = []>
    : Op<Kiln_Dialect, mnemonic, traits>;

//===----------------------------------------------------------------------===//
// Type constraints.
//===----------------------------------------------------------------------===//

// A ranked tensor whose static dimensions take fewer than 2^63 bytes: code
// computes byte offsets in 64 bits, and a larger tensor could never be
// allocated anyway. Dynamic dimensions are specialized before lowering.
class Kiln_TensorOf<list<Type> types>
    : Type<And<[RankedTensorOf<types>.predicate,
                CPred<"::kiln::hasAddressableSize($_self)">]>,
           RankedTensorOf<types>.summary # " of fewer than 2^63 bytes",
           "::mlir::RankedTensorType">;
// Values made from attributes alone (constants, iota) have nothing a size
// could be specialized from.
class Kiln_StaticTensorOf<list<Type> types>
    : Type<And<[StaticShapeTensorOf<types>.predicate,
                CPred<"::kiln::hasAddressableSize($_self)">]>,
           StaticShapeTensorOf<types>.summary # " of fewer than 2^63 bytes",
           "::mlir::RankedTensorType">;

def Kiln_Tensor : Kiln_TensorOf<[F16, BF16, F32, F64, I1, I8, I16, I32, I64]>;
def Kiln_StaticTensor : Kiln_StaticTensorOf<[F16, BF16, F32, F64, I1, I8, I16, I32, I64]>;
def Kiln_FloatTensor : Kiln_TensorOf<[F16, BF16, F32, F64]>;
// Arithmetic excludes i1, as in jax.lax.
def Kiln_NumericTensor : Kiln_TensorOf<[F16, BF16, F32, F64, I8, I16, I32, I64]>;
def Kiln_LogicalTensor : Kiln_TensorOf<[I1, I8, I16, I32, I64]>;
def Kiln_IntTensor : Kiln_TensorOf<[I8, I16, I32, I64]>;
def Kiln_PredTensor : Kiln_TensorOf<[I1]>;
// Buildable so that pretty forms need not spell `tensor<i1>` out.
def Kiln_ScalarPred : 0DTensorOf<[I1]> {
  let builderCall = "::mlir::RankedTensorType::get({}, $_builder.getI1Type())";
}
def Kiln_ScalarIndex : 0DTensorOf<[I32, I64]>;

#endif // KILN_DIALECT_TD
