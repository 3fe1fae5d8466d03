#!/usr/bin/env bash
# Sets up and builds Kiln (scripts/setup.sh), then runs the demo: kiln-opt
# verifies the demo program and simplifies it with the kiln folders and
# canonicalization patterns.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
program="$root/scripts/demo/mlp.mlir"
echo "== kiln-opt --canonicalize $program"
"$root/build/bin/kiln-opt" "$program" --canonicalize
