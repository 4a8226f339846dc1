#!/usr/bin/env bash
# ctest compiler.hf_cross_check: compiled units in stock Hugging Face transformers vs the
# engine, bit for bit (tools/hf_unit_check.py). Exit 77 (skipped) when no python with the
# pinned torch/transformers is found: QGPU_TORCH_PYTHON, else ci/torch-env's venv.
# The fourth argument picks the units: `all`, `joined` (the joined step and its parts:
# front, operands, alu, alu_write, memory, float_lane) or `ci` (every other unit: each kind of layer the joined
# step is built from, the sequencer, fetch, commit, registers, write form and token among
# them). The joined step's weights are checked against the IR in our engine in CI
# (Alu.CompiledThroughTheEngine, compiler.alu_write_from_token_ids); in transformers by the
# nightly label: compiling and checking alu_write alone takes about 3.5 minutes, and this
# test had reached 1,188 s of its 1,200 s timeout in a loaded CI run.
set -euo pipefail
qgpu=$1 src=$2 out=$3 which=${4:-all}
source "$(dirname "$0")/torch_python.sh" hf_cross_check
rm -rf "$out"; mkdir -p "$out"
# Left out: lsu32 (256 banks).
dirs=()
for entry in $("$qgpu" compile units --json | WHICH=$which "$py" -c '
import json, os, sys
which = os.environ["WHICH"]
joined = {"front", "operands", "alu", "alu_write", "memory", "float_lane"}
if which not in ("all", "joined", "ci"): sys.exit("hf_cross_check: want all, joined or ci, not " + which)
pick = lambda u: which == "all" or (u in joined) == (which == "joined")
print(" ".join(u["unit"] + ":" + ("130" if u["deltanet_heads"] else "48") for u in json.load(sys.stdin)
               if u["emitted"] and u["unit"] != "lsu32" and pick(u["unit"])))'); do
  unit=${entry%%:*}
  "$qgpu" compile unit "$unit" --out "$out/$unit" --samples "${entry##*:}" >/dev/null
  dirs+=("$out/$unit")
done
# One python process for all units: importing torch costs more than most units' checks.
exec "$py" "$src/tools/hf_unit_check.py" "${dirs[@]}" --json-dir "$out" 2>/dev/null
