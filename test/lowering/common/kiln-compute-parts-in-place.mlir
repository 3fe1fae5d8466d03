// RUN: kiln-opt %s --split-input-file --kiln-compute-parts-in-place | FileCheck %s

#id = affine_map<(d0) -> (d0)>

// The parts of a concatenation are computed in its tensor: each part's
// empty tensor becomes the slice it is inserted at (the larger tensor's
// empty tensor moved before the parts).
// CHECK-LABEL: func.func @concatenation
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK: %[[ALL:.*]] = tensor.empty() : tensor<8xf32>
// CHECK: %[[LOW:.*]] = tensor.extract_slice %[[ALL]][0] [4] [1]
// CHECK: %[[EXP:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<4xf32>) outs(%[[LOW]] : tensor<4xf32>)
// CHECK: %[[FIRST:.*]] = tensor.insert_slice %[[EXP]] into %[[ALL]][0] [4] [1]
// CHECK: %[[HIGH:.*]] = tensor.extract_slice %[[FIRST]][4] [4] [1]
// CHECK: %[[NEG:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<4xf32>) outs(%[[HIGH]] : tensor<4xf32>)
// CHECK: tensor.insert_slice %[[NEG]] into %[[FIRST]][4] [4] [1]
func.func @concatenation(%x: tensor<4xf32>) -> tensor<8xf32> {
  %e0 = tensor.empty() : tensor<4xf32>
  %exp = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%e0 : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %e1 = tensor.empty() : tensor<4xf32>
  %neg = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%e1 : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32):
    %r = arith.negf %a : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %all = tensor.empty() : tensor<8xf32>
  %first = tensor.insert_slice %exp into %all[0] [4] [1] : tensor<4xf32> into tensor<8xf32>
  %both = tensor.insert_slice %neg into %first[4] [4] [1] : tensor<4xf32> into tensor<8xf32>
  return %both : tensor<8xf32>
}

// -----

#id = affine_map<(d0) -> (d0)>

// A result materialized into a donated (writable) argument keeps its own
// tensor: bufferization decides whether it can write the argument in place.
// CHECK-LABEL: func.func @donated
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4xf32>
// CHECK: %[[R:.*]] = linalg.generic {{.*}} outs(%[[E]] : tensor<4xf32>)
// CHECK: bufferization.materialize_in_destination %[[R]] in %arg0
func.func @donated(%x: tensor<4xf32> {bufferization.writable = true}) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = math.exp %a : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %into = bufferization.materialize_in_destination %r in %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %into : tensor<4xf32>
}
