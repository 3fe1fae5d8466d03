// RUN: kiln-opt %s --split-input-file -verify-diagnostics --kiln-import-stablehlo

// A backend's own function cannot run on Kiln's targets (here LAPACK's
// Cholesky factorization, as jnp.linalg.cholesky exports on the CPU).
func.func @main(%arg0: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{stablehlo.custom_call @lapack_spotrf_ffi: a backend's own function, which Kiln cannot import}}
  %0 = stablehlo.custom_call @lapack_spotrf_ffi(%arg0) {backend_config = ""} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

// GSPMD's manual sharding (shard_map without Shardy) changes shapes: it is
// no annotation to pass through.
func.func @main(%arg0: tensor<8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{stablehlo.custom_call @SPMDFullToShardShape: a backend's own function, which Kiln cannot import}}
  %0 = stablehlo.custom_call @SPMDFullToShardShape(%arg0) {mhlo.sharding = "{manual}"} : (tensor<8xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A reduction whose body is not one of kiln's reductions.
func.func @main(%arg0: tensor<4xf32>, %arg1: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{stablehlo.reduce: Kiln imports reductions whose body applies, to each tensor on its own, add, multiply, maximum or minimum (or, and of booleans), and jnp.argmax and jnp.argmin}}
  %0 = stablehlo.reduce(%arg0 init: %arg1) across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
   reducer(%a: tensor<f32>, %b: tensor<f32>)  {
    %s = stablehlo.subtract %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }
  return %0 : tensor<f32>
}

// -----

// A reduction of two tensors whose body mixes them (a sum of the first
// tensor's accumulator and the second's element).
func.func @main(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>, %arg2: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{stablehlo.reduce: Kiln imports reductions whose body applies, to each tensor on its own, add, multiply, maximum or minimum (or, and of booleans), and jnp.argmax and jnp.argmin}}
  %0:2 = stablehlo.reduce(%arg0 init: %arg2), (%arg1 init: %arg2) across dimensions = [0] : (tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
   reducer(%a: tensor<f32>, %c: tensor<f32>) (%b: tensor<f32>, %d: tensor<f32>)  {
    %s = stablehlo.add %a, %d : tensor<f32>
    %t = stablehlo.add %b, %d : tensor<f32>
    stablehlo.return %s, %t : tensor<f32>, tensor<f32>
  }
  return %0#0 : tensor<f32>
}

// -----

// Integer types kiln has no ops for are refused where they are first used.
func.func @main(%arg0: tensor<4xi4>) -> tensor<4xi4> {
  // expected-error @+1 {{Kiln has integers of 8, 16, 32 and 64 bits (and i1), not 'tensor<4xi4>'}}
  %0 = stablehlo.add %arg0, %arg0 : tensor<4xi4>
  return %0 : tensor<4xi4>
}

// -----

func.func @main(%arg0: tensor<4xf32>) -> tensor<4xi1> {
  // expected-error @+1 {{unknown keyword 'GREATER'}}
  %0 = stablehlo.compare GREATER, %arg0, %arg0 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// A scatter into two tensors at once (a variadic scatter).
func.func @main(%arg0: tensor<10xf32>, %arg1: tensor<2x1xi32>, %arg2: tensor<2xf32>) -> tensor<10xf32> {
  // expected-error @+1 {{stablehlo.scatter: Kiln imports scatters into one ranked tensor, with integer indices and a body of two scalars}}
  %0:2 = "stablehlo.scatter"(%arg0, %arg0, %arg1, %arg2, %arg2) <{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<f32>, %d: tensor<f32>):
    stablehlo.return %b, %d : tensor<f32>, tensor<f32>
  }) : (tensor<10xf32>, tensor<10xf32>, tensor<2x1xi32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<10xf32>, tensor<10xf32>)
  return %0#0 : tensor<10xf32>
}

// -----

// A scatter's body takes scalars of the operand's element type.
func.func @main(%arg0: tensor<10xf32>, %arg1: tensor<2x1xi32>, %arg2: tensor<2xf32>) -> tensor<10xf32> {
  // expected-error @+1 {{stablehlo.scatter: Kiln imports scatters into one ranked tensor, with integer indices and a body of two scalars}}
  %0 = "stablehlo.scatter"(%arg0, %arg1, %arg2) <{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
  ^bb0(%a: tensor<2xf32>, %b: tensor<2xf32>):
    stablehlo.return %b : tensor<2xf32>
  }) : (tensor<10xf32>, tensor<2x1xi32>, tensor<2xf32>) -> tensor<10xf32>
  return %0 : tensor<10xf32>
}

// -----

// Index vectors of two components for one indexed dimension.
func.func @main(%arg0: tensor<10x16xf32>, %arg1: tensor<5x2xi32>) -> tensor<5x16xf32> {
  // expected-error @+1 {{stablehlo.gather: index vectors of 2 components for 1 indexed dimensions}}
  %0 = "stablehlo.gather"(%arg0, %arg1) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 16>}> : (tensor<10x16xf32>, tensor<5x2xi32>) -> tensor<5x16xf32>
  return %0 : tensor<5x16xf32>
}

// -----

// A result whose window does not have the slice's sizes.
func.func @main(%arg0: tensor<10x16xf32>, %arg1: tensor<5x1xi32>) -> tensor<5x16xf32> {
  // expected-error @+1 {{stablehlo.gather: window dimensions that differ from the slice sizes}}
  %0 = "stablehlo.gather"(%arg0, %arg1) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 8>}> : (tensor<10x16xf32>, tensor<5x1xi32>) -> tensor<5x16xf32>
  return %0 : tensor<5x16xf32>
}

// -----

// Slices larger than the operand.
func.func @main(%arg0: tensor<10x16xf32>, %arg1: tensor<5x1xi32>) -> tensor<5x20xf32> {
  // expected-error @+1 {{stablehlo.gather: slices larger than the operand}}
  %0 = "stablehlo.gather"(%arg0, %arg1) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 20>}> : (tensor<10x16xf32>, tensor<5x1xi32>) -> tensor<5x20xf32>
  return %0 : tensor<5x20xf32>
}

// -----

// Batching dimensions of different sizes.
func.func @main(%arg0: tensor<4x5x3xf32>, %arg1: tensor<6x1xi32>, %arg2: tensor<6x3xf32>) -> tensor<4x5x3xf32> {
  // expected-error @+1 {{stablehlo.scatter: batching dimensions of different sizes}}
  %0 = "stablehlo.scatter"(%arg0, %arg1, %arg2) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [0], scatter_dims_to_operand_dims = [1], index_vector_dim = 1>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<4x5x3xf32>, tensor<6x1xi32>, tensor<6x3xf32>) -> tensor<4x5x3xf32>
  return %0 : tensor<4x5x3xf32>
}

// -----

// Malformed dimension numbers are refused, not read past their end.
func.func @main(%arg0: tensor<10x16xf32>, %arg1: tensor<i32>) -> tensor<16xf32> {
  // expected-error @+1 {{stablehlo.gather: slice sizes not one per operand dimension}}
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

// -----

// Functions kiln writes with its ops take floats, all of one type.
func.func @main(%arg0: tensor<4xi32>, %arg1: tensor<4xf32>, %arg2: tensor<4xf64>) -> (tensor<4xi32>, tensor<4xf32>) {
  // expected-error @+1 {{chlo.sinh: Kiln imports it on ranked tensors of floats, its operands and result of one type}}
  %0 = chlo.sinh %arg0 : tensor<4xi32> -> tensor<4xi32>
  // expected-error @+1 {{chlo.zeta: Kiln imports it on ranked tensors of floats, its operands and result of one type}}
  %1 = chlo.zeta %arg1, %arg2 : tensor<4xf32>, tensor<4xf64> -> tensor<4xf32>
  return %0, %1 : tensor<4xi32>, tensor<4xf32>
}

// -----

// Bit counts of floats, next_after of integers and squares of booleans.
func.func @main(%arg0: tensor<4xf32>, %arg1: tensor<4xi16>, %arg2: tensor<4xi1>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xi16>, tensor<4xi1>) {
  // expected-error @+1 {{stablehlo.popcnt: Kiln imports it on integers of 8 to 64 bits, its result of the operand's type}}
  %0 = stablehlo.popcnt %arg0 : tensor<4xf32>
  // expected-error @+1 {{stablehlo.count_leading_zeros: Kiln imports it on integers of 8 to 64 bits, its result of the operand's type}}
  %1 = stablehlo.count_leading_zeros %arg0 : tensor<4xf32>
  // expected-error @+1 {{chlo.next_after: Kiln imports it on float tensors of one type}}
  %2 = chlo.next_after %arg1, %arg1 : tensor<4xi16>, tensor<4xi16> -> tensor<4xi16>
  // expected-error @+1 {{chlo.square: Kiln imports it on ranked tensors of numbers, its result of the operand's type}}
  %3 = chlo.square %arg2 : tensor<4xi1> -> tensor<4xi1>
  return %0, %1, %2, %3 : tensor<4xf32>, tensor<4xf32>, tensor<4xi16>, tensor<4xi1>
}

// -----

// Batch groups must divide the batch.
func.func @main(%arg0: tensor<2x5x5x4xf32>, %arg1: tensor<3x3x4x6xf32>) -> tensor<1x3x3x6xf32> {
  // expected-error @+1 {{stablehlo.convolution: batch groups that do not divide the batch and the outputs, or with feature groups}}
  %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f] {batch_group_count = 3 : i64, feature_group_count = 1 : i64} : (tensor<2x5x5x4xf32>, tensor<3x3x4x6xf32>) -> tensor<1x3x3x6xf32>
  return %0 : tensor<1x3x3x6xf32>
}

// -----

// A result of the wrong shape for its window.
func.func @main(%arg0: tensor<1x5x5x2xf32>, %arg1: tensor<3x3x2x4xf32>) -> tensor<1x5x5x4xf32> {
  // expected-error @+1 {{stablehlo.convolution: a window that does not give the result's shape}}
  %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x5x5x2xf32>, tensor<3x3x2x4xf32>) -> tensor<1x5x5x4xf32>
  return %0 : tensor<1x5x5x4xf32>
}

// -----

// Feature groups must divide the features.
func.func @main(%arg0: tensor<1x5x5x3xf32>, %arg1: tensor<3x3x1x4xf32>) -> tensor<1x3x3x4xf32> {
  // expected-error @+1 {{stablehlo.convolution: feature groups that do not divide the features}}
  %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f] {batch_group_count = 1 : i64, feature_group_count = 2 : i64} : (tensor<1x5x5x3xf32>, tensor<3x3x1x4xf32>) -> tensor<1x3x3x4xf32>
  return %0 : tensor<1x3x3x4xf32>
}

// -----

// Layouts name each spatial dimension once.
func.func @main(%arg0: tensor<1x5x5x3xf32>, %arg1: tensor<3x3x3x4xf32>) -> tensor<1x3x3x4xf32> {
  // expected-error @+1 {{expected spatial dimensions 0 to 1, each once}}
  %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 0, f]x[0, 1, i, o]->[b, 0, 1, f] {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x5x5x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x3x3x4xf32>
  return %0 : tensor<1x3x3x4xf32>
}

// -----

// A windowed reduction's body must be one kiln combines with.
func.func @main(%arg0: tensor<4xf32>) -> tensor<2xf32> {
  %c = stablehlo.constant dense<0.0> : tensor<f32>
  // expected-error @+1 {{stablehlo.reduce_window: Kiln imports windowed reductions of one tensor whose body applies add, multiply, maximum or minimum (or, and of booleans)}}
  %0 = "stablehlo.reduce_window"(%arg0, %c) <{window_dimensions = array<i64: 2>, window_strides = array<i64: 2>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %m = stablehlo.subtract %a, %b : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }) : (tensor<4xf32>, tensor<f32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// Window attributes one per dimension.
func.func @main(%arg0: tensor<4x4xf32>) -> tensor<2x2xf32> {
  %c = stablehlo.constant dense<0.0> : tensor<f32>
  // expected-error @+1 {{stablehlo.reduce_window: window attributes not one per dimension}}
  %0 = "stablehlo.reduce_window"(%arg0, %c) <{window_dimensions = array<i64: 2>, window_strides = array<i64: 2, 2>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %m = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }) : (tensor<4x4xf32>, tensor<f32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

// A select_and_scatter whose selection is more than one comparison.
func.func @main(%arg0: tensor<4xf32>, %arg1: tensor<2xf32>) -> tensor<4xf32> {
  %c = stablehlo.constant dense<0.0> : tensor<f32>
  // expected-error @+1 {{stablehlo.select_and_scatter: Kiln imports selections by one comparison of the two values and scatters that add, of numbers}}
  %0 = "stablehlo.select_and_scatter"(%arg0, %arg1, %c) <{window_dimensions = array<i64: 2>, window_strides = array<i64: 2>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %n = stablehlo.negate %a : tensor<f32>
    %k = stablehlo.compare GE, %n, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %k : tensor<i1>
  }, {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<4xf32>, tensor<2xf32>, tensor<f32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// top_k of more elements than the dimension has.
func.func @main(%arg0: tensor<2x5xf32>) -> tensor<2x6xf32> {
  // expected-error @+1 {{chlo.top_k: k = 6 of a dimension of 5}}
  %0:2 = chlo.top_k(%arg0, k = 6) : tensor<2x5xf32> -> (tensor<2x6xf32>, tensor<2x6xi32>)
  return %0#0 : tensor<2x6xf32>
}

// -----

// A sort's comparator of other than elementwise scalar ops.
func.func @main(%arg0: tensor<5xf32>) -> tensor<5xf32> {
  // expected-error @+1 {{stablehlo.sort: Kiln imports comparators of scalar elementwise ops (compare, select, arithmetic, constants)}}
  %0 = "stablehlo.sort"(%arg0) <{dimension = 0 : i64}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %r = stablehlo.reshape %a : (tensor<f32>) -> tensor<1xf32>
    %s = stablehlo.reshape %r : (tensor<1xf32>) -> tensor<f32>
    %lt = stablehlo.compare LT, %s, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }) : (tensor<5xf32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

// A sort along a dimension the inputs do not have.
func.func @main(%arg0: tensor<5xf32>) -> tensor<5xf32> {
  // expected-error @+1 {{stablehlo.sort: dimension 1 of rank 1}}
  %0 = "stablehlo.sort"(%arg0) <{dimension = 1 : i64}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %lt = stablehlo.compare LT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }) : (tensor<5xf32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

// A composite whose decomposition is missing.
func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{stablehlo.composite "my.op": no function @my.op.impl of its type to decompose it}}
  %0 = stablehlo.composite "my.op" %arg0 {decomposition = @my.op.impl} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}


// -----

// A maximum reduction of unsigned values.
func.func @main(%arg0: tensor<4xui32>) -> tensor<ui32> {
  %c = stablehlo.constant dense<0> : tensor<ui32>
  // expected-error @+1 {{stablehlo.reduce of unsigned integers: Kiln imports it on signed integers (or on unsigned ones with a body that adds, multiplies or combines bits)}}
  %0 = stablehlo.reduce(%arg0 init: %c) applies stablehlo.maximum across dimensions = [0] : (tensor<4xui32>, tensor<ui32>) -> tensor<ui32>
  return %0 : tensor<ui32>
}

// -----

// A collapsed dimension the operand does not have.
func.func @main(%arg0: tensor<10x16xf32>, %arg1: tensor<5x1xi32>) -> tensor<5x16xf32> {
  // expected-error @+1 {{stablehlo.gather: operand dimensions out of range, repeated or both batching and indexed}}
  %0 = "stablehlo.gather"(%arg0, %arg1) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [5], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 16>}> : (tensor<10x16xf32>, tensor<5x1xi32>) -> tensor<5x16xf32>
  return %0 : tensor<5x16xf32>
}

// -----

// An operand batching dimension without its indices' partner.
func.func @main(%arg0: tensor<5x16xf32>, %arg1: tensor<5x1xi32>) -> tensor<5xf32> {
  // expected-error @+1 {{stablehlo.gather: index dimensions out of range or unpaired}}
  %0 = "stablehlo.gather"(%arg0, %arg1) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [1], operand_batching_dims = [0], start_index_map = [1], index_vector_dim = 1>, slice_sizes = array<i64: 1, 1>}> : (tensor<5x16xf32>, tensor<5x1xi32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

// Window dimensions out of order.
func.func @main(%arg0: tensor<4x6x8xf32>, %arg1: tensor<5x1xi32>) -> tensor<6x8x5xf32> {
  // expected-error @+1 {{stablehlo.gather: window dimensions out of range, unsorted, or not one per kept operand dimension}}
  %0 = "stablehlo.gather"(%arg0, %arg1) <{dimension_numbers = #stablehlo.gather<offset_dims = [1, 0], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 6, 8>}> : (tensor<4x6x8xf32>, tensor<5x1xi32>) -> tensor<6x8x5xf32>
  return %0 : tensor<6x8x5xf32>
}

// -----

// A result whose batch is not the indices'.
func.func @main(%arg0: tensor<10x16xf32>, %arg1: tensor<5x1xi32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{stablehlo.gather: batch dimensions that differ from the indices'}}
  %0 = "stablehlo.gather"(%arg0, %arg1) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 16>}> : (tensor<10x16xf32>, tensor<5x1xi32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// A collapsed dimension sliced wider than 1.
func.func @main(%arg0: tensor<10x16xf32>, %arg1: tensor<5x1xi32>) -> tensor<5x16xf32> {
  // expected-error @+1 {{stablehlo.gather: collapsed dimensions of slice size other than 1}}
  %0 = "stablehlo.gather"(%arg0, %arg1) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 2, 16>}> : (tensor<10x16xf32>, tensor<5x1xi32>) -> tensor<5x16xf32>
  return %0 : tensor<5x16xf32>
}

// -----

// A convolution whose operands differ in element type.
func.func @main(%arg0: tensor<1x5x5x2xf32>, %arg1: tensor<3x3x2x4xf64>) -> tensor<1x3x3x4xf32> {
  // expected-error @+1 {{stablehlo.convolution: Kiln imports convolutions of ranked tensors of one element type}}
  %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f] {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x5x5x2xf32>, tensor<3x3x2x4xf64>) -> tensor<1x3x3x4xf32>
  return %0 : tensor<1x3x3x4xf32>
}

// -----

// Layouts of two spatial dimensions for operands of one.
func.func @main(%arg0: tensor<1x5x2xf32>, %arg1: tensor<3x2x4xf32>) -> tensor<1x3x4xf32> {
  // expected-error @+1 {{stablehlo.convolution: layouts that are not one dimension each of the operands' and result's}}
  %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f] {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x5x2xf32>, tensor<3x2x4xf32>) -> tensor<1x3x4xf32>
  return %0 : tensor<1x3x4xf32>
}

// -----

// Strides for one spatial dimension of two.
func.func @main(%arg0: tensor<1x5x5x2xf32>, %arg1: tensor<3x3x2x4xf32>) -> tensor<1x3x3x4xf32> {
  // expected-error @+1 {{stablehlo.convolution: window attributes not one per spatial dimension}}
  %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x5x5x2xf32>, tensor<3x3x2x4xf32>) -> tensor<1x3x3x4xf32>
  return %0 : tensor<1x3x3x4xf32>
}

// -----

// A kernel larger than the padded input.
func.func @main(%arg0: tensor<1x2x2x2xf32>, %arg1: tensor<3x3x2x4xf32>) -> tensor<1x1x1x4xf32> {
  // expected-error @+1 {{stablehlo.convolution: a window larger than the padded input}}
  %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f] {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x2x2x2xf32>, tensor<3x3x2x4xf32>) -> tensor<1x1x1x4xf32>
  return %0 : tensor<1x1x1x4xf32>
}

// -----

// A pooling whose result is not its window's shape.
func.func @main(%arg0: tensor<4xf32>) -> tensor<3xf32> {
  %c = stablehlo.constant dense<0.0> : tensor<f32>
  // expected-error @+1 {{stablehlo.reduce_window: a window that does not give the result's shape}}
  %0 = "stablehlo.reduce_window"(%arg0, %c) <{window_dimensions = array<i64: 2>, window_strides = array<i64: 2>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %m = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }) : (tensor<4xf32>, tensor<f32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// A select_and_scatter whose source is not its windows' shape.
func.func @main(%arg0: tensor<4xf32>, %arg1: tensor<3xf32>) -> tensor<4xf32> {
  %c = stablehlo.constant dense<0.0> : tensor<f32>
  // expected-error @+1 {{stablehlo.select_and_scatter: a window that does not give the source's shape}}
  %0 = "stablehlo.select_and_scatter"(%arg0, %arg1, %c) <{window_dimensions = array<i64: 2>, window_strides = array<i64: 2>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %k = stablehlo.compare GE, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %k : tensor<i1>
  }, {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<4xf32>, tensor<3xf32>, tensor<f32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A sort of inputs of different shapes.
func.func @main(%arg0: tensor<5xf32>, %arg1: tensor<4xi32>) -> tensor<5xf32> {
  // expected-error @+1 {{stablehlo.sort: inputs of different shapes}}
  %0:2 = "stablehlo.sort"(%arg0, %arg1) <{dimension = 0 : i64}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<i32>, %d: tensor<i32>):
    %lt = stablehlo.compare LT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }) : (tensor<5xf32>, tensor<4xi32>) -> (tensor<5xf32>, tensor<4xi32>)
  return %0#0 : tensor<5xf32>
}

// -----

// A sort whose results are not its inputs' types.
func.func @main(%arg0: tensor<5xf32>) -> tensor<5xf64> {
  // expected-error @+1 {{stablehlo.sort: results of other types than the inputs}}
  %0 = "stablehlo.sort"(%arg0) <{dimension = 0 : i64}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %lt = stablehlo.compare LT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }) : (tensor<5xf32>) -> tensor<5xf64>
  return %0 : tensor<5xf64>
}

// -----

// top_k of booleans.
func.func @main(%arg0: tensor<5xi1>) -> tensor<2xi1> {
  // expected-error @+1 {{chlo.top_k: Kiln imports top_k of numbers, with indices of 32 or 64 bits}}
  %0:2 = chlo.top_k(%arg0, k = 2) : tensor<5xi1> -> (tensor<2xi1>, tensor<2xi32>)
  return %0#0 : tensor<2xi1>
}

// -----

// top_k results of the wrong shape.
func.func @main(%arg0: tensor<3x5xf32>) -> tensor<3x3xf32> {
  // expected-error @+1 {{chlo.top_k: results that are not the operand's shape with k last}}
  %0:2 = chlo.top_k(%arg0, k = 2) : tensor<3x5xf32> -> (tensor<3x3xf32>, tensor<3x2xi32>)
  return %0#0 : tensor<3x3xf32>
}
