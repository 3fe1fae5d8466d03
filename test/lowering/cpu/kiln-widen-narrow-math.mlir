// RUN: kiln-opt %s --kiln-widen-narrow-math | FileCheck %s

// CHECK-LABEL: func.func @narrow
func.func @narrow(%x: vector<17xbf16>, %h: f16, %f: vector<4xf32>) -> (vector<17xbf16>, f16, vector<4xf32>) {
  // CHECK: %[[W:.*]] = arith.extf %{{.*}} : vector<17xbf16> to vector<17xf32>
  // CHECK: %[[A:.*]] = math.absf %[[W]] : vector<17xf32>
  // CHECK: arith.truncf %[[A]] : vector<17xf32> to vector<17xbf16>
  %0 = math.absf %x : vector<17xbf16>
  // CHECK: math.copysign %{{.*}}, %{{.*}} : f32
  %1 = math.copysign %h, %h : f16
  // f32 math is left alone.
  // CHECK: math.floor %{{.*}} : vector<4xf32>
  %2 = math.floor %f : vector<4xf32>
  return %0, %1, %2 : vector<17xbf16>, f16, vector<4xf32>
}

// CHECK-LABEL: func.func @select
func.func @select(%c: vector<17xi1>, %a: vector<17xbf16>, %b: vector<17xbf16>) -> vector<17xbf16> {
  // CHECK: %[[A:.*]] = arith.bitcast %{{.*}} : vector<17xbf16> to vector<17xi16>
  // CHECK: %[[B:.*]] = arith.bitcast %{{.*}} : vector<17xbf16> to vector<17xi16>
  // CHECK: %[[S:.*]] = arith.select %{{.*}}, %[[A]], %[[B]] : vector<17xi1>, vector<17xi16>
  // CHECK: arith.bitcast %[[S]] : vector<17xi16> to vector<17xbf16>
  %0 = arith.select %c, %a, %b : vector<17xi1>, vector<17xbf16>
  return %0 : vector<17xbf16>
}
