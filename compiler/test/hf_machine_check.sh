#!/usr/bin/env bash
# ctest compiler.hf_machine (labels hf, compiler-hf, model-backend, nightly): the whole compiled
# machine in stock Hugging Face transformers. `qgpu compile machine --out DIR` (about 2 minutes,
# 17 GB), then tools/hf_machine_run.py: greedy generate from each launch's prompt must give the
# reference executor's stream token for token (and the full recompute each next token), for
# the kernels named after the first three arguments, both flavours. The f32 model takes about
# 16 GB. Exit 77 (skipped) when no python with the pinned torch/transformers is found.
set -euo pipefail
qgpu=$1 src=$2 out=$3
shift 3
source "$(dirname "$0")/torch_python.sh" hf_machine_check
rm -rf "$out"
"$qgpu" compile machine --out "$out/gpu" >/dev/null
kernels=()
for k in "$@"; do kernels+=("$src/kernels/$k"); done
status=0
"$py" "$src/tools/hf_machine_run.py" "$out/gpu" "${kernels[@]}" --qgpu "$qgpu" --json "$out/hf_machine.json" || status=$?
rm -f "$out/gpu/model.safetensors"  # 8 GB
exit $status
