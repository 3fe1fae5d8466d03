// RUN: kiln-opt %s --split-input-file --verify-diagnostics

func.func @constant_type() -> tensor<2xf32> {
  // expected-error @+1 {{'kiln.constant' op failed to verify that all of {value, result} have same type}}
  %0 = "kiln.constant"() {value = dense<1.0> : tensor<3xf32>} : () -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @iota_dimension() -> tensor<2x3xi32> {
  // expected-error @+1 {{'kiln.iota' op iota_dimension 2 is out of range for rank 2}}
  %0 = kiln.iota dim = 2 : tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}

// -----

func.func @iota_bool() -> tensor<3xi1> {
  // expected-error @+1 {{'kiln.iota' op result #0 must be statically shaped tensor}}
  %0 = kiln.iota dim = 0 : tensor<3xi1>
  return %0 : tensor<3xi1>
}

// -----

func.func @broadcast_rank(%x: tensor<3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'kiln.broadcast_in_dim' op broadcast_dimensions has 2 entries but the operand has rank 1}}
  %0 = kiln.broadcast_in_dim %x, dims = [0, 1] : (tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @broadcast_range(%x: tensor<3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'kiln.broadcast_in_dim' op broadcast_dimensions entry 2 is out of range for rank 2}}
  %0 = kiln.broadcast_in_dim %x, dims = [2] : (tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @broadcast_order(%x: tensor<1x1xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'kiln.broadcast_in_dim' op broadcast_dimensions must be strictly increasing}}
  %0 = kiln.broadcast_in_dim %x, dims = [1, 0] : (tensor<1x1xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @broadcast_size(%x: tensor<2xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'kiln.broadcast_in_dim' op operand dimension 0 has size 2, which cannot broadcast to result dimension 1 of size 3}}
  %0 = kiln.broadcast_in_dim %x, dims = [1] : (tensor<2xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @broadcast_element(%x: tensor<3xf32>) -> tensor<2x3xf64> {
  // expected-error @+1 {{'kiln.broadcast_in_dim' op failed to verify that all of {operand, result} have same element type}}
  %0 = kiln.broadcast_in_dim %x, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf64>
  return %0 : tensor<2x3xf64>
}

// -----

func.func @reshape_count(%x: tensor<2x3xf32>) -> tensor<5xf32> {
  // expected-error @+1 {{'kiln.reshape' op operand has 6 elements but the result has 5}}
  %0 = kiln.reshape %x : (tensor<2x3xf32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

func.func @reshape_overflow(%x: tensor<4294967296x4294967296xf32>) -> tensor<1xf32> {
  // expected-error @+1 {{'kiln.reshape' op operand #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float or 1-bit signless integer or 8-bit signless integer or 16-bit signless integer or 32-bit signless integer or 64-bit signless integer values of fewer than 2^63 bytes}}
  %0 = kiln.reshape %x : (tensor<4294967296x4294967296xf32>) -> tensor<1xf32>
  return %0 : tensor<1xf32>
}

// -----

func.func @transpose_rank(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // expected-error @+2 {{'kiln.transpose' op permutation has 1 entries but the operand has rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.transpose %x, permutation = [1] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

func.func @transpose_repeat(%x: tensor<2x3xf32>) -> tensor<3x3xf32> {
  // expected-error @+2 {{'kiln.transpose' op permutation repeats dimension 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.transpose %x, permutation = [1, 1] : (tensor<2x3xf32>) -> tensor<3x3xf32>
  return %0 : tensor<3x3xf32>
}

// -----

func.func @transpose_range(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // expected-error @+2 {{'kiln.transpose' op permutation -1 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.transpose %x, permutation = [-1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

func.func @transpose_result(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+2 {{'kiln.transpose' op inferred type(s) 'tensor<3x2xf32>' are incompatible with return type(s) of operation 'tensor<2x3xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.transpose %x, permutation = [1, 0] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @slice_rank(%x: tensor<4x4xf32>) -> tensor<2xf32> {
  // expected-error @+2 {{'kiln.slice' op start_indices has 1 entries but the operand has rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.slice %x [0:2] : (tensor<4x4xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @slice_limit_rank(%x: tensor<4xf32>) -> tensor<2xf32> {
  // expected-error @+2 {{'kiln.slice' op limit_indices has 2 entries but the operand has rank 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = "kiln.slice"(%x) {start_indices = array<i64: 0>, limit_indices = array<i64: 2, 2>, strides = array<i64: 1>} : (tensor<4xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @slice_strides_rank(%x: tensor<4xf32>) -> tensor<2xf32> {
  // expected-error @+2 {{'kiln.slice' op strides has 0 entries but the operand has rank 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = "kiln.slice"(%x) {start_indices = array<i64: 0>, limit_indices = array<i64: 2>, strides = array<i64>} : (tensor<4xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @slice_bounds(%x: tensor<4xf32>) -> tensor<2xf32> {
  // expected-error @+2 {{'kiln.slice' op dimension 0: start 3, limit 5 and size 4 must satisfy 0 <= start <= limit <= size}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.slice %x [3:5] : (tensor<4xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @slice_stride(%x: tensor<4xf32>) -> tensor<2xf32> {
  // expected-error @+2 {{'kiln.slice' op dimension 0: stride 0 must be at least 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.slice %x [0:2:0] : (tensor<4xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @dynamic_slice_count(%x: tensor<4x4xf32>, %i: tensor<i32>) -> tensor<2x2xf32> {
  // expected-error @+2 {{'kiln.dynamic_slice' op has 1 start indices but the operand has rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.dynamic_slice %x [%i], sizes = [2, 2] : (tensor<4x4xf32>, tensor<i32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

func.func @dynamic_slice_sizes_rank(%x: tensor<4xf32>, %i: tensor<i32>) -> tensor<2xf32> {
  // expected-error @+2 {{'kiln.dynamic_slice' op slice_sizes has 2 entries but the operand has rank 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.dynamic_slice %x [%i], sizes = [2, 2] : (tensor<4xf32>, tensor<i32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @dynamic_slice_size(%x: tensor<4xf32>, %i: tensor<i32>) -> tensor<5xf32> {
  // expected-error @+2 {{'kiln.dynamic_slice' op slice_sizes entry 5 for dimension 0 must be in [0, 4]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.dynamic_slice %x [%i], sizes = [5] : (tensor<4xf32>, tensor<i32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

func.func @dynamic_slice_index(%x: tensor<4xf32>, %i: tensor<1xi32>) -> tensor<2xf32> {
  // expected-error @+1 {{'kiln.dynamic_slice' op operand #1 must be variadic of 0D tensor of 32-bit signless integer or 64-bit signless integer values}}
  %0 = kiln.dynamic_slice %x [%i], sizes = [2] : (tensor<4xf32>, tensor<1xi32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @update_count(%x: tensor<4x4xf32>, %u: tensor<2x2xf32>, %i: tensor<i32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{'kiln.dynamic_update_slice' op has 1 start indices but the operand has rank 2}}
  %0 = kiln.dynamic_update_slice %x, %u [%i] : (tensor<4x4xf32>, tensor<2x2xf32>, tensor<i32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

func.func @update_rank(%x: tensor<4xf32>, %u: tensor<2x2xf32>, %i: tensor<i32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.dynamic_update_slice' op update has rank 2 but the operand has rank 1}}
  %0 = kiln.dynamic_update_slice %x, %u [%i] : (tensor<4xf32>, tensor<2x2xf32>, tensor<i32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @update_size(%x: tensor<4xf32>, %u: tensor<5xf32>, %i: tensor<i32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.dynamic_update_slice' op update dimension 0 has size 5, larger than the operand's 4}}
  %0 = kiln.dynamic_update_slice %x, %u [%i] : (tensor<4xf32>, tensor<5xf32>, tensor<i32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @concatenate_none() -> tensor<0xf32> {
  // expected-error @+2 {{'kiln.concatenate' op needs at least one input}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = "kiln.concatenate"() {dimension = 0 : i64} : () -> tensor<0xf32>
  return %0 : tensor<0xf32>
}

// -----

func.func @concatenate_dimension(%a: tensor<2xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{'kiln.concatenate' op dimension 1 is out of range for rank 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.concatenate %a, %a, dim = 1 : (tensor<2xf32>, tensor<2xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @concatenate_rank(%a: tensor<2xf32>, %b: tensor<2x1xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{'kiln.concatenate' op input #1 has type 'tensor<2x1xf32>', which differs in rank or element type from input #0's 'tensor<2xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.concatenate %a, %b, dim = 0 : (tensor<2xf32>, tensor<2x1xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @concatenate_size(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>) -> tensor<4x3xf32> {
  // expected-error @+2 {{'kiln.concatenate' op input #1 has size 4 in dimension 1 but input #0 has 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.concatenate %a, %b, dim = 0 : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @concatenate_overflow(%a: tensor<9223372036854775807xi1>) -> tensor<1xi1> {
  // expected-error @+2 {{'kiln.concatenate' op result dimension 0 overflows int64}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.concatenate %a, %a, dim = 0 : (tensor<9223372036854775807xi1>, tensor<9223372036854775807xi1>) -> tensor<1xi1>
  return %0 : tensor<1xi1>
}

// -----

func.func @pad_value(%x: tensor<3xf32>, %v: tensor<1xf32>) -> tensor<3xf32> {
  // expected-error @+2 {{'kiln.pad' op padding_value has type 'tensor<1xf32>' but must be a scalar of the operand's element type 'f32'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.pad %x, %v, low = [0], high = [0], interior = [0] : (tensor<3xf32>, tensor<1xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @pad_low_rank(%x: tensor<3xf32>, %v: tensor<f32>) -> tensor<3xf32> {
  // expected-error @+2 {{'kiln.pad' op edge_padding_low has 2 entries but the operand has rank 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.pad %x, %v, low = [0, 0], high = [0], interior = [0] : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @pad_high_rank(%x: tensor<3xf32>, %v: tensor<f32>) -> tensor<3xf32> {
  // expected-error @+2 {{'kiln.pad' op edge_padding_high has 0 entries but the operand has rank 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.pad %x, %v, low = [0], high = [], interior = [0] : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @pad_interior_rank(%x: tensor<3xf32>, %v: tensor<f32>) -> tensor<3xf32> {
  // expected-error @+2 {{'kiln.pad' op interior_padding has 2 entries but the operand has rank 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.pad %x, %v, low = [0], high = [0], interior = [0, 1] : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @pad_interior(%x: tensor<3xf32>, %v: tensor<f32>) -> tensor<3xf32> {
  // expected-error @+2 {{'kiln.pad' op interior_padding entry -1 for dimension 0 is negative}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.pad %x, %v, low = [0], high = [0], interior = [-1] : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @pad_negative(%x: tensor<3xf32>, %v: tensor<f32>) -> tensor<3xf32> {
  // expected-error @+2 {{'kiln.pad' op padding gives dimension 0 the negative size -1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.pad %x, %v, low = [-2], high = [-2], interior = [0] : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @pad_overflow(%x: tensor<3xf32>, %v: tensor<f32>) -> tensor<3xf32> {
  // expected-error @+2 {{'kiln.pad' op padding overflows dimension 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.pad %x, %v, low = [0], high = [0], interior = [9223372036854775807] : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @reverse_range(%x: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'kiln.reverse' op dimensions 1 is out of range for rank 1}}
  %0 = kiln.reverse %x, dims = [1] : tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @reverse_repeat(%x: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'kiln.reverse' op dimensions repeats dimension 0}}
  %0 = kiln.reverse %x, dims = [0, 0] : tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// A dynamic dimension broadcasts to a dynamic one only.
func.func @broadcast_dynamic_to_static(%x: tensor<?xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.broadcast_in_dim' op operand dimension 0 is dynamic but result dimension 0 is static}}
  %0 = kiln.broadcast_in_dim %x, dims = [0] : (tensor<?xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A dynamic result dimension takes its size from the operand or `like`.
func.func @broadcast_new_dynamic(%x: tensor<4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'kiln.broadcast_in_dim' op result dimension 0 is dynamic but neither an operand dimension nor a dynamic dimension of `like` gives its size}}
  %0 = kiln.broadcast_in_dim %x, dims = [1] : (tensor<4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

func.func @broadcast_like_static(%x: tensor<4xf32>, %l: tensor<2x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'kiln.broadcast_in_dim' op result dimension 0 is dynamic but neither an operand dimension nor a dynamic dimension of `like` gives its size}}
  %0 = kiln.broadcast_in_dim %x, dims = [1], like %l : (tensor<4xf32>, tensor<2x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

func.func @broadcast_like_rank(%x: tensor<4xf32>, %l: tensor<?xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'kiln.broadcast_in_dim' op like has type 'tensor<?xf32>' but must have the result's rank 2}}
  %0 = kiln.broadcast_in_dim %x, dims = [1], like %l : (tensor<4xf32>, tensor<?xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

func.func @broadcast_like_conflict(%x: tensor<4xf32>, %l: tensor<?x5xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'kiln.broadcast_in_dim' op like has size 5 in dimension 1 but the result has 4}}
  %0 = kiln.broadcast_in_dim %x, dims = [1], like %l : (tensor<4xf32>, tensor<?x5xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

func.func @broadcast_like_unneeded(%x: tensor<4xf32>, %l: tensor<?x4xf32>) -> tensor<3x4xf32> {
  // expected-error @+1 {{'kiln.broadcast_in_dim' op like serves only dynamic result dimensions that no operand dimension gives; this op has none}}
  %0 = kiln.broadcast_in_dim %x, dims = [1], like %l : (tensor<4xf32>, tensor<?x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// A reshape of a dynamic operand has one dynamic result dimension.
func.func @reshape_two_dynamic(%x: tensor<?x4xf32>) -> tensor<?x?xf32> {
  // expected-error @+1 {{'kiln.reshape' op result type 'tensor<?x?xf32>' must have one dynamic dimension, as the operand has some}}
  %0 = kiln.reshape %x : (tensor<?x4xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

func.func @reshape_static_to_dynamic(%x: tensor<8xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'kiln.reshape' op result type 'tensor<?x4xf32>' must have no dynamic dimension, as the operand has none}}
  %0 = kiln.reshape %x : (tensor<8xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// Nothing gives an iota or a constant a size.
func.func @iota_dynamic() -> tensor<?xi32> {
  // expected-error @+1 {{'kiln.iota' op result #0 must be statically shaped tensor}}
  %0 = kiln.iota dim = 0 : tensor<?xi32>
  return %0 : tensor<?xi32>
}

// -----

// Known sizes must still agree.
func.func @concatenate_conflict(%x: tensor<?x4xf32>, %y: tensor<?x5xf32>) -> tensor<?x4xf32> {
  // expected-error @+2 {{'kiln.concatenate' op input #1 has size 5 in dimension 1 but input #0 has 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.concatenate %x, %y, dim = 0 : (tensor<?x4xf32>, tensor<?x5xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
