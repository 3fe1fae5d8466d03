// kiln-compile --report=donation: which result reuses each donated
// argument's buffer, or why none does; the artifact's results then take
// the donated buffers (values checked through kiln-run).
// RUN: kiln-compile %s --report=donation -o %t.so | FileCheck %s
// CHECK: @step: argument 0 (tensor<4xf32>, kiln.donate) donated: result 0 reuses its buffer
// CHECK-NEXT: @step: argument 2 (tensor<3xf32>, kiln.donate) not donated: no result of its type is left for it
// RUN: kiln-compile %S/report-calls.mlir --report=donation --emit=kiln -o /dev/null | FileCheck %s --check-prefix=NONE
// NONE: no entry donates an argument (kiln.donate)
// RUN: %numpy_python -c "import numpy as np; np.savez('%t.npz', arg0=np.array([1, 2, 3, 4], np.float32), arg1=np.ones(4, np.float32), arg2=np.zeros(3, np.float32))"
// RUN: kiln-run %t.so --entry step --input %t.npz --print | FileCheck %s --check-prefix=VALUES
// The new weights, then the sum of the old ones (read before the update).
// VALUES: [0.5 1.5 2.5 3.5]
// VALUES: 10.
func.func @step(%w: tensor<4xf32> {kiln.donate}, %g: tensor<4xf32>, %b: tensor<3xf32> {kiln.donate}) -> (tensor<4xf32>, tensor<f32>) {
  %lr = kiln.constant dense<0.5> : tensor<4xf32>
  %u = kiln.mul %g, %lr : tensor<4xf32>
  %n = kiln.sub %w, %u : tensor<4xf32>
  %s = kiln.reduce_sum %w, dims = [0] : (tensor<4xf32>) -> tensor<f32>
  return %n, %s : tensor<4xf32>, tensor<f32>
}
