// RUN: kiln-opt %s --kiln-tile-and-vectorize="parallel-work=250000" --split-input-file | FileCheck %s
// RUN: kiln-opt %s --kiln-tile-and-vectorize="parallel-work=0" --split-input-file | FileCheck %s --check-prefix=SERIAL
// RUN: kiln-opt %s --kiln-tile-and-vectorize="parallel-work=150000 int-dot-pairs=true byte-quads=true" --split-input-file | FileCheck %s --check-prefix=INT8
// RUN: kiln-opt %s --kiln-tile-and-vectorize="parallel-work=150000 bf16-dot-pairs=true" --split-input-file | FileCheck %s --check-prefix=PAIRS

// Ops estimated to take at least parallel-work ns (250 us here) on one thread
// are split into chunks that an scf.forall runs, about one per 125 us, each
// chunk then tiled as the whole op would be.

// A matmul of 67 MFLOP (335 us at 200 GFLOP/s, a target of 2 chunks):
// chunks of whole 64-row cache tiles, all 4 of them (2 chunks would leave
// 2 of 4 threads nothing), each tiled into 8 x 32 register tiles.
// CHECK-LABEL: func.func @matmul
// SERIAL-LABEL: func.func @matmul
// SERIAL-NOT: scf.forall
func.func @matmul(%a: tensor<256x512xf32>, %b: tensor<512x256xf32>, %c: tensor<256x256xf32>) -> tensor<256x256xf32> {
  // CHECK: scf.forall (%{{.*}}) = (0) to (256) step (64) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<256x256xf32>)
  // CHECK: tensor.extract_slice %{{.*}}[%{{.*}}, 0] [64, 512] [1, 1]
  // CHECK: scf.for {{.*}} step %c8
  // CHECK: vector.contract {{.*}} into vector<8x32xf32>
  // CHECK: tensor.parallel_insert_slice {{.*}} [64, 256] [1, 1]
  %0 = linalg.matmul ins(%a, %b : tensor<256x512xf32>, tensor<512x256xf32>)
                     outs(%c : tensor<256x256xf32>) -> tensor<256x256xf32>
  return %0 : tensor<256x256xf32>
}

// -----

// 257 rows (a prime) of f64 (202 MFLOP, 2 ms at half the f32 rate, a
// target of 16 chunks; f64 is never packed, so chunks split rows): the
// 256 rows run in chunks of 32, half a cache tile (each chunk reads all of
// B: chunks of one 8-row register tile read it from L3 for every 8 rows),
// all 8 of them; the last row on one thread (too little work to chunk its
// columns), in register tiles of 1 x 128 (a row takes 8 rows' columns).
// CHECK-LABEL: func.func @prime_rows
func.func @prime_rows(%a: tensor<257x512xf64>, %b: tensor<512x768xf64>, %c: tensor<257x768xf64>) -> tensor<257x768xf64> {
  // CHECK: %[[WHOLE:.*]] = scf.forall (%{{.*}}) = (0) to (256) step (32) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<256x768xf64>)
  // CHECK: tensor.parallel_insert_slice {{.*}} [32, 768] [1, 1]
  // CHECK: tensor.insert_slice %[[WHOLE]] into %{{.*}}[0, 0] [256, 768] [1, 1]
  // CHECK-NOT: scf.forall
  // CHECK: vector.contract {{.*}} into vector<1x128xf64>
  %0 = linalg.matmul ins(%a, %b : tensor<257x512xf64>, tensor<512x768xf64>)
                     outs(%c : tensor<257x768xf64>) -> tensor<257x768xf64>
  return %0 : tensor<257x768xf64>
}

// -----

// 287 x 1280 x 768 of f64 (564 MFLOP): 256 rows in 8 chunks of 32; the 31
// rows after them are 61 MFLOP (610 us, a target of 4 chunks), so they
// run in chunks too, of their columns: 3 of 256 (whole cache tiles).
// CHECK-LABEL: func.func @rows_past_the_chunks
func.func @rows_past_the_chunks(%a: tensor<287x1280xf64>, %b: tensor<1280x768xf64>, %c: tensor<287x768xf64>) -> tensor<287x768xf64> {
  // CHECK: scf.forall (%{{.*}}) = (0) to (256) step (32) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<256x768xf64>)
  // CHECK: scf.forall (%{{.*}}) = (0) to (768) step (256) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<31x768xf64>)
  %0 = linalg.matmul ins(%a, %b : tensor<287x1280xf64>, tensor<1280x768xf64>)
                     outs(%c : tensor<287x768xf64>) -> tensor<287x768xf64>
  return %0 : tensor<287x768xf64>
}

// -----

// 263 x 1280 x 768 of f64: the 7 rows after the 8 chunks of 32 are 14
// MFLOP (138 us), under parallel-work, but they run right after those
// chunks, whose threads start again in ~12 us instead of ~75: from 40% of
// parallel-work such a piece runs in chunks too, of its columns.
// CHECK-LABEL: func.func @rows_right_after_the_chunks
func.func @rows_right_after_the_chunks(%a: tensor<263x1280xf64>, %b: tensor<1280x768xf64>, %c: tensor<263x768xf64>) -> tensor<263x768xf64> {
  // CHECK: scf.forall (%{{.*}}) = (0) to (256) step (32) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<256x768xf64>)
  // CHECK: scf.forall (%{{.*}}) = (0) to (768) step (256) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<7x768xf64>)
  %0 = linalg.matmul ins(%a, %b : tensor<263x1280xf64>, tensor<1280x768xf64>)
                     outs(%c : tensor<263x768xf64>) -> tensor<263x768xf64>
  return %0 : tensor<263x768xf64>
}

// -----

// The same 7 rows on their own, after no chunks, run on one thread.
// CHECK-LABEL: func.func @rows_after_no_chunks
// CHECK-NOT: scf.forall
func.func @rows_after_no_chunks(%a: tensor<7x1280xf64>, %b: tensor<1280x768xf64>, %c: tensor<7x768xf64>) -> tensor<7x768xf64> {
  %0 = linalg.matmul ins(%a, %b : tensor<7x1280xf64>, tensor<1280x768xf64>)
                     outs(%c : tensor<7x768xf64>) -> tensor<7x768xf64>
  return %0 : tensor<7x768xf64>
}

// -----

// A product of packed f32 panels (B's rows 16 KiB apart) runs in chunks of
// panels: 128 x 1024 x 4096 (A 512 KB, B 16 MB) in 16 chunks of 8 panels
// of 32 columns, each reading all of A, rather than 2 chunks of 64 rows,
// each streaming all of B. Each chunk packs its own 8 panels (a 16 MB B
// packed in a pass of its own first was 11% of an FFN's time), and
// multiplies them while they are in cache.
// CHECK-LABEL: func.func @panels_in_chunks
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<128x1024x32xf32>
// CHECK-NOT: scf.forall
// CHECK: %[[PRODUCT:.*]] = scf.forall (%[[J:.*]]) = (0) to (128) step (8) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<128x128x32xf32>)
// CHECK: %[[B:.*]] = tensor.extract_slice %{{.*}}[0, %[[J]], 0] [1024, 8, 32] [1, 1, 1] : tensor<1024x128x32xf32> to tensor<1024x8x32xf32>
// CHECK: %[[PACK:.*]] = tensor.extract_slice %[[EMPTY]][%[[J]], 0, 0] [8, 1024, 32] [1, 1, 1] : tensor<128x1024x32xf32> to tensor<8x1024x32xf32>
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[PACK]]) -> (tensor<8x1024x32xf32>)
// CHECK: tensor.extract_slice %[[B]]
// CHECK: tensor.extract_slice %{{.*}}[0, %[[J]], 0] [128, 8, 32] [1, 1, 1] : tensor<128x128x32xf32> to tensor<128x8x32xf32>
func.func @panels_in_chunks(%a: tensor<128x1024xf32>, %b: tensor<1024x4096xf32>, %c: tensor<128x4096xf32>) -> tensor<128x4096xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<128x1024xf32>, tensor<1024x4096xf32>)
                     outs(%c : tensor<128x4096xf32>) -> tensor<128x4096xf32>
  return %0 : tensor<128x4096xf32>
}

// With K = 4096, 8 panels are 4 MB, more than a thread may hold (a loop
// whose chunks held them would run on one thread): the product splits
// along K into 4 pieces of 1024 steps, each accumulating onto the last,
// whose chunks each pack their 1 MiB part of the piece's B.
// CHECK-LABEL: func.func @panels_split_along_k
// CHECK-NOT: -> (tensor<32x4096x32xf32>)
// CHECK: %[[B0:.*]] = tensor.extract_slice %{{.*}}[0, 0, 0] [1024, 32, 32] [1, 1, 1] : tensor<4096x32x32xf32> to tensor<1024x32x32xf32>
// CHECK: %[[C0:.*]] = scf.forall (%[[J:.*]]) = (0) to (32) step (8) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<256x32x32xf32>)
// CHECK: tensor.extract_slice %[[B0]][0, %[[J]], 0] [1024, 8, 32] [1, 1, 1] : tensor<1024x32x32xf32> to tensor<1024x8x32xf32>
// CHECK: %[[C1:.*]] = tensor.insert_slice %[[C0]] into
// CHECK: scf.forall (%{{.*}}) = (0) to (32) step (8) shared_outs(%{{.*}} = %[[C1]]) -> (tensor<256x32x32xf32>)
// CHECK: tensor<1024x8x32xf32>
// CHECK: scf.forall (%{{.*}}) = (0) to (32) step (8) shared_outs
// CHECK: tensor<1024x8x32xf32>
// CHECK: scf.forall (%{{.*}}) = (0) to (32) step (8) shared_outs
// CHECK: tensor<1024x8x32xf32>
// CHECK-NOT: scf.forall (
// CHECK: return
func.func @panels_split_along_k(%a: tensor<256x4096xf32>, %b: tensor<4096x1024xf32>, %c: tensor<256x1024xf32>) -> tensor<256x1024xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<256x4096xf32>, tensor<4096x1024xf32>)
                     outs(%c : tensor<256x1024xf32>) -> tensor<256x1024xf32>
  return %0 : tensor<256x1024xf32>
}

// 1024^3: 4 chunks of 8 panels, each packing its own.
// CHECK-LABEL: func.func @square_panels_in_chunks
// CHECK-NOT: scf.forall
// CHECK: scf.forall (%{{.*}}) = (0) to (32) step (8) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<1024x32x32xf32>)
// CHECK: tensor<1024x8x32xf32>
// CHECK-NOT: scf.forall (
// CHECK: return
func.func @square_panels_in_chunks(%a: tensor<1024x1024xf32>, %b: tensor<1024x1024xf32>, %c: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<1024x1024xf32>, tensor<1024x1024xf32>)
                     outs(%c : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  return %0 : tensor<1024x1024xf32>
}

// The first 320 of 333 columns, split off (kiln-tile-and-vectorize-pack-
// panels.mlir), are 10 panels, too few for chunks of 8 to share: 10 chunks
// of one panel, each packing its own.
// CHECK-LABEL: func.func @single_panel_chunks
// CHECK: scf.forall (%[[J:.*]]) in (10) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<257x10x32xf32>)
// CHECK: tensor.extract_slice %{{.*}}[0, %[[J]], 0] [1000, 1, 32] [1, 1, 1] : tensor<1000x10x32xf32> to tensor<1000x1x32xf32>
func.func @single_panel_chunks(%a: tensor<257x1000xf32>, %b: tensor<1000x333xf32>, %c: tensor<257x333xf32>) -> tensor<257x333xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<257x1000xf32>, tensor<1000x333xf32>)
                     outs(%c : tensor<257x333xf32>) -> tensor<257x333xf32>
  return %0 : tensor<257x333xf32>
}

// B's rows 3.25 KiB apart pack where B (1.7 MB) is more than half of L2
// (kiln-tile-and-vectorize-pack-panels.mlir). Each chunk of panels reads
// all of A; at 2 MB, A streams from memory once per chunk, so its 26 panels
// run in 4 chunks of 6, then 2 of one, not in 26 of one.
// CHECK-LABEL: func.func @panel_chunks_reading_a_large_a
// CHECK: scf.forall (%{{.*}}) = (0) to (24) step (6) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<1024x24x32xf32>)
// CHECK: scf.forall (%{{.*}}) in (2) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<1024x2x32xf32>)
func.func @panel_chunks_reading_a_large_a(%a: tensor<1024x512xf32>, %b: tensor<512x832xf32>, %c: tensor<1024x832xf32>) -> tensor<1024x832xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<1024x512xf32>, tensor<512x832xf32>)
                     outs(%c : tensor<1024x832xf32>) -> tensor<1024x832xf32>
  return %0 : tensor<1024x832xf32>
}

// The same product of half the rows: A (1 MiB) stays in L2 between chunks,
// so the 26 panels share evenly in chunks of one.
// CHECK-LABEL: func.func @panel_chunks_reading_a_small_a
// CHECK: scf.forall (%{{.*}}) in (26) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<512x26x32xf32>)
func.func @panel_chunks_reading_a_small_a(%a: tensor<512x512xf32>, %b: tensor<512x832xf32>, %c: tensor<512x832xf32>) -> tensor<512x832xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<512x512xf32>, tensor<512x832xf32>)
                     outs(%c : tensor<512x832xf32>) -> tensor<512x832xf32>
  return %0 : tensor<512x832xf32>
}

// Where A is a transpose (a weight gradient's X^T), chunks of rows each
// transpose their rows of it: B is packed first, then 16 chunks of 64 rows.
// CHECK-LABEL: func.func @transposed_rows_in_chunks
// CHECK: scf.forall (%{{.*}}) = (0) to (32) step (8) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<32x1024x32xf32>)
// CHECK: scf.forall (%[[I:.*]]) = (0) to (1024) step (64) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<1024x32x32xf32>)
// CHECK: tensor.extract_slice %{{.*}}[0, %[[I]]] [1024, 64] [1, 1] : tensor<1024x1024xf32> to tensor<1024x64xf32>
func.func @transposed_rows_in_chunks(%x: tensor<1024x1024xf32>, %b: tensor<1024x1024xf32>, %c: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %e = tensor.empty() : tensor<1024x1024xf32>
  %a = linalg.transpose ins(%x : tensor<1024x1024xf32>) outs(%e : tensor<1024x1024xf32>) permutation = [1, 0]
  %0 = linalg.matmul ins(%a, %b : tensor<1024x1024xf32>, tensor<1024x1024xf32>)
                     outs(%c : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  return %0 : tensor<1024x1024xf32>
}

// -----

// A vector-matrix product, 1 x 4096 x 4096 (34 MFLOP, but 64 MB of B read
// at 80 GB/s: 839 us, a target of 6 chunks): K splits into 8 pieces of 512
// of B's rows, a batch whose chunks each read whole rows (chunks of
// columns would read each row in pieces), then the 8 partial rows add
// into C, 256 columns at a time.
// CHECK-LABEL: func.func @vecmat
func.func @vecmat(%a: tensor<1x4096xf32>, %b: tensor<4096x4096xf32>, %c: tensor<1x4096xf32>) -> tensor<1x4096xf32> {
  // CHECK: %[[A:.*]] = tensor.expand_shape {{.*}} output_shape [8, 1, 512] : tensor<4096xf32> into tensor<8x1x512xf32>
  // CHECK: %[[B:.*]] = tensor.expand_shape {{.*}} output_shape [8, 512, 4096] : tensor<16777216xf32> into tensor<8x512x4096xf32>
  // CHECK: %[[PARTIALS:.*]] = scf.forall (%[[PIECE:.*]]) in (8) shared_outs
  // CHECK: tensor.extract_slice %[[A]][%[[PIECE]], 0, 0] [1, 1, 512] [1, 1, 1]
  // CHECK: tensor.extract_slice %[[B]][%[[PIECE]], 0, 0] [1, 512, 4096] [1, 1, 1]
  // CHECK: vector.contract {{.*}} : vector<1x1x1xf32>, vector<1x1x256xf32> into vector<1x1x256xf32>
  // CHECK: tensor.extract_slice %[[PARTIALS]]{{.*}} [1, 1, 256] [1, 1, 1]
  // CHECK: vector.multi_reduction <add>, {{.*}} [0] : vector<1x1x256xf32> to vector<1x256xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<1x4096xf32>, tensor<4096x4096xf32>)
                     outs(%c : tensor<1x4096xf32>) -> tensor<1x4096xf32>
  return %0 : tensor<1x4096xf32>
}

// -----

// 3 rows by 4096 x 2048 (32 MB): 8 pieces of K too, the rows' pieces
// gathered by a transpose of A as [3, 8, 512] whose part each of the 4
// chunks of 2 pieces computes.
// CHECK-LABEL: func.func @rows_by_matrix
func.func @rows_by_matrix(%a: tensor<3x4096xf32>, %b: tensor<4096x2048xf32>, %c: tensor<3x2048xf32>) -> tensor<3x2048xf32> {
  // CHECK: %[[A:.*]] = tensor.expand_shape {{.*}} output_shape [3, 8, 512] : tensor<12288xf32> into tensor<3x8x512xf32>
  // CHECK: %[[B:.*]] = tensor.expand_shape {{.*}} output_shape [8, 512, 2048]
  // CHECK: scf.forall (%[[PIECE:.*]]) = (0) to (8) step (2) shared_outs
  // CHECK: tensor.extract_slice %[[A]][0, %[[PIECE]], 0] [3, 2, 512] [1, 1, 1]
  // CHECK: tensor.extract_slice %[[B]][%[[PIECE]], 0, 0] [2, 512, 2048] [1, 1, 1]
  // CHECK: vector.multi_reduction <add>, {{.*}} [0] : vector<1x1x256xf32> to vector<1x256xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<3x4096xf32>, tensor<4096x2048xf32>)
                     outs(%c : tensor<3x2048xf32>) -> tensor<3x2048xf32>
  return %0 : tensor<3x2048xf32>
}

// -----

// 12 rows, more than a register tile (8) and too few to pack B, by 4096 x
// 2048 (32 MB): pieces of K as for fewer rows; each piece streams B's rows
// in K tiles of 8 across all 2048 columns, and the 4 rows past the
// register tile are split inside each K tile, not a second pass over B.
// CHECK-LABEL: func.func @rows_streaming_b
func.func @rows_streaming_b(%a: tensor<12x4096xf32>, %b: tensor<4096x2048xf32>, %c: tensor<12x2048xf32>) -> tensor<12x2048xf32> {
  // CHECK: tensor.expand_shape %{{.*}} output_shape [8, 512, 2048]
  // CHECK: scf.forall (%{{.*}}) in (8)
  // CHECK: scf.for %{{.*}} to %c512{{(_[0-9]+)?}} step %c8{{(_[0-9]+)?}} iter_args
  // CHECK: scf.for %{{.*}} to %c2048{{(_[0-9]+)?}} step %c32{{(_[0-9]+)?}} iter_args
  // CHECK: vector.contract {{.*}} : vector<1x8x1xf32>, vector<1x1x32xf32> into vector<1x8x32xf32>
  // CHECK: scf.for %{{.*}} to %c2048{{(_[0-9]+)?}} step %c64{{(_[0-9]+)?}} iter_args
  // CHECK: vector.contract {{.*}} : vector<1x4x1xf32>, vector<1x1x64xf32> into vector<1x4x64xf32>
  // CHECK: scf.forall.in_parallel
  %0 = linalg.matmul ins(%a, %b : tensor<12x4096xf32>, tensor<4096x2048xf32>)
                     outs(%c : tensor<12x2048xf32>) -> tensor<12x2048xf32>
  return %0 : tensor<12x2048xf32>
}

// -----

// bf16 into f32 alike (8 MB of B, under parallel-work: no chunks): bf16
// pieces, f32 partial products, each piece's K in tiles of 8 steps across
// all 1024 columns.
// CHECK-LABEL: func.func @bf16_vecmat
func.func @bf16_vecmat(%a: tensor<1x4096xbf16>, %b: tensor<4096x1024xbf16>, %c: tensor<1x1024xf32>) -> tensor<1x1024xf32> {
  // CHECK: tensor.expand_shape {{.*}} output_shape [8, 1, 512] : tensor<4096xbf16> into tensor<8x1x512xbf16>
  // CHECK: tensor.expand_shape {{.*}} output_shape [8, 512, 1024] : tensor<4194304xbf16> into tensor<8x512x1024xbf16>
  // CHECK: scf.for %{{.*}} to %c8{{.*}} -> (tensor<8x1x1024xf32>)
  // CHECK: scf.for %{{.*}} to %c512 step %c8{{.*}} -> (tensor<8x1x1024xf32>)
  // CHECK: vector.multi_reduction <add>, {{.*}} [0] : vector<1x1x256xf32> to vector<1x256xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<1x4096xbf16>, tensor<4096x1024xbf16>)
                     outs(%c : tensor<1x1024xf32>) -> tensor<1x1024xf32>
  return %0 : tensor<1x1024xf32>
}

// -----

// One with no piece of K to split into (4093 is prime): chunks of columns.
// CHECK-LABEL: func.func @vecmat_prime_k
func.func @vecmat_prime_k(%a: tensor<1x4093xf32>, %b: tensor<4093x4096xf32>, %c: tensor<1x4096xf32>) -> tensor<1x4096xf32> {
  // CHECK-NOT: tensor.expand_shape
  // CHECK: scf.forall (%{{.*}}) = (0) to (4096) step (512) shared_outs
  // CHECK: tensor.extract_slice %{{.*}}[0, %{{.*}}] [4093, 512] [1, 1]
  %0 = linalg.matmul ins(%a, %b : tensor<1x4093xf32>, tensor<4093x4096xf32>)
                     outs(%c : tensor<1x4096xf32>) -> tensor<1x4096xf32>
  return %0 : tensor<1x4096xf32>
}

// -----

// An elementwise op over 1000 x 1001 f32 (8 MB, 400 us at 20 GB/s): a
// target of 3 chunks; the fewest that 2 and 4 threads share evenly are 4,
// of 250 rows.
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @elementwise
func.func @elementwise(%x: tensor<1000x1001xf32>) -> tensor<1000x1001xf32> {
  // CHECK: scf.forall (%{{.*}}) = (0) to (1000) step (250) shared_outs
  // CHECK: tensor.extract_slice %{{.*}}[%{{.*}}, 0] [250, 1001] [1, 1]
  // CHECK: math.exp {{.*}} : vector<1x64xf32>
  %e = tensor.empty() : tensor<1000x1001xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<1000x1001xf32>) outs(%e : tensor<1000x1001xf32>) {
  ^bb0(%in: f32, %out: f32):
    %y = math.exp %in : f32
    linalg.yield %y : f32
  } -> tensor<1000x1001xf32>
  return %0 : tensor<1000x1001xf32>
}

// -----

// NHWC to CHWN (a convolution's kernel gradient reads its input so), 6.4
// MB: chunks keep whole 16 x 8 blocks of the transpose, each read as 8 rows
// of 16 channels and transposed in registers; chunks of 8 channels had
// gathered an element per lane (1.37 ms, 0.16-0.24 in blocks). 4 chunks
// of 16 channels are fewer than the target (7 here): the chunks are rows,
// 8 of 7 (4 on each of 2 threads; 7 of 8 would leave one thread 4 of 7).
// CHECK-LABEL: func.func @transpose_in_chunks
func.func @transpose_in_chunks(%x: tensor<8x56x56x64xf32>) -> tensor<64x56x56x8xf32> {
  // CHECK: scf.forall (%{{.*}}) = (0) to (56) step (7) shared_outs
  // CHECK: scf.for {{.*}} = %c0{{.*}} to %c64 step %c16
  // CHECK: vector.transfer_read {{.*}} : tensor<8x1x1x16xf32>, vector<16x1x1x8xf32>
  %e = tensor.empty() : tensor<64x56x56x8xf32>
  %0 = linalg.transpose ins(%x : tensor<8x56x56x64xf32>) outs(%e : tensor<64x56x56x8xf32>) permutation = [3, 1, 2, 0]
  return %0 : tensor<64x56x56x8xf32>
}

// -----

// A sum over each row of 8192 x 1024 (32 MB, 420 us at a reduction's 80
// GB/s): the rows are split into 4 chunks, never the reduced dimension.
// CHECK-LABEL: func.func @row_sums
func.func @row_sums(%x: tensor<8192x1024xf32>, %init: tensor<8192xf32>) -> tensor<8192xf32> {
  // CHECK: scf.forall (%{{.*}}) = (0) to (8192) step (2048) shared_outs
  // CHECK: tensor.extract_slice %{{.*}}[%{{.*}}, 0] [2048, 1024] [1, 1]
  %0 = linalg.reduce ins(%x : tensor<8192x1024xf32>) outs(%init : tensor<8192xf32>)
      dimensions = [1]
  (%in: f32, %acc: f32) {
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  }
  return %0 : tensor<8192xf32>
}

// -----

// The same sum over 2048 x 1024 (8 MB, 105 us) stays on the calling
// thread: it streams its input as fast as two threads would.
// CHECK-LABEL: func.func @small_row_sums
// CHECK-NOT: scf.forall
func.func @small_row_sums(%x: tensor<2048x1024xf32>, %init: tensor<2048xf32>) -> tensor<2048xf32> {
  %0 = linalg.reduce ins(%x : tensor<2048x1024xf32>) outs(%init : tensor<2048xf32>)
      dimensions = [1]
  (%in: f32, %acc: f32) {
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  }
  return %0 : tensor<2048xf32>
}

// -----

// An int8 product (67 M multiply-adds, 168 us at 800 GOP/s, a target of 2
// chunks at parallel-work 150 us) whose A (256 KB) every chunk can read
// from L2 and whose C rows are whole cache lines: 4 chunks of 128 columns,
// each packing its own quads of B and starting its part of C from
// -128 rowsum(A) (nothing written on one thread that another then reads).
// CHECK-LABEL: func.func @int8_columns
// INT8-LABEL: func.func @int8_columns
// INT8-NOT: arith.xori
// INT8: scf.forall (%{{.*}}) = (0) to (512) step (128) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<512x512xi32>)
// INT8: arith.xori %{{.*}}, %{{.*}} : vector<4x16xi8>
// INT8: arith.subi %{{.*}}, %{{.*}} : vector<1x64xi32>
// INT8: vector.contract {{.*}} into vector<8x32xi32>
// INT8: tensor.parallel_insert_slice %{{.*}} into %{{.*}}[0, %{{.*}}] [512, 128] [1, 1]
func.func @int8_columns(%a: tensor<512x512xi8>, %b: tensor<512x512xi8>) -> tensor<512x512xi32> {
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<512x512xi32>
  %c = linalg.fill ins(%zero : i32) outs(%e : tensor<512x512xi32>) -> tensor<512x512xi32>
  %0 = linalg.matmul ins(%a, %b : tensor<512x512xi8>, tensor<512x512xi8>)
                     outs(%c : tensor<512x512xi32>) -> tensor<512x512xi32>
  return %0 : tensor<512x512xi32>
}

// -----

// 500 columns are not whole cache lines (chunks of columns would share
// the lines at their edges): chunks of rows, B packed once before them.
// CHECK-LABEL: func.func @int8_rows
// INT8-LABEL: func.func @int8_rows
// INT8: arith.xori %{{.*}}, %{{.*}} : vector<4x16xi8>
// INT8: scf.forall (%{{.*}}) = (0) to (512) step (128) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<512x500xi32>)
// INT8-NOT: arith.xori
// INT8: arith.subi %{{.*}}, %{{.*}} : vector<1x64xi32>
// INT8: tensor.parallel_insert_slice %{{.*}} into %{{.*}}[%{{.*}}, 0] [128, 500] [1, 1]
func.func @int8_rows(%a: tensor<512x512xi8>, %b: tensor<512x500xi8>) -> tensor<512x500xi32> {
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<512x500xi32>
  %c = linalg.fill ins(%zero : i32) outs(%e : tensor<512x500xi32>) -> tensor<512x500xi32>
  %0 = linalg.matmul ins(%a, %b : tensor<512x512xi8>, tensor<512x500xi8>)
                     outs(%c : tensor<512x500xi32>) -> tensor<512x500xi32>
  return %0 : tensor<512x500xi32>
}

// -----

// A bf16 product on k pairs whose A (392 KB) every chunk can read from L2:
// 2 chunks of 8 panels of 32 columns (though the target is 13), each
// interleaving its own pairs of B's rows, rather than chunks of rows that
// each read all of B packed by one core.
// CHECK-LABEL: func.func @bf16_panels
// PAIRS-LABEL: func.func @bf16_panels
// PAIRS-NOT: vector.interleave
// PAIRS: scf.forall (%{{.*}}) = (0) to (16) step (8) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<256x16x32xf32>)
// PAIRS: vector.interleave
// PAIRS: vector.contract {{.*}} : vector<8x2xbf16>, vector<32x2xbf16>
// PAIRS: tensor.parallel_insert_slice %{{.*}} into %{{.*}}[0, %{{.*}}, 0] [256, 8, 32] [1, 1, 1]
func.func @bf16_panels(%a: tensor<256x784xbf16>, %b: tensor<784x512xbf16>) -> tensor<256x512xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x512xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<256x512xf32>) -> tensor<256x512xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<256x784xbf16>, tensor<784x512xbf16>)
                     outs(%c : tensor<256x512xf32>) -> tensor<256x512xf32>
  return %0 : tensor<256x512xf32>
}

// -----

// Small ops (here 4 KB, 0.2 us) stay on the calling thread.
#id = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @small
// CHECK-NOT: scf.forall
func.func @small(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  %e = tensor.empty() : tensor<1024xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<1024xf32>) outs(%e : tensor<1024xf32>) {
  ^bb0(%in: f32, %out: f32):
    %y = arith.negf %in : f32
    linalg.yield %y : f32
  } -> tensor<1024xf32>
  return %0 : tensor<1024xf32>
}

// -----

// A product of few flops per byte (59 MFLOP, 295 us, over 4.9 MB of B)
// whose B the function computes (convolution patches, here a negation)
// stays on one thread: sharing it would save at most 147 us, and moving
// half of B to the other core and back costs more (at 16 bytes a ns). The
// same product of an argument is shared, in 4 chunks of 8 cache tiles.
// CHECK-LABEL: func.func @computed_operand
// CHECK: scf.forall {{.*}} -> (tensor<150x8192xf32>)
// CHECK: arith.negf
// CHECK: %[[ALONE:.*]] = scf.for %{{.*}} = %c0{{.*}} to %c8192 step %c256
// CHECK-NOT: scf.forall
// CHECK: vector.contract
// CHECK: %[[CHUNKED:.*]] = scf.forall (%{{.*}}) = (0) to (8192) step (2048)
// CHECK: vector.contract
// CHECK: return %[[ALONE]], %[[CHUNKED]]
func.func @computed_operand(%w: tensor<24x150xf32>, %x: tensor<150x8192xf32>, %c: tensor<24x8192xf32>) -> (tensor<24x8192xf32>, tensor<24x8192xf32>) {
  %e = tensor.empty() : tensor<150x8192xf32>
  %neg = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<150x8192xf32>) outs(%e : tensor<150x8192xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  } -> tensor<150x8192xf32>
  %0 = linalg.matmul ins(%w, %neg : tensor<24x150xf32>, tensor<150x8192xf32>)
                     outs(%c : tensor<24x8192xf32>) -> tensor<24x8192xf32>
  %1 = linalg.matmul ins(%w, %x : tensor<24x150xf32>, tensor<150x8192xf32>)
                     outs(%c : tensor<24x8192xf32>) -> tensor<24x8192xf32>
  return %0, %1 : tensor<24x8192xf32>, tensor<24x8192xf32>
}
