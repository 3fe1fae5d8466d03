#!/usr/bin/env bash
# Builds Kiln with sanitizers and runs its tests under them. Not part of
# scripts/test.sh (CI): an instrumented build from nothing takes about
# 25 minutes on 2 cores; run it before a release and after touching memory
# or threads (the README gives the last results).
#
#   scripts/sanitize.sh address   ASan + UBSan + LeakSanitizer (build-asan/,
#                                 with libFuzzer's coverage for
#                                 scripts/fuzz-targets.sh): every ctest entry.
#   scripts/sanitize.sh thread    TSan (build-tsan/): the runtime's gtests,
#                                 its thread pool, async dispatch and
#                                 concurrent calls among them.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
kind=${1:-address}
case "$kind" in
address)
  source "$root/scripts/sanitizers/address.sh"
  "$root/scripts/setup.sh"
  cd "$root/build-asan"
  ctest -j2 --output-on-failure
  ;;
thread)
  export KILN_EXTRA_PACKAGES="libclang-rt-22-dev ${KILN_EXTRA_PACKAGES:-}"
  export KILN_BUILD_DIR=build-tsan
  export KILN_CMAKE_ARGS="-DLLVM_USE_SANITIZER=Thread -DKILN_BUILD_BENCHMARKS=OFF"
  export KILN_TARGETS=KilnRuntimeTests
  export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$root/scripts/sanitizers/tsan.supp"
  "$root/scripts/setup.sh"
  cd "$root/build-tsan"
  ./test/runtime/KilnRuntimeTests
  ;;
*)
  echo "usage: $0 [address|thread]" >&2
  exit 2
  ;;
esac
