// StableHLO's interpreter tests run through Kiln: Kiln's own, in their form
// (interpret/; semantics.mlir holds the values StableHLO's specification
// gives where kiln's own semantics could differ), and a wrong expectation
// is caught.
// RUN: %numpy_python %kiln_src_root/scripts/stablehlo_interpret.py kiln-run %S/interpret --require 23 | FileCheck %s
// RUN: not %numpy_python %kiln_src_root/scripts/stablehlo_interpret.py kiln-run %S/interpret/wrong | FileCheck %s --check-prefix=WRONG

// CHECK: control.mlir: 2 passed, 0 failed, 0 implementation-defined, 0 not covered
// CHECK: elementwise.mlir: 6 passed, 0 failed, 0 implementation-defined, 0 not covered
// CHECK: runner.mlir: 2 passed, 0 failed, 1 implementation-defined, 0 not covered
// CHECK: semantics.mlir: 13 passed, 0 failed, 0 implementation-defined, 0 not covered
// CHECK: uncovered.mlir: 0 passed, 0 failed, 0 implementation-defined, 1 not covered (add_op_test_ui4: {{.*}}Kiln has integers of 8, 16, 32 and 64 bits (and i1), not 'tensor<2xui4>'
// CHECK: IMPLEMENTATION-DEFINED runner.mlir: divide_op_test_by_zero: check 0 (expect_eq): got array([-1, -1], dtype=int32), expected array([0, 0], dtype=int32)
// CHECK: 23 passed, 0 failed, 1 implementation-defined, 1 not covered

// WRONG: FAIL mismatch.mlir: wrong_expectation: check 0 (expect_eq): got array([2, 4], dtype=int32), expected array([2, 5], dtype=int32)
// WRONG: 0 passed, 1 failed, 0 implementation-defined, 0 not covered
