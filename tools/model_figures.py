#!/usr/bin/env python3
"""The compiled machine's figures beside qwenGPU's, measured here (docs/machine.md §5.2).

Runs, each as its own process (peak memory from wait4's rusage, wall time by the clock):
  1. `qgpu compile machine --out DIR --json`: compile, prove and write the checkpoint;
  2. `qgpu run kernels/dot --backend model --checkpoint DIR --json` for both PTX flavours;
  3. the same for a longer launch (bitonic_sort, nvcc: 6,753 generated tokens), whose rate
     a scheduler's hiccup moves far less than the dot product's (60 tokens);
  4. `qgpu run kernels/dot --backend model --json` (compiled in memory), unless --quick;
and writes the table between `<!-- model-figures:table -->` and `<!-- /model-figures:table -->`
(--write) or prints it. The figures are a benchmark's, not a test's: the table says when,
where and from which commit they were measured. About 6 minutes and 17 GB of memory.
"""
import argparse
import datetime
import json
import os
import pathlib
import platform
import struct
import subprocess
import sys
import tempfile
import time

from doc_tables import replace_marked

ROOT = pathlib.Path(__file__).resolve().parent.parent
LONGER = "bitonic_sort"  # a launch of thousands of generated tokens that the compiled step runs
DOC = ROOT / "docs" / "machine.md"


def measured(cmd):
    """(stdout as JSON, wall seconds, peak RSS in bytes) of one command."""
    start = time.monotonic()
    with tempfile.TemporaryFile(mode="w+") as err:
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, text=True)
        out = p.stdout.read()
        _, status, usage = os.wait4(p.pid, 0)  # this child's own peak RSS
        p.returncode = os.waitstatus_to_exitcode(status)
        wall = time.monotonic() - start
        if p.returncode != 0:
            err.seek(0)
            sys.exit(f"{' '.join(cmd)}: exit {p.returncode}\n{err.read()}")
    return json.loads(out), wall, usage.ru_maxrss * 1024


def cpu_name():
    for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown CPU"


def gb(b):
    return f"{b / 1e9:.2f} GB"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--write", action="store_true", help="write the table into docs/machine.md")
    ap.add_argument("--quick", action="store_true", help="skip the in-memory run (about 90 s and 17 GB)")
    ap.add_argument("--qgpu", default=str(ROOT / "build" / "bin" / "qgpu"))
    ap.add_argument("--out", help="checkpoint folder (default: a temporary one, removed after)")
    args = ap.parse_args()
    tmp = None if args.out else tempfile.TemporaryDirectory(prefix="qgpu-machine-")
    out = args.out or os.path.join(tmp.name, "gpu")
    m, compile_wall, compile_rss = measured([args.qgpu, "compile", "machine", "--out", out, "--json"])
    dot = str(ROOT / "kernels" / "dot")
    runs = {}
    for flavour in ("nvcc", "clang"):
        runs[flavour] = measured([args.qgpu, "run", dot, "--backend", "model", "--checkpoint", out, "--flavour", flavour,
                                  "--json"])
    longer = measured([args.qgpu, "run", str(ROOT / "kernels" / LONGER), "--backend", "model", "--checkpoint", out,
                       "--flavour", "nvcc", "--json"])[0]["provenance"]
    memory = None if args.quick else measured([args.qgpu, "run", dot, "--backend", "model", "--json"])
    r, wall, rss = runs["nvcc"]
    p = r["provenance"]
    rate = ", ".join(f"{runs[f][0]['provenance']['tokens_per_second']:.0f} ({f})" for f in runs)
    gen = ", ".join(f"{runs[f][0]['provenance']['generated_tokens']} ({f})" for f in runs)
    out0 = r["outputs"][0]
    files = m["files"]["model.safetensors"]
    commit = m["source_commit"][:12] + (" (modified tree)" if m["source_tree_modified"] else "")
    rows = [
        ("", "qwenGPU (published)", "qgpu's compiled machine (measured here)"),
        ("layers", "45 GPU layers added to Qwen3.5-2B's 24 (69)",
         f"{m['model']['layers']} (the machine alone; spliced into a base: part 2c)"),
        ("hidden size / MLP width", "2,048 / 6,144 (the 2B's)",
         f"{m['model']['hidden_size']:,} / {m['model']['intermediate_size']:,} "
         f"({m['model']['residual_channels_used']:,} residual channels used)"),
        ("parameters: non-zero / total", "not published",
         f"{m['nonzero_parameters']:,} / {m['parameters']:,} ({100 * m['nonzero_parameters'] / m['parameters']:.2f} %)"),
        ("checkpoint", "not published",
         f"{files['bytes']:,} bytes ({files['bf16_tensors']} tensors BF16, {files['f32_tensors']} F32: each exact)"),
        ("exactness", "exact launches; KL about 7e-4 from the base on text",
         f"proven exact (minimum margin {m['proof']['min_margin']:g}); every token checked against the executor"),
        ("dot product: out[0], generated tokens", "32 in 47 tokens",
         f"{struct.unpack('<f', int(out0['bits'][0], 16).to_bytes(4, 'little'))[0]:g} ({out0['bits'][0]}); {gen}"),
        ("tokens/s (generating)", "10–15 on an Apple GPU",
         f"{rate} on {os.cpu_count()} CPU cores; sparse weights {p['weight_bytes_per_token'] / 1e6:.1f} MB (what a token reads by rows; by columns it reads only those its non-zero inputs reach)"),
        (f"tokens/s (generating a longer launch: {LONGER}, nvcc)", "not published",
         f"{longer['tokens_per_second']:.0f} ({longer['generated_tokens']:,} tokens; prompt of {longer['prompt_tokens']:,} "
         f"in {longer['prefill_seconds']:.2f} s)"),
        ("prompt (prefill)", "not published", f"{p['prompt_tokens']} tokens in {p['prefill_seconds']:.2f} s"),
        ("peak memory", "about 16 GB",
         f"{gb(rss)} running from the checkpoint ({wall:.1f} s wall, load included)"
         + (f"; {gb(memory[2])} compiled in memory ({memory[1]:.0f} s)" if memory else "")),
        ("building the checkpoint", "not published",
         f"{compile_wall:.0f} s wall (compile {m['timings']['compile_seconds']:.0f} s, proof "
         f"{m['timings']['proof_seconds']:.0f} s, write and hash {m['timings']['write_seconds']:.0f} s), peak {gb(compile_rss)}"),
    ]
    table = "\n".join(["| " + " | ".join(r) + " |" if i != 1 else "|---|---|---|\n| " + " | ".join(r) + " |"
                       for i, r in enumerate(rows)])
    table += (f"\n\nMeasured {datetime.date.today().isoformat()} by `tools/model_figures.py` on {cpu_name()} "
              f"({os.cpu_count()} cores), commit {commit}; model.safetensors sha256 `{files['sha256'][:16]}…`.")
    if args.write:
        DOC.write_text(replace_marked(DOC.read_text(), "model-figures", "table", table, DOC))
        print(f"{DOC}: the compiled machine's figures written")
    print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
