// The loop over a matrix-vector product's groups of 64 columns stays a loop
// down to LLVM: kiln-tile-and-vectorize marks it, scf-to-cf and
// cf-to-llvm carry the mark to the loop's back edge, and LLVM reads it as
// "do not unroll" (unrolled, the scheduler reordered the loads of misaligned
// rows; 4096 x 1000 ran 1.4x slower).
// RUN: kiln-opt %s --kiln-to-cpu-pipeline | FileCheck %s
// RUN: kiln-compile %s -o - --emit=llvm-ir | FileCheck %s --check-prefix=IR

// CHECK: #[[UNROLL:.*]] = #llvm.loop_unroll<disable = true>
// CHECK: #[[ROLLED:.*]] = #llvm.loop_annotation<unroll = #[[UNROLL]]>
// CHECK-LABEL: llvm.func @f(
// CHECK: llvm.fmul {{.*}} : vector<64xf32>
// CHECK: llvm.br ^{{.*}} {loop_annotation = #[[ROLLED]]}
// IR: br {{.*}}, !llvm.loop ![[LOOP:[0-9]+]]
// IR: ![[LOOP]] = distinct !{![[LOOP]], ![[DISABLE:[0-9]+]]}
// IR: ![[DISABLE]] = !{!"llvm.loop.unroll.disable"}
func.func @f(%a: tensor<300x777xf32>, %x: tensor<777x1xf32>) -> tensor<300x1xf32> {
  %y = kiln.dot_general %a, %x, contracting = [1] x [0] : (tensor<300x777xf32>, tensor<777x1xf32>) -> tensor<300x1xf32>
  return %y : tensor<300x1xf32>
}
