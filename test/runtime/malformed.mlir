// Every malformed file in malformed/ is rejected with a clear message
// (make_malformed.py says how each was made).
// RUN: for f in %S/malformed/*; do echo "== $(basename $f)"; not kiln-npz_tool $f %t.npz stored; done | FileCheck %s

// CHECK-LABEL: == bad-crc.npz
// CHECK-NEXT: error: {{.*}}bad-crc.npz member arg0.npy: CRC-32 mismatch
// CHECK-LABEL: == bad-magic.npy
// CHECK-NEXT: error: {{.*}}bad-magic.npy: not a .npy file (bad magic)
// CHECK-LABEL: == big-endian.npy
// CHECK-NEXT: error: {{.*}}big-endian.npy: unsupported dtype '>f4' (supported: float32, float64, float16, bool, int8 to int64, uint8 to uint64 read as the ints of the same bits; little-endian, no objects)
// CHECK-LABEL: == bomb.npz
// CHECK-NEXT: error: {{.*}}bomb.npz member arg0.npy: declares 3221225472 bytes, more than its {{[0-9]+}} compressed bytes can hold
// CHECK-LABEL: == bzip2.npz
// CHECK-NEXT: error: {{.*}}bzip2.npz member arg0.npy: unsupported compression method 12
// CHECK-LABEL: == fortran.npy
// CHECK-NEXT: error: {{.*}}fortran.npy: Fortran-ordered arrays are not supported
// CHECK-LABEL: == huge-header.npy
// CHECK-NEXT: error: {{.*}}huge-header.npy: header of 1073741824 bytes is larger than the 65536 allowed
// CHECK-LABEL: == negative-dim.npy
// CHECK-NEXT: error: {{.*}}negative-dim.npy: invalid dimension '-1' in the shape
// CHECK-LABEL: == not-npy-member.npz
// CHECK-NEXT: error: {{.*}}not-npy-member.npz member arg0.npy: not a .npy file (bad magic)
// CHECK-LABEL: == not-zip.npz
// CHECK-NEXT: error: {{.*}}not-zip.npz: not a zip file (no end of central directory)
// CHECK-LABEL: == overflow.npy
// CHECK-NEXT: error: {{.*}}overflow.npy: the shape's size in bytes overflows
// CHECK-LABEL: == pickle.npy
// CHECK-NEXT: error: {{.*}}pickle.npy: unsupported dtype '|O'
// CHECK-LABEL: == short-data.npy
// CHECK-NEXT: error: {{.*}}short-data.npy: the header declares 16 bytes of data but the file holds 12
// CHECK-LABEL: == truncated-header.npy
// CHECK-NEXT: error: {{.*}}truncated-header.npy: truncated header
// CHECK-LABEL: == truncated.npz
// CHECK-NEXT: error: {{.*}}truncated.npz: not a zip file (no end of central directory)
// CHECK-LABEL: == version.npy
// CHECK-NEXT: error: {{.*}}version.npy: unsupported .npy version 9
