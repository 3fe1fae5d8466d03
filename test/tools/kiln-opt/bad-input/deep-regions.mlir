// Regions nested 1001 deep are refused; 999 deep still parse, canonicalize
// and print.
// RUN: %python %S/nest.py 1001 > %t.deep.mlir
// RUN: not kiln-opt %t.deep.mlir 2>&1 | FileCheck %s --check-prefix=DEEP
// DEEP: deep.mlir:1001:{{[0-9]+}}: error: brackets nest deeper than 1000 levels
// RUN: %python %S/nest.py 999 > %t.ok.mlir
// RUN: kiln-opt %t.ok.mlir --canonicalize | FileCheck %s --check-prefix=OK
// OK: func.func @deep
