// RUN: kiln-opt %s --kiln-to-cpu-pipeline="avx512-bf16=true amx-bf16=true" | FileCheck %s
// RUN: kiln-opt %s --kiln-to-cpu-pipeline="avx512-bf16=true" | FileCheck %s --check-prefix=OFF

// A bf16 product on a CPU with AMX lowers to the LLVM dialect through AMX
// tiles: LLVM's intrinsics on x86_amx values (LLVM configures the tiles),
// from zeros, 2 x 2 tiles of C a register tile. Without AMX: vdpbf16ps.
// CHECK-LABEL: llvm.func @mm
// CHECK-COUNT-4: llvm.call_intrinsic "llvm.x86.tilezero.internal"
// CHECK: llvm.call_intrinsic "llvm.x86.tileloadd64.internal"{{.*}} -> !llvm.x86_amx
// CHECK-COUNT-4: llvm.call_intrinsic "llvm.x86.tdpbf16ps.internal"
// CHECK-COUNT-4: llvm.call_intrinsic "llvm.x86.tilestored64.internal"
// OFF-LABEL: llvm.func @mm
// OFF-NOT: x86_amx
// OFF: llvm.call_intrinsic "llvm.x86.avx512bf16.dpbf16ps.512"
// OFF-NOT: x86_amx
func.func @mm(%a: tensor<128x64xbf16>, %b: tensor<64x32xbf16>) -> tensor<128x32xf32> {
  %r = kiln.dot_general %a, %b, contracting = [1] x [0] : (tensor<128x64xbf16>, tensor<64x32xbf16>) -> tensor<128x32xf32>
  return %r : tensor<128x32xf32>
}
