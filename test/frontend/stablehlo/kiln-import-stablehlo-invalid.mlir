// RUN: kiln-opt %s --split-input-file -verify-diagnostics --kiln-import-stablehlo

// A backend's own function cannot run on Kiln's targets.
func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{stablehlo.custom_call @Sharding: a backend's own function, which Kiln cannot import}}
  %0 = stablehlo.custom_call @Sharding(%arg0) {backend_config = ""} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A reduction whose body is not one of kiln's reductions.
func.func @main(%arg0: tensor<4xf32>, %arg1: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{stablehlo.reduce: Kiln imports reductions of one tensor whose body applies add, multiply, maximum or minimum (or, and of booleans), and jnp.argmax and jnp.argmin (of floats)}}
  %0 = stablehlo.reduce(%arg0 init: %arg1) across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
   reducer(%a: tensor<f32>, %b: tensor<f32>)  {
    %s = stablehlo.subtract %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }
  return %0 : tensor<f32>
}

// -----

// Element types kiln has no ops for are refused where they appear.
func.func @main(%arg0: tensor<4xui8>) -> tensor<4xui8> {
  // expected-error @+1 {{'kiln.add' op operand #0 must be}}
  %0 = stablehlo.add %arg0, %arg0 : tensor<4xui8>
  return %0 : tensor<4xui8>
}

// -----

func.func @main(%arg0: tensor<4xf32>) -> tensor<4xi1> {
  // expected-error @+1 {{unknown keyword 'GREATER'}}
  %0 = stablehlo.compare GREATER, %arg0, %arg0 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// A gather of partial slices (lax.dynamic_slice in a vmap) is not a take.
func.func @main(%arg0: tensor<10x16xf32>, %arg1: tensor<5x1xi32>) -> tensor<5x8xf32> {
  // expected-error @+1 {{stablehlo.gather: Kiln imports gathers of whole slices along one dimension (jnp.take, x[i])}}
  %0 = "stablehlo.gather"(%arg0, %arg1) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 8>}> : (tensor<10x16xf32>, tensor<5x1xi32>) -> tensor<5x8xf32>
  return %0 : tensor<5x8xf32>
}

// -----

// x.at[i].set(u) replaces rather than adds.
func.func @main(%arg0: tensor<10xf32>, %arg1: tensor<2x1xi32>, %arg2: tensor<2xf32>) -> tensor<10xf32> {
  // expected-error @+1 {{stablehlo.scatter: Kiln imports scatters that add whole slices along one dimension (x.at[i].add)}}
  %0 = "stablehlo.scatter"(%arg0, %arg1, %arg2) <{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    stablehlo.return %b : tensor<f32>
  }) : (tensor<10xf32>, tensor<2x1xi32>, tensor<2xf32>) -> tensor<10xf32>
  return %0 : tensor<10xf32>
}

// -----

// Malformed dimension numbers are refused, not read past their end.
func.func @main(%arg0: tensor<10x16xf32>, %arg1: tensor<i32>) -> tensor<16xf32> {
  // expected-error @+1 {{stablehlo.gather: Kiln imports gathers of whole slices along one dimension (jnp.take, x[i])}}
  %0 = "stablehlo.gather"(%arg0, %arg1) <{dimension_numbers = #stablehlo.gather<offset_dims = [0], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 0>, slice_sizes = array<i64: 1>}> : (tensor<10x16xf32>, tensor<i32>) -> tensor<16xf32>
  return %0 : tensor<16xf32>
}

// -----

// A reduction's body of the wrong arity.
func.func @main(%arg0: tensor<4xf32>, %arg1: tensor<4xi32>, %arg2: tensor<f32>, %arg3: tensor<i32>) -> tensor<f32> {
  // expected-error @+1 {{'stablehlo.reduce' op expected a body of 4 arguments, got 1}}
  %0:2 = "stablehlo.reduce"(%arg0, %arg1, %arg2, %arg3) <{dimensions = array<i64: 0>}> ({
  ^bb0(%a: tensor<f32>):
    "stablehlo.return"(%a, %a) : (tensor<f32>, tensor<f32>) -> ()
  }) : (tensor<4xf32>, tensor<4xi32>, tensor<f32>, tensor<i32>) -> (tensor<f32>, tensor<i32>)
  return %0#0 : tensor<f32>
}

// -----

// A loop whose regions do not take its values.
func.func @main(%arg0: tensor<i32>) -> tensor<i32> {
  // expected-error @+1 {{'stablehlo.while' op expected both regions to take the loop's 1 values, of their types}}
  %0 = "stablehlo.while"(%arg0) ({
  ^bb0(%a: tensor<i32>, %b: tensor<i32>):
    %c = stablehlo.compare LT, %a, %b : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }, {
  ^bb0(%a: tensor<i32>):
    stablehlo.return %a : tensor<i32>
  }) : (tensor<i32>) -> tensor<i32>
  return %0 : tensor<i32>
}
