"""Writes the malformed .npy and .npz files of malformed/ (run it to
regenerate them; malformed.mlir checks what the runtime says of each)."""
import io
import os
import struct
import zipfile

import numpy as np

here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "malformed")
os.makedirs(here, exist_ok=True)


def npy(header, data=b"", version=1):
    """A .npy image with the literal header dict `header`."""
    text = header.encode("latin1") + b"\n"
    if version == 1:
        return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(text)) + text + data
    return (b"\x93NUMPY" + bytes([version, 0]) + struct.pack("<I", len(text)) +
            text + data)


def write(name, content):
    with open(os.path.join(here, name), "wb") as f:
        f.write(content)


good = io.BytesIO()
np.save(good, np.arange(4, dtype=np.float32))
good = good.getvalue()

write("bad-magic.npy", b"NOTNUMPY" + good[8:])
write("truncated-header.npy", good[:20])
write("pickle.npy", npy("{'descr': '|O', 'fortran_order': False, 'shape': (1,), }",
                        b"\x80\x04N."))
write("big-endian.npy", npy("{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }",
                            b"\0\0\0\0"))
write("fortran.npy", npy("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }",
                         b"\0" * 16))
write("huge-header.npy", b"\x93NUMPY\x02\x00" + struct.pack("<I", 1 << 30) + b"{")
write("overflow.npy", npy("{'descr': '<f8', 'fortran_order': False, "
                          "'shape': (1099511627776, 1099511627776), }"))
write("short-data.npy", good[:-4])
write("negative-dim.npy", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }"))
write("version.npy", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (0,), }",
                         version=9))

zipped = io.BytesIO()
with zipfile.ZipFile(zipped, "w", zipfile.ZIP_STORED) as z:
    z.writestr("arg0.npy", good)
zipped = zipped.getvalue()
write("not-zip.npz", b"PK\x05\x05 this is not a zip file at all")
bad_crc = bytearray(zipped)
bad_crc[zipped.index(good) + len(good) - 1] ^= 0xFF
write("bad-crc.npz", bytes(bad_crc))
write("truncated.npz", zipped[: len(zipped) // 2])

deflated = io.BytesIO()
with zipfile.ZipFile(deflated, "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("arg0.npy", npy("{'descr': '<f4', 'fortran_order': False, "
                               "'shape': (256,), }", b"\0" * 1024))
deflated = bytearray(deflated.getvalue())
# Declare 3 GiB uncompressed in the central directory: a zip bomb.
central = deflated.rindex(b"PK\x01\x02")
deflated[central + 24:central + 28] = struct.pack("<I", 3 << 30)
write("bomb.npz", bytes(deflated))
method = bytearray(zipped)
central = method.rindex(b"PK\x01\x02")
method[central + 10:central + 12] = struct.pack("<H", 12)  # bzip2
write("bzip2.npz", bytes(method))
text = io.BytesIO()
with zipfile.ZipFile(text, "w") as z:
    z.writestr("arg0.npy", b"just some text")
write("not-npy-member.npz", text.getvalue())
