// A zip bomb (malformed/bomb.npz: 3 GiB declared in a member of 75 bytes)
// is refused without allocating what it declares: under a 1 GiB address
// space the reader still gives its error (it reserved 3 GiB first until
// the npz fuzz target found it).
// UNSUPPORTED: asan
// RUN: not sh -c "ulimit -v 1048576; kiln-npz_tool %S/malformed/bomb.npz %t.npz stored" 2>&1 | FileCheck %s
// CHECK: error: {{.*}}bomb.npz member arg0.npy: declares 3221225472 bytes, more than its {{[0-9]+}} compressed bytes can hold
