#!/usr/bin/env bash
# Builds Kiln with sanitizers and runs its tests under them. Not part of
# scripts/test.sh (CI): an instrumented build from nothing takes about
# 40 minutes on 2 cores; run it before a release and after touching memory
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
export KILN_EXTRA_PACKAGES="libclang-rt-22-dev ${KILN_EXTRA_PACKAGES:-}"
# What the runs report is in the environment, where LLVM's and MLIR's
# uninstrumented code meets the instrumented: known leaks of libraries
# Kiln only calls are suppressed by name.
export LSAN_OPTIONS="suppressions=$root/scripts/sanitizers/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
case "$kind" in
address)
  export KILN_BUILD_DIR=build-asan
  export KILN_CMAKE_ARGS="-DLLVM_USE_SANITIZER=Address;Undefined -DLLVM_USE_SANITIZE_COVERAGE=ON -DKILN_BUILD_BENCHMARKS=OFF"
  # allow_user_poisoning=0: LLVM's allocators poison their free memory in
  # Kiln's instrumented copies of their inline code but not in Debian's
  # uninstrumented libLLVM and libMLIR, which then hand out memory ASan
  # believes poisoned (false use-after-poison reports).
  export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:allow_user_poisoning=0"
  "$root/scripts/setup.sh"
  cd "$root/build-asan"
  ctest -j2 --output-on-failure
  ;;
thread)
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
