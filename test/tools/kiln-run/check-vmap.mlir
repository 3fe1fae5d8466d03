// kiln-run --check-vmap runs the entry's kiln.vmap on a batch of arguments
// (batched along --in-axes, all 0 by default; -1 for an argument every
// call shares) and compares each result with a loop of calls on the
// slices; a batch that does not fit the entry is a clear error.
// RUN: %numpy_python -c "import numpy as np; r = np.random.default_rng(0); np.savez('%t.rows.npz', arg0=r.standard_normal((7, 4)).astype(np.float32), arg1=r.standard_normal((4, 3)).astype(np.float32)); np.savez('%t.both.npz', arg0=r.standard_normal((4, 5)).astype(np.float32), arg1=r.standard_normal((4, 3, 5)).astype(np.float32)); np.savez('%t.sizes.npz', arg0=r.standard_normal((4, 5)).astype(np.float32), arg1=r.standard_normal((4, 3, 6)).astype(np.float32))"
// RUN: kiln-run %s --entry layer --input %t.rows.npz --check-vmap --in-axes 0,-1 | FileCheck %s --check-prefix=ROWS
// ROWS: layer: kiln.vmap over 7 slices (in_axes 0, -1) against a loop of calls
// ROWS-NEXT: out0 tensor<3xf32>: worst difference {{.*}} (tolerance 1e-05): ok
// ROWS-NEXT: out1 tensor<i32>: worst difference 0.00e+00 (tolerance 0e+00): ok
// RUN: kiln-run %s --entry layer --input %t.both.npz --check-vmap --in-axes=1,2 | FileCheck %s --check-prefix=BOTH
// BOTH: layer: kiln.vmap over 5 slices (in_axes 1, 2)
// BOTH-COUNT-2: ok
// RUN: not kiln-run %s --entry layer --input %t.rows.npz --check-vmap 2>&1 | FileCheck %s --check-prefix=DEFAULT
// DEFAULT: kiln-run: error: --check-vmap: arg1 is tensor<4x3xf32>, which cannot be layer's tensor<4x3xf32> batched along axis 0
// RUN: not kiln-run %s --entry layer --input %t.sizes.npz --check-vmap --in-axes 1,2 2>&1 | FileCheck %s --check-prefix=SIZES
// SIZES: kiln-run: error: --check-vmap: arg1 has batch size 6 but the batch size is 5
// RUN: not kiln-run %s --entry layer --input %t.rows.npz --check-vmap --in-axes 0 2>&1 | FileCheck %s --check-prefix=COUNT
// COUNT: kiln-run: error: --in-axes has 1 entries but layer takes 2 arguments
// RUN: not kiln-run %s --entry layer --input %t.rows.npz --check-vmap --in-axes 0,x 2>&1 | FileCheck %s --check-prefix=AXIS
// AXIS: kiln-run: error: --in-axes: 'x' is not a batch axis (-1 for none, else 0 to 64)
// RUN: not kiln-run %s --entry layer --input %t.rows.npz --check-vmap --in-axes -1,-1 2>&1 | FileCheck %s --check-prefix=NONE
// NONE: kiln-run: error: --check-vmap: no argument is batched
func.func @layer(%x: tensor<4xf32>, %w: tensor<4x3xf32>) -> (tensor<3xf32>, tensor<i32>) {
  %y = kiln.dot_general %x, %w, contracting = [0] x [0] : (tensor<4xf32>, tensor<4x3xf32>) -> tensor<3xf32>
  %t = kiln.tanh %y : tensor<3xf32>
  %i = kiln.argmax %t, dim = 0 : (tensor<3xf32>) -> tensor<i32>
  return %t, %i : tensor<3xf32>, tensor<i32>
}
