// RUN: kiln-opt %s --convert-kiln-to-linalg --split-input-file -verify-diagnostics

// Lowering computes with sizes: dynamic dimensions are specialized first.
// expected-error @+1 {{@dynamic has dynamic dimensions ('(tensor<?x4xf32>) -> tensor<?x4xf32>'): give them sizes with kiln-specialize-shapes before lowering}}
func.func @dynamic(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = kiln.exp %x : tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
