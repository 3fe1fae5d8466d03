// A corrupt MLIR bytecode file.
// RUN: not kiln-opt %S/bad-bytecode.mlirbc 2>&1 | FileCheck %s
// CHECK: bad-bytecode.mlirbc{{.*}}error:
