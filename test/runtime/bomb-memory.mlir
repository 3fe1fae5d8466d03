// Files that declare more than they hold are refused without allocating
// what they declare: under a 1 GiB address space the reader still gives
// its error. A zip bomb (malformed/bomb.npz: 3 GiB declared in a member of
// 75 bytes), and the npz fuzz target's oom-reserve-declared-size (a
// member of 4 GiB declared compressed in a file of 219 bytes): the reader
// reserved the declared size first until the target found each.
// UNSUPPORTED: asan
// RUN: not sh -c "ulimit -v 1048576; kiln-npz_tool %S/malformed/bomb.npz %t.npz stored" 2>&1 | FileCheck %s --check-prefix=BOMB
// BOMB: error: {{.*}}bomb.npz member arg0.npy: declares 3221225472 bytes, more than its {{[0-9]+}} compressed bytes can hold
// RUN: not sh -c "ulimit -v 1048576; kiln-npz_tool %S/../fuzz/npz/oom-reserve-declared-size %t.npz stored" 2>&1 | FileCheck %s --check-prefix=RESERVE
// RESERVE: error: {{.*}}oom-reserve-declared-size member : corrupt local header
