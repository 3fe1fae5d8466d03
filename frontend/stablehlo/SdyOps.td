//===- SdyOps.td - the Shardy annotations Kiln imports --------*- tablegen -*-===//
//
// Kiln's own definition of the Shardy (`sdy`) annotations a JAX export of
// a sharded function carries: meshes, shardings of arguments and results,
// and sharding constraints. kiln-import-stablehlo turns them into Kiln's
// (kiln.mesh, #kiln.sharding, kiln.sharding_constraint), whose syntax
// follows Shardy's.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_FRONTEND_STABLEHLO_SDYOPS_TD
#define KILN_FRONTEND_STABLEHLO_SDYOPS_TD

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/SymbolInterfaces.td"

def Sdy_Dialect : Dialect {
  let name = "sdy";
  let cppNamespace = "::kiln::sdy";
  let summary = "Shardy's sharding annotations, read by Kiln's importer";
  let useDefaultAttributePrinterParser = 1;
  let dependentDialects = ["::kiln::KilnDialect"];
}

def Sdy_MeshAttr : AttrDef<Sdy_Dialect, "Mesh"> {
  let mnemonic = "mesh";
  let summary = "named mesh axes and their sizes";
  let parameters = (ins "::mlir::ArrayAttr":$axisNames,
                        "::mlir::DenseI64ArrayAttr":$axisSizes);
  let hasCustomAssemblyFormat = 1;
}

def Sdy_ShardingAttr : AttrDef<Sdy_Dialect, "Sharding"> {
  let mnemonic = "sharding";
  let summary = "a tensor's layout over a mesh, as #kiln.sharding writes it";
  let parameters = (ins "::kiln::ShardingAttr":$sharding);
  let hasCustomAssemblyFormat = 1;
}

def Sdy_MeshOp : Op<Sdy_Dialect, "mesh", [Symbol]> {
  let summary = "a named mesh";
  let arguments = (ins SymbolNameAttr:$sym_name, Sdy_MeshAttr:$mesh);
  let assemblyFormat = "$sym_name `=` $mesh attr-dict";
}

def Sdy_ShardingConstraintOp : Op<Sdy_Dialect, "sharding_constraint",
    [AllTypesMatch<["input", "result"]>]> {
  let summary = "its input, laid out as the sharding says";
  let arguments = (ins AnyTensor:$input, Sdy_ShardingAttr:$sharding);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = "$input $sharding attr-dict `:` type($result)";
}

#endif // KILN_FRONTEND_STABLEHLO_SDYOPS_TD
