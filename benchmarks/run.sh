#!/usr/bin/env bash
# Builds Kiln (scripts/setup.sh) and runs kiln-bench on one thread and on
# two, then the spreads of matmul shapes (against numpy, PyTorch and oneDNN,
# plotted to build/matmul_spread.png), of dense layers with epilogues (against
# PyTorch and numpy), of dot_general layouts (against numpy), of
# normalizations (against PyTorch), of imported convolutions and poolings
# and of JAX's convolution gradients (against PyTorch), of attention shapes (against PyTorch), of everyday
# gathers, reductions and data movement (against PyTorch), of int8 matmuls
# (against oneDNN and PyTorch), of imported sorts (against numpy and
# PyTorch) and of thread counts (against PyTorch),
# an MLP training step and a transformer block's forward and backward pass
# (against PyTorch, 1 and 2 threads): Kiln and its
# peers side by side in one run, one thread each unless said.
# OpenBLAS 0.3.21 mistakes AVX-512 CPUs with bf16 for Prescott, so its best
# kernel is chosen explicitly.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
KILN_EXTRA_PACKAGES=python3-matplotlib "$root/scripts/setup.sh"
if grep -q avx512_bf16 /proc/cpuinfo; then
  export OPENBLAS_CORETYPE=Cooperlake
elif grep -q avx512f /proc/cpuinfo; then
  export OPENBLAS_CORETYPE=SkylakeX
fi
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 OMP_WAIT_POLICY=PASSIVE
"$root/build/bin/kiln-bench" "$@"
"$root/build/bin/kiln-bench" --threads 2 "$@"
/usr/bin/python3 "$root/benchmarks/matmul_spread.py" "$root/build/bin/kiln-run" \
  --plot "$root/build/matmul_spread.png"
/usr/bin/python3 "$root/benchmarks/epilogue_spread.py" "$root/build/bin/kiln-run"
/usr/bin/python3 "$root/benchmarks/dot_spread.py" "$root/build/bin/kiln-run"
/usr/bin/python3 "$root/benchmarks/norm_spread.py" "$root/build/bin/kiln-run"
/usr/bin/python3 "$root/benchmarks/conv_spread.py" "$root/build/bin/kiln-run"
/usr/bin/python3 "$root/benchmarks/conv_grad_spread.py" "$root/build/bin/kiln-run"
/usr/bin/python3 "$root/benchmarks/attention_spread.py" "$root/build/bin/kiln-run"
/usr/bin/python3 "$root/benchmarks/op_spread.py" "$root/build/bin/kiln-run"
/usr/bin/python3 "$root/benchmarks/int8_spread.py" "$root/build/bin/kiln-run"
/usr/bin/python3 "$root/benchmarks/sort_spread.py" "$root/build/bin/kiln-run"
/usr/bin/python3 "$root/benchmarks/thread_spread.py" "$root/build/bin/kiln-run"
/usr/bin/python3 "$root/benchmarks/mlp_step.py" "$root/build/bin/kiln-run"
/usr/bin/python3 "$root/benchmarks/transformer_step.py" "$root/build/bin/kiln-run"
/usr/bin/python3 "$root/benchmarks/sharded_step.py" "$root/build/bin/kiln-run"
