#!/usr/bin/env bash
# ctest compiler.hf_cross_check: compiled units in stock Hugging Face transformers vs the
# engine, bit for bit (tools/hf_unit_check.py). Exit 77 (skipped) when no python with the
# pinned torch/transformers is found: QGPU_TORCH_PYTHON, else ci/torch-env's venv.
set -euo pipefail
qgpu=$1 src=$2 out=$3
source "$(dirname "$0")/torch_python.sh" hf_cross_check
rm -rf "$out"; mkdir -p "$out"
# Left out: lsu32 (256 banks).
dirs=()
for entry in $("$qgpu" compile units --json | "$py" -c 'import json,sys; print(" ".join(u["unit"] + ":" + ("130" if u["deltanet_heads"] else "48") for u in json.load(sys.stdin) if u["emitted"] and u["unit"] != "lsu32"))'); do
  unit=${entry%%:*}
  "$qgpu" compile unit "$unit" --out "$out/$unit" --samples "${entry##*:}" >/dev/null
  dirs+=("$out/$unit")
done
# One python process for all units: importing torch costs more than most units' checks.
exec "$py" "$src/tools/hf_unit_check.py" "${dirs[@]}" --json-dir "$out" 2>/dev/null
