// Mutated JAX exports (this folder's modules with tokens replaced, deleted
// or renumbered) are imported or refused with an error, never crash.
// RUN: %numpy_python %S/mutate_exports.py kiln-opt %S 300 11 | FileCheck %s
// CHECK: 0 of 300 mutants crashed or hung
