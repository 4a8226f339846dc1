#!/usr/bin/env python3
"""The PTX ISA tables of the docs, generated from ptx_isa.def and `qgpu coverage --json`.

docs/ptx-isa.md's instruction table comes from the rows of
interp/include/qgpu/interp/ptx_isa.def (with the accepted / oracle-tested form counts that
`qgpu coverage` measures); docs/numerics.md's coverage figures and unsupported list come from
`qgpu coverage --json`. The generated parts live between `<!-- isa-tables:NAME -->` and
`<!-- /isa-tables:NAME -->`.
Usage:
    tools/isa_tables.py --write [--qgpu build/bin/qgpu]   rewrite them in place
    tools/isa_tables.py --check [--qgpu build/bin/qgpu]   exit 1 if they are out of date
"""
import argparse
import json
import pathlib
import re
import subprocess
import sys

from doc_tables import replace_marked

ROOT = pathlib.Path(__file__).resolve().parent.parent
DEF = ROOT / "interp" / "include" / "qgpu" / "interp" / "ptx_isa.def"
DOCS = {"instructions": ROOT / "docs" / "ptx-isa.md", "coverage": ROOT / "docs" / "numerics.md",
        "unsupported": ROOT / "docs" / "numerics.md"}
QGPU = str(ROOT / "build" / "bin" / "qgpu")

OP = re.compile(r'^QGPU_PTX_OP\((\w+), "([\w.]+)", (\d+), (\d+), (\w+), "([^"]*)"\)$')
MISSING = re.compile(r'^QGPU_PTX_MISSING\("([\w.]+)", (\d+), (\d+)\)$')


def rows():
    out = []
    for line in DEF.read_text().splitlines():
        if m := OP.match(line):
            out.append({"mnemonic": m[2], "ptx": int(m[3]), "sm": int(m[4]), "decoder": m[5], "example": m[6]})
        elif m := MISSING.match(line):
            out.append({"mnemonic": m[1], "ptx": int(m[2]), "sm": int(m[3]), "decoder": None, "example": ""})
        elif line.startswith("QGPU_PTX_OP(") or line.startswith("QGPU_PTX_MISSING("):
            sys.exit(f"{DEF}: cannot read the row {line!r}")
    return out


def tables(cov):
    accepted, oracle = {}, {}
    for f in cov["forms"]:
        mn = f["form"].split(".")[0]
        accepted[mn] = accepted.get(mn, 0) + 1
        oracle[mn] = oracle.get(mn, 0) + (1 if f["oracle"] else 0)
    rs = rows()
    supported = [r for r in rs if r["decoder"]]
    lines = [f"{len(supported)} supported instructions, {len(rs) - len(supported)} not supported.", "",
             "| mnemonic | PTX ISA | target | decoder | example (operand shape) | coverage forms | oracle-tested |",
             "|---|---|---|---|---|---:|---:|"]
    for r in rs:
        ver = f"{r['ptx'] // 10}.{r['ptx'] % 10}"
        if r["decoder"]:
            lines.append(f"| `{r['mnemonic']}` | {ver} | sm_{r['sm']} | `{r['decoder']}` | `{r['example']}` | "
                         f"{accepted.get(r['mnemonic'], '—')} | {oracle.get(r['mnemonic'], '—')} |")
        else:
            lines.append(f"| `{r['mnemonic']}` | {ver} | sm_{r['sm']} | not supported | | | |")
    gap = [f["form"] for f in cov["forms"] if f["corpus_uses"] and not f["oracle"]]
    coverage = (f"- **{cov['accepted_forms']}** accepted numeric forms; the oracle covers **{cov['oracle_tested']}**; "
                f"the corpus uses **{cov['in_corpus']}**, of which **{cov['corpus_and_oracle']}** are oracle-covered. "
                f"The {len(gap)} used but not oracle-tested: " + ", ".join(f"`{g}`" for g in gap) + ".")
    un = cov["unsupported_opcodes"]
    used = cov["unsupported_in_corpus"]
    unsupported = (f"- Unsupported PTX instructions ({len(un)}): `{' '.join(un)}`. " +
                   ("None is used by the corpus." if not used else "Used by the corpus: " + " ".join(used) + "."))
    return {"instructions": "\n".join(lines), "coverage": coverage, "unsupported": unsupported}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true", help="rewrite the generated parts of the docs")
    mode.add_argument("--check", action="store_true", help="exit 1 if they differ")
    ap.add_argument("--qgpu", default=QGPU, help="the qgpu binary")
    args = ap.parse_args()
    p = subprocess.run([args.qgpu, "coverage", "--json"], capture_output=True, text=True, cwd=ROOT)
    if p.returncode != 0:
        sys.exit(f"qgpu coverage failed: {p.stderr.strip()}")
    generated = tables(json.loads(p.stdout))
    stale = []
    for doc in sorted(set(DOCS.values())):
        old = doc.read_text()
        new = old
        for name, body in generated.items():
            if DOCS[name] == doc:
                new = replace_marked(new, "isa-tables", name, body, doc)
        if new != old:
            stale.append(doc)
            if args.write:
                doc.write_text(new)
    if args.write:
        print("rewrote: " + (", ".join(str(d.relative_to(ROOT)) for d in stale) or "nothing (up to date)"))
        return 0
    if stale:
        print("out of date (run tools/isa_tables.py --write): " + ", ".join(str(d.relative_to(ROOT)) for d in stale),
              file=sys.stderr)
        return 1
    print("ISA tables up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
