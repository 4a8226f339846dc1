#!/usr/bin/env bash
# ctest compiler.hf_cross_check: compiled units in stock Hugging Face transformers vs the
# engine, bit for bit (tools/hf_unit_check.py). Exit 77 (skipped) when no python with the
# pinned torch/transformers is found: QGPU_TORCH_PYTHON, else ci/torch-env's venv.
# The fourth argument picks the units: `all`, `joined` (the joined step and its parts:
# front, operands, alu, alu_write, memory, float_lane), `ci` (one unit of each kind of layer
# the joined step is built from: MLP thresholds and gates, the multiplier, the FFMA datapath,
# slot memory, a counter, an attention lookup of three queries, a conv-window read, the write
# token) or `rest` (every other unit: nightly). Every unit is checked in our engine in CI
# (Units/CompiledUnit_.*); transformers is checked against the engine, and one unit of each
# layer kind exercises every tensor kind the emitter writes. The whole `ci` set of before
# (about 35 units) took 607 s alone and passed its 1,200 s timeout on a loaded machine. The joined step's weights are checked against the IR in our engine in CI
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
ci = {"add32", "logic32", "setp_s32", "shfl", "bra", "exit", "lsu32x1", "rom12x3", "window16", "ffma32x1", "mul32",
      "count16", "write_token"}
if which not in ("all", "joined", "ci", "rest"): sys.exit("hf_cross_check: want all, joined, ci or rest, not " + which)
pick = lambda u: (which == "all" or (which == "joined" and u in joined) or (which == "ci" and u in ci)
                  or (which == "rest" and u not in joined and u not in ci))
print(" ".join(u["unit"] + ":" + ("130" if u["deltanet_heads"] else "48") for u in json.load(sys.stdin)
               if u["emitted"] and u["unit"] != "lsu32" and pick(u["unit"])))'); do
  unit=${entry%%:*}
  "$qgpu" compile unit "$unit" --out "$out/$unit" --samples "${entry##*:}" >/dev/null
  dirs+=("$out/$unit")
done
# One python process for all units: importing torch costs more than most units' checks.
exec "$py" "$src/tools/hf_unit_check.py" "${dirs[@]}" --json-dir "$out" 2>/dev/null
