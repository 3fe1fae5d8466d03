// RUN: kiln-opt %s --kiln-tile-and-vectorize="parallel-work=0 bf16-dot-pairs=true amx-bf16=true" --canonicalize | FileCheck %s
// RUN: kiln-opt %s --kiln-tile-and-vectorize="parallel-work=0 bf16-dot-pairs=true" --canonicalize | FileCheck %s --check-prefix=OFF

// A bf16 product packed in pairs takes register tiles of 32 rows by one
// panel over all of its cache tile's k pairs, marked for AMX tiles: 128 of
// its 144 rows in tiles of 32, the last 16 as a tile of their own. Its 40
// k pairs are 32 for AMX tiles, which take 16 at a time, and 8 split off
// for vdpbf16ps's register tiles (8 x 32 over a pair), accumulating onto
// the AMX tiles' result.
// CHECK-LABEL: func.func @amx_tiles
// CHECK: scf.for {{.*}} -> (tensor<2x40x32x2xbf16>)
// CHECK: scf.for {{.*}} to %c128 step %c32
// CHECK: linalg.generic
// CHECK-SAME: ins({{.*}} : tensor<32x32x2xbf16>, tensor<1x32x32x2xbf16>)
// CHECK-SAME: outs({{.*}} : tensor<32x1x32xf32>) attrs = {kiln.amx_tile}
// CHECK: linalg.generic
// CHECK-SAME: ins({{.*}} : tensor<16x32x2xbf16>, tensor<1x32x32x2xbf16>)
// CHECK-SAME: outs({{.*}} : tensor<16x1x32xf32>) attrs = {kiln.amx_tile}
// CHECK: vector.contract {{.*}} : vector<8x2xbf16>, vector<32x2xbf16> into vector<8x32xf32>
// CHECK: vector.contract {{.*}} : vector<8x2xbf16>, vector<32x2xbf16> into vector<8x32xf32>
// CHECK-NOT: kiln.amx_tile
// Without AMX, all of it runs on vdpbf16ps's register tiles.
// OFF-LABEL: func.func @amx_tiles
// OFF-NOT: kiln.amx_tile
// OFF: vector.contract {{.*}} : vector<8x2xbf16>, vector<32x2xbf16> into vector<8x32xf32>
// OFF-NOT: kiln.amx_tile
func.func @amx_tiles(%a: tensor<144x80xbf16>, %b: tensor<80x64xbf16>) -> tensor<144x64xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<144x64xf32>
  %c = linalg.fill ins(%zero : f32) outs(%init : tensor<144x64xf32>) -> tensor<144x64xf32>
  %r = linalg.matmul ins(%a, %b : tensor<144x80xbf16>, tensor<80x64xbf16>) outs(%c : tensor<144x64xf32>) -> tensor<144x64xf32>
  return %r : tensor<144x64xf32>
}
