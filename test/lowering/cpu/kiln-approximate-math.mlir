// RUN: kiln-opt %s --kiln-approximate-math | FileCheck %s

// CHECK-LABEL: func.func @approximated
func.func @approximated(%x: vector<8xf32>, %h: bf16) -> (vector<8xf32>, vector<8xf32>, bf16) {
  // CHECK-NOT: math.tanh
  // CHECK-NOT: math.exp
  %0 = math.tanh %x : vector<8xf32>
  %1 = math.exp %x : vector<8xf32>
  // bf16 is computed in f32.
  // CHECK: arith.extf {{.*}} : bf16 to f32
  // CHECK: arith.truncf {{.*}} : f32 to bf16
  %2 = math.exp %h : bf16
  return %0, %1, %2 : vector<8xf32>, vector<8xf32>, bf16
}

// rsqrt's approximation needs AVX2 intrinsics; it stays exact.
// CHECK-LABEL: func.func @exact
func.func @exact(%x: vector<8xf32>) -> vector<8xf32> {
  // CHECK: math.rsqrt
  %0 = math.rsqrt %x : vector<8xf32>
  return %0 : vector<8xf32>
}

// The exponential's approximation converts its clamped argument to an
// integer, which is poison in LLVM for a NaN: it computes on 0 where the
// argument is NaN and gives the NaN (scripts/fuzz.py, seed 4015143).
// CHECK-LABEL: func.func @exp_of_nan
// CHECK: %[[NAN:.+]] = arith.cmpf uno, %[[X:.+]], %[[X]] : vector<8xf32>
// CHECK: %[[SAFE:.+]] = arith.select %[[NAN]], %{{.+}}, %[[X]]
// CHECK: arith.fptosi
// CHECK: %[[OUT:.+]] = arith.select %[[NAN]], %[[X]], %{{.+}} : vector<8xi1>, vector<8xf32>
// CHECK: return %[[OUT]]
func.func @exp_of_nan(%x: vector<8xf32>) -> vector<8xf32> {
  %0 = math.exp %x : vector<8xf32>
  return %0 : vector<8xf32>
}
