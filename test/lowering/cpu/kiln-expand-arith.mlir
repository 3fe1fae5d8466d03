// RUN: kiln-opt %s --kiln-expand-arith | FileCheck %s

// Float maxima and minima stay for the LLVM conversion (llvm.maximum and
// llvm.minimum order -0 below +0; upstream's expansion into a compare and
// a select returned the second operand for -0 and +0).
// CHECK-LABEL: func.func @extrema_stay
// CHECK-NEXT: %[[MAX:.*]] = arith.maximumf %arg0, %arg1 : vector<8xf32>
// CHECK-NEXT: %[[MIN:.*]] = arith.minimumf %arg2, %arg3 : f64
// CHECK-NEXT: return %[[MAX]], %[[MIN]]
func.func @extrema_stay(%a: vector<8xf32>, %b: vector<8xf32>, %c: f64, %d: f64) -> (vector<8xf32>, f64) {
  %m = arith.maximumf %a, %b : vector<8xf32>
  %n = arith.minimumf %c, %d : f64
  return %m, %n : vector<8xf32>, f64
}

// Floor and ceil divisions, which LLVM has no instruction for, become
// truncating divisions and fixups.
// CHECK-LABEL: func.func @divisions_expand
// CHECK-NOT: arith.floordivsi
// CHECK-NOT: arith.ceildivsi
// CHECK: arith.divsi
// CHECK: return
func.func @divisions_expand(%a: i32, %b: i32) -> (i32, i32) {
  %f = arith.floordivsi %a, %b : i32
  %c = arith.ceildivsi %a, %b : i32
  return %f, %c : i32, i32
}

// bf16 <-> f32 conversions become integer arithmetic on the bits.
// CHECK-LABEL: func.func @bf16_conversions_expand
// CHECK-NOT: arith.extf
// CHECK-NOT: arith.truncf
// CHECK: arith.bitcast
// CHECK: return
func.func @bf16_conversions_expand(%a: vector<16xbf16>) -> vector<16xbf16> {
  %w = arith.extf %a : vector<16xbf16> to vector<16xf32>
  %s = arith.mulf %w, %w : vector<16xf32>
  %n = arith.truncf %s : vector<16xf32> to vector<16xbf16>
  return %n : vector<16xbf16>
}
