#!/usr/bin/env bash
# Sets up and builds Kiln (scripts/setup.sh), then runs the demo: compiles
# the MLP forward pass in scripts/demo/mlp.mlir to an artifact, runs it on a
# generated batch, and compares the results with numpy.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
demo="$root/scripts/demo"
bin="$root/build/bin"
/usr/bin/python3 "$demo/make_data.py" "$work/in.npz" "$work/reference.npz"
echo "== kiln-compile $demo/mlp.mlir -o mlp.kmod"
"$bin/kiln-compile" "$demo/mlp.mlir" -o "$work/mlp.kmod"
echo "== kiln-run mlp.kmod --entry predict --input in.npz --print"
"$bin/kiln-run" "$work/mlp.kmod" --entry predict --input "$work/in.npz" \
  --output "$work/out.npz" --print --bench 20
echo "== compared with numpy"
/usr/bin/python3 "$demo/compare.py" "$work/out.npz" "$work/reference.npz"
