// RUN: kiln-opt %s --kiln-to-nvvm-pipeline=stop-after=gpu | FileCheck %s --check-prefix=GPU
// RUN: not kiln-opt %s --kiln-to-nvvm-pipeline=stop-after=nowhere 2>&1 | FileCheck %s --check-prefix=OPTION

// An elementwise chain is one kernel launched on the call's stream.
// GPU-LABEL: func.func @chain
// GPU: %[[S:.*]] = gpu.wait async
// GPU: %[[T:.*]] = gpu.launch_func async [%[[S]]] @chain_kernel::@chain_kernel blocks in (%{{.*}}) threads in (%{{.*}})
// GPU-NOT: gpu.launch_func
// GPU: gpu.wait [%[[T]]]
// GPU: gpu.module @chain_kernel
// GPU: gpu.func @chain_kernel({{.*}}) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 47, 1, 1>}
// GPU:   math.tanh
// OPTION: for the --stop-after option: Cannot find option named 'nowhere'
func.func @chain(%x: tensor<40x300xf32>, %a: tensor<40x300xf32>) -> tensor<40x300xf32> {
  %m = kiln.mul %a, %x : tensor<40x300xf32>
  %t = kiln.tanh %m : tensor<40x300xf32>
  return %t : tensor<40x300xf32>
}

// A sum to a scalar runs in a one-thread kernel on a device buffer.
// GPU-LABEL: func.func @total
// GPU: gpu.alloc async
// GPU: gpu.launch_func async {{.*}} blocks in (%[[ONE:.*]], %[[ONE]], %[[ONE]]) threads in (%[[ONE]], %[[ONE]], %[[ONE]])
// GPU: gpu.dealloc async
func.func @total(%x: tensor<300xf32>) -> tensor<f32> {
  %s = kiln.reduce_sum %x, dims = [0] : (tensor<300xf32>) -> tensor<f32>
  %t = kiln.exp %s : tensor<f32>
  return %t : tensor<f32>
}
