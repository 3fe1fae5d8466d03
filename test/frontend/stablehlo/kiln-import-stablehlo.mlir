// RUN: kiln-opt %s --split-input-file --kiln-import-stablehlo | FileCheck %s

// Elementwise ops take kiln's names; JAX's and XLA's attributes go.
// CHECK-LABEL: func.func public @main(
// CHECK-SAME: %[[X:.*]]: tensor<4xf32>, %[[Y:.*]]: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NOT: stablehlo
// CHECK-NOT: mhlo
// CHECK: %[[A:.*]] = kiln.add %[[X]], %[[Y]] : tensor<4xf32>
// CHECK: %[[S:.*]] = kiln.sub %[[A]], %[[Y]] : tensor<4xf32>
// CHECK: %[[M:.*]] = kiln.mul %[[S]], %[[X]] : tensor<4xf32>
// CHECK: %[[D:.*]] = kiln.div %[[M]], %[[Y]] : tensor<4xf32>
// CHECK: %[[R:.*]] = kiln.rem %[[D]], %[[Y]] : tensor<4xf32>
// CHECK: %[[MX:.*]] = kiln.max %[[R]], %[[X]] : tensor<4xf32>
// CHECK: %[[MN:.*]] = kiln.min %[[MX]], %[[Y]] : tensor<4xf32>
// CHECK: %[[P:.*]] = kiln.pow %[[MN]], %[[X]] : tensor<4xf32>
// CHECK: %[[T:.*]] = kiln.atan2 %[[P]], %[[Y]] : tensor<4xf32>
// CHECK: %[[U1:.*]] = kiln.neg %[[T]] : tensor<4xf32>
// CHECK: %[[U2:.*]] = kiln.exp %[[U1]] : tensor<4xf32>
// CHECK: %[[U3:.*]] = kiln.expm1 %[[U2]] : tensor<4xf32>
// CHECK: %[[U4:.*]] = kiln.log1p %[[U3]] : tensor<4xf32>
// CHECK: %[[U5:.*]] = kiln.logistic %[[U4]] : tensor<4xf32>
// CHECK: %[[U6:.*]] = kiln.rsqrt %[[U5]] : tensor<4xf32>
// CHECK: %[[U7:.*]] = kiln.sin %[[U6]] : tensor<4xf32>
// CHECK: %[[U8:.*]] = kiln.cos %[[U7]] : tensor<4xf32>
// CHECK: %[[U9:.*]] = kiln.sign %[[U8]] : tensor<4xf32>
// CHECK: %[[U10:.*]] = kiln.abs %[[U9]] : tensor<4xf32>
// CHECK: return %[[U10]] : tensor<4xf32>
module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32> {mhlo.layout_mode = "default"}, %arg1: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = "", mhlo.layout_mode = "default"}) {
    %0 = stablehlo.add %arg0, %arg1 : tensor<4xf32>
    %1 = stablehlo.subtract %0, %arg1 : tensor<4xf32>
    %2 = stablehlo.multiply %1, %arg0 : tensor<4xf32>
    %3 = stablehlo.divide %2, %arg1 : tensor<4xf32>
    %4 = stablehlo.remainder %3, %arg1 : tensor<4xf32>
    %5 = stablehlo.maximum %4, %arg0 : tensor<4xf32>
    %6 = stablehlo.minimum %5, %arg1 : tensor<4xf32>
    %7 = stablehlo.power %6, %arg0 : tensor<4xf32>
    %8 = stablehlo.atan2 %7, %arg1 : tensor<4xf32>
    %9 = stablehlo.negate %8 : tensor<4xf32>
    %10 = stablehlo.exponential %9 : tensor<4xf32>
    %11 = stablehlo.exponential_minus_one %10 : tensor<4xf32>
    %12 = stablehlo.log_plus_one %11 : tensor<4xf32>
    %13 = stablehlo.logistic %12 : tensor<4xf32>
    %14 = stablehlo.rsqrt %13 : tensor<4xf32>
    %15 = stablehlo.sine %14 : tensor<4xf32>
    %16 = stablehlo.cosine %15 : tensor<4xf32>
    %17 = stablehlo.sign %16 : tensor<4xf32>
    %18 = stablehlo.abs %17 : tensor<4xf32>
    return %18 : tensor<4xf32>
  }
}

// -----

// On booleans, add and maximum are `or`, multiply and minimum `and`
// (StableHLO's semantics; kiln refuses arithmetic on i1).
// CHECK-LABEL: func.func @booleans
// CHECK: %[[O:.*]] = kiln.or %arg0, %arg1 : tensor<3xi1>
// CHECK: %[[A:.*]] = kiln.and %[[O]], %arg1 : tensor<3xi1>
// CHECK: %[[M:.*]] = kiln.or %[[A]], %arg0 : tensor<3xi1>
// CHECK: %[[N:.*]] = kiln.and %[[M]], %arg1 : tensor<3xi1>
// CHECK: %[[X:.*]] = kiln.xor %[[N]], %arg0 : tensor<3xi1>
// CHECK: kiln.not %[[X]] : tensor<3xi1>
func.func @booleans(%arg0: tensor<3xi1>, %arg1: tensor<3xi1>) -> tensor<3xi1> {
  %0 = stablehlo.add %arg0, %arg1 : tensor<3xi1>
  %1 = stablehlo.multiply %0, %arg1 : tensor<3xi1>
  %2 = stablehlo.maximum %1, %arg0 : tensor<3xi1>
  %3 = stablehlo.minimum %2, %arg1 : tensor<3xi1>
  %4 = stablehlo.xor %3, %arg0 : tensor<3xi1>
  %5 = stablehlo.not %4 : tensor<3xi1>
  return %5 : tensor<3xi1>
}

// -----

// Comparisons, a choice with a scalar predicate (broadcast to the
// choices' shape), conversions and is_finite (|x| < inf).
// CHECK-LABEL: func.func @choices
// CHECK: %[[C:.*]] = kiln.compare  LT, %arg0, %arg1 : tensor<2x3xf32>
// CHECK: %[[P:.*]] = kiln.broadcast_in_dim %arg2, dims = [] : (tensor<i1>) -> tensor<2x3xi1>
// CHECK: %[[S:.*]] = kiln.select %[[P]], %arg0, %arg1 : tensor<2x3xi1>, tensor<2x3xf32>
// CHECK: %[[I:.*]] = kiln.convert %[[C]] : (tensor<2x3xi1>) -> tensor<2x3xi32>
// CHECK: %[[ABS:.*]] = kiln.abs %[[S]] : tensor<2x3xf32>
// CHECK: %[[INF:.*]] = kiln.constant dense<0x7F800000> : tensor<2x3xf32>
// CHECK: %[[F:.*]] = kiln.compare  LT, %[[ABS]], %[[INF]] : tensor<2x3xf32>
// CHECK: return %[[I]], %[[F]]
func.func @choices(%arg0: tensor<2x3xf32>, %arg1: tensor<2x3xf32>, %arg2: tensor<i1>) -> (tensor<2x3xi32>, tensor<2x3xi1>) {
  %0 = stablehlo.compare  LT, %arg0, %arg1,  FLOAT : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  %1 = stablehlo.select %arg2, %arg0, %arg1 : (tensor<i1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = stablehlo.convert %0 : (tensor<2x3xi1>) -> tensor<2x3xi32>
  %3 = stablehlo.is_finite %1 : (tensor<2x3xf32>) -> tensor<2x3xi1>
  return %2, %3 : tensor<2x3xi32>, tensor<2x3xi1>
}

// -----

// Data movement keeps StableHLO's attributes under kiln's names.
// CHECK-LABEL: func.func @movement
// CHECK: %[[B:.*]] = kiln.broadcast_in_dim %arg0, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
// CHECK: %[[T:.*]] = kiln.transpose %[[B]], permutation = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
// CHECK: %[[R:.*]] = kiln.reshape %[[T]] : (tensor<3x2xf32>) -> tensor<6xf32>
// CHECK: %[[S:.*]] = kiln.slice %[[R]] [1:5:2] : (tensor<6xf32>) -> tensor<2xf32>
// CHECK: %[[I:.*]] = kiln.iota dim = 0 : tensor<2xf32>
// CHECK: kiln.concatenate %[[S]], %[[I]], dim = 0 : (tensor<2xf32>, tensor<2xf32>) -> tensor<4xf32>
func.func @movement(%arg0: tensor<3xf32>) -> tensor<4xf32> {
  %0 = stablehlo.broadcast_in_dim %arg0, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
  %1 = stablehlo.transpose %0, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %2 = stablehlo.reshape %1 : (tensor<3x2xf32>) -> tensor<6xf32>
  %3 = stablehlo.slice %2 [1:5:2] : (tensor<6xf32>) -> tensor<2xf32>
  %4 = stablehlo.iota dim = 0 : tensor<2xf32>
  %5 = stablehlo.concatenate %3, %4, dim = 0 : (tensor<2xf32>, tensor<2xf32>) -> tensor<4xf32>
  return %5 : tensor<4xf32>
}

// -----

// dot_general's dimension numbers flatten into kiln's; the highest of the
// precisions its operands and algorithm ask for is kept (DEFAULT is kiln's
// default): an f32 algorithm is HIGHEST, bf16 split in three is HIGH, tf32
// is DEFAULT.
// CHECK-LABEL: func.func @products
// CHECK: kiln.dot_general %arg0, %arg1, batching = [0] x [0], contracting = [2] x [1], precision = HIGHEST : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
// CHECK: kiln.dot_general %arg2, %arg2, contracting = [1] x [1] : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x3xf32>
// CHECK: kiln.dot_general %arg2, %arg2, contracting = [1] x [1], precision = HIGHEST :
// CHECK: kiln.dot_general %arg2, %arg2, contracting = [1] x [1], precision = HIGH :
// CHECK: kiln.dot_general %arg2, %arg2, contracting = [1] x [1] :
func.func @products(%arg0: tensor<2x3x4xf32>, %arg1: tensor<2x4x5xf32>, %arg2: tensor<3x4xf32>) -> (tensor<2x3x5xf32>, tensor<3x3xf32>, tensor<3x3xf32>, tensor<3x3xf32>, tensor<3x3xf32>) {
  %0 = stablehlo.dot_general %arg0, %arg1, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, HIGHEST] : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  %1 = stablehlo.dot_general %arg2, %arg2, contracting_dims = [1] x [1] : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x3xf32>
  %2 = stablehlo.dot_general %arg2, %arg2, contracting_dims = [1] x [1], algorithm = <lhs_precision_type = f32, rhs_precision_type = f32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false> : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x3xf32>
  %3 = stablehlo.dot_general %arg2, %arg2, contracting_dims = [1] x [1], algorithm = <lhs_precision_type = bf16, rhs_precision_type = bf16, accumulation_type = f32, lhs_component_count = 3, rhs_component_count = 3, num_primitive_operations = 6, allow_imprecise_accumulation = false> : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x3xf32>
  %4 = stablehlo.dot_general %arg2, %arg2, contracting_dims = [1] x [1], algorithm = <lhs_precision_type = tf32, rhs_precision_type = tf32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false> : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x3xf32>
  return %0, %1, %2, %3, %4 : tensor<2x3x5xf32>, tensor<3x3xf32>, tensor<3x3xf32>, tensor<3x3xf32>, tensor<3x3xf32>
}

// -----

// A reduction whose init value is its body's identity is kiln's
// reduction; any other init is folded in once. The body may be written as
// a region.
// CHECK-LABEL: func.func @reductions
// CHECK: %[[SUM:.*]] = kiln.reduce_sum %arg0, dims = [1] : (tensor<2x3xf32>) -> tensor<2xf32>
// CHECK: %[[MAX:.*]] = kiln.reduce_max %arg0, dims = [0, 1] : (tensor<2x3xf32>) -> tensor<f32>
// CHECK: %[[PROD:.*]] = kiln.reduce_prod %arg0, dims = [0] : (tensor<2x3xf32>) -> tensor<3xf32>
// CHECK: %[[INIT:.*]] = kiln.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<3xf32>
// CHECK: %[[FOLDED:.*]] = kiln.mul %[[PROD]], %[[INIT]] : tensor<3xf32>
// CHECK: %[[MIN:.*]] = kiln.reduce_min %arg2, dims = [0] : (tensor<4xi32>) -> tensor<i32>
// CHECK: return %[[SUM]], %[[MAX]], %[[FOLDED]], %[[MIN]]
func.func @reductions(%arg0: tensor<2x3xf32>, %arg1: tensor<f32>, %arg2: tensor<4xi32>) -> (tensor<2xf32>, tensor<f32>, tensor<3xf32>, tensor<i32>) {
  %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %0 = stablehlo.reduce(%arg0 init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
  %low = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %1 = stablehlo.reduce(%arg0 init: %low) across dimensions = [0, 1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<f32>
   reducer(%a: tensor<f32>, %b: tensor<f32>)  {
    %m = stablehlo.maximum %a, %b : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }
  %2 = stablehlo.reduce(%arg0 init: %arg1) applies stablehlo.multiply across dimensions = [0] : (tensor<2x3xf32>, tensor<f32>) -> tensor<3xf32>
  %high = stablehlo.constant dense<2147483647> : tensor<i32>
  %3 = stablehlo.reduce(%arg2 init: %high) applies stablehlo.minimum across dimensions = [0] : (tensor<4xi32>, tensor<i32>) -> tensor<i32>
  return %0, %1, %2, %3 : tensor<2xf32>, tensor<f32>, tensor<3xf32>, tensor<i32>
}

// -----

// A reduction of several tensors whose body reduces each on its own (as
// jax.lax.reduce of a tuple writes it): a reduction per tensor, each with
// its own init value (the product's 2 folded in).
// CHECK-LABEL: func.func @reductions_of_several
// CHECK: %[[SUM:.*]] = kiln.reduce_sum %arg0, dims = [1] : (tensor<2x3xf32>) -> tensor<2xf32>
// CHECK: %[[MAX:.*]] = kiln.reduce_max %arg1, dims = [1] : (tensor<2x3xi32>) -> tensor<2xi32>
// CHECK: %[[PROD:.*]] = kiln.reduce_prod %arg0, dims = [1] : (tensor<2x3xf32>) -> tensor<2xf32>
// CHECK: %[[INIT:.*]] = kiln.broadcast_in_dim %{{.*}}, dims = [] : (tensor<f32>) -> tensor<2xf32>
// CHECK: %[[FOLDED:.*]] = kiln.mul %[[PROD]], %[[INIT]] : tensor<2xf32>
// CHECK: return %[[SUM]], %[[MAX]], %[[FOLDED]]
func.func @reductions_of_several(%arg0: tensor<2x3xf32>, %arg1: tensor<2x3xi32>) -> (tensor<2xf32>, tensor<2xi32>, tensor<2xf32>) {
  %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %low = stablehlo.constant dense<-2147483648> : tensor<i32>
  %two = stablehlo.constant dense<2.000000e+00> : tensor<f32>
  %0:3 = stablehlo.reduce(%arg0 init: %zero), (%arg1 init: %low), (%arg0 init: %two) across dimensions = [1] : (tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x3xf32>, tensor<f32>, tensor<i32>, tensor<f32>) -> (tensor<2xf32>, tensor<2xi32>, tensor<2xf32>)
   reducer(%a: tensor<f32>, %d: tensor<f32>) (%b: tensor<i32>, %e: tensor<i32>) (%c: tensor<f32>, %f: tensor<f32>)  {
    %s = stablehlo.add %a, %d : tensor<f32>
    %m = stablehlo.maximum %b, %e : tensor<i32>
    %p = stablehlo.multiply %c, %f : tensor<f32>
    stablehlo.return %s, %m, %p : tensor<f32>, tensor<i32>, tensor<f32>
  }
  return %0#0, %0#1, %0#2 : tensor<2xf32>, tensor<2xi32>, tensor<2xf32>
}

// -----

// The generic form, as StableHLO's own tests are stored, imports the same.
// CHECK-LABEL: func.func @generic
// CHECK: kiln.reduce_sum %arg0, dims = [0] : (tensor<2x3xf32>) -> tensor<3xf32>
// CHECK: kiln.dot_general
// CHECK-SAME: contracting = [1] x [0]
// CHECK: kiln.compare  GE
"func.func"() <{function_type = (tensor<2x3xf32>, tensor<3x2xf32>) -> (tensor<3xf32>, tensor<2x2xf32>, tensor<2x3xi1>), sym_name = "generic"}> ({
^bb0(%arg0: tensor<2x3xf32>, %arg1: tensor<3x2xf32>):
  %0 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
  %1 = "stablehlo.reduce"(%arg0, %0) <{dimensions = array<i64: 0>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %2 = "stablehlo.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "stablehlo.return"(%2) : (tensor<f32>) -> ()
  }) : (tensor<2x3xf32>, tensor<f32>) -> tensor<3xf32>
  %3 = "stablehlo.dot_general"(%arg0, %arg1) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>}> : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  %4 = "stablehlo.compare"(%arg0, %arg0) <{comparison_direction = #stablehlo<comparison_direction GE>}> : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  "func.return"(%1, %3, %4) : (tensor<3xf32>, tensor<2x2xf32>, tensor<2x3xi1>) -> ()
}) : () -> ()


// -----

// Padding, reversal, dynamic slices and clamp (scalar bounds broadcast).
// CHECK-LABEL: func.func @slicing
// CHECK: %[[P:.*]] = kiln.pad %arg0, %arg3, low = [1], high = [0], interior = [1] : (tensor<4xf32>, tensor<f32>) -> tensor<8xf32>
// CHECK: %[[R:.*]] = kiln.reverse %[[P]], dims = [0] : tensor<8xf32>
// CHECK: %[[D:.*]] = kiln.dynamic_slice %[[R]][%arg1], sizes = [2] : (tensor<8xf32>, tensor<i32>) -> tensor<2xf32>
// CHECK: %[[U:.*]] = kiln.dynamic_update_slice %[[R]], %[[D]][%arg2] : (tensor<8xf32>, tensor<2xf32>, tensor<i32>) -> tensor<8xf32>
// CHECK: %[[LO:.*]] = kiln.broadcast_in_dim %arg3, dims = [] : (tensor<f32>) -> tensor<8xf32>
// CHECK: %[[HI:.*]] = kiln.broadcast_in_dim %arg4, dims = [] : (tensor<f32>) -> tensor<8xf32>
// CHECK: %[[A:.*]] = kiln.max %[[U]], %[[LO]] : tensor<8xf32>
// CHECK: kiln.min %[[A]], %[[HI]] : tensor<8xf32>
func.func @slicing(%arg0: tensor<4xf32>, %arg1: tensor<i32>, %arg2: tensor<i32>, %arg3: tensor<f32>, %arg4: tensor<f32>) -> tensor<8xf32> {
  %0 = stablehlo.pad %arg0, %arg3, low = [1], high = [0], interior = [1] : (tensor<4xf32>, tensor<f32>) -> tensor<8xf32>
  %1 = stablehlo.reverse %0, dims = [0] : tensor<8xf32>
  %2 = stablehlo.dynamic_slice %1, %arg1, sizes = [2] : (tensor<8xf32>, tensor<i32>) -> tensor<2xf32>
  %3 = stablehlo.dynamic_update_slice %1, %2, %arg2 : (tensor<8xf32>, tensor<2xf32>, tensor<i32>) -> tensor<8xf32>
  %4 = stablehlo.clamp %arg3, %3, %arg4 : (tensor<f32>, tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  return %4 : tensor<8xf32>
}

// -----

// A loop as lax.fori_loop exports it.
// CHECK-LABEL: func.func @loop
// CHECK: %[[R:.*]]:2 = kiln.while(%{{.*}}, %arg0) : tensor<i32>, tensor<4xf32> cond {
// CHECK-NEXT: ^bb0(%[[I:.*]]: tensor<i32>, %[[X:.*]]: tensor<4xf32>):
// CHECK: %[[P:.*]] = kiln.compare  LT, %[[I]], %{{.*}} : tensor<i32>
// CHECK-NEXT: kiln.yield %[[P]] : tensor<i1>
// CHECK-NEXT: } do {
// CHECK-NEXT: ^bb0(%[[J:.*]]: tensor<i32>, %[[Y:.*]]: tensor<4xf32>):
// CHECK: kiln.yield %{{.*}}, %{{.*}} : tensor<i32>, tensor<4xf32>
// CHECK: return %[[R]]#1
func.func @loop(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %c = stablehlo.constant dense<0> : tensor<i32>
  %0:2 = stablehlo.while(%iterArg = %c, %iterArg_0 = %arg0) : tensor<i32>, tensor<4xf32>
   cond {
    %c_1 = stablehlo.constant dense<3> : tensor<i32>
    %1 = stablehlo.compare  LT, %iterArg, %c_1,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %1 : tensor<i1>
  } do {
    %c_1 = stablehlo.constant dense<1> : tensor<i32>
    %1 = stablehlo.add %iterArg, %c_1 : tensor<i32>
    %2 = stablehlo.tanh %iterArg_0 : tensor<4xf32>
    stablehlo.return %1, %2 : tensor<i32>, tensor<4xf32>
  }
  return %0#1 : tensor<4xf32>
}

// -----

// lax.cond's case (index 0 is the false branch) and lax.switch's of three
// branches, the last taking indices out of range; stablehlo.if.
// CHECK-LABEL: func.func @branches
// CHECK: %[[Z:.*]] = kiln.constant dense<0> : tensor<i32>
// CHECK: %[[E:.*]] = kiln.compare  EQ, %arg0, %[[Z]] : tensor<i32>
// CHECK: %[[C:.*]] = kiln.cond %[[E]] -> (tensor<f32>) {
// CHECK-NEXT: kiln.yield %arg1 : tensor<f32>
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[O:.*]] = kiln.constant dense<1> : tensor<i32>
// CHECK-NEXT: %[[E1:.*]] = kiln.compare  EQ, %arg0, %[[O]] : tensor<i32>
// CHECK-NEXT: %[[C1:.*]] = kiln.cond %[[E1]] -> (tensor<f32>) {
// CHECK-NEXT: kiln.yield %arg2 : tensor<f32>
// CHECK-NEXT: } else {
// CHECK-NEXT: kiln.neg %arg2
// CHECK: kiln.yield %[[C1]] : tensor<f32>
// CHECK: %[[I:.*]] = kiln.cond %arg3 -> (tensor<f32>) {
// CHECK-NEXT: kiln.yield %arg1 : tensor<f32>
// CHECK-NEXT: } else {
// CHECK-NEXT: kiln.yield %arg2 : tensor<f32>
func.func @branches(%arg0: tensor<i32>, %arg1: tensor<f32>, %arg2: tensor<f32>, %arg3: tensor<i1>) -> (tensor<f32>, tensor<f32>) {
  %0 = "stablehlo.case"(%arg0) ({
    stablehlo.return %arg1 : tensor<f32>
  }, {
    stablehlo.return %arg2 : tensor<f32>
  }, {
    %n = stablehlo.negate %arg2 : tensor<f32>
    stablehlo.return %n : tensor<f32>
  }) : (tensor<i32>) -> tensor<f32>
  %1 = "stablehlo.if"(%arg3) ({
    stablehlo.return %arg1 : tensor<f32>
  }, {
    stablehlo.return %arg2 : tensor<f32>
  }) : (tensor<i1>) -> tensor<f32>
  return %0, %1 : tensor<f32>, tensor<f32>
}

// -----

// jnp.take / x[i] (gathers of whole slices along one dimension) are
// kiln.take; x.at[i].add(u) is kiln.scatter_add with the updates of
// indices out of range made zeros (StableHLO drops them; kiln clamps).
// CHECK-LABEL: func.func @indexing
// CHECK: %[[I:.*]] = kiln.reshape %arg1 : (tensor<5x1xi32>) -> tensor<5xi32>
// CHECK: %[[T:.*]] = kiln.take %arg0[%[[I]]], dim = 0 : (tensor<10x16xf32>, tensor<5xi32>) -> tensor<5x16xf32>
// CHECK: %[[C:.*]] = kiln.take %arg0[%arg2], dim = 1 : (tensor<10x16xf32>, tensor<3x2xi32>) -> tensor<10x3x2xf32>
// CHECK: %[[J:.*]] = kiln.reshape %arg1 : (tensor<5x1xi32>) -> tensor<5xi32>
// CHECK: %[[GE:.*]] = kiln.compare  GE, %[[J]], %{{.*}} : tensor<5xi32>
// CHECK: %[[LE:.*]] = kiln.compare  LE, %[[J]], %{{.*}} : tensor<5xi32>
// CHECK: %[[IN:.*]] = kiln.and %[[GE]], %[[LE]] : tensor<5xi1>
// CHECK: %[[M:.*]] = kiln.broadcast_in_dim %[[IN]], dims = [0] : (tensor<5xi1>) -> tensor<5x16xi1>
// CHECK: %[[U:.*]] = kiln.select %[[M]], %[[T]], %{{.*}} : tensor<5x16xi1>, tensor<5x16xf32>
// CHECK: %[[K:.*]] = kiln.reshape %arg1 : (tensor<5x1xi32>) -> tensor<5xi32>
// CHECK: kiln.scatter_add %arg0[%[[K]]], %[[U]], dim = 0 : (tensor<10x16xf32>, tensor<5xi32>, tensor<5x16xf32>) -> tensor<10x16xf32>
func.func @indexing(%arg0: tensor<10x16xf32>, %arg1: tensor<5x1xi32>, %arg2: tensor<3x2xi32>) -> (tensor<10x3x2xf32>, tensor<10x16xf32>) {
  %0 = "stablehlo.gather"(%arg0, %arg1) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 16>}> : (tensor<10x16xf32>, tensor<5x1xi32>) -> tensor<5x16xf32>
  %1 = "stablehlo.gather"(%arg0, %arg2) <{dimension_numbers = #stablehlo.gather<offset_dims = [0], collapsed_slice_dims = [1], start_index_map = [1], index_vector_dim = 2>, slice_sizes = array<i64: 10, 1>}> : (tensor<10x16xf32>, tensor<3x2xi32>) -> tensor<10x3x2xf32>
  %2 = "stablehlo.scatter"(%arg0, %arg1, %0) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<10x16xf32>, tensor<5x1xi32>, tensor<5x16xf32>) -> tensor<10x16xf32>
  return %1, %2 : tensor<10x3x2xf32>, tensor<10x16xf32>
}

// -----

// Other gathers (here x[i, j]) take elements of the flattened operand at
// positions computed from the clamped start indices, iotas over the
// slice and the operand's strides.
// CHECK-LABEL: func.func @points
// CHECK: %[[S0:.*]] = kiln.slice %arg1 [0:6, 0:1]
// CHECK: %[[I:.*]] = kiln.reshape %[[S0]] : (tensor<6x1xi32>) -> tensor<6xi32>
// CHECK: %[[S1:.*]] = kiln.slice %arg1 [0:6, 1:2]
// CHECK: %[[J:.*]] = kiln.reshape %[[S1]] : (tensor<6x1xi32>) -> tensor<6xi32>
// CHECK: %[[I64:.*]] = kiln.convert %[[I]] : (tensor<6xi32>) -> tensor<6xi64>
// CHECK: %[[LO:.*]] = kiln.max %[[I64]], %{{.*}} : tensor<6xi64>
// CHECK: %[[CI:.*]] = kiln.min %[[LO]], %{{.*}} : tensor<6xi64>
// CHECK: %[[ROW:.*]] = kiln.broadcast_in_dim %[[CI]], dims = [0] : (tensor<6xi64>) -> tensor<6x4xi64>
// CHECK: %[[J64:.*]] = kiln.convert %[[J]] : (tensor<6xi32>) -> tensor<6xi64>
// CHECK: %[[COL:.*]] = kiln.broadcast_in_dim %{{.*}}, dims = [0] : (tensor<6xi64>) -> tensor<6x4xi64>
// CHECK: %[[K:.*]] = kiln.iota dim = 1 : tensor<6x4xi64>
// CHECK: %[[FOUR:.*]] = kiln.constant dense<4> : tensor<6x4xi64>
// CHECK: %[[C:.*]] = kiln.mul %[[COL]], %[[FOUR]]
// CHECK: %[[KC:.*]] = kiln.add %[[K]], %[[C]]
// CHECK: %[[STRIDE:.*]] = kiln.constant dense<28> : tensor<6x4xi64>
// CHECK: %[[R:.*]] = kiln.mul %[[ROW]], %[[STRIDE]]
// CHECK: %[[P:.*]] = kiln.add %[[KC]], %[[R]]
// CHECK: %[[FLAT:.*]] = kiln.reshape %arg0 : (tensor<5x7x4xf32>) -> tensor<140xf32>
// CHECK: kiln.take %[[FLAT]][%[[P]]], dim = 0 : (tensor<140xf32>, tensor<6x4xi64>) -> tensor<6x4xf32>
func.func @points(%arg0: tensor<5x7x4xf32>, %arg1: tensor<6x2xi32>) -> tensor<6x4xf32> {
  %0 = "stablehlo.gather"(%arg0, %arg1) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0, 1], start_index_map = [0, 1], index_vector_dim = 1>, slice_sizes = array<i64: 1, 1, 4>}> : (tensor<5x7x4xf32>, tensor<6x2xi32>) -> tensor<6x4xf32>
  return %0 : tensor<6x4xf32>
}

// -----

// x.at[i].set(u) (a body other than add) applies the body to one element
// at a time, in order, in a kiln.while; updates out of range keep the old
// value.
// CHECK-LABEL: func.func @set
// CHECK: %[[FITS:.*]] = kiln.and
// CHECK: kiln.while(%{{.*}}, %arg0) : tensor<i64>, tensor<10xf32> cond {
// CHECK: kiln.compare  LT, %{{.*}}, %{{.*}} : tensor<i64>
// CHECK: } do {
// CHECK-NEXT: ^bb0(%[[N:.*]]: tensor<i64>, %[[ACC:.*]]: tensor<10xf32>):
// CHECK: %[[AT:.*]] = kiln.reshape %{{.*}} : (tensor<1xi64>) -> tensor<i64>
// CHECK: %[[OLD:.*]] = kiln.reshape %{{.*}} : (tensor<1xf32>) -> tensor<f32>
// CHECK: %[[NEW:.*]] = kiln.reshape %{{.*}} : (tensor<1xf32>) -> tensor<f32>
// CHECK: %[[OK:.*]] = kiln.reshape %{{.*}} : (tensor<1xi1>) -> tensor<i1>
// CHECK: %[[PICK:.*]] = kiln.select %[[OK]], %[[NEW]], %[[OLD]]
// CHECK: %[[ONE:.*]] = kiln.reshape %[[PICK]] : (tensor<f32>) -> tensor<1xf32>
// CHECK: kiln.dynamic_update_slice %[[ACC]], %[[ONE]][%[[AT]]]
func.func @set(%arg0: tensor<10xf32>, %arg1: tensor<2x1xi32>, %arg2: tensor<2xf32>) -> tensor<10xf32> {
  %0 = "stablehlo.scatter"(%arg0, %arg1, %arg2) <{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    stablehlo.return %b : tensor<f32>
  }) : (tensor<10xf32>, tensor<2x1xi32>, tensor<2xf32>) -> tensor<10xf32>
  return %0 : tensor<10xf32>
}

// -----

// jnp.any and jnp.all: reductions of booleans by or and and, as the
// maximum and minimum of 0/1 integers; a non-identity init is folded in.
// CHECK-LABEL: func.func @any_all
// CHECK: %[[W:.*]] = kiln.convert %arg0 : (tensor<2x3xi1>) -> tensor<2x3xi32>
// CHECK: %[[M:.*]] = kiln.reduce_max %[[W]], dims = [1] : (tensor<2x3xi32>) -> tensor<2xi32>
// CHECK: %[[ANY:.*]] = kiln.convert %[[M]] : (tensor<2xi32>) -> tensor<2xi1>
// CHECK: %[[W2:.*]] = kiln.convert %arg0 : (tensor<2x3xi1>) -> tensor<2x3xi32>
// CHECK: %[[N:.*]] = kiln.reduce_min %[[W2]], dims = [0, 1] : (tensor<2x3xi32>) -> tensor<i32>
// CHECK: %[[ALL:.*]] = kiln.convert %[[N]] : (tensor<i32>) -> tensor<i1>
// CHECK: %[[AND:.*]] = kiln.and %[[ALL]], %arg1 : tensor<i1>
// CHECK: return %[[ANY]], %[[AND]]
func.func @any_all(%arg0: tensor<2x3xi1>, %arg1: tensor<i1>) -> (tensor<2xi1>, tensor<i1>) {
  %false = stablehlo.constant dense<false> : tensor<i1>
  %0 = stablehlo.reduce(%arg0 init: %false) applies stablehlo.or across dimensions = [1] : (tensor<2x3xi1>, tensor<i1>) -> tensor<2xi1>
  %1 = stablehlo.reduce(%arg0 init: %arg1) applies stablehlo.and across dimensions = [0, 1] : (tensor<2x3xi1>, tensor<i1>) -> tensor<i1>
  return %0, %1 : tensor<2xi1>, tensor<i1>
}

// -----

// Shardy's annotations of a sharded export become Kiln's.
// CHECK-LABEL: module @jit_sharded
// CHECK: kiln.mesh @mesh ["data"=2, "model"=2]
// CHECK: func.func public @main(%arg0: tensor<8x4xf32> {kiln.sharding = #kiln.sharding<@mesh, [{"data"}, {}]>}, %arg1: tensor<4x6xf32> {kiln.sharding = #kiln.sharding<@mesh, [{}, {"model"}]>})
// CHECK-SAME: -> (tensor<8x6xf32> {kiln.sharding = #kiln.sharding<@mesh, [{"data"}, {?}]>})
// CHECK: %[[D:.*]] = kiln.dot_general
// CHECK: kiln.sharding_constraint %[[D]] <@mesh, [{"data"}, {"model"}]> : tensor<8x6xf32>
module @jit_sharded attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @mesh = <["data"=2, "model"=2]>
  func.func public @main(%arg0: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}, %arg1: tensor<4x6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>}) -> (tensor<8x6xf32> {jax.result_info = "", sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {?}]>}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<8x4xf32>, tensor<4x6xf32>) -> tensor<8x6xf32>
    %1 = sdy.sharding_constraint %0 <@mesh, [{"data"}, {"model"}]> : tensor<8x6xf32>
    return %1 : tensor<8x6xf32>
  }
}

// -----

// stablehlo.dot (older exports) and jax.checkpoint's optimization
// barrier, whose values pass through.
// CHECK-LABEL: func.func @dot_and_barrier
// CHECK: %[[D:.*]] = kiln.dot_general %arg0, %arg1, contracting = [1] x [0] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2xf32>
// CHECK-NEXT: %[[T:.*]] = kiln.tanh %[[D]] : tensor<2xf32>
// CHECK-NEXT: return %[[T]], %arg1
func.func @dot_and_barrier(%arg0: tensor<2x3xf32>, %arg1: tensor<3xf32>) -> (tensor<2xf32>, tensor<3xf32>) {
  %0 = stablehlo.dot %arg0, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2xf32>
  %1:2 = stablehlo.optimization_barrier %0, %arg1 : tensor<2xf32>, tensor<3xf32>
  %2 = stablehlo.tanh %1#0 : tensor<2xf32>
  return %2, %1#1 : tensor<2xf32>, tensor<3xf32>
}

// -----

// jnp.argmin as jax.lax writes it: the minimum, and kiln.argmax of the
// negated values.
// CHECK-LABEL: func.func @argmin
// CHECK: %[[MIN:.*]] = kiln.reduce_min %arg0, dims = [1] : (tensor<3x5xf32>) -> tensor<3xf32>
// CHECK: %[[NEG:.*]] = kiln.neg %arg0 : tensor<3x5xf32>
// CHECK: %[[I:.*]] = kiln.argmax %[[NEG]], dim = 1 : (tensor<3x5xf32>) -> tensor<3xi32>
// CHECK: return %[[MIN]], %[[I]]
func.func @argmin(%arg0: tensor<3x5xf32>) -> (tensor<3xf32>, tensor<3xi32>) {
  %0 = stablehlo.iota dim = 1 : tensor<3x5xi32>
  %high = stablehlo.constant dense<0x7F800000> : tensor<f32>
  %c = stablehlo.constant dense<0> : tensor<i32>
  %1:2 = stablehlo.reduce(%arg0 init: %high), (%0 init: %c) across dimensions = [1] : (tensor<3x5xf32>, tensor<3x5xi32>, tensor<f32>, tensor<i32>) -> (tensor<3xf32>, tensor<3xi32>)
   reducer(%a: tensor<f32>, %b: tensor<f32>) (%i: tensor<i32>, %j: tensor<i32>)  {
    %p = stablehlo.compare  LT, %a, %b,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %n = stablehlo.compare  NE, %a, %a,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %pv = stablehlo.or %p, %n : tensor<i1>
    %e = stablehlo.compare  EQ, %a, %b,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %l = stablehlo.compare  LT, %i, %j,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %el = stablehlo.and %e, %l : tensor<i1>
    %pi = stablehlo.or %pv, %el : tensor<i1>
    %v = stablehlo.select %pv, %a, %b : tensor<i1>, tensor<f32>
    %k = stablehlo.select %pi, %i, %j : tensor<i1>, tensor<i32>
    stablehlo.return %v, %k : tensor<f32>, tensor<i32>
  }
  return %1#0, %1#1 : tensor<3xf32>, tensor<3xi32>
}

// -----

// chlo.erf: x P(x^2) / Q(x^2) on x clamped to [-4, 4].
// CHECK-LABEL: func.func @erf
// CHECK: %[[LO:.*]] = kiln.max %arg0, %{{.*}} : tensor<3xf32>
// CHECK: %[[X:.*]] = kiln.min %[[LO]], %{{.*}} : tensor<3xf32>
// CHECK: %[[X2:.*]] = kiln.mul %[[X]], %[[X]] : tensor<3xf32>
// CHECK: %[[P:.*]] = kiln.mul %[[X]], %{{.*}} : tensor<3xf32>
// CHECK: %[[E:.*]] = kiln.div %[[P]], %{{.*}} : tensor<3xf32>
// CHECK-NEXT: return %[[E]]
func.func @erf(%arg0: tensor<3xf32>) -> tensor<3xf32> {
  %0 = chlo.erf %arg0 : tensor<3xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// Functions kiln has no op for are written with its ops: tan is sin / cos,
// and narrower floats are computed in f32 and rounded once.
// CHECK-LABEL: func.func @tan
// CHECK: %[[W:.*]] = kiln.convert %arg0 : (tensor<3xf16>) -> tensor<3xf32>
// CHECK: %[[S:.*]] = kiln.sin %[[W]] : tensor<3xf32>
// CHECK: %[[C:.*]] = kiln.cos %[[W]] : tensor<3xf32>
// CHECK: %[[T:.*]] = kiln.div %[[S]], %[[C]] : tensor<3xf32>
// CHECK: kiln.convert %[[T]] : (tensor<3xf32>) -> tensor<3xf16>
// CHECK: kiln.sin %arg1 : tensor<2xf32>
func.func @tan(%arg0: tensor<3xf16>, %arg1: tensor<2xf32>) -> (tensor<3xf16>, tensor<2xf32>) {
  %0 = stablehlo.tan %arg0 : tensor<3xf16>
  %1 = chlo.tan %arg1 : tensor<2xf32> -> tensor<2xf32>
  return %0, %1 : tensor<3xf16>, tensor<2xf32>
}

// -----

// A convolution reads its input through the window: one strided slice per
// kernel position (a tap), stacked into patches (im2col) that one
// dot_general contracts with the kernel.
// CHECK-LABEL: func.func @conv
// CHECK: %[[T0:.*]] = kiln.slice %arg0 [0:1, 0:3:2, 0:3:2, 0:8] : (tensor<1x5x5x8xf32>) -> tensor<1x2x2x8xf32>
// CHECK: %[[T1:.*]] = kiln.slice %arg0 [0:1, 0:3:2, 1:4:2, 0:8]
// CHECK: %[[T2:.*]] = kiln.slice %arg0 [0:1, 1:4:2, 0:3:2, 0:8]
// CHECK: %[[T3:.*]] = kiln.slice %arg0 [0:1, 1:4:2, 1:4:2, 0:8]
// CHECK: %[[P:.*]] = kiln.concatenate %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, dim = 3 : {{.*}} -> tensor<1x2x2x4x8xf32>
// CHECK: %[[K:.*]] = kiln.reshape %arg1 : (tensor<2x2x8x3xf32>) -> tensor<4x8x3xf32>
// CHECK: %[[R:.*]] = kiln.dot_general %[[P]], %[[K]], contracting = [3, 4] x [0, 1] : (tensor<1x2x2x4x8xf32>, tensor<4x8x3xf32>) -> tensor<1x2x2x3xf32>
// CHECK: return %[[R]]
func.func @conv(%arg0: tensor<1x5x5x8xf32>, %arg1: tensor<2x2x8x3xf32>) -> tensor<1x2x2x3xf32> {
  %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 2]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x5x5x8xf32>, tensor<2x2x8x3xf32>) -> tensor<1x2x2x3xf32>
  return %0 : tensor<1x2x2x3xf32>
}

// -----

// A window at one position over the unpadded input (JAX's kernel gradient
// of a 1x1 convolution: the images are the input, their batch the
// features, the output gradient the window) is the product of the input
// and the kernel in their own layouts, over the spatial dimensions and the
// features, reshaped: no transposed input, no patches. With the output's
// features before its batch, the product is transposed first. A reversed
// window keeps the patches. A dilated window (a stride 2 layer's, the
// input cropped by negative padding) reads the input's strided slice.
// CHECK-LABEL: func.func @conv_whole_input
// CHECK-NEXT: %[[P:.*]] = kiln.dot_general %arg0, %arg1, contracting = [0, 1, 2] x [0, 1, 2] : (tensor<8x6x5x32xf32>, tensor<8x6x5x16xf32>) -> tensor<32x16xf32>
// CHECK-NEXT: %[[R:.*]] = kiln.reshape %[[P]] : (tensor<32x16xf32>) -> tensor<1x1x32x16xf32>
// CHECK-NEXT: %[[Q:.*]] = kiln.dot_general %arg0, %arg1, contracting = [0, 1, 2] x [0, 1, 2] : (tensor<8x6x5x32xf32>, tensor<8x6x5x16xf32>) -> tensor<32x16xf32>
// CHECK-NEXT: %[[T:.*]] = kiln.transpose %[[Q]], permutation = [1, 0] : (tensor<32x16xf32>) -> tensor<16x32xf32>
// CHECK-NEXT: %[[S:.*]] = kiln.reshape %[[T]] : (tensor<16x32xf32>) -> tensor<16x1x1x32xf32>
// CHECK-NOT: kiln.dot_general %arg0
// CHECK: kiln.concatenate
// CHECK: return %[[R]], %[[S]]
// CHECK-LABEL: func.func @conv_one_dilated_position
// CHECK-NEXT: %[[X:.*]] = kiln.slice %arg0 [0:8, 0:11:2, 0:11:2, 0:32] : (tensor<8x12x12x32xf32>) -> tensor<8x6x6x32xf32>
// CHECK-NEXT: %[[P:.*]] = kiln.dot_general %[[X]], %arg1, contracting = [0, 1, 2] x [0, 1, 2] : (tensor<8x6x6x32xf32>, tensor<8x6x6x16xf32>) -> tensor<32x16xf32>
// CHECK-NEXT: %[[R:.*]] = kiln.reshape %[[P]] : (tensor<32x16xf32>) -> tensor<1x1x32x16xf32>
// CHECK-NEXT: return %[[R]]
func.func @conv_whole_input(%x: tensor<8x6x5x32xf32>, %g: tensor<8x6x5x16xf32>) -> (tensor<1x1x32x16xf32>, tensor<16x1x1x32xf32>, tensor<1x1x32x16xf32>) {
  %0 = stablehlo.convolution(%x, %g) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<8x6x5x32xf32>, tensor<8x6x5x16xf32>) -> tensor<1x1x32x16xf32>
  %1 = stablehlo.convolution(%x, %g) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[f, 0, 1, b], window = {stride = [3, 2]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<8x6x5x32xf32>, tensor<8x6x5x16xf32>) -> tensor<16x1x1x32xf32>
  %2 = stablehlo.convolution(%x, %g) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {reverse = [true, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<8x6x5x32xf32>, tensor<8x6x5x16xf32>) -> tensor<1x1x32x16xf32>
  return %0, %1, %2 : tensor<1x1x32x16xf32>, tensor<16x1x1x32xf32>, tensor<1x1x32x16xf32>
}
func.func @conv_one_dilated_position(%x: tensor<8x12x12x32xf32>, %g: tensor<8x6x6x16xf32>) -> tensor<1x1x32x16xf32> {
  %0 = stablehlo.convolution(%x, %g) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {pad = [[0, -1], [0, -1]], rhs_dilate = [2, 2]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<8x12x12x32xf32>, tensor<8x6x6x16xf32>) -> tensor<1x1x32x16xf32>
  return %0 : tensor<1x1x32x16xf32>
}

// -----

// However few the input features and outputs, the taps stay pixel-major
// ([..., window, feature]): through a window of one position (a 1 x 1
// layer of stride 2, its strided rows), of more (LeNet's second layer:
// CPUs contract the padded input in place), f32 or bf16.
// CHECK-LABEL: func.func @conv_narrow
// CHECK-NOT: kiln.transpose
// CHECK: kiln.slice %arg0 [0:1, 0:5:2, 0:5:2, 0:6] : (tensor<1x6x6x6xf32>) -> tensor<1x3x3x6xf32>
// CHECK: kiln.dot_general {{.*}} : (tensor<1x3x3x1x6xf32>, tensor<1x6x10xf32>) -> tensor<1x3x3x10xf32>
// CHECK: kiln.concatenate {{.*}} -> tensor<1x5x5x4x6xf32>
// CHECK: kiln.dot_general {{.*}} : (tensor<1x5x5x4x6xf32>, tensor<4x6x10xf32>) -> tensor<1x5x5x10xf32>
// CHECK: kiln.concatenate {{.*}} -> tensor<1x5x5x4x6xbf16>
// CHECK: kiln.dot_general {{.*}} : (tensor<1x5x5x4x6xbf16>, tensor<4x6x10xbf16>) -> tensor<1x5x5x10xbf16>
// CHECK-NOT: kiln.transpose
func.func @conv_narrow(%x: tensor<1x6x6x6xf32>, %k1: tensor<1x1x6x10xf32>, %k10: tensor<2x2x6x10xf32>, %b: tensor<1x6x6x6xbf16>, %kb: tensor<2x2x6x10xbf16>) -> (tensor<1x3x3x10xf32>, tensor<1x5x5x10xf32>, tensor<1x5x5x10xbf16>) {
  %0 = stablehlo.convolution(%x, %k1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 2]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x6x6x6xf32>, tensor<1x1x6x10xf32>) -> tensor<1x3x3x10xf32>
  %1 = stablehlo.convolution(%x, %k10) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x6x6x6xf32>, tensor<2x2x6x10xf32>) -> tensor<1x5x5x10xf32>
  %2 = stablehlo.convolution(%b, %kb) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x6x6x6xbf16>, tensor<2x2x6x10xbf16>) -> tensor<1x5x5x10xbf16>
  return %0, %1, %2 : tensor<1x3x3x10xf32>, tensor<1x5x5x10xf32>, tensor<1x5x5x10xbf16>
}

// -----

// A dilated input (a transposed convolution) is one convolution per phase
// of the output: along each dimension, outputs 2q read kernel position 1
// only, outputs 2q + 1 positions 0 and 2, from consecutive inputs. The
// phases' outputs (3 and 2 per dimension, padded to 3) are interleaved by
// concatenation and a reshape, then sliced to the 5 x 5 asked for; no
// product meets the dilation's zeros.
// CHECK-LABEL: func.func @conv_transposed
// CHECK-NOT: interior = [0, 1, 1, 0]
// CHECK: kiln.slice %arg1 [1:2:2, 1:2:2, 0:16, 0:8] : (tensor<3x3x16x8xf32>) -> tensor<1x1x16x8xf32>
// CHECK: kiln.dot_general {{.*}} -> tensor<1x3x3x8xf32>
// CHECK: kiln.slice %arg1 [1:2:2, 0:3:2, 0:16, 0:8] : (tensor<3x3x16x8xf32>) -> tensor<1x2x16x8xf32>
// CHECK: kiln.dot_general {{.*}} : (tensor<1x3x2x2x16xf32>, tensor<2x16x8xf32>) -> tensor<1x3x2x8xf32>
// CHECK: kiln.pad {{.*}} high = [0, 0, 1, 0]
// CHECK: kiln.slice %arg1 [0:3:2, 1:2:2, 0:16, 0:8]
// CHECK: kiln.slice %arg1 [0:3:2, 0:3:2, 0:16, 0:8]
// CHECK: kiln.dot_general {{.*}} : (tensor<1x2x2x4x16xf32>, tensor<4x16x8xf32>) -> tensor<1x2x2x8xf32>
// CHECK: kiln.concatenate {{.*}} dim = 4 : {{.*}} -> tensor<1x3x1x3x2x8xf32>
// CHECK: kiln.concatenate {{.*}} dim = 4
// CHECK: kiln.concatenate {{.*}} dim = 2 : {{.*}} -> tensor<1x3x2x3x2x8xf32>
// CHECK: %[[R:.*]] = kiln.reshape {{.*}} -> tensor<1x6x6x8xf32>
// CHECK: kiln.slice %[[R]] [0:1, 0:5, 0:5, 0:8] : (tensor<1x6x6x8xf32>) -> tensor<1x5x5x8xf32>
func.func @conv_transposed(%x: tensor<1x3x3x16xf32>, %k: tensor<3x3x16x8xf32>) -> tensor<1x5x5x8xf32> {
  %0 = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {pad = [[1, 1], [1, 1]], lhs_dilate = [2, 2]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x3x3x16xf32>, tensor<3x3x16x8xf32>) -> tensor<1x5x5x8xf32>
  return %0 : tensor<1x5x5x8xf32>
}

// -----

// A convolution of few features whose product CPUs compute from the
// padded input in place (a window product) keeps its taps pixel-major, on
// any image (two 4 x 4 images too), into 16 outputs or 10.
// CHECK-LABEL: func.func @conv_few_features_in_place
// CHECK-NOT: kiln.transpose
// CHECK: kiln.concatenate {{.*}} dim = 3 {{.*}} -> tensor<1x16x16x9x3xf32>
// CHECK: kiln.dot_general {{.*}} : (tensor<1x16x16x9x3xf32>, tensor<9x3x16xf32>) -> tensor<1x16x16x16xf32>
// CHECK-NOT: kiln.transpose
// CHECK: kiln.concatenate {{.*}} dim = 3 {{.*}} -> tensor<2x4x4x9x3xf32>
// CHECK-NOT: kiln.transpose
// CHECK: kiln.dot_general {{.*}} : (tensor<1x16x16x9x3xf32>, tensor<9x3x10xf32>) -> tensor<1x16x16x10xf32>
func.func @conv_few_features_in_place(%x: tensor<1x16x16x3xf32>, %small: tensor<2x4x4x3xf32>, %k16: tensor<3x3x3x16xf32>, %k10: tensor<3x3x3x10xf32>) -> (tensor<1x16x16x16xf32>, tensor<2x4x4x16xf32>, tensor<1x16x16x10xf32>) {
  %0 = stablehlo.convolution(%x, %k16) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x16x16x3xf32>, tensor<3x3x3x16xf32>) -> tensor<1x16x16x16xf32>
  %1 = stablehlo.convolution(%small, %k16) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x4x4x3xf32>, tensor<3x3x3x16xf32>) -> tensor<2x4x4x16xf32>
  %2 = stablehlo.convolution(%x, %k10) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x16x16x3xf32>, tensor<3x3x3x10xf32>) -> tensor<1x16x16x10xf32>
  return %0, %1, %2 : tensor<1x16x16x16xf32>, tensor<2x4x4x16xf32>, tensor<1x16x16x10xf32>
}

// -----

// One input feature (a grayscale image) through a 1 x 1 window: the
// product of the input's rows (one feature each) with the kernel, the
// pixels its rows.
// CHECK-LABEL: func.func @conv_few_features
// CHECK-NOT: kiln.transpose
// CHECK: %[[X:.*]] = kiln.reshape %{{.*}} : (tensor<2x5x5x1xf32>) -> tensor<2x5x5x1x1xf32>
// CHECK: %[[K:.*]] = kiln.reshape %arg1 : (tensor<1x1x1x8xf32>) -> tensor<1x1x8xf32>
// CHECK: %[[R:.*]] = kiln.dot_general %[[X]], %[[K]], contracting = [3, 4] x [0, 1] : (tensor<2x5x5x1x1xf32>, tensor<1x1x8xf32>) -> tensor<2x5x5x8xf32>
// CHECK: return %[[R]]
func.func @conv_few_features(%arg0: tensor<2x5x5x1xf32>, %arg1: tensor<1x1x1x8xf32>) -> tensor<2x5x5x8xf32> {
  %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x5x5x1xf32>, tensor<1x1x1x8xf32>) -> tensor<2x5x5x8xf32>
  return %0 : tensor<2x5x5x8xf32>
}

// -----

// A windowed reduction combines its taps; its init value pads, and is
// folded in once unless it is the identity (here 1.0 for a sum).
// CHECK-LABEL: func.func @pool
// CHECK: %[[INIT:.*]] = kiln.constant dense<1.000000e+00> : tensor<f32>
// CHECK: %[[X:.*]] = kiln.pad %arg0, %[[INIT]], low = [0, 1], high = [0, 1], interior = [0, 0]
// CHECK: %[[A:.*]] = kiln.slice %[[X]] [0:3:2, 0:7:2] : (tensor<4x8xf32>) -> tensor<2x4xf32>
// CHECK: %[[B:.*]] = kiln.slice %[[X]] [0:3:2, 1:8:2]
// CHECK: %[[C:.*]] = kiln.slice %[[X]] [1:4:2, 0:7:2]
// CHECK: %[[D:.*]] = kiln.slice %[[X]] [1:4:2, 1:8:2]
// CHECK: %[[I:.*]] = kiln.broadcast_in_dim %[[INIT]], dims = [] : (tensor<f32>) -> tensor<2x4xf32>
// CHECK: %[[AB:.*]] = kiln.add %[[A]], %[[B]]
// CHECK: %[[ABC:.*]] = kiln.add %[[AB]], %[[C]]
// CHECK: %[[ABCD:.*]] = kiln.add %[[ABC]], %[[D]]
// CHECK: kiln.add %[[ABCD]], %[[I]]
func.func @pool(%arg0: tensor<4x6xf32>) -> tensor<2x4xf32> {
  %cst = stablehlo.constant dense<1.0> : tensor<f32>
  %0 = "stablehlo.reduce_window"(%arg0, %cst) <{padding = dense<[[0, 0], [1, 1]]> : tensor<2x2xi64>, window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 2, 2>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %m = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }) : (tensor<4x6xf32>, tensor<f32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// select_and_scatter: each window chooses, over its taps in order, the
// first element the comparison does not keep the previous choice over;
// the source is placed back at each tap's choices by padding (the
// transpose of the tap's strided slice) and summed.
// CHECK-LABEL: func.func @select_and_scatter
// CHECK: %[[A:.*]] = kiln.slice %arg0 [0:3:2] : (tensor<4xf32>) -> tensor<2xf32>
// CHECK: %[[B:.*]] = kiln.slice %arg0 [1:4:2] : (tensor<4xf32>) -> tensor<2xf32>
// CHECK: %[[KEEP:.*]] = kiln.compare  GE, %[[A]], %[[B]] : tensor<2xf32>
// CHECK: %[[TAKE:.*]] = kiln.and %{{.*}}, %{{.*}} : tensor<2xi1>
// CHECK: %[[CHOSEN:.*]] = kiln.select %[[TAKE]], %{{.*}}, %{{.*}} : tensor<2xi1>, tensor<2xi64>
// CHECK: kiln.compare  EQ, %[[CHOSEN]], %{{.*}} : tensor<2xi64>
// CHECK: %[[FIRST:.*]] = kiln.pad %{{.*}}, %{{.*}}, low = [0], high = [1], interior = [1] : (tensor<2xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK: %[[SECOND:.*]] = kiln.pad %{{.*}}, %{{.*}}, low = [1], high = [0], interior = [1] : (tensor<2xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK: kiln.add %[[FIRST]], %[[SECOND]] : tensor<4xf32>
func.func @select_and_scatter(%arg0: tensor<4xf32>, %arg1: tensor<2xf32>) -> tensor<4xf32> {
  %c = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = "stablehlo.select_and_scatter"(%arg0, %arg1, %c) <{window_dimensions = array<i64: 2>, window_strides = array<i64: 2>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %k = stablehlo.compare GE, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %k : tensor<i1>
  }, {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<4xf32>, tensor<2xf32>, tensor<f32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A sort finds each row's order by a bitonic network over rows padded to
// a power of two, under stop_gradient, each element carrying its column
// (i32): steps of half >= T (2 here) on the rows, those of smaller halves
// on the rows transposed to [T, width / T]. The steps of one half call one
// private function given the block, which compares the pairs' halves both
// ways by the comparator (ties by column), flips the choice where the
// block sorts down (bit `block` of the index set) and concatenates the
// chosen halves. The operands are then gathered in that order, which
// differentiates.
// CHECK-LABEL: func.func @sort
// CHECK: %[[T:.*]] = kiln.transpose %arg0, permutation = [1, 0] : (tensor<4x3xf32>) -> tensor<3x4xf32>
// CHECK: %[[ROWS:.*]] = kiln.reshape %[[T]] : (tensor<3x4xf32>) -> tensor<3x4xf32>
// CHECK: %[[KEYS:.*]] = kiln.stop_gradient %[[ROWS]]
// CHECK: kiln.iota dim = 1 : tensor<3x4xi32>
// CHECK: kiln.transpose %{{.*}}, permutation = [0, 2, 1] : (tensor<3x2x2xf32>) -> tensor<3x2x2xf32>
// CHECK: %[[BLOCK2:.*]] = kiln.constant dense<2> : tensor<i32>
// CHECK: call @[[SMALL:sort_sort_step]](%{{.*}}, %{{.*}}, %[[BLOCK2]]) : (tensor<3x1x2x1x2xf32>, tensor<3x1x2x1x2xi32>, tensor<i32>)
// CHECK: %[[BLOCK4:.*]] = kiln.constant dense<4> : tensor<i32>
// CHECK: call @[[LARGE:sort_sort_step_1]](%{{.*}}, %{{.*}}, %[[BLOCK4]]) : (tensor<3x1x2x2xf32>, tensor<3x1x2x2xi32>, tensor<i32>)
// CHECK: call @[[SMALL]](
// CHECK: %[[ORDER:.*]] = kiln.convert %{{.*}} : (tensor<3x4xi32>) -> tensor<3x4xi64>
// CHECK: %[[AT:.*]] = kiln.add %{{.*}}, %[[ORDER]] : tensor<3x4xi64>
// CHECK: %[[TABLE:.*]] = kiln.reshape %[[ROWS]] : (tensor<3x4xf32>) -> tensor<12xf32>
// CHECK: %[[SORTED:.*]] = kiln.take %[[TABLE]][%[[AT]]], dim = 0
// CHECK: %[[BACK:.*]] = kiln.reshape %[[SORTED]] : (tensor<3x4xf32>) -> tensor<3x4xf32>
// CHECK: kiln.transpose %[[BACK]], permutation = [1, 0] : (tensor<3x4xf32>) -> tensor<4x3xf32>
// CHECK: func.func private @[[LARGE]](%[[X:.*]]: tensor<3x1x2x2xf32>, %[[C:.*]]: tensor<3x1x2x2xi32>, %[[B:.*]]: tensor<i32>)
// CHECK: %[[XL:.*]] = kiln.slice %[[X]] [0:3, 0:1, 0:1, 0:2]
// CHECK: %[[XU:.*]] = kiln.slice %[[X]] [0:3, 0:1, 1:2, 0:2]
// CHECK: %[[CL:.*]] = kiln.slice %[[C]] [0:3, 0:1, 0:1, 0:2]
// CHECK: %[[CU:.*]] = kiln.slice %[[C]] [0:3, 0:1, 1:2, 0:2]
// CHECK: %[[LU:.*]] = kiln.compare  GT, %[[XL]], %[[XU]]
// CHECK: %[[UL:.*]] = kiln.compare  GT, %[[XU]], %[[XL]]
// CHECK: %[[BYCOL:.*]] = kiln.compare  LT, %[[CL]], %[[CU]]
// CHECK: %[[NOTUL:.*]] = kiln.not %[[UL]]
// CHECK: %[[TIE:.*]] = kiln.and %[[NOTUL]], %[[BYCOL]]
// CHECK: %[[FIRST:.*]] = kiln.or %[[LU]], %[[TIE]]
// CHECK: %[[INDEX:.*]] = kiln.iota dim = 1 : tensor<3x1x1x2xi32>
// CHECK: %[[STRIDE:.*]] = kiln.constant dense<4> : tensor<3x1x1x2xi32>
// CHECK: %[[BASE:.*]] = kiln.mul %[[INDEX]], %[[STRIDE]]
// CHECK: %[[BIT:.*]] = kiln.broadcast_in_dim %[[B]], dims = []
// CHECK: %[[SET:.*]] = kiln.and %[[BASE]], %[[BIT]]
// CHECK: %[[DOWN:.*]] = kiln.compare  NE, %[[SET]], %{{.*}}
// CHECK: %[[KEEP:.*]] = kiln.xor %[[FIRST]], %[[DOWN]]
// CHECK: %[[XA:.*]] = kiln.select %[[KEEP]], %[[XL]], %[[XU]]
// CHECK: %[[XB:.*]] = kiln.select %[[KEEP]], %[[XU]], %[[XL]]
// CHECK: %[[XS:.*]] = kiln.concatenate %[[XA]], %[[XB]], dim = 2 : (tensor<3x1x1x2xf32>, tensor<3x1x1x2xf32>) -> tensor<3x1x2x2xf32>
// CHECK: %[[CA:.*]] = kiln.select %[[KEEP]], %[[CL]], %[[CU]]
// CHECK: %[[CB:.*]] = kiln.select %[[KEEP]], %[[CU]], %[[CL]]
// CHECK: %[[CS:.*]] = kiln.concatenate %[[CA]], %[[CB]], dim = 2
// CHECK: return %[[XS]], %[[CS]]
// The transposed steps' index: t's high part (dimension 1, stride 2
// half) and a (dimension 4, stride T).
// CHECK: func.func private @[[SMALL]](%{{.*}}: tensor<3x1x2x1x2xf32>, %{{.*}}: tensor<3x1x2x1x2xi32>, %{{.*}}: tensor<i32>)
// CHECK: kiln.iota dim = 1 : tensor<3x1x1x1x2xi32>
// CHECK: kiln.constant dense<2> : tensor<3x1x1x1x2xi32>
// CHECK: kiln.iota dim = 4 : tensor<3x1x1x1x2xi32>
// CHECK: kiln.constant dense<2> : tensor<3x1x1x1x2xi32>
func.func @sort(%arg0: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %0 = "stablehlo.sort"(%arg0) <{dimension = 0 : i64, is_stable = true}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %gt = stablehlo.compare GT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %gt : tensor<i1>
  }) : (tensor<4x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// Rows of 3 pad to 4 (padding goes last and is sliced off the order); an
// operand the comparator does not read (argsort's iota) is not carried
// through the network, only gathered in the order found.
// CHECK-LABEL: func.func @argsort
// CHECK: %[[KEYS:.*]] = kiln.stop_gradient %{{.*}} : tensor<1x3xf32>
// CHECK-NOT: kiln.stop_gradient
// CHECK: %[[PADDED:.*]] = kiln.pad %[[KEYS]], %{{.*}}, low = [0, 0], high = [0, 1], interior = [0, 0] : (tensor<1x3xf32>, tensor<f32>) -> tensor<1x4xf32>
// CHECK: kiln.reshape %[[PADDED]] : (tensor<1x4xf32>) -> tensor<1x2x2xf32>
// CHECK-COUNT-3: call @argsort_sort_step{{(_1)?}}(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<{{.*}}xf32>, tensor<{{.*}}xi32>, tensor<i32>)
// CHECK-NOT: call
// CHECK: %[[ORDER:.*]] = kiln.slice %{{.*}} [0:1, 0:3] : (tensor<1x4xi32>) -> tensor<1x3xi32>
// CHECK: kiln.convert %[[ORDER]] : (tensor<1x3xi32>) -> tensor<1x3xi64>
// CHECK: kiln.take %{{.*}}[%{{.*}}], dim = 0 : (tensor<3xf32>, tensor<1x3xi64>) -> tensor<1x3xf32>
// CHECK: kiln.take %{{.*}}[%{{.*}}], dim = 0 : (tensor<3xi32>, tensor<1x3xi64>) -> tensor<1x3xi32>
// A padding element (column 3 or more) goes after every other.
// CHECK: func.func private @argsort_sort_step_1(%{{.*}}: tensor<1x1x2x2xf32>, %{{.*}}: tensor<1x1x2x2xi32>, %{{.*}}: tensor<i32>)
// CHECK: %[[N:.*]] = kiln.constant dense<3> : tensor<1x1x1x2xi32>
// CHECK: %[[UPPERREAL:.*]] = kiln.compare  LT, %{{.*}}, %[[N]]
// CHECK: %[[UPPERPAD:.*]] = kiln.not %[[UPPERREAL]]
// CHECK: %[[LOWERREAL:.*]] = kiln.compare  LT, %{{.*}}, %[[N]]
// CHECK: %[[IFREAL:.*]] = kiln.or %[[UPPERPAD]], %{{.*}}
// CHECK: %[[IFPAD:.*]] = kiln.and %[[UPPERPAD]], %{{.*}}
// CHECK: kiln.select %[[LOWERREAL]], %[[IFREAL]], %[[IFPAD]]
func.func @argsort(%arg0: tensor<3xf32>, %arg1: tensor<3xi32>) -> (tensor<3xf32>, tensor<3xi32>) {
  %0:2 = "stablehlo.sort"(%arg0, %arg1) <{dimension = 0 : i64, is_stable = true}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>, %i: tensor<i32>, %j: tensor<i32>):
    %lt = stablehlo.compare LT, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }) : (tensor<3xf32>, tensor<3xi32>) -> (tensor<3xf32>, tensor<3xi32>)
  return %0#0, %0#1 : tensor<3xf32>, tensor<3xi32>
}

// -----

// A row little longer than a power of two (9: padded to 16) sorts its first
// 8 and the rest (1) apart, then merges them as one bitonic row: the first
// half up, padding (columns from n + rest = 10, after the rest's own), the
// rest reversed; four steps of width 16 instead of sorting the padding.
// Its integer keys are totally ordered, so padding holds the key that goes
// last (the largest, for LT) and the steps do not test columns against n.
// CHECK-LABEL: func.func @sort_split
// CHECK: %[[KEYS:.*]] = kiln.pad %{{.*}} : (tensor<2x9xi32>, tensor<i32>) -> tensor<2x16xi32>
// CHECK: %[[COLUMNS:.*]] = kiln.iota dim = 1 : tensor<2x16xi32>
// CHECK: %[[FIRSTKEYS:.*]] = kiln.slice %[[KEYS]] [0:2, 0:8]
// CHECK: %[[FIRSTCOLUMNS:.*]] = kiln.slice %[[COLUMNS]] [0:2, 0:8]
// CHECK: %[[LASTKEYS:.*]] = kiln.slice %[[KEYS]] [0:2, 8:9]
// CHECK: %[[LASTCOLUMNS:.*]] = kiln.slice %[[COLUMNS]] [0:2, 8:9]
// CHECK-COUNT-6: call @sort_split_sort_step{{(_[12])?}}(
// CHECK: %[[GAPINDEX:.*]] = kiln.iota dim = 1 : tensor<2x7xi32>
// CHECK: %[[FROM:.*]] = kiln.constant dense<10> : tensor<2x7xi32>
// CHECK: %[[GAPCOLUMNS:.*]] = kiln.add %[[GAPINDEX]], %[[FROM]]
// CHECK: %[[GAPKEYS:.*]] = kiln.constant dense<2147483647> : tensor<2x7xi32>
// CHECK: %[[DOWNKEYS:.*]] = kiln.reverse %[[LASTKEYS]], dims = [1]
// CHECK: kiln.concatenate %{{.*}}, %[[GAPKEYS]], %[[DOWNKEYS]], dim = 1 : (tensor<2x8xi32>, tensor<2x7xi32>, tensor<2x1xi32>) -> tensor<2x16xi32>
// CHECK: %[[DOWNCOLUMNS:.*]] = kiln.reverse %[[LASTCOLUMNS]], dims = [1]
// CHECK: kiln.concatenate %{{.*}}, %[[GAPCOLUMNS]], %[[DOWNCOLUMNS]], dim = 1
// CHECK: %[[MERGE:.*]] = kiln.constant dense<16> : tensor<i32>
// CHECK: call @sort_split_sort_step_3(%{{.*}}, %{{.*}}, %[[MERGE]]) : (tensor<2x1x2x8xi32>
// CHECK: call @sort_split_sort_step_4(
// CHECK: call @sort_split_sort_step_5(
// CHECK: call @sort_split_sort_step_6(
// CHECK-NOT: call
// CHECK: kiln.slice %{{.*}} [0:2, 0:9] : (tensor<2x16xi32>) -> tensor<2x9xi32>
// CHECK: func.func private @sort_split_sort_step_3(
// CHECK-NOT: dense<9>
// CHECK: kiln.or
// CHECK-NOT: dense<9>
// CHECK: return
func.func @sort_split(%arg0: tensor<2x9xi32>) -> tensor<2x9xi32> {
  %0 = "stablehlo.sort"(%arg0) <{dimension = 1 : i64, is_stable = true}> ({
  ^bb0(%a: tensor<i32>, %b: tensor<i32>):
    %lt = stablehlo.compare LT, %a, %b, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }) : (tensor<2x9xi32>) -> tensor<2x9xi32>
  return %0 : tensor<2x9xi32>
}

// -----

// top_k is a bitonic top-k under stop_gradient on the floats as integer
// keys computed once (NaN the largest, -0 as +0, the others by their
// TOTALORDER key): rows padded to 8 with the lowest key (which goes last
// on ties by column: no test of padding's columns), blocks of k = 3
// rounded up to 4 sorted (larger first, ties by column), then each pair
// of blocks halved
// (of each pair of elements the one that goes first) and sorted again as a
// block of 4, until one block is left; the first k columns index the
// values gathered.
// CHECK-LABEL: func.func @top_k
// CHECK: %[[KEYS:.*]] = kiln.stop_gradient %{{.*}} : tensor<2x6xf32>
// CHECK: %[[ZERO:.*]] = kiln.compare  EQ, %[[KEYS]], %{{.*}} : tensor<2x6xf32>
// CHECK: %[[UNSIGNED:.*]] = kiln.select %[[ZERO]], %{{.*}}, %[[KEYS]]
// CHECK: %[[BITS:.*]] = kiln.bitcast_convert %[[UNSIGNED]] : (tensor<2x6xf32>) -> tensor<2x6xi32>
// CHECK: %[[ORDERED:.*]] = kiln.xor %[[BITS]], %{{.*}} : tensor<2x6xi32>
// CHECK: %[[LARGEST:.*]] = kiln.constant dense<2147483647> : tensor<2x6xi32>
// CHECK: %[[NAN:.*]] = kiln.compare  NE, %[[KEYS]], %[[KEYS]] : tensor<2x6xf32>
// CHECK: %[[KEY:.*]] = kiln.select %[[NAN]], %[[LARGEST]], %[[ORDERED]]
// CHECK: %[[LOWEST:.*]] = kiln.constant dense<-2147483648> : tensor<i32>
// CHECK: kiln.pad %[[KEY]], %[[LOWEST]], low = [0, 0], high = [0, 2], interior = [0, 0] : (tensor<2x6xi32>, tensor<i32>) -> tensor<2x8xi32>
// CHECK: %[[B2:.*]] = kiln.constant dense<2> : tensor<i32>
// CHECK: call @top_k_top_k_step(%{{.*}}, %{{.*}}, %[[B2]]) : (tensor<2x1x2x1x4xi32>, tensor<2x1x2x1x4xi32>, tensor<i32>)
// CHECK: %[[B4:.*]] = kiln.constant dense<4> : tensor<i32>
// CHECK: call @top_k_top_k_step_1(%{{.*}}, %{{.*}}, %[[B4]]) : (tensor<2x2x2x2xi32>, tensor<2x2x2x2xi32>, tensor<i32>)
// CHECK: call @top_k_top_k_step(
// CHECK: %[[PAIRS:.*]] = kiln.reshape %{{.*}} : (tensor<2x8xi32>) -> tensor<2x1x2x4xi32>
// CHECK: %[[LOWER:.*]] = kiln.slice %[[PAIRS]] [0:2, 0:1, 0:1, 0:4]
// CHECK: %[[UPPER:.*]] = kiln.slice %[[PAIRS]] [0:2, 0:1, 1:2, 0:4]
// CHECK: kiln.compare  GT, %[[LOWER]], %[[UPPER]] : tensor<2x1x1x4xi32>
// CHECK-NOT: kiln.compare  NE
// CHECK: %[[KEEP:.*]] = kiln.or %{{.*}}, %{{.*}} : tensor<2x1x1x4xi1>
// CHECK-NEXT: kiln.select %[[KEEP]], %[[LOWER]], %[[UPPER]] : tensor<2x1x1x4xi1>, tensor<2x1x1x4xi32>
// CHECK: %[[B4AGAIN:.*]] = kiln.constant dense<4> : tensor<i32>
// CHECK: call @top_k_top_k_step_2(%{{.*}}, %{{.*}}, %[[B4AGAIN]]) : (tensor<2x1x2x2xi32>, tensor<2x1x2x2xi32>, tensor<i32>)
// CHECK: call @top_k_top_k_step_3(
// CHECK: %[[FIRST:.*]] = kiln.slice %{{.*}} [0:2, 0:3] : (tensor<2x4xi32>) -> tensor<2x3xi32>
// CHECK: %[[COLUMNS:.*]] = kiln.convert %[[FIRST]] : (tensor<2x3xi32>) -> tensor<2x3xi64>
// CHECK: kiln.take %{{.*}}[%{{.*}}], dim = 0 : (tensor<12xf32>, tensor<2x3xi64>) -> tensor<2x3xf32>
// CHECK: kiln.convert %[[COLUMNS]] : (tensor<2x3xi64>) -> tensor<2x3xi32>
func.func @top_k(%arg0: tensor<2x6xf32>) -> (tensor<2x3xf32>, tensor<2x3xi32>) {
  %0:2 = chlo.top_k(%arg0, k = 3) : tensor<2x6xf32> -> (tensor<2x3xf32>, tensor<2x3xi32>)
  return %0#0, %0#1 : tensor<2x3xf32>, tensor<2x3xi32>
}

// -----

// Where k is small against the row, top_k cuts it into blocks (here of 4:
// the row's keys padded with the lowest key to 10 blocks), ranks the
// blocks by their maxima with a network of its own (the maxima padded
// with the lowest key: no test of columns), and orders the k chosen
// blocks' elements (larger first), each carrying its place for ties (here
// its column), whose first k places it then takes. Its network calls the
// step functions the maxima's made for the same widths.
// CHECK-LABEL: func.func @top_k_blocks
// CHECK: %[[KEY:.*]] = kiln.select %{{.*}}, %{{.*}}, %{{.*}} : tensor<1x38xi1>, tensor<1x38xi32>
// CHECK: %[[LOWEST:.*]] = kiln.constant dense<-2147483648> : tensor<i32>
// CHECK: %[[PADDED:.*]] = kiln.pad %[[KEY]], %[[LOWEST]], low = [0, 0], high = [0, 2], interior = [0, 0] : (tensor<1x38xi32>, tensor<i32>) -> tensor<1x40xi32>
// CHECK: %[[BLOCKS:.*]] = kiln.reshape %[[PADDED]] : (tensor<1x40xi32>) -> tensor<1x10x4xi32>
// CHECK: %[[MAXIMA:.*]] = kiln.reduce_max %[[BLOCKS]], dims = [2] : (tensor<1x10x4xi32>) -> tensor<1x10xi32>
// CHECK: kiln.pad %[[MAXIMA]], %{{.*}}, low = [0, 0], high = [0, 6], interior = [0, 0] : (tensor<1x10xi32>, tensor<i32>) -> tensor<1x16xi32>
// CHECK: call @top_k_blocks_top_k_step(
// CHECK-NOT: kiln.constant dense<10> : tensor<1x1x1x2xi32>
// CHECK: %[[RANKED:.*]]:2 = call @top_k_blocks_top_k_step_3({{.*}}) : (tensor<1x1x2x1xi32>, tensor<1x1x2x1xi32>, tensor<i32>)
// CHECK: %[[RANKEDCOLUMNS:.*]] = kiln.reshape %[[RANKED]]#1 : (tensor<1x1x2x1xi32>) -> tensor<1x2xi32>
// CHECK: %[[CHOSEN:.*]] = kiln.convert %[[RANKEDCOLUMNS]] : (tensor<1x2xi32>) -> tensor<1x2xi64>
// CHECK: %[[STARTS:.*]] = kiln.mul %[[CHOSEN]], %{{.*}} : tensor<1x2xi64>
// CHECK: %[[SPREAD:.*]] = kiln.broadcast_in_dim %[[STARTS]], dims = [0, 1] : (tensor<1x2xi64>) -> tensor<1x2x4xi64>
// CHECK: %[[OFFSETS:.*]] = kiln.iota dim = 2 : tensor<1x2x4xi64>
// CHECK: %[[PLACES:.*]] = kiln.add %[[SPREAD]], %[[OFFSETS]] : tensor<1x2x4xi64>
// CHECK: %[[FLAT:.*]] = kiln.reshape %[[PLACES]] : (tensor<1x2x4xi64>) -> tensor<1x8xi64>
// CHECK: %[[CANDIDATES:.*]] = kiln.take %{{.*}}[%{{.*}}], dim = 0 : (tensor<40xi32>, tensor<1x8xi64>) -> tensor<1x8xi32>
// CHECK: %[[CARRIED:.*]] = kiln.convert %[[FLAT]] : (tensor<1x8xi64>) -> tensor<1x8xi32>
// CHECK: kiln.reshape %[[CANDIDATES]] : (tensor<1x8xi32>) -> tensor<1x4x2xi32>
// CHECK: kiln.reshape %[[CARRIED]] : (tensor<1x8xi32>) -> tensor<1x4x2xi32>
// CHECK: call @top_k_blocks_top_k_step_1({{.*}}) : (tensor<1x1x2x1x4xi32>, tensor<1x1x2x1x4xi32>, tensor<i32>)
// CHECK: %[[TOP:.*]]:2 = call @top_k_blocks_top_k_step_3({{.*}}) : (tensor<1x1x2x1xi32>, tensor<1x1x2x1xi32>, tensor<i32>)
// CHECK: %[[TOPCOLUMNS:.*]] = kiln.reshape %[[TOP]]#1 : (tensor<1x1x2x1xi32>) -> tensor<1x2xi32>
// CHECK: %[[RESULT:.*]] = kiln.convert %[[TOPCOLUMNS]] : (tensor<1x2xi32>) -> tensor<1x2xi64>
// CHECK: kiln.take %{{.*}}[%{{.*}}], dim = 0 : (tensor<38xf32>, tensor<1x2xi64>) -> tensor<1x2xf32>
// CHECK: kiln.convert %[[RESULT]] : (tensor<1x2xi64>) -> tensor<1x2xi32>
// CHECK-NOT: func.func private @top_k_blocks_top_k_step_4
func.func @top_k_blocks(%arg0: tensor<1x38xf32>) -> (tensor<1x2xf32>, tensor<1x2xi32>) {
  %0:2 = chlo.top_k(%arg0, k = 2) : tensor<1x38xf32> -> (tensor<1x2xf32>, tensor<1x2xi32>)
  return %0#0, %0#1 : tensor<1x2xf32>, tensor<1x2xi32>
}

// -----

// chlo.square is a product; popcnt counts bits by SWAR (pairs, nibbles,
// bytes, then a multiply by 0x01010101 summing the bytes into the top
// one); count_leading_zeros sets every bit below the highest and counts
// them; next_after steps the float's bits.
// CHECK-LABEL: func.func @bits
// CHECK: kiln.mul %arg0, %arg0 : tensor<4xf32>
// CHECK: kiln.constant dense<1431655765> : tensor<4xi32>
// CHECK: kiln.constant dense<858993459> : tensor<4xi32>
// CHECK: kiln.constant dense<252645135> : tensor<4xi32>
// CHECK: %[[BYTES:.*]] = kiln.constant dense<16843009> : tensor<4xi32>
// CHECK: %[[SUM:.*]] = kiln.mul %{{.*}}, %[[BYTES]] : tensor<4xi32>
// CHECK: %[[TOP:.*]] = kiln.constant dense<24> : tensor<4xi32>
// CHECK: kiln.shift_right_logical %[[SUM]], %[[TOP]] : tensor<4xi32>
// CHECK-COUNT-5: kiln.or
// CHECK: kiln.constant dense<32> : tensor<4xi32>
// CHECK: kiln.bitcast_convert %arg0 : (tensor<4xf32>) -> tensor<4xi32>
// CHECK: kiln.bitcast_convert %{{.*}} : (tensor<4xi32>) -> tensor<4xf32>
func.func @bits(%arg0: tensor<4xf32>, %arg1: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi32>, tensor<4xi32>, tensor<4xf32>) {
  %0 = chlo.square %arg0 : tensor<4xf32> -> tensor<4xf32>
  %1 = stablehlo.popcnt %arg1 : tensor<4xi32>
  %2 = stablehlo.count_leading_zeros %arg1 : tensor<4xi32>
  %3 = chlo.next_after %arg0, %0 : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return %0, %1, %2, %3 : tensor<4xf32>, tensor<4xi32>, tensor<4xi32>, tensor<4xf32>
}

// -----

// GSPMD's sharding annotation (jax.lax.with_sharding_constraint exported
// without Shardy) passes its value through; the arguments' mhlo.sharding
// goes with XLA's other bookkeeping.
// CHECK-LABEL: func.func @gspmd(
// CHECK-SAME: %arg0: tensor<8x4xf32>) -> tensor<8x4xf32>
// CHECK-NOT: custom_call
// CHECK: %[[Y:.*]] = kiln.tanh %arg0
// CHECK: return %[[Y]]
func.func @gspmd(%arg0: tensor<8x4xf32> {mhlo.sharding = "{devices=[2,1]<=[2]}"}) -> tensor<8x4xf32> {
  %0 = stablehlo.custom_call @Sharding(%arg0) {mhlo.sharding = "{devices=[2,1]<=[2]}"} : (tensor<8x4xf32>) -> tensor<8x4xf32>
  %1 = stablehlo.tanh %0 : tensor<8x4xf32>
  return %1 : tensor<8x4xf32>
}

// -----

// A composite (jax.lax.composite) calls its decomposition.
// CHECK-LABEL: func.func @composite
// CHECK: %[[R:.*]] = call @my.swish.impl(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK: return %[[R]]
// CHECK-LABEL: func.func private @my.swish.impl
// CHECK: kiln.logistic %arg0
func.func @composite(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.composite "my.swish" %arg0 {decomposition = @my.swish.impl} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @my.swish.impl(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.logistic %arg0 : tensor<4xf32>
  %1 = stablehlo.multiply %arg0, %0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// Unsigned integers become signless of the same bits; comparisons flip the
// sign bit, division works on zero-extended 64-bit values; shifts and
// bitcasts are kiln's.
// CHECK-LABEL: func.func @unsigned
// CHECK-SAME: (%arg0: tensor<4xi32>, %arg1: tensor<4xi32>) -> (tensor<4xi1>, tensor<4xi32>, tensor<4xf32>)
// CHECK: %[[SIGN:.*]] = kiln.constant dense<-2147483648> : tensor<4xi32>
// CHECK: %[[A:.*]] = kiln.xor %arg0, %[[SIGN]] : tensor<4xi32>
// CHECK: %[[B:.*]] = kiln.xor %arg1, %{{.*}} : tensor<4xi32>
// CHECK: kiln.compare  LT, %[[A]], %[[B]] : tensor<4xi32>
// CHECK: %[[WIDE:.*]] = kiln.convert %arg0 : (tensor<4xi32>) -> tensor<4xi64>
// CHECK: %[[MASK:.*]] = kiln.constant dense<4294967295> : tensor<4xi64>
// CHECK: %[[ZEXT:.*]] = kiln.and %[[WIDE]], %[[MASK]] : tensor<4xi64>
// CHECK: %[[Q:.*]] = kiln.div %[[ZEXT]], %{{.*}} : tensor<4xi64>
// CHECK: %[[NARROW:.*]] = kiln.convert %[[Q]] : (tensor<4xi64>) -> tensor<4xi32>
// CHECK: %[[SHIFTED:.*]] = kiln.shift_right_logical %[[NARROW]], %{{.*}} : tensor<4xi32>
// CHECK: kiln.bitcast_convert %[[SHIFTED]] : (tensor<4xi32>) -> tensor<4xf32>
func.func @unsigned(%arg0: tensor<4xui32>, %arg1: tensor<4xui32>) -> (tensor<4xi1>, tensor<4xui32>, tensor<4xf32>) {
  %0 = stablehlo.compare LT, %arg0, %arg1, UNSIGNED : (tensor<4xui32>, tensor<4xui32>) -> tensor<4xi1>
  %1 = stablehlo.divide %arg0, %arg1 : tensor<4xui32>
  %c = stablehlo.constant dense<9> : tensor<4xui32>
  %2 = stablehlo.shift_right_logical %1, %c : tensor<4xui32>
  %3 = stablehlo.bitcast_convert %2 : (tensor<4xui32>) -> tensor<4xf32>
  return %0, %1, %3 : tensor<4xi1>, tensor<4xui32>, tensor<4xf32>
}

// -----

// Empty tensors: a sort returns its input, a top_k of k = 0 empty results.
// CHECK-LABEL: func.func @empty_sort
// CHECK-NEXT: return %arg0 : tensor<3x0xf32>
// CHECK-LABEL: func.func @empty_top_k
// CHECK-DAG: kiln.constant dense<0.000000e+00> : tensor<3x0xf32>
// CHECK-DAG: kiln.constant dense<0> : tensor<3x0xi32>
func.func @empty_sort(%arg0: tensor<3x0xf32>) -> tensor<3x0xf32> {
  %0 = "stablehlo.sort"(%arg0) <{dimension = 1 : i64}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %lt = stablehlo.compare LT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }) : (tensor<3x0xf32>) -> tensor<3x0xf32>
  return %0 : tensor<3x0xf32>
}
func.func @empty_top_k(%arg0: tensor<3x4xf32>) -> (tensor<3x0xf32>, tensor<3x0xi32>) {
  %0:2 = chlo.top_k(%arg0, k = 0) : tensor<3x4xf32> -> (tensor<3x0xf32>, tensor<3x0xi32>)
  return %0#0, %0#1 : tensor<3x0xf32>, tensor<3x0xi32>
}

// -----

// A depthwise convolution (one input feature per group) multiplies each
// tap by its kernel row and sums, elementwise, the features innermost: no
// dot_general. With one output per feature, the sum has the taps' shape.
// CHECK-LABEL: func.func @depthwise
// CHECK-NOT: kiln.dot_general
// CHECK: %[[T0:.*]] = kiln.slice %arg0 [0:1, 0:3, 0:3, 0:2]
// CHECK: %[[ROWS:.*]] = kiln.reshape %arg1 : (tensor<2x2x1x2xf32>) -> tensor<4x1x2xf32>
// CHECK: %[[ROW0:.*]] = kiln.slice %[[ROWS]] [0:1, 0:1, 0:2]
// CHECK: %[[R0:.*]] = kiln.reshape %[[ROW0]] : (tensor<1x1x2xf32>) -> tensor<2xf32>
// CHECK: %[[K0:.*]] = kiln.broadcast_in_dim %[[R0]], dims = [3] : (tensor<2xf32>) -> tensor<1x3x3x2xf32>
// CHECK: kiln.mul %[[T0]], %[[K0]] : tensor<1x3x3x2xf32>
// CHECK: kiln.add
// CHECK-NOT: kiln.dot_general
// CHECK: return
func.func @depthwise(%arg0: tensor<1x4x4x2xf32>, %arg1: tensor<2x2x1x2xf32>) -> tensor<1x3x3x2xf32> {
  %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f] {batch_group_count = 1 : i64, feature_group_count = 2 : i64} : (tensor<1x4x4x2xf32>, tensor<2x2x1x2xf32>) -> tensor<1x3x3x2xf32>
  return %0 : tensor<1x3x3x2xf32>
}

// -----

// With two outputs per feature, the sum is [..., multiplier, features]
// (the kernel rows transposed to match), then transposed and reshaped so
// that each feature's outputs are adjacent, as StableHLO orders them.
// CHECK-LABEL: func.func @depthwise_multiplier
// CHECK: %[[K:.*]] = kiln.reshape %arg1 : (tensor<2x2x1x4xf32>) -> tensor<4x2x2xf32>
// CHECK: %[[ROWS:.*]] = kiln.transpose %[[K]], permutation = [0, 2, 1]
// CHECK: %[[T0:.*]] = kiln.broadcast_in_dim %{{.*}}, dims = [0, 1, 2, 4] : (tensor<1x3x3x2xf32>) -> tensor<1x3x3x2x2xf32>
// CHECK: %[[K0:.*]] = kiln.broadcast_in_dim %{{.*}}, dims = [3, 4] : (tensor<2x2xf32>) -> tensor<1x3x3x2x2xf32>
// CHECK: kiln.mul %[[T0]], %[[K0]] : tensor<1x3x3x2x2xf32>
// CHECK: %[[T:.*]] = kiln.transpose %{{.*}}, permutation = [0, 1, 2, 4, 3] : (tensor<1x3x3x2x2xf32>) -> tensor<1x3x3x2x2xf32>
// CHECK: kiln.reshape %[[T]] : (tensor<1x3x3x2x2xf32>) -> tensor<1x3x3x4xf32>
func.func @depthwise_multiplier(%arg0: tensor<1x4x4x2xf32>, %arg1: tensor<2x2x1x4xf32>) -> tensor<1x3x3x4xf32> {
  %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f] {batch_group_count = 1 : i64, feature_group_count = 2 : i64} : (tensor<1x4x4x2xf32>, tensor<2x2x1x4xf32>) -> tensor<1x3x3x4xf32>
  return %0 : tensor<1x3x3x4xf32>
}

// -----

// Rows that exceed a chunk of 256 KiB (keys and columns of 8,192 padded
// columns: 64 KiB a row, 4 a chunk at most) sort in a kiln.while over
// chunks of rows as even as they go: 9 rows in 3 chunks of 3, none padded.
// CHECK-LABEL: func.func @sort_chunks
// CHECK: %[[ROWS:.*]] = kiln.pad %{{.*}}, low = [0, 0], high = [0, 0], interior = [0, 0] : (tensor<9x8192xi32>, tensor<i32>) -> tensor<9x8192xi32>
// CHECK: kiln.while
// CHECK: %[[CHUNKS:.*]] = kiln.constant dense<3> : tensor<i64>
// CHECK: kiln.compare LT, %{{.*}}, %[[CHUNKS]]
// CHECK: kiln.dynamic_slice %[[ROWS]][%{{.*}}, %{{.*}}], sizes = [3, 8192]
func.func @sort_chunks(%arg0: tensor<9x8192xi32>) -> tensor<9x8192xi32> {
  %0 = "stablehlo.sort"(%arg0) <{dimension = 1 : i64, is_stable = true}> ({
  ^bb0(%a: tensor<i32>, %b: tensor<i32>):
    %lt = stablehlo.compare LT, %a, %b, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }) : (tensor<9x8192xi32>) -> tensor<9x8192xi32>
  return %0 : tensor<9x8192xi32>
}

// -----

// A comparator that compares one function of each element of the pair
// (jnp.sort's: the float with -0 made +0, in TOTALORDER) has that key
// computed once per element, as a TOTALORDER key (the float's bits, the
// magnitude bits of negative ones flipped), before the network, whose
// steps compare the integer keys alone.
// CHECK-LABEL: func.func @sort_key
// CHECK: %[[KEYS:.*]] = kiln.stop_gradient
// CHECK: %[[ZERO:.*]] = kiln.compare  EQ, %[[KEYS]], %{{.*}} : tensor<2x4xf32>
// CHECK: %[[CANON:.*]] = kiln.select %[[ZERO]], %{{.*}}, %[[KEYS]]
// CHECK: %[[BITS:.*]] = kiln.bitcast_convert %[[CANON]] : (tensor<2x4xf32>) -> tensor<2x4xi32>
// CHECK: %[[SIGN:.*]] = kiln.shift_right_arithmetic %[[BITS]]
// CHECK: %[[FLIP:.*]] = kiln.and %[[SIGN]]
// CHECK: %[[KEY:.*]] = kiln.xor %[[BITS]], %[[FLIP]] : tensor<2x4xi32>
// CHECK: kiln.reshape %[[KEY]] : (tensor<2x4xi32>) -> tensor<2x2x2xi32>
// CHECK: call @sort_key_sort_step({{.*}}) : (tensor<2x1x2x1x2xi32>, tensor<2x1x2x1x2xi32>, tensor<i32>)
// CHECK: func.func private @sort_key_sort_step_1(%[[X:.*]]: tensor<2x1x2x2xi32>, %{{.*}}: tensor<2x1x2x2xi32>, %{{.*}}: tensor<i32>)
// CHECK-NOT: kiln.bitcast_convert
// CHECK-NOT: kiln.select
// CHECK: %[[XL:.*]] = kiln.slice %[[X]] [0:2, 0:1, 0:1, 0:2]
// CHECK: %[[XU:.*]] = kiln.slice %[[X]] [0:2, 0:1, 1:2, 0:2]
// CHECK-NOT: kiln.bitcast_convert
// CHECK: kiln.compare  LT, %[[XL]], %[[XU]] : tensor<2x1x1x2xi32>
// CHECK-NEXT: kiln.compare  LT, %[[XU]], %[[XL]] : tensor<2x1x1x2xi32>
func.func @sort_key(%arg0: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %0 = "stablehlo.sort"(%arg0) <{dimension = 1 : i64, is_stable = true}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %za = stablehlo.constant dense<0.0> : tensor<f32>
    %ea = stablehlo.compare EQ, %a, %za, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %ca = stablehlo.select %ea, %za, %a : tensor<i1>, tensor<f32>
    %zb = stablehlo.constant dense<0.0> : tensor<f32>
    %eb = stablehlo.compare EQ, %b, %zb, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %cb = stablehlo.select %eb, %zb, %b : tensor<i1>, tensor<f32>
    %lt = stablehlo.compare LT, %ca, %cb, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// A comparator that is no single comparison of mirrored keys (two keys,
// lexicographically; or one side computed otherwise than the other) is
// applied to the pairs at every step, on every key it reads.
// CHECK-LABEL: func.func @sort_lexicographic
// CHECK: call @sort_lexicographic_sort_step({{.*}}) : (tensor<1x1x2x1x2xf32>, tensor<1x1x2x1x2xi32>, tensor<1x1x2x1x2xi32>, tensor<i32>)
// CHECK-LABEL: func.func @sort_lopsided
// CHECK: call @sort_lopsided_sort_step({{.*}}) : (tensor<1x1x2x1x2xi32>, tensor<1x1x2x1x2xi32>, tensor<i32>)
// CHECK: func.func private @sort_lopsided_sort_step_1(
// CHECK: kiln.add
// CHECK: kiln.compare  LT
func.func @sort_lexicographic(%arg0: tensor<4xf32>, %arg1: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi32>) {
  %0:2 = "stablehlo.sort"(%arg0, %arg1) <{dimension = 0 : i64, is_stable = true}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>, %i: tensor<i32>, %j: tensor<i32>):
    %lt = stablehlo.compare LT, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %eq = stablehlo.compare EQ, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %ij = stablehlo.compare LT, %i, %j, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %tie = stablehlo.and %eq, %ij : tensor<i1>
    %first = stablehlo.or %lt, %tie : tensor<i1>
    stablehlo.return %first : tensor<i1>
  }) : (tensor<4xf32>, tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi32>)
  return %0#0, %0#1 : tensor<4xf32>, tensor<4xi32>
}
func.func @sort_lopsided(%arg0: tensor<4xi32>) -> tensor<4xi32> {
  %0 = "stablehlo.sort"(%arg0) <{dimension = 0 : i64, is_stable = true}> ({
  ^bb0(%a: tensor<i32>, %b: tensor<i32>):
    %one = stablehlo.constant dense<1> : tensor<i32>
    %b1 = stablehlo.add %b, %one : tensor<i32>
    %lt = stablehlo.compare LT, %a, %b1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }) : (tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}
