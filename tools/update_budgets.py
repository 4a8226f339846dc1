#!/usr/bin/env python3
"""Writes the model-budget fields of every kernel's launch.json from a real run.

budget.memory_bytes         = bytes of all buffer parameters (from the spec)
budget.dynamic_instructions = warp-level dynamic PTX instructions at W=4 on the
                              interpreter (nvcc flavour), as `qgpu run --json`
                              reports them

Usage: tools/update_budgets.py [--qgpu build/bin/qgpu] [kernel ...]
Rerun `qgpu record --backend host-ref --all` afterwards: the goldens record
the hash of launch.json.
"""
import argparse
import json
import pathlib
import subprocess
import sys

SIZES = {"u8": 1, "s8": 1, "b8": 1, "u16": 2, "s16": 2, "b16": 2, "f16": 2,
         "u32": 4, "s32": 4, "b32": 4, "f32": 4, "u64": 8, "s64": 8, "b64": 8, "f64": 8}


def buffer_count(buf):
    if "count" in buf:
        return buf["count"]
    return len(buf["init"]["values"])


def main():
    root = pathlib.Path(__file__).resolve().parent.parent
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--qgpu", default=str(root / "build/bin/qgpu"))
    ap.add_argument("kernels", nargs="*")
    args = ap.parse_args()
    names = args.kernels or sorted(p.parent.name for p in (root / "kernels").glob("*/launch.json"))
    for name in names:
        path = root / "kernels" / name / "launch.json"
        spec = json.loads(path.read_text())
        memory = sum(SIZES[p["buffer"]["type"]] * buffer_count(p["buffer"])
                     for p in spec["params"] if "buffer" in p)
        flavour = "nvcc" if "nvcc" in spec["ptx"] else next(iter(spec["ptx"]))
        run = subprocess.run([args.qgpu, "run", str(path.parent), "--warp", "4", "--json",
                              "--flavour", flavour], capture_output=True, text=True)
        if run.returncode != 0:
            print(f"{name}: qgpu run failed:\n{run.stderr}", file=sys.stderr)
            return 2
        stats = json.loads(run.stdout)["stats"]
        budget = {"memory_bytes": memory, "dynamic_instructions": stats["warp_instructions"]}
        if spec.get("budget") != budget:
            spec["budget"] = budget
            text = path.read_text()
            # Keep the file's own layout: replace or append the budget line only.
            old = json.loads(text).get("budget")
            new_line = '"budget": ' + json.dumps(budget)
            if old is not None:
                start = text.index('"budget"')
                end = text.index("}", start) + 1
                text = text[:start] + new_line + text[end:]
            else:
                end = text.rstrip().rindex("}")
                text = text[:end].rstrip() + ",\n  " + new_line + "\n}\n"
            json.loads(text)  # still valid
            path.write_text(text)
            print(f"{name}: {budget}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
