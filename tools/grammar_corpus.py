#!/usr/bin/env python3
"""The grammar corpus (conformance/grammar, issue #11 section 3): small PTX files whose
verdict, accepted or rejected, is ptxas's, never written by hand.

  tools/grammar_corpus.py generate   rewrite conformance/grammar/isa/*.ptx from the rows
                                      of interp/include/qgpu/interp/ptx_isa.def
  tools/grammar_corpus.py record     run ptxas on every corpus file for every arch of
                                      ARCHS and write conformance/grammar/verdicts.json
  tools/grammar_corpus.py check      isa/ equals generate's output, and the same ptxas runs
                                      as record, compared with verdicts.json (exit 1 on a
                                      difference, a file without a verdict or a verdict
                                      without a file); the ptxas part is skipped, with a
                                      notice, without ptxas
  tools/grammar_corpus.py check --reference-only
                                      the same, ptxas run at each file's reference arch only
                                      (the verdict qgpu must give: a quarter of the runs, CI's
                                      check; every arch in the nightly label's)

A file's verdict for an arch is ptxas's: `ptxas -arch=<arch> file.ptx -o /dev/null`
exits 0 (accepted) or not (rejected, with ptxas's first error line). Its reference
arch is the first of ARCHS that its .target compiles to (ptxas 13.0 has no arch below
sm_75; an older .target compiles for sm_75); qgpu, which runs PTX for no particular
GPU, must give the reference verdict (conformance/grammar_test.cpp).
"""
import json
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "conformance", "grammar")
VERDICTS = os.path.join(CORPUS, "verdicts.json")
ISA_DEF = os.path.join(ROOT, "interp", "include", "qgpu", "interp", "ptx_isa.def")
ARCHS = ["sm_75", "sm_80", "sm_90", "sm_90a"]

# The targets a module may declare, with the PTX ISA version (x10) each needs
# (PTX ISA "Target ISA Notes"); generate picks neighbours from this list.
TARGETS = [(10, 10), (11, 10), (12, 12), (13, 12), (20, 20), (21, 20), (30, 30), (32, 40),
           (35, 31), (37, 41), (50, 40), (52, 41), (53, 42), (60, 50), (61, 50), (62, 50),
           (70, 60), (72, 61), (75, 63), (80, 70), (86, 71), (87, 74), (89, 78), (90, 78)]
VERSIONS = [23, 30, 31, 32, 40, 41, 42, 43, 50, 60, 61, 62, 63, 64, 65, 70, 71, 72, 73, 74, 75,
            76, 77, 78, 80, 81, 82, 83, 84, 85, 86, 87, 88, 90]


def ptx_files():
    out = []
    for dirpath, _, names in os.walk(CORPUS):
        for n in names:
            if n.endswith(".ptx"):
                out.append(os.path.relpath(os.path.join(dirpath, n), CORPUS))
    return sorted(out)


def declared_target(text):
    m = re.search(r"^\s*\.target\s+(sm_(\d+)a?)", text, re.M)
    return (m.group(1), int(m.group(2))) if m else (None, None)


def reference_arch(text):
    target, sm = declared_target(text)
    if target is None:
        return ARCHS[0]
    if target.endswith("a"):
        return target if target in ARCHS else ARCHS[-1]
    for a in ARCHS:
        if not a.endswith("a") and int(a[3:]) >= sm:
            return a
    return ARCHS[-1]


def find_ptxas():
    p = os.environ.get("PTXAS") or shutil.which("ptxas")
    if not p and os.path.exists("/usr/local/cuda/bin/ptxas"):
        p = "/usr/local/cuda/bin/ptxas"
    return p


def ptxas_version(ptxas):
    out = subprocess.run([ptxas, "--version"], capture_output=True, text=True).stdout
    m = re.search(r"release [^\n]*", out)
    return m.group(0).strip() if m else out.strip().splitlines()[-1]


def run_ptxas(ptxas, path, arch):
    r = subprocess.run([ptxas, f"-arch={arch}", path, "-o", os.devnull],
                       capture_output=True, text=True)
    if r.returncode == 0:
        return "accepted", ""
    lines = [l for l in (r.stderr + r.stdout).splitlines() if "error" in l or "fatal" in l]
    first = lines[0] if lines else (r.stderr + r.stdout).strip()
    first = re.sub(r"^ptxas [^,]*, ", "", first)  # drop the path
    return "rejected", first.strip()


def record_one(ptxas, rel, reference_only=False):
    path = os.path.join(CORPUS, rel)
    text = open(path).read()
    entry = {"reference_arch": reference_arch(text), "verdicts": {}}
    for arch in [entry["reference_arch"]] if reference_only else ARCHS:
        v, why = run_ptxas(ptxas, path, arch)
        entry["verdicts"][arch] = v if not why else f"{v}: {why}"
    entry["expected"] = entry["verdicts"][entry["reference_arch"]].split(":")[0]
    return rel, entry


def record_all(ptxas, reference_only=False):
    with ThreadPoolExecutor(max_workers=2) as pool:
        files = dict(pool.map(lambda rel: record_one(ptxas, rel, reference_only), ptx_files()))
    return {"ptxas": ptxas_version(ptxas), "archs": ARCHS,
            "recorded_by": "tools/grammar_corpus.py record", "files": files}


# ----------------------------------------------------------------- generate
def isa_rows():
    rows = []
    pat = re.compile(r'^QGPU_PTX_OP\((\w+), "([^"]+)", (\d+), (\d+), (\w+), "([^"]*)"\)', re.M)
    for m in pat.finditer(open(ISA_DEF).read()):
        rows.append({"mnemonic": m.group(2), "ptx": int(m.group(3)), "sm": int(m.group(4)),
                     "example": m.group(6)})
    return rows


def version_text(v):
    return f"{v // 10}.{v % 10}"


def target_min_version(sm):
    return dict(TARGETS)[sm]


REG_KINDS = [("pred", "p"), ("b16", "h"), ("b32", "r"), ("b64", "rd"), ("f32", "f"), ("f64", "fd")]


def isa_module(version, sm, example, bare=False, nospace=False, banner=""):
    pre = "" if bare else "%"
    sep = "" if nospace else " "

    def reg(name):
        return pre + name

    lines = [f"// {banner}", f"// Generated by tools/grammar_corpus.py generate; verdicts from ptxas.",
             f".version {version_text(version)}", f".target sm_{sm}", ".address_size 64",
             ".func f()", "{", "  ret;", "}",
             f".visible .entry k(.param{sep}.u64 out)", "{"]
    for t, n in REG_KINDS:
        lines.append(f"  .reg{sep}.{t} {reg(n)}<8>;")
    if re.search(r"\.shared\b[^;]*\[", example):
        # Examples that address .shared memory through a register (ldmatrix, cp.async) read
        # and write this array: it is at shared address 0, the registers' initial value.
        lines.append(f"  .shared{sep}.align 16 .b8 smem[512];")
    lines.append(f"  ld.param.u64 {reg('rd0')}, [out];")
    for i in range(1, 8):
        lines.append(f"  mov.u64 {reg('rd' + str(i))}, {reg('rd0')};")
    body = example
    if bare:
        body = re.sub(r"%(p|h|r|rd|f|fd)(\d)", r"\1\2", body)
    for ins in body.split(";"):
        ins = ins.strip()
        if not ins:
            continue
        if ins == "trap":  # keep the tiny launch running: a predicate that is false
            ins = f"@{reg('p7')} trap"
        lines.append(f"  {ins};")
    lines += ["END:", "  ret;", "}", ""]
    return "\n".join(lines)


def generate(out_dir=os.path.join(CORPUS, "isa")):
    os.makedirs(out_dir, exist_ok=True)
    for f in os.listdir(out_dir):
        if f.endswith(".ptx"):
            os.remove(os.path.join(out_dir, f))
    written = 0
    for row in isa_rows():
        m, ptx, sm, ex = row["mnemonic"], row["ptx"], row["sm"], row["example"]
        min_sm = min(s for s, _ in TARGETS if s >= sm)
        variants = {}
        v0 = max(ptx, target_min_version(min_sm), 23)
        variants["min"] = (v0, min_sm, {}, f"{m} at its minimum .target and .version")
        variants["sm90"] = (90, 90, {}, f"{m} at .version 9.0 .target sm_90")
        variants["bare"] = (90, 90, {"bare": True}, f"{m} with register names without %")
        variants["nospace"] = (90, 90, {"nospace": True}, f"{m} with directives written without a space")
        variants["old"] = (65, 30, {}, f"{m} at .version 6.5 .target sm_30")
        below = [s for s, _ in TARGETS if s < sm]
        if below:
            variants["below_target"] = (90, below[-1], {}, f"{m} on a .target below its minimum")
        lower = [v for v in VERSIONS if v < ptx]
        if lower:
            v = lower[-1]
            ok_targets = [s for s, need in TARGETS if need <= v and s >= sm]
            if ok_targets:
                variants["below_version"] = (v, ok_targets[-1], {},
                                             f"{m} with a .version below the one that introduced it")
        for name, (v, s, kw, banner) in variants.items():
            path = os.path.join(out_dir, f"{m}.{name}.ptx")
            with open(path, "w") as fh:
                fh.write(isa_module(v, s, ex, banner=banner, **kw))
            written += 1
    print(f"grammar_corpus: wrote {written} files to {out_dir}")


def isa_files_fresh():
    """Whether conformance/grammar/isa is what generate writes from ptx_isa.def now."""
    import filecmp
    import tempfile
    here = os.path.join(CORPUS, "isa")
    with tempfile.TemporaryDirectory() as tmp:
        generate(tmp)
        fresh = sorted(f for f in os.listdir(tmp) if f.endswith(".ptx"))
        old = sorted(f for f in os.listdir(here) if f.endswith(".ptx"))
        ok = fresh == old and all(filecmp.cmp(os.path.join(tmp, f), os.path.join(here, f), shallow=False)
                                  for f in fresh)
    if not ok:
        print("grammar_corpus: conformance/grammar/isa differs from `generate` output "
              "(ptx_isa.def changed: run generate, then record)")
    return ok


def main():
    # argparse, so that --help prints the usage and an unknown command is refused (exit 2)
    # rather than run: `record --help` used to re-record every verdict.
    import argparse
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("command", nargs="?", default="check", choices=["generate", "record", "check"])
    ap.add_argument("--reference-only", action="store_true",
                    help="check: run ptxas at each file's reference arch only")
    args = ap.parse_args()
    cmd = args.command
    if cmd == "generate":
        generate()
        return 0
    if cmd == "check" and not isa_files_fresh():
        return 1
    ptxas = find_ptxas()
    if not ptxas:
        print("grammar_corpus: notice: ptxas not found, verdicts not re-recorded (qgpu is still "
              "checked against the recorded ones by grammar_tests)")
        return 0
    if cmd == "record":
        data = record_all(ptxas)
        with open(VERDICTS, "w") as fh:
            json.dump(data, fh, indent=1, sort_keys=True)
            fh.write("\n")
        n = len(data["files"])
        acc = sum(1 for e in data["files"].values() if e["expected"] == "accepted")
        print(f"grammar_corpus: recorded {n} files ({acc} accepted, {n - acc} rejected) with {data['ptxas']}")
        return 0
    if cmd == "check":
        recorded = json.load(open(VERDICTS))
        reference_only = args.reference_only
        fresh = record_all(ptxas, reference_only)
        if reference_only:  # compare the reference arch's verdict (and so the expected one) only
            for e in recorded["files"].values():
                e["verdicts"] = {e["reference_arch"]: e["verdicts"].get(e["reference_arch"])}
        fail = 0
        if recorded.get("ptxas") != fresh["ptxas"]:
            print(f"grammar_corpus: notice: verdicts were recorded with {recorded.get('ptxas')}, "
                  f"this ptxas is {fresh['ptxas']}")
        for rel in sorted(set(recorded["files"]) | set(fresh["files"])):
            a, b = recorded["files"].get(rel), fresh["files"].get(rel)
            if a is None:
                print(f"grammar_corpus: {rel} has no recorded verdict (run record)")
                fail = 1
            elif b is None:
                print(f"grammar_corpus: {rel} is recorded but does not exist")
                fail = 1
            elif a != b:
                print(f"grammar_corpus: {rel}: recorded {a['verdicts']} but ptxas now says {b['verdicts']}")
                fail = 1
        if not fail:
            print(f"grammar_corpus: all {len(fresh['files'])} verdicts agree with {fresh['ptxas']}"
                  + (" (reference archs only)" if reference_only else ""))
        return fail
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())
