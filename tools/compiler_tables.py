#!/usr/bin/env python3
"""The measured tables of the compiled units in docs/machine.md.

Runs `qgpu compile units` (every unit compiled for 4 lanes and proven exact) and writes
its cost table (§5.1.1) between `<!-- compiler-tables:units -->` and
`<!-- /compiler-tables:units -->`, and from `qgpu compile units --json` the placement of
the step's units into the layers of §5.2 (stage_fit.py) between
`<!-- compiler-tables:stage -->` and `<!-- /compiler-tables:stage -->`, and from
`qgpu compile plan step --json` the built layer map of the whole step (§5.2) between
`<!-- compiler-tables:layer-map -->` and `<!-- /compiler-tables:layer-map -->` (--write); or fails if
the committed tables differ from a fresh measurement (--check, the ctest
compiler.tables_up_to_date).
"""
import argparse
import json
import pathlib
import subprocess
import sys

import stage_fit
from doc_tables import replace_marked

ROOT = pathlib.Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "machine.md"


def layer_map(plan):
    """The step's layers: mixer, residual channels, MLP neurons, the largest neuron groups."""
    out = [f"{plan['layers']} layers, {plan['channels']:,} residual channels at the widest "
           f"(hidden {plan['hidden_2b']:,}); `qgpu compile plan step --layer N` lists a layer's wires and neurons.",
           "",
           "| layer | mixer | residual channels | MLP neurons | largest groups of neurons (wire: neurons) |",
           "|---:|---|---:|---:|---|"]
    for l in plan["per_layer"]:
        if l["attention"]:
            mixer = "attention: one-hot lookup"
        elif l["layer"] == plan["layers"]:
            mixer = "attention, silent (Hugging Face's cache counts positions)"
        elif l["deltanet_heads"]:
            mixer = f"DeltaNet: {l['deltanet_heads']} memory heads"
        else:
            mixer = "DeltaNet, silent"
        groups = ", ".join(f"{g['wire']}: {g['neurons']:,}" for g in l["largest_neuron_groups"])
        out.append(f"| {l['layer']} | {mixer} | {l['channels']:,} | {l['neurons']:,} | {groups} |")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true")
    mode.add_argument("--check", action="store_true")
    ap.add_argument("--qgpu", default=str(ROOT / "build" / "bin" / "qgpu"))
    args = ap.parse_args()
    table = subprocess.run([args.qgpu, "compile", "units"], check=True, capture_output=True, text=True).stdout.rstrip("\n")
    rows = json.loads(subprocess.run([args.qgpu, "compile", "units", "--json"], check=True, capture_output=True,
                                     text=True).stdout)
    plan = json.loads(subprocess.run([args.qgpu, "compile", "plan", "step", "--json"], check=True, capture_output=True,
                                     text=True).stdout)
    doc = DOC.read_text()
    new = replace_marked(doc, "compiler-tables", "units", table, DOC)
    new = replace_marked(new, "compiler-tables", "stage", stage_fit.table(rows, stage_fit.STAGE_SETS), DOC)
    new = replace_marked(new, "compiler-tables", "layer-map", layer_map(plan), DOC)
    if args.write:
        DOC.write_text(new)
        print(f"{DOC}: compiled-unit table written ({table.count(chr(10)) - 1} units), the stage placement and the layer map")
        return 0
    if new != doc:
        print(f"{DOC}: the compiled-unit tables are stale; run tools/compiler_tables.py --write", file=sys.stderr)
        return 1
    print(f"{DOC}: compiled-unit tables up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
