// RUN: kiln-opt %s --kiln-carry-extrema-as-keys --split-input-file | FileCheck %s
// RUN: kiln-opt %s --kiln-carry-extrema-as-keys="vector-bytes=32 vector-registers=16" --split-input-file | FileCheck %s --check-prefix=AVX2
// RUN: not kiln-opt %s --kiln-carry-extrema-as-keys="vector-bytes=0" 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not kiln-opt %s --kiln-carry-extrema-as-keys="vector-registers=0" 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: error: kiln-carry-extrema-as-keys: vector-bytes and vector-registers must be positive

// A max reduction's running vector: the loop carries the elements' keys
// (negative values' magnitude bits flipped) and their largest magnitude,
// and the result is the keys' floats, NaN where a magnitude passed +inf's.
// CHECK-LABEL: func.func @row_max
// CHECK-SAME: %[[ROW:.*]]: memref<49x64xf32>, %[[INIT:.*]]: vector<64xf32>
// CHECK-DAG: %[[SIGN:.*]] = arith.constant dense<31> : vector<64xi32>
// CHECK-DAG: %[[ONE:.*]] = arith.constant dense<1> : vector<64xi32>
// CHECK-DAG: %[[NOSIGN:.*]] = arith.constant dense<2147483647> : vector<64xi32>
// CHECK-DAG: %[[INF:.*]] = arith.constant dense<2139095040> : vector<64xi32>
// CHECK-DAG: %[[NAN:.*]] = arith.constant dense<0x7FC00000> : vector<64xf32>
// CHECK: %[[INITBITS:.*]] = arith.bitcast %[[INIT]] : vector<64xf32> to vector<64xi32>
// CHECK: %[[IS:.*]] = arith.shrsi %[[INITBITS]], %[[SIGN]]
// CHECK: %[[IM:.*]] = arith.shrui %[[IS]], %[[ONE]]
// CHECK: %[[INITKEY:.*]] = arith.xori %[[INITBITS]], %[[IM]]
// CHECK: %[[INITMAG:.*]] = arith.andi %[[INITBITS]], %[[NOSIGN]]
// CHECK: %[[LOOP:.*]]:3 = scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[INIT]], %[[KEYS:.*]] = %[[INITKEY]], %[[MAGS:.*]] = %[[INITMAG]])
// CHECK:   %[[X:.*]] = vector.load %[[ROW]]
// CHECK:   %[[BITS:.*]] = arith.bitcast %[[X]] : vector<64xf32> to vector<64xi32>
// CHECK:   %[[S:.*]] = arith.shrsi %[[BITS]], %[[SIGN]]
// CHECK:   %[[M:.*]] = arith.shrui %[[S]], %[[ONE]]
// CHECK:   %[[KEY:.*]] = arith.xori %[[BITS]], %[[M]]
// CHECK:   %[[MAG:.*]] = arith.andi %[[BITS]], %[[NOSIGN]]
// CHECK:   %[[MAX:.*]] = arith.maxsi %[[KEYS]], %[[KEY]]
// CHECK:   %[[LARGEST:.*]] = arith.maxui %[[MAGS]], %[[MAG]]
// CHECK:   scf.yield %[[ACC]], %[[MAX]], %[[LARGEST]]
// CHECK: %[[RS:.*]] = arith.shrsi %[[LOOP]]#1, %[[SIGN]]
// CHECK: %[[RM:.*]] = arith.shrui %[[RS]], %[[ONE]]
// CHECK: %[[RBITS:.*]] = arith.xori %[[LOOP]]#1, %[[RM]]
// CHECK: %[[FLOATS:.*]] = arith.bitcast %[[RBITS]] : vector<64xi32> to vector<64xf32>
// CHECK: %[[ISNAN:.*]] = arith.cmpi ugt, %[[LOOP]]#2, %[[INF]]
// CHECK: %[[RESULT:.*]] = arith.select %[[ISNAN]], %[[NAN]], %[[FLOATS]]
// CHECK: return %[[RESULT]]
func.func @row_max(%row: memref<49x64xf32>, %init: vector<64xf32>) -> vector<64xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c49 = arith.constant 49 : index
  %m = scf.for %i = %c0 to %c49 step %c1 iter_args(%acc = %init) -> (vector<64xf32>) {
    %x = vector.load %row[%i, %c0] : memref<49x64xf32>, vector<64xf32>
    %next = arith.maximumf %acc, %x : vector<64xf32>
    scf.yield %next : vector<64xf32>
  }
  return %m : vector<64xf32>
}

// -----

// A min of f64, the carried vector second: arith.minsi of 64-bit keys.
// CHECK-LABEL: func.func @row_min
// CHECK: arith.constant dense<9218868437227405312> : vector<8xi64>
// CHECK: scf.for {{.*}} -> (vector<8xf64>, vector<8xi64>, vector<8xi64>)
// CHECK: arith.minsi %{{.*}} : vector<8xi64>
// CHECK: arith.maxui %{{.*}} : vector<8xi64>
// CHECK-NOT: arith.minimumf
func.func @row_min(%row: memref<10x8xf64>, %init: vector<8xf64>) -> vector<8xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  %m = scf.for %i = %c0 to %c10 step %c1 iter_args(%acc = %init) -> (vector<8xf64>) {
    %x = vector.load %row[%i, %c0] : memref<10x8xf64>, vector<8xf64>
    %next = arith.minimumf %x, %acc : vector<8xf64>
    scf.yield %next : vector<8xf64>
  }
  return %m : vector<8xf64>
}

// -----

// A running maximum of 64 lanes (256 bytes): keys and magnitudes take 8 of
// AVX-512's 32 registers, but all 16 of AVX2's, where it carries keys
// alone; 32 lanes (4 ymm registers) carry magnitudes there too.
// CHECK-LABEL: func.func @mid_max
// CHECK: scf.for {{.*}} -> (vector<64xf32>, vector<64xi32>, vector<64xi32>)
// CHECK: arith.maxui
// AVX2-LABEL: func.func @mid_max
// AVX2: scf.for {{.*}} -> (vector<64xf32>, vector<64xi32>)
// AVX2-NOT: arith.maxui {{.*}} : vector<64xi32>
// AVX2: scf.for {{.*}} -> (vector<32xf32>, vector<32xi32>, vector<32xi32>)
// AVX2: arith.maxui {{.*}} : vector<32xi32>
func.func @mid_max(%rows: memref<300x64xf32>, %init: vector<64xf32>, %half: vector<32xf32>) -> (vector<64xf32>, vector<32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c300 = arith.constant 300 : index
  %m = scf.for %i = %c0 to %c300 step %c1 iter_args(%acc = %init) -> (vector<64xf32>) {
    %x = vector.load %rows[%i, %c0] : memref<300x64xf32>, vector<64xf32>
    %next = arith.maximumf %acc, %x : vector<64xf32>
    scf.yield %next : vector<64xf32>
  }
  %h = scf.for %i = %c0 to %c300 step %c1 iter_args(%acc = %half) -> (vector<32xf32>) {
    %x = vector.load %rows[%i, %c0] : memref<300x64xf32>, vector<32xf32>
    %next = arith.maximumf %acc, %x : vector<32xf32>
    scf.yield %next : vector<32xf32>
  }
  return %m, %h : vector<64xf32>, vector<32xf32>
}

// -----

// A running maximum of 256 lanes (1 KiB, over 8 vector registers: keys and
// magnitudes would take every AVX-512 register) carries keys alone, a
// NaN's key the largest (its float a NaN).
// CHECK-LABEL: func.func @wide_max
// CHECK-DAG: %[[NANKEY:.*]] = arith.constant dense<2147483647> : vector<256xi32>
// CHECK: scf.for {{.*}} -> (vector<256xf32>, vector<256xi32>)
// CHECK:   %[[FLIPPED:.*]] = arith.xori
// CHECK:   %[[ISNAN:.*]] = arith.cmpf uno, %[[X:.*]], %[[X]] : vector<256xf32>
// CHECK:   %[[KEY:.*]] = arith.select %[[ISNAN]], %[[NANKEY]], %[[FLIPPED]]
// CHECK:   arith.maxsi %{{.*}}, %[[KEY]] : vector<256xi32>
// CHECK-NOT: arith.maxui
// CHECK: arith.bitcast %{{.*}} : vector<256xi32> to vector<256xf32>
// CHECK-NOT: arith.select
// CHECK: return
func.func @wide_max(%rows: memref<4099x256xf32>, %init: vector<256xf32>) -> vector<256xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4099 = arith.constant 4099 : index
  %m = scf.for %i = %c0 to %c4099 step %c1 iter_args(%acc = %init) -> (vector<256xf32>) {
    %x = vector.load %rows[%i, %c0] : memref<4099x256xf32>, vector<256xf32>
    %next = arith.maximumf %acc, %x : vector<256xf32>
    scf.yield %next : vector<256xf32>
  }
  return %m : vector<256xf32>
}

// -----

// Left alone: a running maximum the loop also reads otherwise (the carried
// floats are needed in it), one that is not yielded back into its own
// iter_arg, and scalars.
// CHECK-LABEL: func.func @not_carried_alone
// CHECK-COUNT-3: arith.maximumf
// CHECK-NOT: arith.maxsi
func.func @not_carried_alone(%row: memref<10x16xf32>, %init: vector<16xf32>, %s: f32) -> (vector<16xf32>, vector<16xf32>, f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  %a:2 = scf.for %i = %c0 to %c10 step %c1 iter_args(%acc = %init, %sum = %init) -> (vector<16xf32>, vector<16xf32>) {
    %x = vector.load %row[%i, %c0] : memref<10x16xf32>, vector<16xf32>
    %next = arith.maximumf %acc, %x : vector<16xf32>
    %more = arith.addf %sum, %acc : vector<16xf32>
    scf.yield %next, %more : vector<16xf32>, vector<16xf32>
  }
  %b:2 = scf.for %i = %c0 to %c10 step %c1 iter_args(%p = %init, %q = %init) -> (vector<16xf32>, vector<16xf32>) {
    %x = vector.load %row[%i, %c0] : memref<10x16xf32>, vector<16xf32>
    %next = arith.maximumf %p, %x : vector<16xf32>
    scf.yield %x, %next : vector<16xf32>, vector<16xf32>
  }
  %c = scf.for %i = %c0 to %c10 step %c1 iter_args(%acc = %s) -> (f32) {
    %x = memref.load %row[%i, %c0] : memref<10x16xf32>
    %next = arith.maximumf %acc, %x : f32
    scf.yield %next : f32
  }
  return %a#0, %b#1, %c : vector<16xf32>, vector<16xf32>, f32
}
