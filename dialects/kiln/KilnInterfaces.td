//===- KilnInterfaces.td - per-op rules of the transformations -*- tablegen -*-===//
//
// What each transformation engine (and the reference interpreter) needs to
// know about an op, declared here and implemented beside the engine as
// external models (passes/grad, interpreter/, ...), so that the engines
// never switch over op kinds and the dialect links MLIR IR only. A new op
// is complete when it implements every rule DESIGN.md lists;
// test/dialects/kiln/OpRulesTest.cpp checks that.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_INTERFACES_TD
#define KILN_INTERFACES_TD

include "mlir/IR/OpBase.td"

// A marker: ops that the transformation passes consume (grad, vmap, scan,
// checkpoint, ...). They have no lowering; lowering meets none of them once
// kiln-expand-transforms has run, and reports any that are left.
def Kiln_TransformOpInterface : OpInterface<"TransformOpInterface"> {
  let cppNamespace = "::kiln";
  let description = [{
    Marks an op that names a computation to transform and is replaced by
    the expansion of the transformations. Lowerings leave such ops alone and the contract checks
    report them.
  }];
  let methods = [
    InterfaceMethod<[{
        The function this op transforms (its `callee`).
      }],
      "::mlir::FlatSymbolRefAttr", "getTransformedCallee", (ins), [{}], [{
        return $_op->template getAttrOfType<::mlir::FlatSymbolRefAttr>(
            "callee");
      }]>,
    InterfaceMethod<[{
        For kiln-specialize-shapes, once the operands have their sizes:
        names instead the functions `specialize` gives for the argument
        types the operands imply, and takes the result types those
        functions imply.
      }],
      "::mlir::LogicalResult", "specializeCallees",
      (ins "::kiln::SpecializeCallee":$specialize)>
  ];
}

def Kiln_JvpOpInterface : OpInterface<"JvpOpInterface"> {
  let cppNamespace = "::kiln";
  let description = [{
    The forward-mode rule (JAX's `ad.defjvp`): the tangents of an op's
    results as ops built from its operands and their tangents. A null
    tangent is a symbolic zero, as JAX's `Zero`: rules skip work for it, and
    results that cannot carry a derivative (integers, booleans, compare) get
    null tangents.
  }];
  let methods = [
    InterfaceMethod<[{
        Builds, with `builder` (set after this op), the tangent of each
        result from `tangents`, one per operand (null: zero), and appends one
        per result to `resultTangents` (null: zero). Fails with an error at
        the op when no derivative exists.
      }],
      "::mlir::LogicalResult", "buildJvp",
      (ins "::mlir::OpBuilder &":$builder, "::mlir::ValueRange":$tangents,
           "::llvm::SmallVectorImpl<::mlir::Value> &":$resultTangents)>
  ];
}

def Kiln_RegionJvpOpInterface : OpInterface<"RegionJvpOpInterface"> {
  let cppNamespace = "::kiln";
  let description = [{
    The forward-mode rule of an op with regions (`cond`, `while`; JAX's
    `_cond_jvp`, `_while_loop_jvp`): the op is built anew with regions that
    carry tangents too. The engine differentiates the regions' blocks for
    the rule (`JvpRegionEmitter`), so the rule only decides what the new
    op carries and yields.
  }];
  let methods = [
    InterfaceMethod<[{
        Builds, with `builder` in the JVP function, this op's primal results
        (appended to `results`) and their tangents (to `resultTangents`,
        null: zero), differentiating its regions through `engine`. Fails
        with an error at the op when it cannot be differentiated.
      }],
      "::mlir::LogicalResult", "buildRegionJvp",
      (ins "::mlir::OpBuilder &":$builder,
           "::kiln::JvpRegionEmitter &":$engine,
           "::llvm::SmallVectorImpl<::mlir::Value> &":$results,
           "::llvm::SmallVectorImpl<::mlir::Value> &":$resultTangents)>
  ];
}

def Kiln_TransposeOpInterface : OpInterface<"TransposeOpInterface"> {
  let cppNamespace = "::kiln";
  let description = [{
    The transpose rule of an op linear in some of its operands (JAX's
    `ad.deflinear` and `ad.primitive_transposes`): reverse mode is the JVP
    followed by the transpose of each linear op it built, in reverse order.
  }];
  let methods = [
    InterfaceMethod<[{
        Builds, with `builder`, the cotangent of each operand for which
        `isLinear` is true from `cotangents`, one per result (null: zero);
        the other operands are constants of the linear map. Appends one value
        per operand to `operandCotangents` (null: zero or not linear).
      }],
      "::mlir::LogicalResult", "buildTranspose",
      (ins "::mlir::OpBuilder &":$builder, "::mlir::ValueRange":$cotangents,
           "::llvm::ArrayRef<bool>":$isLinear,
           "::llvm::SmallVectorImpl<::mlir::Value> &":$operandCotangents)>
  ];
}

def Kiln_BatchingOpInterface : OpInterface<"BatchingOpInterface"> {
  let cppNamespace = "::kiln";
  let description = [{
    The batching rule (JAX's `batching.primitive_batchers`): the op applied
    to operands that carry a batch dimension, folded into the op itself
    (a batched `dot_general`, not a loop of them).
  }];
  let methods = [
    InterfaceMethod<[{
        Builds, with `builder`, this op on `operands`, where operand i has
        its batch dimension at `batchDims[i]` (-1: not batched) and every
        batch has `batchSize` elements. Appends the results to `results` and
        their batch dimensions (-1: not batched) to `resultBatchDims`.
      }],
      "::mlir::LogicalResult", "buildBatched",
      (ins "::mlir::OpBuilder &":$builder, "::mlir::ValueRange":$operands,
           "::llvm::ArrayRef<int64_t>":$batchDims, "int64_t":$batchSize,
           "::llvm::SmallVectorImpl<::mlir::Value> &":$results,
           "::llvm::SmallVectorImpl<int64_t> &":$resultBatchDims)>
  ];
}

def Kiln_RegionBatchingOpInterface : OpInterface<"RegionBatchingOpInterface"> {
  let cppNamespace = "::kiln";
  let description = [{
    The batching rule of an op with regions (`cond`, `while`; JAX's
    `_cond_batching_rule`, `_while_loop_batching_rule`): the op is built
    anew, or replaced (a cond on a batched predicate becomes a select of
    both branches), with regions the engine batches
    (`BatchRegionEmitter`).
  }];
  let methods = [
    InterfaceMethod<[{
        Builds, with `builder` in the batched function, this op on the
        batch: appends its results to `results` and their batch dimensions
        (-1: not batched) to `resultBatchDims`, batching its regions
        through `engine`. Fails with an error at the op when it cannot.
      }],
      "::mlir::LogicalResult", "buildRegionBatched",
      (ins "::mlir::OpBuilder &":$builder,
           "::kiln::BatchRegionEmitter &":$engine,
           "::llvm::SmallVectorImpl<::mlir::Value> &":$results,
           "::llvm::SmallVectorImpl<int64_t> &":$resultBatchDims)>
  ];
}

def Kiln_ShapeSpecializationOpInterface
    : OpInterface<"ShapeSpecializationOpInterface"> {
  let cppNamespace = "::kiln";
  let description = [{
    How an op whose result types are not inferred from its operands alone
    (InferTypeOpInterface) takes the sizes of its operands' dimensions once
    kiln-specialize-shapes has given them sizes: a declared dynamic result
    dimension becomes the size its operands imply.
  }];
  let methods = [
    InterfaceMethod<[{
        Gives the op's regions' arguments the types they have for the op's
        current operands (regions are specialized after this and before
        `specializeResultTypes`).
      }],
      "void", "specializeRegionArguments", (ins), [{}], [{ return; }]>,
    InterfaceMethod<[{
        Appends the op's result types for its current operands (and what
        its regions yield): the declared element types, dynamic dimensions
        given the sizes the operands imply; drops the operands that only
        carry sizes once the sizes are known (broadcast_in_dim's `like`).
        Fails with an error at the op when the operands imply none.
      }],
      "::mlir::LogicalResult", "specializeResultTypes",
      (ins "::llvm::SmallVectorImpl<::mlir::Type> &":$types)>
  ];
}

def Kiln_ShardingRuleOpInterface : OpInterface<"ShardingRuleOpInterface"> {
  let cppNamespace = "::kiln";
  let description = [{
    The sharding rule (Shardy's `OpShardingRuleAttr`): the op's dimensions
    as factors shared between operands and results, so that propagation can
    move a sharding across the op without knowing what it computes.
  }];
  let methods = [
    InterfaceMethod<[{
        The factors of this op: their sizes, which factor each dimension of
        each operand and result is, and which factors are reduced (a
        result sharded along them needs a reduction across devices).
      }],
      "::kiln::ShardingRule", "getShardingRule">,
    InterfaceMethod<[{
        For kiln-partition, once the op's operands and result types are one
        device's parts, laid out as `shardings` (one #kiln.sharding per
        result) say: adjusts what still describes the whole value (a
        constant's elements, iota's positions, a slice's bounds), through
        `emitter` and with `builder` set after the op, and returns the
        values that replace its results (the op may be erased).
      }],
      "::llvm::SmallVector<::mlir::Value>", "localize",
      (ins "::mlir::OpBuilder &":$builder,
           "::llvm::ArrayRef<::mlir::Attribute>":$shardings,
           "::kiln::PartitionEmitter &":$emitter), [{}], [{
        return ::llvm::SmallVector<::mlir::Value>($_op->getResults());
      }]>
  ];
}

def Kiln_RematCostOpInterface : OpInterface<"RematCostOpInterface"> {
  let cppNamespace = "::kiln";
  let description = [{
    A cost hint for rematerialization: what it costs to recompute the op's
    results instead of saving them, and whether remat policies that save
    dots (`dots_saveable`, `dots_with_no_batch_dims_saveable`) treat it as
    one.
  }];
  let methods = [
    InterfaceMethod<[{
        The arithmetic operations that recomputing the results takes.
      }],
      "int64_t", "getRecomputeCost">,
    InterfaceMethod<[{
        Whether the op is a contraction (a dot) and whether it has batch
        dimensions, for the dot-saving policies.
      }],
      "::kiln::DotKind", "getDotKind">
  ];
}

def Kiln_EvaluateOpInterface : OpInterface<"EvaluateOpInterface"> {
  let cppNamespace = "::kiln";
  let description = [{
    The op's meaning on host values, for the reference interpreter
    (interpreter/): plain C++ over the operands' elements, following
    jax.lax and the rules the op's description states, with no lowering
    involved, so that compiled code can be checked against it.
  }];
  let methods = [
    InterfaceMethod<[{
        Computes the op's results from `evaluation`'s operands (running its
        regions through it) and sets them in `evaluation`. Fails with an
        error at the op when it cannot.
      }],
      "::mlir::LogicalResult", "evaluate",
      (ins "::kiln::Evaluation &":$evaluation)>
  ];
}

#endif // KILN_INTERFACES_TD
