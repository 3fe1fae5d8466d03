#!/usr/bin/env bash
# Installs what Kiln needs from Debian's archive (once), then configures and
# builds Kiln into build/ (incrementally, through ccache). Other builds
# (scripts/sanitize.sh) name their folder in KILN_BUILD_DIR, their CMake
# options in KILN_CMAKE_ARGS and the targets they need in KILN_TARGETS.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

packages=(libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools clang-22
          lld-22 libclang-rt-22-dev zlib1g-dev ninja-build ccache cmake python3-numpy python3-torch
          libgtest-dev libopenblas-dev libdnnl-dev libomp-22-dev
          openmpi-bin libopenmpi-dev)
# Callers may need more (benchmarks/run.sh: matplotlib for its plots).
read -r -a extra <<< "${KILN_EXTRA_PACKAGES:-}"
packages+=("${extra[@]}")
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
    missing+=("$p")
done
if ((${#missing[@]})); then
  echo "== installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  # A third-party source that is out of reach must not stop the install.
  $sudo apt-get update -q || echo "apt-get update failed; installing anyway"
  $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

export CCACHE_BASEDIR="$root"
export CCACHE_DIR="${CCACHE_DIR:-$HOME/.cache/kiln-ccache}"
llvm=/usr/lib/llvm-22
build="$root/${KILN_BUILD_DIR:-build}"
read -r -a cmake_args <<< "${KILN_CMAKE_ARGS:-}"
read -r -a targets <<< "${KILN_TARGETS:-all}"
if [ ! -f "$build/build.ninja" ]; then
  echo "== configuring $build"
  cmake -G Ninja -S "$root" -B "$build" "${cmake_args[@]}" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER="$llvm/bin/clang" \
    -DCMAKE_CXX_COMPILER="$llvm/bin/clang++" \
    -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
    -DLLVM_USE_LINKER=lld \
    -DMLIR_DIR="$llvm/lib/cmake/mlir" \
    -DLLVM_EXTERNAL_LIT="$llvm/bin/lit"
fi
echo "== building"
cmake --build "$build" --target "${targets[@]}"
