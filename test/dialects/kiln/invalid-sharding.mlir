// RUN: kiln-opt %s --split-input-file --verify-diagnostics

kiln.mesh @mesh ["data"=2, "model"=4]
func.func @unknown_mesh(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'kiln.sharding_constraint' op sharding names @nomesh, which is no kiln.mesh}}
  %0 = kiln.sharding_constraint %x <@nomesh, [{"data"}]> : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

kiln.mesh @mesh ["data"=2, "model"=4]
func.func @unknown_axis(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'kiln.sharding_constraint' op mesh @mesh has no axis "batch"}}
  %0 = kiln.sharding_constraint %x <@mesh, [{"batch"}]> : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

kiln.mesh @mesh ["data"=2, "model"=4]
func.func @axis_twice(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{axis "data" is used twice in a sharding}}
  %0 = kiln.sharding_constraint %x <@mesh, [{"data"}, {"model", "data"}]> : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

kiln.mesh @mesh ["data"=2, "model"=4]
func.func @replicated_and_used(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{axis "data" is used twice in a sharding}}
  %0 = kiln.sharding_constraint %x <@mesh, [{"data"}], replicated={"data"}> : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

kiln.mesh @mesh ["data"=2, "model"=4]
func.func @rank(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{'kiln.sharding_constraint' op sharding has 1 dimensions but the tensor 'tensor<8x8xf32>' has rank 2}}
  %0 = kiln.sharding_constraint %x <@mesh, [{"data"}]> : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

kiln.mesh @mesh ["data"=2, "model"=4]
func.func @indivisible(%x: tensor<6x8xf32>) -> tensor<6x8xf32> {
  // expected-error @+1 {{'kiln.sharding_constraint' op dimension 0 of 'tensor<6x8xf32>' (size 6) does not divide among the 8 devices of its axes; pad it to a multiple of 8}}
  %0 = kiln.sharding_constraint %x <@mesh, [{"data", "model"}, {}]> : tensor<6x8xf32>
  return %0 : tensor<6x8xf32>
}

// -----

kiln.mesh @mesh ["data"=2, "model"=4]
// expected-error @+1 {{argument #0: mesh @mesh has no axis "x"}}
func.func @argument(%x: tensor<8xf32> {kiln.sharding = #kiln.sharding<@mesh, [{"x"}]>}) -> tensor<8xf32> {
  return %x : tensor<8xf32>
}

// -----

kiln.mesh @mesh ["data"=2, "model"=4]
// expected-error @+1 {{result #0: sharding has 2 dimensions but the tensor 'tensor<8xf32>' has rank 1}}
func.func @result(%x: tensor<8xf32>) -> (tensor<8xf32> {kiln.sharding = #kiln.sharding<@mesh, [{}, {}]>}) {
  return %x : tensor<8xf32>
}

// -----

// expected-error @+1 {{'kiln.sharding' takes a #kiln.sharding or #kiln.logical}}
func.func @not_a_sharding(%x: tensor<8xf32> {kiln.sharding = 3 : i64}) -> tensor<8xf32> {
  return %x : tensor<8xf32>
}

// -----

// expected-error @+1 {{unknown result attribute 'kiln.donate' (kiln's are kiln.sharding and kiln.part)}}
func.func @result_attr(%x: tensor<8xf32>) -> (tensor<8xf32> {kiln.donate}) {
  return %x : tensor<8xf32>
}

// -----

// expected-error @+1 {{'kiln.mesh' op names axis "data" twice}}
kiln.mesh @twice ["data"=2, "data"=4]

// -----

// expected-error @+1 {{'kiln.mesh' op axis "data" has 0 devices; it needs at least 1}}
kiln.mesh @empty ["data"=0]

// -----

func.func @mesh_in_function() {
  // expected-error @+1 {{'kiln.mesh' op expects parent op 'builtin.module'}}
  kiln.mesh @inner ["data"=2]
  return
}

// -----

func.func @logical_rank(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{'kiln.sharding_constraint' op logical naming has 1 dimensions but the value has type 'tensor<8x4xf32>'}}
  %0 = kiln.sharding_constraint %x logical<["batch"]> : tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

// expected-error @+1 {{axis rules map named roles to axis names}}
func.func @empty_role() attributes {rules = #kiln.axis_rules<@mesh, ["" -> "data"]>} {
  return
}

// -----

kiln.mesh @mesh ["data"=2]
func.func @shardings_per_result(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @below {{'kiln.shardings' lists one #kiln.sharding per result (1)}}
  %y = kiln.tanh %x {kiln.shardings = []} : tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

kiln.mesh @mesh ["data"=2]
func.func @shardings_fit(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @below {{result #0: sharding has 2 dimensions but the tensor 'tensor<8xf32>' has rank 1}}
  %y = kiln.tanh %x {kiln.shardings = [#kiln.sharding<@mesh, [{"data"}, {}]>]} : tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

kiln.mesh @mesh ["data"=2, "model"=4]
func.func @collective_unknown_axis(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @below {{'kiln.all_reduce' op mesh @mesh has no axis "pipe"}}
  %y = kiln.all_reduce sum %x over @mesh ["pipe"] : tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

kiln.mesh @mesh ["data"=2, "model"=4]
func.func @collective_axis_twice(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @below {{'kiln.all_reduce' op lists axis "data" twice}}
  %y = kiln.all_reduce sum %x over @mesh ["data", "data"] : tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

func.func @collective_unknown_mesh() -> tensor<i32> {
  // expected-error @below {{'kiln.axis_index' op names @nowhere, which is no kiln.mesh}}
  %i = kiln.axis_index over @nowhere ["data"] : tensor<i32>
  return %i : tensor<i32>
}

// -----

kiln.mesh @mesh ["data"=2, "model"=4]
func.func @all_gather_size(%x: tensor<8x4xf32>) -> tensor<8x8xf32> {
  // expected-error @below {{'kiln.all_gather' op result type 'tensor<8x8xf32>' should be 'tensor<8x16xf32>'}}
  %y = kiln.all_gather %x over @mesh ["model"], dim = 1 : (tensor<8x4xf32>) -> tensor<8x8xf32>
  return %y : tensor<8x8xf32>
}

// -----

kiln.mesh @mesh ["data"=2, "model"=4]
func.func @all_gather_dim(%x: tensor<8x4xf32>) -> tensor<8x16xf32> {
  // expected-error @below {{'kiln.all_gather' op dim 2 is out of range for rank 2}}
  %y = kiln.all_gather %x over @mesh ["model"], dim = 2 : (tensor<8x4xf32>) -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

// -----

kiln.mesh @mesh ["data"=2, "model"=4]
func.func @reduce_scatter_uneven(%x: tensor<8x6xf32>) -> tensor<8x1xf32> {
  // expected-error @below {{'kiln.reduce_scatter' op dim (size 6) does not split among the 4 devices of the group}}
  %y = kiln.reduce_scatter sum %x over @mesh ["model"], dim = 1 : (tensor<8x6xf32>) -> tensor<8x1xf32>
  return %y : tensor<8x1xf32>
}

// -----

kiln.mesh @mesh ["data"=2, "model"=4]
func.func @all_to_all_shape(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  // expected-error @below {{'kiln.all_to_all' op result type 'tensor<8x16xf32>' should be 'tensor<32x4xf32>'}}
  %y = kiln.all_to_all %x over @mesh ["model"], split = 1, concat = 0 : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

// -----

kiln.mesh @mesh ["data"=2, "model"=4]
func.func @permute_target_twice(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @below {{'kiln.collective_permute' op device 1 is a target twice}}
  %y = kiln.collective_permute %x over @mesh ["model"], pairs = [0, 1, 2, 1] : tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

kiln.mesh @mesh ["data"=2, "model"=4]
func.func @permute_place(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @below {{'kiln.collective_permute' op place 2 is not in a group of 2 devices}}
  %y = kiln.collective_permute %x over @mesh ["data"], pairs = [0, 2] : tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

kiln.mesh @mesh ["data"=2, "model"=4]
func.func @permute_odd(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @below {{'kiln.collective_permute' op pairs lists (source, target) places: an even count, not 3}}
  %y = kiln.collective_permute %x over @mesh ["data"], pairs = [0, 1, 1] : tensor<8xf32>
  return %y : tensor<8xf32>
}
