#!/usr/bin/env python3
"""Differential fuzzing of qgpu with generated CUDA kernels (docs/fuzzing.md, issue 16).

Every kernel of tools/fuzz/gen.py is built three ways from one source: nvcc PTX, clang PTX and
a host program under the SIMT shim of qf_rt.h (the reference). The PTX runs on the interpreter
at W=4 and W=32 and on the machine backend (W=4) where it lowers; every output must equal the
host reference of the base kernel (EMI variants included).

  qfuzz.py run --seeds 1..20 [--variants 2] [--batch 8] [--json out.jsonl]   one campaign
  qfuzz.py ctest                                                            the ctest `fuzz` seeds
  qfuzz.py reduce SEED [--variant V] [--config C] --out DIR                  creduce a mismatch
  qfuzz.py interesting DIR                        (creduce's test: the mismatch is still there)

Exit codes: 0 all agree, 1 a mismatch (or a generator error), 2 usage or missing tools.
"""
import argparse
import json
import os
import re
import pathlib
import resource
import shutil
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))
import gen  # noqa: E402

NVCC = os.environ.get("NVCC") or shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
CLANG = os.environ.get("CLANG", "clang-14")
CXX = os.environ.get("QF_CXX", "g++")
NVCC_FLAGS = ["-arch=sm_75", "-ptx", "-O3"]                       # tools/gen_ptx.sh
CLANG_FLAGS = ["-x", "cuda", "--cuda-device-only", "--cuda-gpu-arch=sm_75", "-nocudainc", "-nocudalib",
               "-O3", "-S", "-include", str(ROOT / "kernels/include/qgpu_cuda.h")]
HOST_FLAGS = ["-DQF_HOST", "-x", "c++", "-std=c++20", "-O0", "-ffp-contract=off", "-fno-fast-math",
              "-fsanitize=undefined", "-fno-sanitize-recover=undefined", "-w"]
# Configurations compared with the host reference.
CONFIGS = [("interp", "nvcc", 4), ("interp", "nvcc", 32), ("interp", "clang", 4), ("interp", "clang", 32),
           ("machine", "nvcc", 4), ("machine", "clang", 4),
           # real hardware through the CUDA driver: only with --backends ...,cuda (no GPU in CI)
           ("cuda", "nvcc", 32), ("cuda", "clang", 32)]


def cfg_name(c):
    b, f, w = c
    return f"{b}-{f}-w{w}"


def tool_versions():
    def first(cmd):
        try:
            out = subprocess.run(cmd, capture_output=True, text=True, timeout=30).stdout.strip().splitlines()
            return out[-1] if "nvcc" in cmd[0] else out[0]
        except (OSError, subprocess.SubprocessError):
            return None
    return {"nvcc": first([NVCC, "--version"]), "clang": first([CLANG, "--version"]),
            "host_cxx": first([CXX, "--version"]), "python": sys.version.split()[0]}


def sh(cmd, timeout=300, cwd=None):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=cwd)
    return p.returncode, p.stdout, p.stderr


def batch_source(kernels):
    src = ['#include "qf_rt.h"\n']
    for k in kernels:
        src.append(k["source"])
    src.append("#ifdef QF_HOST\nstatic const qf::Entry qf_entries[] = {\n")
    for k in kernels:
        g, b = k["grid"], k["block"]
        src.append(f'  {{"{k["name"]}", {k["name"]}, {{{g[0]}, {g[1]}, {g[2]}}}, {{{b[0]}, {b[1]}, {b[2]}}}, '
                   f'{k["dynamic_shared_bytes"]}}},\n')
    src.append("};\nint main(int argc, char** argv) {\n"
               "  return qf::main(argc, argv, qf_entries, sizeof qf_entries / sizeof qf_entries[0]);\n}\n#endif\n")
    return "".join(src)


def build(cu, outdir, host_flags=None, host=True):
    """Compiles one batch file three ways; returns {what: error text or None}."""
    errs = {}
    rc, _, e = sh([NVCC, *NVCC_FLAGS, "-I", str(HERE), str(cu), "-o", str(outdir / "batch.sm_75.ptx")])
    errs["nvcc"] = e if rc else None
    rc, _, e = sh([CLANG, *CLANG_FLAGS, "-I", str(HERE), str(cu), "-o", str(outdir / "batch.clang.ptx")])
    errs["clang"] = e if rc else None
    if host:
        rc, _, e = sh([CXX, *(host_flags or HOST_FLAGS), "-I", str(HERE), str(cu), "-o", str(outdir / "batch.host")])
        errs["host"] = e if rc else None
    return errs


HEADER = re.compile(r"^\.(version|target|address_size)\b")
IDENT = re.compile(r"[A-Za-z_$][\w$]*")
FUNC_NAME = re.compile(r"\.(?:entry|func)\s+(?:\([^)]*\)\s*)?([A-Za-z_$][\w$]*)")
VAR_NAME = re.compile(r"\.(?:global|const|shared|local)\b[^;={]*?([A-Za-z_$][\w$]*)\s*(?:\[[^\]]*\]\s*)*(?:=|;)")
ENTRY = re.compile(r"\.entry\s+qf(\d+)(?:_e\d+)?\s*\(")


def split_ptx(text):
    """Splits the PTX module of a batch into one module per seed: the header, the seed's entries
    and every top-level item (variable, function declaration or definition) they reach through
    the symbols they name, transitively; items that define no symbol go everywhere. The lines
    are the compiler's, unchanged, in their order; only what the seed's entries cannot reach is
    left out, so that a run decodes one seed's code instead of the whole batch. (Symbols, not
    name prefixes: clang merges equal constants of different kernels into one global named
    after one of them.)"""
    lines = text.splitlines(keepends=True)
    header, items, cur, depth, pending = [], [], [], 0, []
    for ln in lines:
        s = ln.strip()
        if not cur:
            if HEADER.match(s):
                header.append(ln)
                continue
            if not s or s.startswith("//"):
                pending.append(ln)
                continue
            cur = pending + [ln]
            pending = []
        else:
            cur.append(ln)
        depth += ln.count("{") - ln.count("}")
        if depth == 0 and (s.endswith("}") or s.endswith(";")):
            items.append("".join(cur))
            cur = []
    if cur:
        items.append("".join(cur))
    code = ["".join(l for l in it.splitlines(keepends=True) if not l.lstrip().startswith("//")) for it in items]
    defines, by_name = [], {}
    for i, c in enumerate(code):
        head = c.split("{", 1)[0]
        m = FUNC_NAME.search(head) or VAR_NAME.search(head)
        defines.append(m.group(1) if m else None)
        if m:
            by_name.setdefault(m.group(1), []).append(i)
    refs = [{t for t in IDENT.findall(c) if t in by_name} for c in code]
    parts = {}
    for i, c in enumerate(code):
        m = ENTRY.search(c.split("{", 1)[0])
        if m:
            parts.setdefault(int(m.group(1)), set()).add(i)
    out = {}
    head = "".join(header)
    for sd, keep in parts.items():
        todo = list(keep)
        while todo:
            i = todo.pop()
            for name in refs[i]:
                for j in by_name[name]:
                    if j not in keep:
                        keep.add(j)
                        todo.append(j)
        out[sd] = head + "\n" + "".join(it for i, it in enumerate(items) if i in keep or defines[i] is None)
    return out


def write_launch(k, kdir):
    kdir.mkdir(parents=True, exist_ok=True)
    hexes = lambda xs: [f"0x{x:08x}" for x in xs]
    spec = {
        "name": k["name"], "description": f"generated by tools/fuzz/gen.py, seed {k['seed']} variant {k['variant']}",
        "ptx": {"nvcc": f"../s{k['seed']}.sm_75.ptx", "clang": f"../s{k['seed']}.clang.ptx"}, "entry": k["name"],
        "grid": k["grid"], "block": k["block"], "dynamic_shared_bytes": k["dynamic_shared_bytes"],
        "params": [
            {"name": "in", "buffer": {"type": "u32", "count": len(k["in"]), "init": {"values": hexes(k["in"])}}},
            {"name": "emi", "buffer": {"type": "u32", "count": len(k["emi"])}},
            {"name": "out", "buffer": {"type": "u32", "count": k["out_count"]}},
            {"name": "gat", "buffer": {"type": "u32", "count": len(k["gat"]), "init": {"values": hexes(k["gat"])}}},
        ],
        "outputs": ["out", "gat"],
    }
    (kdir / "launch.json").write_text(json.dumps(spec, indent=1) + "\n")
    with open(kdir / "buffers.txt", "w") as f:
        f.write(f"in {len(k['in'])} " + " ".join(f"{x:x}" for x in k["in"]) + "\n")
        f.write(f"emi {len(k['emi'])} " + " ".join("0" for _ in k["emi"]) + "\n")
        f.write(f"out {k['out_count']} " + " ".join("0" for _ in range(k["out_count"])) + "\n")
        f.write(f"gat {len(k['gat'])} " + " ".join(f"{x:x}" for x in k["gat"]) + "\n")


def run_host(exe, name, kdir, timeout=60):
    try:
        rc, out, err = sh([str(exe), name, str(kdir / "buffers.txt")], timeout=timeout)
    except subprocess.TimeoutExpired:
        return "error", "host: timeout"
    if rc:
        return "error", f"host exit {rc}: {err.strip()[-400:]}"
    res = {}
    for line in out.splitlines():
        parts = line.split()
        res[parts[0]] = [int(x, 16) for x in parts[1:]]
    return "ok", res


def run_qgpu(qgpu, kdir, cfg, timeout=120):
    backend, flavour, warp = cfg
    cmd = [str(qgpu), "run", str(kdir), "--backend", backend, "--flavour", flavour, "--warp", str(warp), "--json",
           "--max-steps", "20000000"]
    try:
        rc, out, err = sh(cmd, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "error", f"{backend}: timeout"
    if rc:
        msg = err.strip().splitlines()[0] if err.strip() else f"exit {rc}"
        # The machine refuses some PTX cleanly at lowering (a decode error naming the instruction):
        # not a mismatch.
        if backend == "machine" and ("not lowerable to the machine" in err or "not lowered" in err):
            return "not_lowered", msg
        return "error", msg
    d = json.loads(out)
    return "ok", {o["name"]: [int(x, 16) for x in o["bits"]] for o in d["outputs"]}


def first_diff(ref, got):
    for buf in ("out", "gat"):
        a, b = ref.get(buf, []), got.get(buf, [])
        if len(a) != len(b):
            return {"buffer": buf, "index": None, "expected": len(a), "got": len(b)}
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                return {"buffer": buf, "index": i, "expected": f"0x{x:08x}", "got": f"0x{y:08x}"}
    return None


def check_kernel_group(group, bdir, qgpu, configs, host_exe, perturb=False):
    """Runs every variant of one seed on every configuration; returns one record per variant."""
    records = []
    ref = None
    for k in group:
        kdir = bdir / k["name"]
        write_launch(k, kdir)
        rec = {"seed": k["seed"], "variant": k["variant"], "name": k["name"], "features": k["features"],
               "runs": {}, "mismatches": []}
        st, host = run_host(host_exe, k["name"], kdir)
        rec["runs"]["host"] = st
        if st != "ok":
            rec["status"] = "host_error"
            rec["error"] = host
            records.append(rec)
            continue
        if perturb:  # self-test of the comparison: a wrong reference must be reported
            host = dict(host)
            host["out"] = [host["out"][0] ^ 1] + host["out"][1:]
        if k["variant"] == 0:
            ref = host
        if ref is None:
            ref = host
        elif k["variant"] != 0:
            d = first_diff(ref, host)
            if d:
                rec["mismatches"].append({"config": "host", **d})
        for cfg in configs:
            st, res = run_qgpu(qgpu, kdir, cfg)
            rec["runs"][cfg_name(cfg)] = st
            if st == "ok":
                d = first_diff(ref, res)
                if d:
                    rec["mismatches"].append({"config": cfg_name(cfg), **d})
            elif st == "error":
                rec.setdefault("errors", {})[cfg_name(cfg)] = res
            else:
                rec.setdefault("not_lowered", {})[cfg_name(cfg)] = res
        rec["status"] = "mismatch" if rec["mismatches"] else "error" if rec.get("errors") else "agree"
        records.append(rec)
    return records


def parse_seeds(text):
    if ".." in text:
        a, b = text.split("..")
        return list(range(int(a), int(b) + 1))
    return [int(x) for x in text.split(",")]


def run_batch(chunk, variants, qgpu, configs, work, perturb=False, keep=False):
    """Generates, builds and runs one batch of seeds: ("build_error", info) or ("ok", records)."""
    kernels = [gen.generate(s, v) for s in chunk for v in range(variants + 1)]
    bdir = pathlib.Path(tempfile.mkdtemp(prefix="qfuzz-", dir=work))
    try:
        cu = bdir / "batch.cu"
        cu.write_text(batch_source(kernels))
        errs = build(cu, bdir)
        if any(errs.values()):
            # A build failure is a generator bug (or a compiler crash): recorded, never silent.
            return "build_error", {"seeds": chunk, **{k: v[-2000:] for k, v in errs.items() if v}}
        for fl in ("sm_75", "clang"):
            for sd, text in split_ptx((bdir / f"batch.{fl}.ptx").read_text()).items():
                (bdir / f"s{sd}.{fl}.ptx").write_text(text)
        recs = []
        for s in chunk:
            group = [k for k in kernels if k["seed"] == s]
            recs += check_kernel_group(group, bdir, qgpu, configs, bdir / "batch.host", perturb)
        return "ok", recs
    finally:
        if not keep:
            shutil.rmtree(bdir, ignore_errors=True)


def campaign(seeds, variants, batch, qgpu, configs, work, out_jsonl, time_limit=None, perturb=False,
             keep=False, log=sys.stderr, reduce_dir=None, reduce_max=3, reduce_timeout=3600, jobs=1):
    t0 = time.time()
    summary = {"format": "qgpu-fuzz-1", "tools": tool_versions(), "configs": [cfg_name(c) for c in configs],
               "variants_per_seed": variants, "kernels": 0, "seeds": 0, "status": {}, "mismatches": [],
               "features": {}, "not_lowered": {}, "errors": [], "build_errors": []}
    out = open(out_jsonl, "a") if out_jsonl else None
    if out:
        out.write(json.dumps({"campaign": {"started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                                           "seeds": [seeds[0], seeds[-1]], "variants": variants,
                                           "tools": summary["tools"], "configs": summary["configs"]}}) + "\n")
        out.flush()
    chunks = [seeds[i:i + batch] for i in range(0, len(seeds), batch)]

    def results():
        """Each batch's result in seed order; no batch starts after the time limit."""
        if jobs <= 1:
            for ch in chunks:
                if time_limit and time.time() - t0 > time_limit:
                    return
                yield ch, run_batch(ch, variants, qgpu, configs, work, perturb, keep)
            return
        import concurrent.futures
        with concurrent.futures.ProcessPoolExecutor(jobs) as ex:
            pending, it = [], iter(chunks)
            while True:
                while len(pending) < 2 * jobs and not (time_limit and time.time() - t0 > time_limit):
                    ch = next(it, None)
                    if ch is None:
                        break
                    pending.append((ch, ex.submit(run_batch, ch, variants, qgpu, configs, work, perturb, keep)))
                if not pending:
                    return
                ch, fut = pending.pop(0)
                yield ch, fut.result()

    for chunk, (kind, res) in results():
        if kind == "build_error":
            summary["build_errors"].append(res)
            print(f"qfuzz: build failed for seeds {chunk[0]}..{chunk[-1]}: "
                  f"{[k for k in res if k != 'seeds']}", file=log)
            if out:
                out.write(json.dumps({"build_error": res}) + "\n")
            continue
        summary["seeds"] += len(chunk)
        for r in res:
            summary["kernels"] += 1
            summary["status"][r["status"]] = summary["status"].get(r["status"], 0) + 1
            for f in r["features"]:
                summary["features"][f] = summary["features"].get(f, 0) + 1
            for c, st in r["runs"].items():
                if st == "not_lowered":
                    summary["not_lowered"][c] = summary["not_lowered"].get(c, 0) + 1
            if r["mismatches"]:
                summary["mismatches"].append({"seed": r["seed"], "variant": r["variant"],
                                              "first": r["mismatches"][0],
                                              "configs": [m["config"] for m in r["mismatches"]]})
                print(f"qfuzz: MISMATCH seed {r['seed']} variant {r['variant']}: {r['mismatches'][0]}", file=log)
                bad = [m["config"] for m in r["mismatches"] if m["config"] != "host"]
                if reduce_dir and bad and len(summary.setdefault("reduced", [])) < reduce_max:
                    # reduce it now, in this process
                    good = [c for c in configs if r["runs"].get(cfg_name(c)) == "ok" and cfg_name(c) not in bad]
                    rdir = pathlib.Path(reduce_dir) / f"seed{r['seed']}-v{r['variant']}"
                    bcfg = next(c for c in configs if cfg_name(c) == bad[0])
                    try:
                        rc = reduce(r["seed"], r["variant"], bcfg, good[:2], rdir, qgpu, reduce_timeout)
                    except subprocess.TimeoutExpired:
                        rc = "timeout"
                    summary["reduced"].append({"seed": r["seed"], "variant": r["variant"], "config": bad[0],
                                               "dir": str(rdir), "status": rc})
            if r["status"] in ("error", "host_error"):
                summary["errors"].append({"seed": r["seed"], "variant": r["variant"],
                                          "error": r.get("error") or r.get("errors")})
                print(f"qfuzz: ERROR seed {r['seed']} variant {r['variant']}: "
                      f"{r.get('error') or r.get('errors')}", file=log)
            if out:
                out.write(json.dumps(r) + "\n")
        if out:
            out.flush()
    summary["wall_seconds"] = round(time.time() - t0, 1)
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    summary["child_cpu_seconds"] = round(ru.ru_utime + ru.ru_stime, 1)
    if out:
        out.close()
    return summary


def find_qgpu(arg):
    for p in [arg, ROOT / "build/bin/qgpu"]:
        if p and pathlib.Path(p).is_file():
            return pathlib.Path(p).resolve()
    sys.exit("qfuzz: no qgpu binary (build it, or pass --qgpu)")


def have_compilers():
    return shutil.which(NVCC) is not None and shutil.which(CLANG) is not None and shutil.which(CXX) is not None


# ---------------------------------------------------------------------------------- reduction
REDUCE_HOST_FLAGS = ["-DQF_HOST", "-x", "c++", "-std=c++20", "-O1", "-ffp-contract=off", "-fno-fast-math",
                     "-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-Wall", "-Werror=uninitialized",
                     "-Werror=maybe-uninitialized", "-Werror=array-bounds", "-Werror=return-type",
                     "-Werror=div-by-zero", "-Werror=shift-count-overflow", "-Werror=shift-count-negative",
                     "-Werror=overflow", "-Werror=sequence-point", "-Werror=aggressive-loop-optimizations"]
CLANG_WERROR = ["-Werror=uninitialized", "-Werror=sometimes-uninitialized", "-Werror=array-bounds",
                "-Werror=return-type", "-Werror=shift-count-overflow", "-Werror=division-by-zero",
                "-Werror=unsequenced", "-Werror=implicit-int", "-Werror=implicit-function-declaration",
                "-Werror=conditional-uninitialized"]


def interesting(d):
    """creduce's test, run in a folder holding kernel.cu and reduce.json: true (exit 0) when the
    kernel is still well defined (warning-clean under -Werror for the UB warnings of g++ and clang,
    ASan+UBSan-clean on the host, accepted by ptxas) and still shows the recorded mismatch."""
    d = pathlib.Path(d).resolve()

    def no(why):
        if os.environ.get("QF_DEBUG"):
            print("not interesting:", why, file=sys.stderr)
        return False

    meta = json.loads((d / "reduce.json").read_text())
    k = meta["kernel"]
    src = (d / "kernel.cu").read_text()
    if f"void {k['name']}(" not in src:
        return no("the kernel is gone")
    k = dict(k, source=src.replace('#include "qf_rt.h"\n', ""))
    cu = d / "batch.cu"
    cu.write_text(batch_source([k]))
    try:
        rc, _, _ = sh([CLANG, *CLANG_FLAGS, *CLANG_WERROR, "-I", str(HERE), str(cu), "-o", str(d / "batch.clang.ptx")],
                      timeout=60)
        if rc:
            return no("clang -Werror")
        rc, _, _ = sh([NVCC, *NVCC_FLAGS, "-I", str(HERE), str(cu), "-o", str(d / "batch.sm_75.ptx")], timeout=60)
        if rc:
            return no("nvcc")
        rc, _, _ = sh([CXX, *REDUCE_HOST_FLAGS, "-I", str(HERE), str(cu), "-o", str(d / "batch.host")], timeout=120)
        if rc:
            return no("g++ -Werror")
        ptxas = shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"
        for f in ("batch.sm_75.ptx", "batch.clang.ptx"):
            if pathlib.Path(ptxas).exists() and sh([ptxas, "-arch=sm_75", str(d / f), "-o", "/dev/null"], timeout=60)[0]:
                return no("ptxas")
        for fl in ("sm_75", "clang"):
            for sd, text in split_ptx((d / f"batch.{fl}.ptx").read_text()).items():
                (d / f"s{sd}.{fl}.ptx").write_text(text)
        kdir = d / k["name"]
        write_launch(k, kdir)
        st, ref = run_host(d / "batch.host", k["name"], kdir, timeout=20)
        if st != "ok":
            return no(f"host run: {ref}")
        bad = tuple(meta["config"])
        st, got = run_qgpu(meta["qgpu"], kdir, bad, timeout=30)
        if st != "ok" or not first_diff(ref, got):
            return no(f"{cfg_name(bad)} agrees or fails: {st}")
        # the other configurations named "good" must still agree with the host (the same bug,
        # not a new kernel that every backend gets wrong)
        for good in meta.get("good", []):
            st, res = run_qgpu(meta["qgpu"], kdir, tuple(good), timeout=30)
            if st != "ok" or first_diff(ref, res):
                return no(f"{cfg_name(tuple(good))} no longer agrees: {st}")
        return True
    except subprocess.TimeoutExpired:
        return no("timeout")


def reduce(seed, variant, config, good, outdir, qgpu, timeout):
    outdir = pathlib.Path(outdir).resolve()
    outdir.mkdir(parents=True, exist_ok=True)
    k = gen.generate(seed, variant)
    meta = {"kernel": {x: v for x, v in k.items() if x != "source"}, "config": list(config),
            "good": [list(g) for g in good], "qgpu": str(qgpu), "seed": seed, "variant": variant}
    (outdir / "reduce.json").write_text(json.dumps(meta, indent=1) + "\n")
    (outdir / "original.cu").write_text('#include "qf_rt.h"\n' + k["source"])
    (outdir / "kernel.cu").write_text('#include "qf_rt.h"\n' + k["source"])
    if not interesting(outdir):
        print("qfuzz: the mismatch does not reproduce under the reduction's checks", file=sys.stderr)
        return 1
    test = outdir / "test.sh"
    test.write_text("#!/bin/sh\n# creduce's interestingness test (tools/fuzz/qfuzz.py interesting)\n"
                    f"cp kernel.cu {outdir}/work/kernel.cu 2>/dev/null; "
                    f"exec python3 {HERE / 'qfuzz.py'} interesting --meta {outdir / 'reduce.json'} .\n")
    test.chmod(0o755)
    (outdir / "work").mkdir(exist_ok=True)
    creduce = shutil.which("creduce")
    if not creduce:
        print("qfuzz: creduce is not installed (ci/setup installs it)", file=sys.stderr)
        return 2
    work = outdir / "creduce"
    work.mkdir(exist_ok=True)
    shutil.copy(outdir / "kernel.cu", work / "kernel.cu")
    shutil.copy(outdir / "reduce.json", work / "reduce.json")
    p = subprocess.run([creduce, "--n", "1", "--timeout", "120", str(test), "kernel.cu"], cwd=work,
                       capture_output=True, text=True, timeout=timeout)
    shutil.copy(work / "kernel.cu", outdir / "reduced.cu")
    (outdir / "creduce.log").write_text(p.stdout[-20000:] + p.stderr[-5000:])
    print(f"qfuzz: reduced {len((outdir / 'original.cu').read_text())} -> "
          f"{len((outdir / 'reduced.cu').read_text())} bytes: {outdir / 'reduced.cu'}")
    return 0


def strip_emi(src):
    """The base kernel's text from an EMI variant's: the guarded dead blocks removed."""
    out, skip = [], None
    for ln in src.splitlines():
        if skip is not None:
            if ln == skip + "}":
                skip = None
            continue
        st = ln.lstrip()
        if st.startswith("if (") and "emi[" in st.split(")")[0] and st.endswith("{"):
            skip = ln[:len(ln) - len(st)]
            continue
        out.append(ln)
    return "\n".join(out)


def selftest(qgpu):
    """Checks that can fail: determinism, EMI variants' live code, the shim's rule checks, and a
    corrupted reference being reported."""
    fails = []
    for sd in range(1, 31):
        a, b = gen.generate(sd), gen.generate(sd)
        if a != b:
            fails.append(f"seed {sd}: two generations differ")
        for v in (1, 2):
            e = gen.generate(sd, v)
            if e["in"] != a["in"] or e["gat"] != a["gat"] or e["grid"] != a["grid"] or e["block"] != a["block"]:
                fails.append(f"seed {sd} variant {v}: launch differs from the base kernel's")
            if strip_emi(e["source"]).replace(f"qf{sd}_e{v}", f"qf{sd}") != a["source"].rstrip("\n"):
                fails.append(f"seed {sd} variant {v}: live code differs from the base kernel's")
    out = subprocess.run([sys.executable, str(HERE / "gen.py"), "5"], capture_output=True, text=True).stdout
    if out != '#include "qf_rt.h"\n' + gen.generate(5)["source"]:
        fails.append("gen.py 5 (a new process) differs from generate(5)")
    feats = set()
    for sd in range(1, 200):
        feats |= set(gen.generate(sd, 1)["features"])
    want = {"int32", "int64", "f32", "f32_round_modes", "f64", "fma", "struct", "local_array", "loop_per_lane",
            "switch", "early_exit", "vector_load", "shared_float", "shared_byte", "atomic_inc_cas",
            "divergence", "lane_divergence", "barrier", "shared_module", "shared_function", "shared_extern",
            "shfl", "vote", "atomic_global", "atomic_shared", "call", "recursion", "emi", "reduction_tree"}
    if want - feats:
        fails.append(f"features never generated in seeds 1..199: {sorted(want - feats)}")
    with tempfile.TemporaryDirectory(prefix="qfuzz-self-") as t:
        t = pathlib.Path(t)
        # the shim must refuse a collective whose mask names lanes that do not execute it
        bad = dict(gen.generate(3))
        bad["name"] = "qf3"
        bad["source"] = ('extern "C" __global__ void qf3(const unsigned* __restrict__ in, const unsigned* emi, '
                         "unsigned* out, unsigned* gat) {\n  (void)emi; (void)gat;\n  unsigned u = in[threadIdx.x];\n"
                         "  if ((threadIdx.x & 3u) < 2u) u = __shfl_sync(0xfu << qf_gbase(), u, 0, 4);\n"
                         "  out[blockIdx.x * blockDim.x + threadIdx.x] = u;\n}\n")
        (t / "bad.cu").write_text(batch_source([bad]))
        rc, _, e = sh([CXX, *HOST_FLAGS, "-I", str(HERE), str(t / "bad.cu"), "-o", str(t / "bad")])
        if rc:
            fails.append(f"shim test does not compile: {e[-500:]}")
        else:
            write_launch(bad, t / "qf3")
            st, res = run_host(t / "bad", "qf3", t / "qf3")
            if st != "error" or "exit 3" not in str(res):
                fails.append(f"the shim accepted a collective with a lane missing: {st} {res}")
        # split_ptx keeps each seed's entry and the items every seed needs
        # (1008 and 1010 have device functions with mangled names, once split wrongly; clang merges
        # equal constant arrays of 200187 and 200190 into one global named after qf200190)
        seeds4 = (1008, 1010, 200187, 200190)
        ks = [gen.generate(sd) for sd in seeds4]
        (t / "two.cu").write_text(batch_source(ks))
        errs = build(t / "two.cu", t)
        if any(errs.values()):
            fails.append(f"two-seed batch does not build: {errs}")
        else:
            for fl in ("sm_75", "clang"):
                parts = split_ptx((t / f"batch.{fl}.ptx").read_text())
                if (sorted(parts) != list(seeds4) or ".entry qf1008(" not in parts[1008]
                        or ".entry qf1010(" in parts[1008]):
                    fails.append(f"split_ptx ({fl}) gives {sorted(parts)}")
                    continue
                for sd, text in parts.items():
                    (t / f"s{sd}.{fl}.ptx").write_text(text)
            for k in ks:
                write_launch(k, t / k["name"])
                for cfg in (("interp", "nvcc", 4), ("interp", "clang", 4)):
                    st, res = run_qgpu(qgpu, t / k["name"], cfg)
                    if st != "ok":
                        fails.append(f"split module of {k['name']} does not run ({cfg_name(cfg)}): {res}")
        # a corrupted reference must be reported, for every configuration
        s = campaign([3], 0, 1, qgpu, CONFIGS[:6], str(t), None, perturb=True, log=open(os.devnull, "w"))
        if not s["mismatches"] or s["status"].get("mismatch") != 1:
            fails.append(f"a corrupted host reference was not reported: {s['status']}")
        else:
            ran = [c for c in s["mismatches"][0]["configs"]]
            if "interp-nvcc-w4" not in ran or "interp-clang-w32" not in ran:
                fails.append(f"corrupted reference reported only for {ran}")
    for f in fails:
        print("selftest:", f)
    print("selftest:", "FAILED" if fails else "ok")
    return 1 if fails else 0


def summarize(jsonl):
    """The figures of a campaign from its JSON lines (also for a campaign that was stopped)."""
    s = {"kernels": 0, "base_kernels": 0, "emi_variants": 0, "seeds": set(), "status": {}, "features": {},
         "runs": {}, "mismatches": [], "errors": [], "build_errors": 0}
    for line in open(jsonl):
        r = json.loads(line)
        if "build_error" in r:
            s["build_errors"] += 1
            continue
        if "campaign" in r:
            s.setdefault("campaigns", []).append(r["campaign"])
            continue
        s["kernels"] += 1
        s["base_kernels" if r["variant"] == 0 else "emi_variants"] += 1
        s["seeds"].add(r["seed"])
        s["status"][r["status"]] = s["status"].get(r["status"], 0) + 1
        for f in r["features"]:
            s["features"][f] = s["features"].get(f, 0) + 1
        for c, st in r["runs"].items():
            s["runs"].setdefault(c, {}).setdefault(st, 0)
            s["runs"][c][st] += 1
        for c, msg in r.get("not_lowered", {}).items():
            why = re.sub(r"'[^']*'", "'...'", msg.split("): ")[-1])
            why = re.sub(r"\b\d+\b", "N", why)[:100]
            s.setdefault("not_lowered_why", {}).setdefault(why, 0)
            s["not_lowered_why"][why] += 1
        if r["mismatches"]:
            s["mismatches"].append({"seed": r["seed"], "variant": r["variant"], "first": r["mismatches"][0],
                                    "configs": [m["config"] for m in r["mismatches"]]})
        if r["status"] in ("error", "host_error"):
            s["errors"].append({"seed": r["seed"], "variant": r["variant"], "error": r.get("error") or r.get("errors")})
    s["seeds"] = len(s["seeds"])
    return s


def report(files):
    """Markdown tables of one or more campaigns' JSON lines (docs/fuzzing.md §5)."""
    per = [summarize(f) for f in files]
    tot = {"kernels": sum(p["kernels"] for p in per), "base": sum(p["base_kernels"] for p in per),
           "emi": sum(p["emi_variants"] for p in per), "seeds": sum(p["seeds"] for p in per)}
    lines = [f"{tot['kernels']} kernels ({tot['base']} base kernels of {tot['seeds']} seeds, {tot['emi']} EMI variants); "
             f"mismatches: {sum(len(p['mismatches']) for p in per)}; backend errors: "
             f"{sum(len(p['errors']) for p in per)}; build failures: {sum(p['build_errors'] for p in per)}.", ""]
    runs, feats = {}, {}
    for p in per:
        for c, d in p["runs"].items():
            for st, n in d.items():
                runs.setdefault(c, {}).setdefault(st, 0)
                runs[c][st] += n
        for f, n in p["features"].items():
            feats[f] = feats.get(f, 0) + n
    lines += ["| configuration | ran and agreed | not lowered | error | mismatch |", "|---|---|---|---|---|"]
    mism = {}
    for p in per:
        for m in p["mismatches"]:
            for c in m["configs"]:
                mism[c] = mism.get(c, 0) + 1
    for c, d in runs.items():
        ok = d.get("ok", 0) - mism.get(c, 0)
        lines.append(f"| `{c}` | {ok} | {d.get('not_lowered', 0)} | {d.get('error', 0)} | {mism.get(c, 0)} |")
    why = {}
    for p in per:
        for w, n in p.get("not_lowered_why", {}).items():
            why[w] = why.get(w, 0) + n
    lines += ["", "| why the machine did not lower a kernel (both flavours) | runs |", "|---|---|"]
    for w, n in sorted(why.items(), key=lambda x: -x[1]):
        lines.append(f"| {w} | {n} |")
    lines += ["", "| feature | kernels |", "|---|---|"]
    for f, n in sorted(feats.items(), key=lambda x: -x[1]):
        lines.append(f"| `{f}` | {n} |")
    return "\n".join(lines)


def coverage(seeds, qgpu, outdir):
    """PTX forms the generated kernels reach (qgpu coverage over their PTX) beside the corpus's."""
    outdir = pathlib.Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    for i in range(0, len(seeds), 8):
        chunk = seeds[i:i + 8]
        ks = [gen.generate(sd) for sd in chunk]
        with tempfile.TemporaryDirectory(prefix="qfuzz-cov-") as t:
            t = pathlib.Path(t)
            (t / "b.cu").write_text(batch_source(ks))
            errs = build(t / "b.cu", t, host=False)
            if errs["nvcc"] or errs["clang"]:
                continue
            for fl in ("sm_75", "clang"):
                for sd, text in split_ptx((t / f"batch.{fl}.ptx").read_text()).items():
                    (outdir / f"qf{sd}").mkdir(exist_ok=True)
                    (outdir / f"qf{sd}" / f"kernel.{fl}.ptx").write_text(text)

    def forms(folder):
        d = json.loads(sh([str(qgpu), "coverage", "--kernels", str(folder), "--json"])[1])
        f = {x["form"]: x["corpus_uses"] for x in d["forms"] if x["corpus_uses"]}
        f.update(d["other_corpus_forms"])
        return f, d
    g, gd = forms(outdir)
    c, cd = forms(ROOT / "kernels")
    return {"generated_files": gd["corpus_files"], "corpus_files": cd["corpus_files"],
            "generated_forms": len(g), "corpus_forms": len(c), "both": len(set(g) & set(c)),
            "generated_only": sorted(set(g) - set(c)), "corpus_only": sorted(set(c) - set(g)),
            "generated_numeric_forms": gd["in_corpus"], "corpus_numeric_forms": cd["in_corpus"],
            "generated_counts": g}


def repro(path, seed, known_bad, reason, qgpu):
    """Runs a committed reproducer (tools/fuzz/repro/*.cu: one kernel qf<seed>, launched like
    generated seed <seed>) on every configuration. Exit 0: all agree with the host; 77 (ctest
    skip): only the configurations in known_bad differ (the known bug, `reason`, is still
    there); 1: anything else differs or fails."""
    k = dict(gen.generate(seed))
    src = pathlib.Path(path).read_text()
    k["source"] = src.replace('#include "qf_rt.h"\n', "")
    with tempfile.TemporaryDirectory(prefix="qfuzz-repro-") as t:
        t = pathlib.Path(t)
        (t / "batch.cu").write_text(batch_source([k]))
        errs = build(t / "batch.cu", t)
        if any(errs.values()):
            print(f"repro: does not build: {errs}")
            return 1
        for fl in ("sm_75", "clang"):
            for sd, text in split_ptx((t / f"batch.{fl}.ptx").read_text()).items():
                (t / f"s{sd}.{fl}.ptx").write_text(text)
        kdir = t / k["name"]
        write_launch(k, kdir)
        st, ref = run_host(t / "batch.host", k["name"], kdir)
        if st != "ok":
            print(f"repro: host run failed: {ref}")
            return 1
        bad, other = [], []
        for cfg in CONFIGS[:6]:
            st, res = run_qgpu(qgpu, kdir, cfg)
            d = first_diff(ref, res) if st == "ok" else None
            why = f" {str(res).strip().splitlines()[-1] if str(res).strip() else ''}" if st == "error" else ""
            print(f"repro: {cfg_name(cfg)}: {st}{' ' + json.dumps(d) if d else ''}{why}")
            if st == "error" or d:
                (bad if cfg_name(cfg) in known_bad else other).append(cfg_name(cfg))
        if other:
            print(f"repro: FAILED: unexpected differences in {other}")
            return 1
        if bad:
            print(f"repro: skipped: {', '.join(bad)} still differ: {reason}")
            return 77
        print("repro: every configuration agrees (the recorded bug is gone)")
        return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="a campaign over a seed range")
    r.add_argument("--seeds", required=True, help="A..B or a,b,c")
    r.add_argument("--variants", type=int, default=2, help="EMI variants per seed (besides the base kernel)")
    r.add_argument("--batch", type=int, default=8, help="seeds compiled together in one translation unit")
    r.add_argument("--backends", default="interp,machine", help="comma list of interp, machine, cuda")
    r.add_argument("--json", help="append one JSON record per kernel to this file (JSON lines)")
    r.add_argument("--summary", help="write the campaign summary JSON here")
    r.add_argument("--time-limit", type=float, help="stop starting new batches after this many seconds")
    r.add_argument("--qgpu")
    r.add_argument("--work", default=None, help="scratch folder (default: a temporary one)")
    r.add_argument("--keep", action="store_true", help="keep the batch folders")
    r.add_argument("--perturb", action="store_true", help="self-test: corrupt the host reference (must mismatch)")
    r.add_argument("--jobs", type=int, default=1, help="batches run in parallel (default 1: one process)")
    r.add_argument("--reduce", metavar="DIR", help="creduce the first mismatches into DIR/seed<S>-v<V>/")
    r.add_argument("--reduce-max", type=int, default=3, help="at most this many reductions per campaign")
    r.add_argument("--reduce-timeout", type=int, default=3600, help="seconds per reduction")
    c = sub.add_parser("ctest", help="the fixed seeds of ctest `fuzz`")
    c.add_argument("--qgpu")
    c.add_argument("--perturb", action="store_true")
    c.add_argument("--seeds", default="1..16")
    c.add_argument("--variants", type=int, default=1)
    rd = sub.add_parser("reduce", help="creduce one mismatching kernel")
    rd.add_argument("seed", type=int)
    rd.add_argument("--variant", type=int, default=0)
    rd.add_argument("--config", required=True, help="the mismatching configuration, e.g. interp-nvcc-w32")
    rd.add_argument("--good", default="", help="comma list of configurations that must keep agreeing")
    rd.add_argument("--out", required=True)
    rd.add_argument("--qgpu")
    rd.add_argument("--timeout", type=int, default=3600)
    sm = sub.add_parser("summarize", help="figures of a campaign from its JSON lines")
    sm.add_argument("jsonl")
    rpt = sub.add_parser("report", help="markdown tables of campaigns' JSON lines")
    rpt.add_argument("jsonl", nargs="+")
    cv = sub.add_parser("coverage", help="PTX forms of generated kernels vs the corpus (qgpu coverage)")
    cv.add_argument("--seeds", default="1..200")
    cv.add_argument("--out", required=True, help="folder for the generated PTX (kernels-like layout)")
    cv.add_argument("--json", help="write the comparison here")
    cv.add_argument("--qgpu")
    rp = sub.add_parser("repro", help="run a committed reproducer (tools/fuzz/repro)")
    rp.add_argument("file")
    rp.add_argument("--seed", type=int, required=True, help="its launch is generated seed SEED's")
    rp.add_argument("--known-bad", default="", help="comma list of configurations with the known bug")
    rp.add_argument("--reason", default="")
    rp.add_argument("--qgpu")
    stt = sub.add_parser("selftest", help="the harness's own checks (ctest fuzz.selftest)")
    stt.add_argument("--qgpu")
    it = sub.add_parser("interesting", help="creduce's interestingness test")
    it.add_argument("dir")
    it.add_argument("--meta")
    a = ap.parse_args()

    def parse_cfg(s):
        b, f, w = s.split("-")
        return (b, f, int(w[1:]))

    if a.cmd == "report":
        print(report(a.jsonl))
        sys.exit(0)
    if a.cmd == "summarize":
        print(json.dumps(summarize(a.jsonl), indent=1))
        sys.exit(0)
    if a.cmd == "interesting":
        if a.meta and not (pathlib.Path(a.dir) / "reduce.json").exists():
            shutil.copy(a.meta, pathlib.Path(a.dir) / "reduce.json")
        sys.exit(0 if interesting(a.dir) else 1)
    qgpu = find_qgpu(a.qgpu)
    if a.cmd == "reduce":
        good = [parse_cfg(g) for g in a.good.split(",") if g]
        sys.exit(reduce(a.seed, a.variant, parse_cfg(a.config), good, a.out, qgpu, a.timeout))
    if not have_compilers():
        print("qfuzz: nvcc, clang-14 or g++ missing: skipped", file=sys.stderr)
        sys.exit(77)
    if a.cmd == "selftest":
        sys.exit(selftest(qgpu))
    if a.cmd == "repro":
        sys.exit(repro(a.file, a.seed, [c for c in a.known_bad.split(",") if c], a.reason, qgpu))
    if a.cmd == "coverage":
        cov = coverage(parse_seeds(a.seeds), qgpu, a.out)
        text = json.dumps(cov, indent=1)
        if a.json:
            pathlib.Path(a.json).write_text(text + "\n")
        print(json.dumps({k: v for k, v in cov.items() if k != "generated_counts"}, indent=1))
        sys.exit(0)
    if a.cmd == "ctest":
        seeds, variants, batch, backends, jsonl = parse_seeds(a.seeds), a.variants, 6, ["interp", "machine"], None
        time_limit, work, keep, summ = None, None, False, None
    else:
        seeds, variants, batch, jsonl = parse_seeds(a.seeds), a.variants, a.batch, a.json
        backends = a.backends.split(",")
        time_limit, work, keep, summ = a.time_limit, a.work, a.keep, a.summary
    configs = [c for c in CONFIGS if c[0] in backends]
    tmp = None
    if work is None:
        tmp = tempfile.mkdtemp(prefix="qfuzz-")
        work = tmp
    try:
        s = campaign(seeds, variants, batch, qgpu, configs, work, jsonl, time_limit, a.perturb, keep,
                     reduce_dir=getattr(a, "reduce", None), reduce_max=getattr(a, "reduce_max", 3),
                     reduce_timeout=getattr(a, "reduce_timeout", 3600), jobs=getattr(a, "jobs", 1))
    finally:
        if tmp and not keep:
            shutil.rmtree(tmp, ignore_errors=True)
    text = json.dumps(s, indent=1)
    if summ:
        pathlib.Path(summ).write_text(text + "\n")
    print(json.dumps({k: s[k] for k in ("kernels", "seeds", "status", "not_lowered", "wall_seconds",
                                        "child_cpu_seconds")}))
    if s["mismatches"] or s["errors"] or s["build_errors"]:
        for m in s["mismatches"][:20]:
            print("mismatch:", json.dumps(m))
        for e in s["errors"][:20]:
            print("error:", json.dumps(e))
        for e in s["build_errors"][:5]:
            print("build error:", json.dumps(e)[:3000])
        sys.exit(1)
    if s["kernels"] == 0:
        print("qfuzz: no kernel ran")
        sys.exit(1)


if __name__ == "__main__":
    main()
