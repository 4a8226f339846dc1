#!/usr/bin/env bash
# ctest compiler.hf_token_check: a token-driven compiled checkpoint (TokenIO's counter) in
# stock Hugging Face transformers: greedy generate and a full recompute must give our
# engine's streams (tools/hf_token_check.py). Exit 77 (skipped) when no python with the pinned
# torch/transformers is found: QGPU_TORCH_PYTHON, else ci/torch-env's venv.
set -euo pipefail
tests=$1 src=$2 out=$3
source "$(dirname "$0")/torch_python.sh" hf_token_check
rm -rf "$out"
QGPU_TOKEN_CHECKPOINT=$out "$tests" --gtest_filter=TokenIO.CheckpointOnDiskGeneratesTheSameStreams >/dev/null
"$py" "$src/tools/hf_token_check.py" "$out" --json "$out/result.json" 2>/dev/null
