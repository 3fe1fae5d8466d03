#!/bin/bash
# Runs Kiln's end-to-end tests on an NVIDIA GPU, on a machine without LLVM.
#
#   scripts/gpu-check.sh bundle [BUNDLE]   here, after the build: compiles
#       every program the e2e tests check for --target=nvptx, with its
#       arguments and numpy reference, the benchmarks, kiln-run and the
#       runtime core (libkiln_runtime.so, no LLVM) into BUNDLE (gpu-bundle)
#       and BUNDLE.tgz
#   scripts/gpu-check.sh run [BUNDLE]      on the GPU machine: runs every
#       case and compares it with numpy, then the benchmarks beside PyTorch
#       (BUNDLE may be the .tgz, unpacked into a temporary folder)
#
# The folder is about 80 MB (the inputs of long reductions), its .tgz about
# 35 MB: the device tool carries it with `carry: [gpu-bundle.tgz]`.
set -euo pipefail
cd "$(dirname "$0")/.."
MODE=${1:?usage: scripts/gpu-check.sh bundle|run [BUNDLE]}
BUNDLE=$(realpath -m "${2:-gpu-bundle}")
# Debian keeps numpy under /usr/bin/python3; the GPU machine under python3.
PYTHON=${PYTHON:-$([ "${1:-}" = run ] && echo python3 || echo /usr/bin/python3)}

if [ "$MODE" = bundle ]; then
  BIN=build/bin
  rm -rf "$BUNDLE" && mkdir -p "$BUNDLE/cases" "$BUNDLE/bench"
  for test in test/e2e/{elementwise,compute,shape,control_flow,empty,entries,autodiff,scan,remat}.py; do
    echo "bundling $test"
    KILN_GPU_BUNDLE="$BUNDLE/cases" PATH="$BIN:$PATH" \
      "$PYTHON" "$test" "$BIN/kiln-run" > /dev/null
  done
  for program in benchmarks/gpu/*.mlir; do
    "$BIN/kiln-compile" "$program" --target=nvptx \
      -o "$BUNDLE/bench/$(basename "$program" .mlir).so"
  done
  # The runtime's one library beyond the C library: LLVM's OpenMP runtime.
  cp "$(ldd build/lib/libkiln_runtime.so | awk '/libomp/ {print $3}')" \
    "$BUNDLE/"
  cp "$BIN/kiln-run" build/lib/libkiln_runtime.so test/e2e/harness.py \
    scripts/gpu/run_cases.py benchmarks/gpu/bench.py "$BUNDLE/"
  tar czf "$BUNDLE.tgz" -C "$(dirname "$BUNDLE")" "$(basename "$BUNDLE")"
  echo "$(wc -l < "$BUNDLE/cases/cases.jsonl") cases, $(du -sh "$BUNDLE" | cut -f1) in $BUNDLE, $(du -sh "$BUNDLE.tgz" | cut -f1) in $BUNDLE.tgz"
elif [ "$MODE" = run ]; then
  if [ "${BUNDLE%.tgz}" != "$BUNDLE" ]; then
    unpacked=$(mktemp -d)
    tar xzf "$BUNDLE" -C "$unpacked"
    BUNDLE="$unpacked/$(basename "${BUNDLE%.tgz}")"
  fi
  nvidia-smi -L || echo "nvidia-smi: no GPU listed"
  status=0
  "$PYTHON" "$BUNDLE/run_cases.py" "$BUNDLE" || status=$?
  "$PYTHON" "$BUNDLE/bench.py" "$BUNDLE" || status=$?
  exit $status
else
  echo "usage: scripts/gpu-check.sh bundle|run [BUNDLE]" >&2
  exit 2
fi
