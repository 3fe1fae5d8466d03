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

// f64 exp, log and tanh are vector arithmetic: exp (fdlibm's) scales
// by 2^k built from the bits of k in two factors, log reads the exponent
// and mantissa from the bits; none is left for libm. Integers k move
// between f64 and i64 through 1.5 * 2^52 (bits 0x4338000000000000), not
// fptosi and sitofp, which AVX2 lacks for vectors.
// CHECK-LABEL: func.func @f64_exp_log
// CHECK-DAG: %[[SHIFT:.+]] = arith.constant dense<0x4338000000000000> : vector<8xf64>
// CHECK-DAG: %[[UNSHIFT:.+]] = arith.constant dense<-4843621399236968448> : vector<8xi64>
// CHECK-DAG: %[[SHIFTBITS:.+]] = arith.constant dense<4843621399236968448> : vector<8xi64>
// CHECK-NOT: math.exp
// CHECK: %[[K:.+]] = math.roundeven {{.*}} : vector<8xf64>
// CHECK: %[[SHIFTED:.+]] = arith.addf %[[K]], %[[SHIFT]] : vector<8xf64>
// CHECK: %[[KBITS:.+]] = arith.bitcast %[[SHIFTED]] : vector<8xf64> to vector<8xi64>
// CHECK: arith.addi %[[KBITS]], %[[UNSHIFT]] : vector<8xi64>
// CHECK: arith.shli
// CHECK: arith.bitcast {{.*}} : vector<8xi64> to vector<8xf64>
// CHECK-NOT: math.log
// CHECK: arith.bitcast {{.*}} : vector<8xf64> to vector<8xi64>
// CHECK: arith.divf
// CHECK: %[[EBITS:.+]] = arith.addi %{{.+}}, %[[SHIFTBITS]] : vector<8xi64>
// CHECK: %[[E:.+]] = arith.bitcast %[[EBITS]] : vector<8xi64> to vector<8xf64>
// CHECK: arith.subf %[[E]], %[[SHIFT]] : vector<8xf64>
// CHECK-NOT: arith.fptosi
// CHECK-NOT: arith.sitofp
// tanh is a rational function below 0.625 and built on exp above.
// CHECK-NOT: math.exp
// CHECK-NOT: math.log
// CHECK-NOT: math.tanh
// CHECK: %[[TANH:.+]] = math.copysign {{.*}} : vector<8xf64>
// CHECK: return %{{.+}}, %{{.+}}, %[[TANH]]
func.func @f64_exp_log(%x: vector<8xf64>) -> (vector<8xf64>, vector<8xf64>, vector<8xf64>) {
  %0 = math.exp %x : vector<8xf64>
  %1 = math.log %x : vector<8xf64>
  %2 = math.tanh %x : vector<8xf64>
  return %0, %1, %2 : vector<8xf64>, vector<8xf64>, vector<8xf64>
}

// f64 atan is fdlibm's: |x| clamped, reduced by one division with the
// interval's (s, t) chosen by selects, a polynomial; no libm call.
// CHECK-LABEL: func.func @f64_atan
// CHECK-NOT: math.atan
// CHECK: %[[ABS:.+]] = math.absf %[[X:.+]] : vector<8xf64>
// CHECK: %[[CLAMPED:.+]] = arith.minimumf %[[ABS]]
// CHECK-COUNT-4: arith.cmpf oge, %[[CLAMPED]]
// CHECK: arith.divf
// CHECK-NOT: arith.divf
// CHECK-NOT: math.atan
// CHECK: %[[ATAN:.+]] = math.copysign %{{.+}}, %[[X]] : vector<8xf64>
// CHECK: return %[[ATAN]]
func.func @f64_atan(%x: vector<8xf64>) -> vector<8xf64> {
  %0 = math.atan %x : vector<8xf64>
  return %0 : vector<8xf64>
}

// pow of f32 (and narrower floats) is 2^(y log2|x|) in f64 (one division,
// no libm), rounded once to f32, where C99's special cases are selected;
// f64 pow stays with libm.
// CHECK-LABEL: func.func @pow
// CHECK: %[[AX:.+]] = math.absf %arg0 : vector<16xf32>
// CHECK-DAG: arith.extf %arg1 : vector<16xf32> to vector<16xf64>
// CHECK-DAG: arith.extf %[[AX]] : vector<16xf32> to vector<16xf64>
// CHECK-NOT: math.exp
// CHECK-NOT: math.log
// CHECK: arith.divf {{.*}} : vector<16xf64>
// CHECK-NOT: arith.divf
// CHECK: arith.truncf {{.*}} : vector<16xf64> to vector<16xf32>
// CHECK: math.copysign {{.*}} : vector<16xf32>
// CHECK: arith.select {{.*}} : vector<16xi1>, vector<16xf32>
// CHECK-NOT: arith.truncf
// CHECK: math.powf %arg2, %arg3 : vector<8xf64>
func.func @pow(%x: vector<16xf32>, %y: vector<16xf32>, %a: vector<8xf64>, %b: vector<8xf64>) -> (vector<16xf32>, vector<8xf64>) {
  %0 = math.powf %x, %y : vector<16xf32>
  %1 = math.powf %a, %b : vector<8xf64>
  return %0, %1 : vector<16xf32>, vector<8xf64>
}

// f64 sin and cos below 2^20 are a Cody-Waite reduction in three parts of
// pi/2 and Cephes' polynomials (the quadrant's low bits, as integers, pick
// cos(y) and flip the sign by an xor); where some element is larger,
// libm's op (marked, so it is not rewritten again) gives those elements.
// CHECK-LABEL: func.func @f64_sin_cos
// CHECK: math.roundeven
// CHECK-COUNT-3: math.fma %{{.+}}, %cst{{.*}}, %{{.+}} : vector<8xf64>
// CHECK-NOT: math.floor
// CHECK: arith.andi %{{.+}}, %{{.+}} : vector<8xi64>
// CHECK: arith.xori %{{.+}}, %{{.+}} : vector<8xi64>
// CHECK: %[[LARGE:.+]] = arith.cmpf uge, %{{.+}}, %{{.+}} : vector<8xf64>
// CHECK: %[[ANY:.+]] = vector.reduction <or>, %[[LARGE]]
// CHECK: scf.if %[[ANY]] -> (vector<8xf64>)
// CHECK:   %[[LIBM:.+]] = math.sin %{{.+}} {kiln.libm} : vector<8xf64>
// CHECK:   arith.select %[[LARGE]], %[[LIBM]], %{{.+}}
// CHECK: math.cos %{{.+}} {kiln.libm} : vector<8xf64>
// CHECK-NOT: math.sin
func.func @f64_sin_cos(%x: vector<8xf64>) -> (vector<8xf64>, vector<8xf64>) {
  %0 = math.sin %x : vector<8xf64>
  %1 = math.cos %x : vector<8xf64>
  return %0, %1 : vector<8xf64>, vector<8xf64>
}

// Float rem is exact arithmetic in f64: one FMA, one y back where x / y
// rounded up to an integer; libm's fmod (marked) where some |x / y| reaches
// 2^52 or y is infinite.
// CHECK-LABEL: func.func @remainder
// CHECK: arith.extf %{{.*}} : vector<16xf32> to vector<16xf64>
// CHECK: %[[Q:.+]] = arith.divf
// CHECK: %[[N:.+]] = math.trunc %[[Q]]
// CHECK: math.fma
// CHECK: arith.truncf %{{.*}} : vector<16xf64> to vector<16xf32>
// CHECK: scf.if
// CHECK:   arith.remf %{{.+}}, %{{.+}} {kiln.libm} : vector<16xf32>
// CHECK-NOT: arith.remf
func.func @remainder(%x: vector<16xf32>, %y: vector<16xf32>) -> vector<16xf32> {
  %0 = arith.remf %x, %y : vector<16xf32>
  return %0 : vector<16xf32>
}
