"""Writes corrupt copies of the artifact argv[1] next to it: truncated, and
with a manifest that lies about a result's shape or an argument's dtype."""
import sys

path = sys.argv[1]
with open(path, "rb") as f:
    image = f.read()
with open(path + ".truncated", "wb") as f:
    f.write(image[: len(image) // 2])


def edit(old, new, suffix):
    assert image.count(old) == 1, old
    with open(path + suffix, "wb") as f:
        f.write(image.replace(old, new))


edit(b"result f32 4\n", b"result f32 9\n", ".shape")
edit(b"arg f32 4\n", b"arg f64 4\n", ".dtype")
