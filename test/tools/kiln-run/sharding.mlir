// A sharded program runs on its mesh's devices; --show-sharding draws each
// argument's and result's layout over the mesh (device numbers row-major
// over the axes); --devices checks the device count.
// RUN: %numpy_python %S/make_inputs.py %t
// RUN: kiln-run %s --entry add --input %t.good.npz --devices 2 --show-sharding --print | FileCheck %s
// CHECK: add runs on 2 devices (mesh x=2)
// CHECK-NEXT: arg0 f32[4]: dimension 0 over x(2);
// CHECK-NEXT:   +---+---+
// CHECK-NEXT:   | 0 | 1 |
// CHECK-NEXT:   +---+---+
// CHECK-NEXT: arg1 f32[4]: whole on every device
// CHECK-NEXT:   +-----+
// CHECK-NEXT:   | 0 1 |
// CHECK-NEXT:   +-----+
// CHECK-NEXT: out0 f32[4]: dimension 0 over x(2);
// CHECK: out0 = f32[4]
// CHECK-NEXT: [11. 22. 33. 44.]
// RUN: not kiln-run %s --entry add --input %t.good.npz --devices 4 2>&1 | FileCheck %s --check-prefix=COUNT
// COUNT: kiln-run: error: --devices 4: {{.*}}sharding.mlir runs on 2 devices (the devices of its mesh)
kiln.mesh @mesh ["x"=2]
func.func @add(%x: tensor<4xf32> {kiln.sharding = #kiln.sharding<@mesh, [{"x"}]>},
               %y: tensor<4xf32> {kiln.sharding = #kiln.sharding<@mesh, [{}]>}) -> tensor<4xf32> {
  %s = kiln.add %x, %y : tensor<4xf32>
  return %s : tensor<4xf32>
}
