// Sharded programs: what the compiler refuses, with the location.
// RUN: split-file %s %t
// RUN: not kiln-compile %t/donate.mlir -o %t.so 2>&1 | FileCheck %s --check-prefix=DONATE
// DONATE: donate.mlir:2:1: error: public function @f donates an argument (kiln.donate), which partitioned entries do not support yet
// RUN: not kiln-compile %t/collective.mlir -o %t.so 2>&1 | FileCheck %s --check-prefix=COLLECTIVE
// COLLECTIVE: collective.mlir:3:8: error: 'kiln.all_reduce' op runs between the devices of a partitioned program: shard the entry's arguments (kiln.sharding) or mark them and its results as parts (kiln.part)
// RUN: not kiln-compile %t/gpu.mlir --target=nvptx -o %t.so 2>&1 | FileCheck %s --check-prefix=GPU
// GPU: error: a sharded program runs on in-process CPU devices; GPUs run unsharded programs for now

//--- donate.mlir
kiln.mesh @mesh ["x"=2]
func.func @f(%x: tensor<4xf32> {kiln.donate, kiln.sharding = #kiln.sharding<@mesh, [{"x"}]>}) -> tensor<4xf32> {
  %y = kiln.tanh %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
//--- collective.mlir
kiln.mesh @mesh ["x"=2]
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = kiln.all_reduce sum %x over @mesh ["x"] : tensor<4xf32>
  return %y : tensor<4xf32>
}
//--- gpu.mlir
kiln.mesh @mesh ["x"=2]
func.func @f(%x: tensor<4xf32> {kiln.sharding = #kiln.sharding<@mesh, [{"x"}]>}) -> tensor<4xf32> {
  %y = kiln.tanh %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
