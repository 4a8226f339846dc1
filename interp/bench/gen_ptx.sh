#!/usr/bin/env bash
# Regenerates the benchmark kernels' PTX (nvcc 13, -arch=sm_75 -ptx -O3).
set -euo pipefail
cd "$(dirname "$0")"
for k in spin vadd; do nvcc -arch=sm_75 -ptx -O3 "$k.cu" -o "$k.sm_75.ptx"; done
