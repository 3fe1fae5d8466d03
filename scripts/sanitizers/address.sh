# The ASan + UBSan + LeakSanitizer build (build-asan/, with libFuzzer's
# coverage) and the options its runs need: sourced, with $root set, by
# scripts/sanitize.sh address and scripts/fuzz-targets.sh, which share it.
export KILN_EXTRA_PACKAGES="libclang-rt-22-dev ${KILN_EXTRA_PACKAGES:-}"
export KILN_BUILD_DIR=build-asan
export KILN_CMAKE_ARGS="-DLLVM_USE_SANITIZER=Address;Undefined -DLLVM_USE_SANITIZE_COVERAGE=ON -DKILN_BUILD_BENCHMARKS=OFF"
# allow_user_poisoning=0: LLVM's allocators poison their free memory in
# Kiln's instrumented copies of their inline code but not in Debian's
# uninstrumented libLLVM and libMLIR, which then hand out memory ASan
# believes poisoned (false use-after-poison reports).
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:allow_user_poisoning=0"
# Known leaks of libraries Kiln only calls are suppressed by name.
export LSAN_OPTIONS="suppressions=$root/scripts/sanitizers/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
