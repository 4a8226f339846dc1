#!/usr/bin/env python3
"""The token table (docs/machine.md §6) and the not-lowered table (§2.4), measured.

Runs every kernel folder and PTX flavour on `--backend machine` and `--backend interp`
(W=4) through the qgpu CLI, so the tables are measured, not typed. The tables live in
docs/machine.md between `<!-- machine-tables:NAME -->` and `<!-- /machine-tables:NAME -->`.
Usage:
    tools/machine_tables.py --write [--qgpu build/bin/qgpu]   rewrite them in place
    tools/machine_tables.py --check [--qgpu build/bin/qgpu]   exit 1 if they are out of date
"""
import argparse
import json
import pathlib
import subprocess
import sys

from doc_tables import replace_marked

ROOT = pathlib.Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "machine.md"
QGPU = str(ROOT / "build" / "bin" / "qgpu")


def run(kernel, flavour, backend):
    p = subprocess.run([QGPU, "run", str(kernel), "--backend", backend, "--flavour", flavour, "--json"],
                       capture_output=True, text=True, cwd=ROOT)
    if p.returncode != 0:
        return None, p.stderr.strip().splitlines()[-1] if p.stderr.strip() else f"exit {p.returncode}"
    return json.loads(p.stdout), None


def measure():
    rows, failures = [], []
    kernels = sorted(d for d in (ROOT / "kernels").iterdir() if (d / "launch.json").exists())
    kernels.sort(key=lambda d: d.name != "dot")  # the dot product first
    for k in kernels:
        spec = json.loads((k / "launch.json").read_text())
        for fl in sorted(spec["ptx"], key=lambda f: f != "nvcc"):
            m, err = run(k.relative_to(ROOT), fl, "machine")
            if m is None:
                failures.append((k.name, fl, " ".join(err.replace("qgpu: decode error: not lowerable to the machine: ", "").split())))
                continue
            i, ierr = run(k.relative_to(ROOT), fl, "interp")
            same = "yes" if i is not None and i["outputs"] == m["outputs"] else "**no**"
            p = m["provenance"]
            rows.append(f"| {k.name} | {fl} | {p['prompt_tokens']} | {p['generated_tokens']} | {p['machine_steps']} | "
                        f"{p['ptx_instructions']} | {p['machine_instructions']} | {p['rom_constants']} | "
                        f"{p['machine_registers']} | {p['memory_bytes']} | {same} |")
    tokens = ["| kernel | flavour | prompt tokens | generated tokens | machine steps | PTX instrs (static) | "
              "machine instrs (static) | ROM consts | regs | memory bytes | = interp |",
              "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"] + rows
    lowering = ["| kernel | flavour | first instruction that does not lower, and why |", "|---|---|---|"]
    lowering += [f"| {name} | {fl} | {why.replace('|', '/')} |" for name, fl, why in failures]
    return {"tokens": "\n".join(tokens), "not-lowered": "\n".join(lowering)}, len(rows), len(failures)


def replace_tables(text, tables):
    for name, body in tables.items():
        text = replace_marked(text, "machine-tables", name, body, DOC)
    return text


def main():
    global QGPU
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true", help="rewrite the tables in docs/machine.md")
    mode.add_argument("--check", action="store_true", help="exit 1 if docs/machine.md's tables differ")
    ap.add_argument("--qgpu", default=QGPU, help="the qgpu binary")
    args = ap.parse_args()
    QGPU = args.qgpu
    tables, lowered, not_lowered = measure()
    old = DOC.read_text()
    new = replace_tables(old, tables)
    if args.write:
        DOC.write_text(new)
        print(f"{DOC}: {lowered} runs lower, {not_lowered} do not")
        return 0
    if new != old:
        print(f"{DOC}: the machine tables are out of date; run tools/machine_tables.py --write", file=sys.stderr)
        return 1
    print(f"{DOC}: machine tables up to date ({lowered} runs lower, {not_lowered} do not)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
