// kiln-run --interpret: what it refuses, naming the problem, and a sharded
// program, which it runs as the program without its shardings.
// RUN: split-file %s %t
// RUN: %numpy_python %S/make_inputs.py %t/in
// RUN: not kiln-run %t/f64.mlir --entry f --input %t/in.good.npz --interpret 2>&1 | FileCheck %s --check-prefix=DTYPE
// DTYPE: kiln-run: error: arg0: expected dtype f64, got f32
// RUN: not kiln-run %t/f64.mlir --entry g --interpret 2>&1 | FileCheck %s --check-prefix=ENTRY
// ENTRY: kiln-run: error: {{.*}}f64.mlir has no entry 'g'; its entries are: f
// RUN: not kiln-run %t/f64.mlir --entry f --interpret --bench 3 2>&1 | FileCheck %s --check-prefix=BENCH
// BENCH: kiln-run: error: --interpret runs the interpreter alone: drop --bench
// RUN: kiln-compile %t/f64.mlir -o %t/f64.so
// RUN: not kiln-run %t/f64.so --entry f --interpret 2>&1 | FileCheck %s --check-prefix=ARTIFACT
// ARTIFACT: kiln-run: error: --interpret needs a .mlir source, not the artifact {{.*}}f64.so
// RUN: not kiln-run %t/collective.mlir --entry f --input %t/in.neg.npz --interpret 2>&1 | FileCheck %s --check-prefix=COLLECTIVE
// COLLECTIVE: collective.mlir:3:8: error: 'kiln.all_reduce' op has no rule in the reference interpreter (it runs kiln ops, func.call and func.return)
// RUN: not kiln-run %t/huge.mlir --entry f --interpret 2>&1 | FileCheck %s --check-prefix=HUGE
// HUGE: huge.mlir:2:8: error: {{.*}}an eighth of this machine's memory, as the interpreter holds 8 bytes an element
// RUN: kiln-run %t/sharded.mlir --entry f --input %t/in.neg.npz --interpret --print | FileCheck %s --check-prefix=SHARDED
// SHARDED: out0 = f32[4]
// SHARDED-NEXT: [-1. -2. -3. -4.]

//--- f64.mlir
func.func @f(%x: tensor<4xf64>, %y: tensor<4xf32>) -> tensor<4xf64> {
  return %x : tensor<4xf64>
}
//--- collective.mlir
kiln.mesh @mesh ["x"=2]
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = kiln.all_reduce sum %x over @mesh ["x"] : tensor<4xf32>
  return %y : tensor<4xf32>
}
//--- huge.mlir
func.func @f() -> tensor<f32> {
  %x = kiln.iota dim = 0 : tensor<4000000000000xf32>
  %s = kiln.reduce_sum %x, dims = [0] : (tensor<4000000000000xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
//--- sharded.mlir
kiln.mesh @mesh ["x"=2]
func.func @f(%x: tensor<4xf32> {kiln.sharding = #kiln.sharding<@mesh, [{"x"}]>}) -> tensor<4xf32> {
  %y = kiln.neg %x : tensor<4xf32>
  %z = kiln.sharding_constraint %y <@mesh, [{}]> : tensor<4xf32>
  return %z : tensor<4xf32>
}
