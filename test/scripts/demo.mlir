// The README's demo program verifies and simplifies as the demo says.
// RUN: kiln-opt %kiln_src_root/scripts/demo/mlp.mlir --canonicalize | FileCheck %s

// CHECK-LABEL: func.func @loss
// CHECK-NOT: kiln.transpose
// CHECK: return
// CHECK-LABEL: func.func @train_step
// 0.5 * 0.2 = 0.1, broadcast to each weight's shape.
// CHECK-DAG: kiln.constant dense<1.000000e-01> : tensor<128x10xf32>
// CHECK-DAG: kiln.constant dense<1.000000e-01> : tensor<784x128xf32>
// CHECK-NOT: kiln.broadcast_in_dim
// CHECK: kiln.value_and_grad @loss
