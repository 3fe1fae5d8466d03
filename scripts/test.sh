#!/usr/bin/env bash
# Sets up and builds Kiln (scripts/setup.sh), then runs every test.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
echo "== testing"
cd "$root/build"
ctest --output-on-failure
