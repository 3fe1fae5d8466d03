// RUN: kiln-opt %s --kiln-to-nvvm-pipeline=stop-after=gpu | FileCheck %s --check-prefix=GPU
// RUN: not kiln-opt %s --kiln-to-nvvm-pipeline=stop-after=nowhere 2>&1 | FileCheck %s --check-prefix=OPTION
// RUN: kiln-opt %s --kiln-to-nvvm-pipeline="stop-after=gpu chip=sm_75" | FileCheck %s --check-prefix=TURING

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

// A sum to a scalar, on a device buffer: its initial value stored by one
// thread, the 300 elements reduced by a warp (in a block of 256 threads),
// and the exp of the sum in a one-thread kernel.
// GPU-LABEL: func.func @total
// GPU-DAG: %[[C256:.*]] = arith.constant 256 : index
// GPU-DAG: %[[ONE:.*]] = arith.constant 1 : index
// GPU: gpu.alloc async
// GPU: gpu.launch_func async {{.*}} blocks in (%[[ONE]], %[[ONE]], %[[ONE]]) threads in (%[[ONE]], %[[ONE]], %[[ONE]])
// GPU: gpu.launch_func async {{.*}} blocks in (%[[ONE]], %[[ONE]], %[[ONE]]) threads in (%[[C256]], %[[ONE]], %[[ONE]])
// GPU: gpu.launch_func async {{.*}} blocks in (%[[ONE]], %[[ONE]], %[[ONE]]) threads in (%[[ONE]], %[[ONE]], %[[ONE]])
// GPU: gpu.dealloc async
func.func @total(%x: tensor<300xf32>) -> tensor<f32> {
  %s = kiln.reduce_sum %x, dims = [0] : (tensor<300xf32>) -> tensor<f32>
  %t = kiln.exp %s : tensor<f32>
  return %t : tensor<f32>
}

// bf16 products run on tensor cores from sm_80 on; a Turing GPU gets the
// CUDA-core kernel.
// GPU-LABEL: func.func @bf16_product
// GPU: gpu.module @bf16_product_kernel
// GPU: nvvm.mma.sync
// TURING-LABEL: func.func @bf16_product
// TURING-NOT: nvvm.mma.sync
// TURING: arith.extf
// TURING-NOT: nvvm.mma.sync
func.func @bf16_product(%a: tensor<64x32xbf16>, %b: tensor<32x48xbf16>) -> tensor<64x48xf32> {
  %r = kiln.dot_general %a, %b, contracting = [1] x [0] : (tensor<64x32xbf16>, tensor<32x48xbf16>) -> tensor<64x48xf32>
  return %r : tensor<64x48xf32>
}
