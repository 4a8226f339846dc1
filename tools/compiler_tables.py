#!/usr/bin/env python3
"""The measured cost table of the compiled units (docs/machine.md §5.1, measured).

Runs `qgpu compile units` (every unit compiled for 4 lanes and proven exact) and writes
its table into docs/machine.md between `<!-- compiler-tables:units -->` and
`<!-- /compiler-tables:units -->` (--write), or fails if the committed table differs
from a fresh measurement (--check, the ctest compiler.tables_up_to_date).
"""
import argparse
import pathlib
import subprocess
import sys

from doc_tables import replace_marked

ROOT = pathlib.Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "machine.md"
NAME = "units"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true")
    mode.add_argument("--check", action="store_true")
    ap.add_argument("--qgpu", default=str(ROOT / "build" / "bin" / "qgpu"))
    args = ap.parse_args()
    table = subprocess.run([args.qgpu, "compile", "units"], check=True, capture_output=True, text=True).stdout.rstrip("\n")
    doc = DOC.read_text()
    new = replace_marked(doc, "compiler-tables", NAME, table, DOC)
    if args.write:
        DOC.write_text(new)
        print(f"{DOC}: compiled-unit table written ({table.count(chr(10)) - 1} units)")
        return 0
    if new != doc:
        print(f"{DOC}: the compiled-unit table is stale; run tools/compiler_tables.py --write", file=sys.stderr)
        return 1
    print(f"{DOC}: compiled-unit table up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
