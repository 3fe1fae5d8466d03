// kiln-compile --report=calls: how many times one call of each entry runs
// each function, through calls and counted loops; a conditional's calls
// count as taken and are marked.
// RUN: kiln-compile %s --report=calls --emit=kiln -o /dev/null | FileCheck %s

// CHECK-LABEL: counted: {{[0-9]+}} functions run per call
// CHECK-DAG: {{^ +}}1  twice_scan
// CHECK-DAG: {{^ +}}5  twice
// CHECK-DAG: {{^ +}}10  inc
// CHECK-LABEL: branches: 2 functions run per call
// CHECK-DAG: {{^ +}}1* twice
// CHECK-DAG: {{^ +}}2* inc
// CHECK: * counting calls in conditionals as taken
func.func private @inc(%x: tensor<4xf32>) -> tensor<4xf32> {
  %one = kiln.constant dense<1.0> : tensor<4xf32>
  %y = kiln.add %x, %one : tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func private @twice(%c: tensor<4xf32>, %x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a = call @inc(%c) : (tensor<4xf32>) -> tensor<4xf32>
  %b = call @inc(%a) : (tensor<4xf32>) -> tensor<4xf32>
  %s = kiln.add %b, %x : tensor<4xf32>
  return %s, %a : tensor<4xf32>, tensor<4xf32>
}
func.func @counted(%c: tensor<4xf32>, %xs: tensor<5x4xf32>) -> (tensor<4xf32>, tensor<5x4xf32>) {
  %r:2 = kiln.scan @twice(%c, %xs) {num_carry = 1 : i64, length = 5 : i64} : (tensor<4xf32>, tensor<5x4xf32>) -> (tensor<4xf32>, tensor<5x4xf32>)
  return %r#0, %r#1 : tensor<4xf32>, tensor<5x4xf32>
}
func.func @branches(%p: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %r = kiln.cond %p -> (tensor<4xf32>) {
    %y:2 = func.call @twice(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
    kiln.yield %y#0 : tensor<4xf32>
  } else {
    kiln.yield %x : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
