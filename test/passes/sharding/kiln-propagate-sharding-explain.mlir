// RUN: kiln-opt %s --kiln-propagate-sharding=explain -verify-diagnostics -o /dev/null

// With `explain`, each value says where each dimension's axes came from:
// the annotation and the ops they crossed, in order.

kiln.mesh @mesh ["data"=2, "model"=4]
// expected-remark @below {{argument 0 of @mlp is #kiln.sharding<@mesh, [{"data"}, {}]>: dimension 0 {"data"}, from the sharding of argument 0 of @mlp; dimension 1 whole, from the sharding of argument 1 of @mlp through kiln.dot_general at line 16}}
// expected-remark @below {{argument 1 of @mlp is #kiln.sharding<@mesh, [{}, {"model"}]>: dimension 0 whole, from the sharding of argument 1 of @mlp; dimension 1 {"model"}, from the sharding of argument 1 of @mlp}}
// expected-remark @below {{argument 2 of @mlp is #kiln.sharding<@mesh, [{"model"}, {}]>: dimension 0 {"model"}, from the sharding of argument 1 of @mlp through kiln.dot_general at line 16, kiln.tanh at line 18, kiln.dot_general at line 20; dimension 1 whole (no sharding reaches it)}}
func.func @mlp(%x: tensor<8x16xf32> {kiln.sharding = #kiln.sharding<@mesh, [{"data"}, {?}]>},
               %w1: tensor<16x32xf32> {kiln.sharding = #kiln.sharding<@mesh, [{}, {"model"}]>},
               %w2: tensor<32x16xf32>) -> tensor<8x16xf32> {
  // The second dot learns its contracting dimension's axes from %a and
  // gives them to %w2: Megatron's column- then row-parallel layers.
  // expected-remark @below {{result 0 of kiln.dot_general at line 16 is #kiln.sharding<@mesh, [{"data"}, {"model"}]>: dimension 0 {"data"}, from the sharding of argument 0 of @mlp through kiln.dot_general at line 16; dimension 1 {"model"}, from the sharding of argument 1 of @mlp through kiln.dot_general at line 16}}
  %h = kiln.dot_general %x, %w1, contracting = [1] x [0] : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  // expected-remark @below {{result 0 of kiln.tanh at line 18 is #kiln.sharding<@mesh, [{"data"}, {"model"}]>}}
  %a = kiln.tanh %h : tensor<8x32xf32>
  // expected-remark @below {{result 0 of kiln.dot_general at line 20 is #kiln.sharding<@mesh, [{"data"}, {}]>: dimension 0 {"data"}, from the sharding of argument 0 of @mlp through kiln.dot_general at line 16, kiln.tanh at line 18, kiln.dot_general at line 20; dimension 1 whole (no sharding reaches it)}}
  %y = kiln.dot_general %a, %w2, contracting = [1] x [0] : (tensor<8x32xf32>, tensor<32x16xf32>) -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

// Conflicts: where two shardings of one dimension meet, the one of better
// priority wins (an annotation over a propagated one), then the earlier
// operand's; the remark says which.
// expected-remark @below {{argument 0 of @conflict is #kiln.sharding<@mesh, [{"data"}]>}}
// expected-remark @below {{argument 1 of @conflict is #kiln.sharding<@mesh, [{"model"}]>}}
func.func @conflict(%a: tensor<8xf32> {kiln.sharding = #kiln.sharding<@mesh, [{"data"}]>},
                    %b: tensor<8xf32> {kiln.sharding = #kiln.sharding<@mesh, [{"model"}]>}) -> tensor<8xf32> {
  // expected-remark @below {{shardings meet here: takes {"data"} from the sharding of argument 0 of @conflict over {"model"} from the sharding of argument 1 of @conflict}}
  // expected-remark @below {{result 0 of kiln.add at line 33 is #kiln.sharding<@mesh, [{"data"}]>: dimension 0 {"data"}, from the sharding of argument 0 of @conflict through kiln.add at line 33}}
  %s = kiln.add %a, %b : tensor<8xf32>
  // The constraint is an annotation: it wins over %s's propagated sharding.
  // expected-remark @below {{shardings meet here: takes {"model"} from the kiln.sharding_constraint at line 37 over {"data"} from the sharding of argument 0 of @conflict through kiln.add at line 33}}
  // expected-remark @below {{result 0 of kiln.sharding_constraint at line 37 is #kiln.sharding<@mesh, [{"model"}]>}}
  %c = kiln.sharding_constraint %s <@mesh, [{"model"}]> : tensor<8xf32>
  return %c : tensor<8xf32>
}
