// RUN: kiln-opt %s --split-input-file --verify-diagnostics --allow-unregistered-dialect
// RUN: not kiln-opt %s --split-input-file --allow-unregistered-dialect --kiln-check-tensor-sizes="max-bytes=64 limit-reason=the-limit" --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=LIMIT

// kiln-opt refuses every tensor type of 2^63 bytes or more before any pass
// runs, wherever it is: signatures (declarations too), op results, region
// arguments. Types of any element type are sized.

// expected-error @+2 {{argument #0 of @f has type 'tensor<9223372036854775807x9223372036854775807xf32>', of 2^63 bytes or more: no machine can hold it}}
// expected-error @+1 {{result #0 of @f has type 'tensor<9223372036854775807x9223372036854775807xf32>', of 2^63 bytes or more: no machine can hold it}}
func.func @f(%x: tensor<9223372036854775807x9223372036854775807xf32>) -> tensor<9223372036854775807x9223372036854775807xf32> {
  return %x : tensor<9223372036854775807x9223372036854775807xf32>
}

// -----

// expected-error @+1 {{argument #0 of @declared has type 'tensor<2305843009213693952xcomplex<f32>>', of 2^63 bytes or more}}
func.func private @declared(tensor<2305843009213693952xcomplex<f32>>)

// -----

func.func @inside(%n: index) -> index {
  // expected-error @+1 {{result #0 has type 'tensor<4611686018427387904xf32>', of 2^63 bytes or more}}
  %e = tensor.empty() : tensor<4611686018427387904xf32>
  %c = arith.constant 0 : index
  %d = tensor.dim %e, %c : tensor<4611686018427387904xf32>
  return %d : index
}

// -----

func.func @region(%n: index) {
  // expected-error @+1 {{region argument #0 has type 'tensor<4611686018427387904xi64>', of 2^63 bytes or more}}
  "test.region"() ({
  ^bb0(%t: tensor<4611686018427387904xi64>):
    "test.end"() : () -> ()
  }) : () -> ()
  return
}

// -----

// Dynamic dimensions count for nothing until they are specialized; an
// element type without a width counts one byte.
func.func @fine(%x: tensor<?x1152921504606846975xf64>, %y: tensor<9223372036854775807x!test.unknown>) {
  return
}

// -----

// With a limit: the largest that fits passes, one byte more does not.
// LIMIT-NOT: @fits has type
// LIMIT: error: argument #0 of @over has type 'tensor<65xi8>', of 65 bytes: more than the-limit (0.0 GiB)
func.func @fits(%x: tensor<2x8xf32>) {
  return
}
func.func @over(%x: tensor<65xi8>) {
  return
}
