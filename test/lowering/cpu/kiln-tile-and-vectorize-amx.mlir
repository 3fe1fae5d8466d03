// RUN: kiln-opt %s --kiln-tile-and-vectorize="parallel-work=0 bf16-dot-pairs=true amx-bf16=true" --canonicalize | FileCheck %s
// RUN: kiln-opt %s --kiln-tile-and-vectorize="parallel-work=0 bf16-dot-pairs=true" --canonicalize | FileCheck %s --check-prefix=OFF

// A bf16 product packed in pairs takes register tiles of 32 rows by one
// panel over all of its cache tile's k pairs, marked for AMX tiles: 128 of
// its 144 rows in tiles of 32, the last 16 as a tile of their own. Its 40
// k pairs are 32 for AMX tiles, which take 16 at a time, and 8 split off,
// padded with zeros to 16 in A and in the panels, accumulating onto the
// first part's result.
// CHECK-LABEL: func.func @amx_tiles
// CHECK: scf.for {{.*}} -> (tensor<2x40x32x2xbf16>)
// CHECK: scf.for {{.*}} to %c128 step %c32
// CHECK: linalg.generic
// CHECK-SAME: ins({{.*}} : tensor<32x32x2xbf16>, tensor<1x32x32x2xbf16>)
// CHECK-SAME: outs({{.*}} : tensor<32x1x32xf32>) attrs = {kiln.amx_tile}
// CHECK: linalg.generic
// CHECK-SAME: ins({{.*}} : tensor<16x32x2xbf16>, tensor<1x32x32x2xbf16>)
// CHECK-SAME: outs({{.*}} : tensor<16x1x32xf32>) attrs = {kiln.amx_tile}
// CHECK: linalg.fill {{.*}} -> tensor<144x16x2xbf16>
// CHECK: tensor.insert_slice {{.*}} : tensor<144x8x2xbf16> into tensor<144x16x2xbf16>
// CHECK: linalg.fill {{.*}} -> tensor<2x16x32x2xbf16>
// CHECK: tensor.insert_slice {{.*}} : tensor<2x8x32x2xbf16> into tensor<2x16x32x2xbf16>
// CHECK: linalg.generic
// CHECK-SAME: ins({{.*}} : tensor<32x16x2xbf16>, tensor<1x16x32x2xbf16>)
// CHECK-SAME: attrs = {kiln.amx_tile}
// CHECK: linalg.generic
// CHECK-SAME: ins({{.*}} : tensor<16x16x2xbf16>, tensor<1x16x32x2xbf16>)
// CHECK-SAME: attrs = {kiln.amx_tile}
// CHECK-NOT: vector.contract
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

// The 6 rows past the last 16 are padded with zeros to a tile of 16 rows,
// in A and in C, and the 6 rows of the padded tile's result taken back.
// CHECK-LABEL: func.func @rows_rest
// CHECK: linalg.generic
// CHECK-SAME: tensor<32x32x2xbf16>, tensor<1x32x32x2xbf16>
// CHECK-SAME: attrs = {kiln.amx_tile}
// CHECK: linalg.generic
// CHECK-SAME: tensor<16x32x2xbf16>, tensor<1x32x32x2xbf16>
// CHECK-SAME: attrs = {kiln.amx_tile}
// CHECK: %[[ROWS:.*]] = tensor.insert_slice {{.*}} : tensor<6x32x2xbf16> into tensor<16x32x2xbf16>
// CHECK: %[[ACC:.*]] = tensor.insert_slice {{.*}} : tensor<6x1x32xf32> into tensor<16x1x32xf32>
// CHECK: %[[TILE:.*]] = linalg.generic
// CHECK-SAME: ins(%[[ROWS]], {{.*}} : tensor<16x32x2xbf16>, tensor<1x32x32x2xbf16>) outs(%[[ACC]] : tensor<16x1x32xf32>) attrs = {kiln.amx_tile}
// CHECK: tensor.extract_slice %[[TILE]][0, 0, 0] [6, 1, 32]
// CHECK-NOT: vector.contract
// OFF-LABEL: func.func @rows_rest
// OFF-NOT: kiln.amx_tile
func.func @rows_rest(%a: tensor<150x64xbf16>, %b: tensor<64x32xbf16>) -> tensor<150x32xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<150x32xf32>
  %c = linalg.fill ins(%zero : f32) outs(%init : tensor<150x32xf32>) -> tensor<150x32xf32>
  %r = linalg.matmul ins(%a, %b : tensor<150x64xbf16>, tensor<64x32xbf16>) outs(%c : tensor<150x32xf32>) -> tensor<150x32xf32>
  return %r : tensor<150x32xf32>
}

// 300 k pairs from zeros: the first cache tile of 256 pairs starts each
// register tile from zeros (written right before it, which
// kiln-lower-amx-tiles turns into tilezero), the other 44 (32, then 12
// padded to 16) accumulate onto its result; C is never filled whole.
// CHECK-LABEL: func.func @k_split
// CHECK-NOT: linalg.fill {{.*}}f32
// CHECK: vector.transfer_write %{{.*}} : vector<32x1x32xf32>, tensor<32x1x32xf32>
// CHECK-NEXT: linalg.generic
// CHECK-SAME: tensor<32x256x2xbf16>, tensor<1x256x32x2xbf16>
// CHECK-SAME: attrs = {kiln.amx_tile}
// CHECK-NOT: vector.transfer_write
// CHECK: linalg.generic
// CHECK-SAME: tensor<32x32x2xbf16>, tensor<1x32x32x2xbf16>
// CHECK-SAME: attrs = {kiln.amx_tile}
// CHECK: linalg.generic
// CHECK-SAME: tensor<32x16x2xbf16>, tensor<1x16x32x2xbf16>
// CHECK-SAME: attrs = {kiln.amx_tile}
// OFF-LABEL: func.func @k_split
// OFF-NOT: kiln.amx_tile
func.func @k_split(%a: tensor<128x600xbf16>, %b: tensor<600x32xbf16>) -> tensor<128x32xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<128x32xf32>
  %c = linalg.fill ins(%zero : f32) outs(%init : tensor<128x32xf32>) -> tensor<128x32xf32>
  %r = linalg.matmul ins(%a, %b : tensor<128x600xbf16>, tensor<600x32xbf16>) outs(%c : tensor<128x32xf32>) -> tensor<128x32xf32>
  return %r : tensor<128x32xf32>
}

// 63 columns and an odd K of 129: A and B are padded with zeros to K =
// 130, B and C's start to 64 columns, so that B packs into 2 whole panels
// of 65 pairs; the product runs on AMX tiles (its 65 pairs: 64, then 1
// padded to 16) and its 63 columns are sliced back.
// CHECK-LABEL: func.func @padded_panels
// CHECK: tensor.insert_slice %arg0 into %{{.*}}[0, 0] [257, 129] [1, 1] : tensor<257x129xbf16> into tensor<257x130xbf16>
// CHECK: tensor.insert_slice %arg1 into %{{.*}}[0, 0] [129, 63] [1, 1] : tensor<129x63xbf16> into tensor<130x63xbf16>
// CHECK: tensor.insert_slice %{{.*}}[0, 0] [130, 63] [1, 1] : tensor<130x63xbf16> into tensor<130x64xbf16>
// CHECK: scf.for {{.*}} -> (tensor<2x65x32x2xbf16>)
// CHECK: attrs = {kiln.amx_tile}
// CHECK: tensor.extract_slice %{{.*}}[0, 0] [257, 63] [1, 1] : tensor<257x64xf32> to tensor<257x63xf32>
// OFF-LABEL: func.func @padded_panels
// OFF-NOT: kiln.amx_tile
// OFF-NOT: tensor<257x130xbf16>
func.func @padded_panels(%a: tensor<257x129xbf16>, %b: tensor<129x63xbf16>) -> tensor<257x63xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<257x63xf32>
  %c = linalg.fill ins(%zero : f32) outs(%init : tensor<257x63xf32>) -> tensor<257x63xf32>
  %r = linalg.matmul ins(%a, %b : tensor<257x129xbf16>, tensor<129x63xbf16>) outs(%c : tensor<257x63xf32>) -> tensor<257x63xf32>
  return %r : tensor<257x63xf32>
}

// On AMX tiles, B is packed from 16 rows of A (vdpbf16ps packs from 32):
// 16 rows, one tile.
// CHECK-LABEL: func.func @few_rows
// CHECK: scf.for {{.*}} -> (tensor<1x32x32x2xbf16>)
// CHECK: ins({{.*}} : tensor<16x32x2xbf16>, tensor<1x32x32x2xbf16>)
// CHECK-SAME: attrs = {kiln.amx_tile}
// OFF-LABEL: func.func @few_rows
// OFF-NOT: x32x2xbf16>
// OFF: vector.contract
func.func @few_rows(%a: tensor<16x64xbf16>, %b: tensor<64x32xbf16>) -> tensor<16x32xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<16x32xf32>
  %c = linalg.fill ins(%zero : f32) outs(%init : tensor<16x32xf32>) -> tensor<16x32xf32>
  %r = linalg.matmul ins(%a, %b : tensor<16x64xbf16>, tensor<64x32xbf16>) outs(%c : tensor<16x32xf32>) -> tensor<16x32xf32>
  return %r : tensor<16x32xf32>
}
