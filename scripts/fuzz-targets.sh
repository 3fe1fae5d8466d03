#!/usr/bin/env bash
# Runs each fuzz target (test/fuzz/) under libFuzzer with ASan and UBSan
# for SECONDS (default 600), from its seeds and the other tests' inputs,
# and prints a line of figures per target: inputs executed, coverage
# (libFuzzer's edges "cov" and features "ft", of Kiln's own code: LLVM and
# MLIR are not instrumented), corpus size, and crashes. Builds build-asan/
# (scripts/sanitize.sh address) first. A crash's input is kept as
# build-asan/fuzz/<target>/crash-*; fixed, it is copied to
# test/fuzz/<target>/ under a name saying what it broke.
#
#   scripts/fuzz-targets.sh [SECONDS] [TARGET...]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-600}
shift || true
targets=("$@")
((${#targets[@]})) || targets=(parse compile npz manifest cache-entry call)
source "$root/scripts/sanitizers/address.sh"
export KILN_TARGETS="${targets[*]/#/kiln-fuzz-}"
"$root/scripts/setup.sh" > /dev/null

build="$root/build-asan"
# Where each target's ctest entry finds its corpus (its COMMAND's folders).
corpus_of() {
  ctest --test-dir "$build" -R "^fuzz-$1-corpus\$" --show-only=json-v1 |
    /usr/bin/python3 -c 'import json, sys
for test in json.load(sys.stdin)["tests"]:
    print("\n".join(a for a in test["command"][1:] if not a.startswith("-")))'
}

printf '%-12s %12s %16s %8s %8s %8s\n' target executed 'cov (of edges)' ft \
  corpus crashes
status=0
for target in "${targets[@]}"; do
  work="$build/fuzz/$target"
  mkdir -p "$work/corpus"
  mapfile -t seeds < <(corpus_of "$target")
  log="$work/log.txt"
  # -timeout: an input running 25 s is a hang; -rss_limit_mb: 4 GiB.
  "$build/bin/kiln-fuzz-$target" "$work/corpus" "${seeds[@]}" \
    -max_total_time="$seconds" -timeout=25 -rss_limit_mb=4096 \
    -print_final_stats=1 -artifact_prefix="$work/" > "$log" 2>&1 ||
    status=1
  executed=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  done_line=$(grep -E '^#[0-9]+' "$log" | tail -1)
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<< "$done_line")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<< "$done_line")
  edges=$(sed -n 's/.*(\([0-9]*\) inline 8-bit counters).*/\1/p' "$log" | head -1)
  crashes=$(find "$work" -maxdepth 1 \( -name 'crash-*' -o -name 'leak-*' \
    -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
  printf '%-12s %12s %16s %8s %8s %8s\n' "$target" "${executed:-?}" \
    "${cov:-?} (${edges:-?})" "${ft:-?}" "$(ls "$work/corpus" | wc -l)" \
    "$crashes"
done
exit $status
