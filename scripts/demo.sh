#!/usr/bin/env bash
# Sets up and builds Kiln (scripts/setup.sh), then runs the demo: compiles
# the MLP classifier in scripts/demo/train.mlir (whose train_step takes its
# gradient with kiln.value_and_grad) to an artifact, checks the first
# step's gradients against PyTorch's autograd, and trains it with SGD on
# three interleaved spirals through the runtime's C API; then runs the
# sequence models (scripts/demo/sequences.py): an RNN written with
# kiln.scan against PyTorch's nn.RNN, and gradient accumulation.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
demo="$root/scripts/demo"
echo "== kiln-compile $demo/train.mlir -o train.kmod"
"$root/build/bin/kiln-compile" "$demo/train.mlir" -o "$work/train.kmod"
echo "== train.py: train_step called through libkiln_runtime.so"
/usr/bin/python3 "$demo/train.py" "$root/build/lib" "$demo/train.mlir" \
  "$work/train.kmod" "$@"
echo "== sequences.py: an RNN and gradient accumulation with kiln.scan"
/usr/bin/python3 "$demo/sequences.py" "$root/build/lib" "$root"
