// kiln-compile reports bad programs with their location and exits 1.
// RUN: not kiln-compile %s -o %t.kmod 2>&1 | FileCheck %s
// RUN: not kiln-compile %t.missing.mlir -o %t.kmod 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: kiln-compile: error: {{.*}}missing.mlir{{.*}}
// RUN: not kiln-compile %s -o %t.kmod --cpu-options="no-such-option=1" 2>&1 | FileCheck %s --check-prefix=OPTIONS
// OPTIONS: kiln-compile: error: CPU options 'no-such-option=1': <Pass-Options-Parser>: no such option no-such-option

// CHECK: kiln-compile: error: {{.*}}errors.mlir:[[# @LINE + 1]]:1: error: public function @scalar cannot be an entry point: its argument #0 has type 'f32'; entries take and return statically shaped tensors (make helpers private)
func.func @scalar(%x: f32) -> f32 {
  return %x : f32
}
