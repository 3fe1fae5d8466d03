// RUN: kiln-opt %s --kiln-lower-collectives --split-input-file | FileCheck %s

// Collectives become runtime calls on contiguous buffers; the mesh axes of
// the group are packed as count | axis << 4 | axis << 8 ...
kiln.mesh @mesh ["data"=2, "model"=4]
// CHECK-DAG: func.func private @kiln_rt_all_reduce(i64, i64, i64, i64, i64, i64)
// CHECK-DAG: func.func private @kiln_rt_axis_index(i64) -> i64
// CHECK-LABEL: func.func @all_reduce
func.func @all_reduce(%x: tensor<4x32xf32>) -> tensor<4x32xf32> {
  // ["model"] is axis 1: 1 | 1 << 4 = 17; sum is 0, f32 is 0; 128 elements.
  // CHECK-DAG: %[[AXES:.*]] = arith.constant 17 : i64
  // CHECK-DAG: %[[COUNT:.*]] = arith.constant 128 : i64
  // CHECK: %[[IN:.*]] = bufferization.to_buffer %{{.*}} read_only : tensor<4x32xf32> to memref<4x32xf32>
  // CHECK: %[[OUT:.*]] = memref.alloc() {alignment = 64 : i64} : memref<4x32xf32>
  // CHECK: call @kiln_rt_all_reduce(%[[AXES]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[COUNT]])
  // CHECK: bufferization.to_tensor %[[OUT]] restrict writable
  %y = kiln.all_reduce sum %x over @mesh ["model"] : tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}
// CHECK-LABEL: func.func @axis_index
func.func @axis_index() -> tensor<i32> {
  // ["model", "data"]: 2 | 1 << 4 | 0 << 8 = 18.
  // CHECK: %[[AXES:.*]] = arith.constant 18 : i64
  // CHECK: %[[PLACE:.*]] = call @kiln_rt_axis_index(%[[AXES]]) : (i64) -> i64
  // CHECK: %[[NARROW:.*]] = arith.trunci %[[PLACE]] : i64 to i32
  // CHECK: tensor.from_elements %[[NARROW]] : tensor<i32>
  %i = kiln.axis_index over @mesh ["model", "data"] : tensor<i32>
  return %i : tensor<i32>
}

// -----

// Blocks the devices exchange come first: a reduce_scatter splits its
// dimension and brings the parts to the front; an all_gather stacks the
// group's values and moves the stack beside its dimension.
kiln.mesh @mesh ["data"=2, "model"=4]
// CHECK-LABEL: func.func @reduce_scatter
func.func @reduce_scatter(%x: tensor<4x32xf32>) -> tensor<4x8xf32> {
  // CHECK: %[[SPLIT:.*]] = kiln.reshape %{{.*}} : (tensor<4x32xf32>) -> tensor<4x4x8xf32>
  // CHECK: %[[FRONT:.*]] = kiln.transpose %[[SPLIT]], permutation = [1, 0, 2]
  // CHECK: bufferization.to_buffer %[[FRONT]]
  // CHECK: call @kiln_rt_reduce_scatter
  %y = kiln.reduce_scatter sum %x over @mesh ["model"], dim = 1 : (tensor<4x32xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
// CHECK-LABEL: func.func @all_gather
func.func @all_gather(%x: tensor<4x8xf32>) -> tensor<4x32xf32> {
  // 4 * 8 * 4 bytes per device.
  // CHECK: %[[BYTES:.*]] = arith.constant 128 : i64
  // CHECK: memref.alloc() {alignment = 64 : i64} : memref<4x4x8xf32>
  // CHECK: call @kiln_rt_all_gather(%{{.*}}, %{{.*}}, %{{.*}}, %[[BYTES]])
  // CHECK: %[[STACK:.*]] = bufferization.to_tensor
  // CHECK: %[[MOVED:.*]] = kiln.transpose %[[STACK]], permutation = [1, 0, 2]
  // CHECK: kiln.reshape %[[MOVED]] : (tensor<4x4x8xf32>) -> tensor<4x32xf32>
  %y = kiln.all_gather %x over @mesh ["model"], dim = 1 : (tensor<4x8xf32>) -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}
// CHECK-LABEL: func.func @all_to_all
func.func @all_to_all(%x: tensor<4x8xf32>) -> tensor<16x2xf32> {
  // CHECK: kiln.reshape %{{.*}} : (tensor<4x8xf32>) -> tensor<4x4x2xf32>
  // CHECK: kiln.transpose
  // CHECK: call @kiln_rt_all_to_all
  // CHECK: kiln.reshape %{{.*}} : (tensor<4x4x2xf32>) -> tensor<16x2xf32>
  %y = kiln.all_to_all %x over @mesh ["model"], split = 1, concat = 0 : (tensor<4x8xf32>) -> tensor<16x2xf32>
  return %y : tensor<16x2xf32>
}
// A permutation fetches from its source, looked up by the device's place.
// CHECK-LABEL: func.func @permute
func.func @permute(%x: tensor<8xf32>) -> tensor<8xf32> {
  // CHECK: %[[TABLE:.*]] = arith.constant dense<[1, 0]> : tensor<2xi64>
  // CHECK: %[[PLACE:.*]] = call @kiln_rt_axis_index
  // CHECK: %[[INDEX:.*]] = arith.index_cast %[[PLACE]]
  // CHECK: %[[SOURCE:.*]] = tensor.extract %[[TABLE]][%[[INDEX]]]
  // CHECK: call @kiln_rt_fetch(%{{.*}}, %[[SOURCE]],
  %y = kiln.collective_permute %x over @mesh ["data"], pairs = [0, 1, 1, 0] : tensor<8xf32>
  return %y : tensor<8xf32>
}
