#!/usr/bin/env python3
"""Runs corpus launches through the compiled machine in stock Hugging Face transformers.

Input: a checkpoint folder written by `qgpu compile machine --out DIR` and kernel folders.
For each kernel and PTX flavour, `qgpu run --backend machine --prompt P --tokens T` gives the
launch's prompt and the reference executor's generated stream. The checkpoint is loaded
once with AutoModelForCausalLM (f32, eager attention, CPU, no custom code; its BF16 tensors
widen to f32 exactly) and, per launch:
  * greedy `generate` from the prompt (prefill, then the cache: DeltaNet's recurrent path)
    must give the executor's stream token for token;
  * without --no-recompute, one forward pass over prompt + stream without the cache (the
    chunked path) must have each next token as its argmax;
  * the generated stream is written as a token file and checked by `qgpu diff --tokens
    machine:KERNEL FILE` (the first difference with the executor's step, if any);
and the smallest top-1 margin (top logit minus the runner-up) is reported. Model row r is
machine id r + 248,320 (the manifest says so).

Pinned environment (PyPI): torch==2.15.0 transformers==5.24.0 (ci/torch-env makes it).
Peak memory is the f32 model: about 16 GB for the 2,048-wide machine (the margins are taken
as generate runs, not kept as scores; the full recompute holds prompt + stream logits: use
--no-recompute for launches of thousands of tokens).
Exit 0: every stream identical; 1: a difference; 2: bad input; 77: torch/transformers missing.
"""
import argparse
import json
import os
import pathlib
import platform
import subprocess
import sys
import tempfile
import time

PINNED = {"torch": "2.15.0", "transformers": "5.24.0"}
ROOT = pathlib.Path(__file__).resolve().parent.parent


class TopMargin:
    """A logits processor that records each step's top-1 margin and changes nothing: keeping
    every step's scores (output_scores) would hold tokens x vocabulary floats, gigabytes for a
    launch of a thousand tokens beside the 16 GB model."""

    def __init__(self, margins):
        self.margins = margins

    def __call__(self, input_ids, scores):
        top = scores[0].topk(2).values
        self.margins.append(float(top[0] - top[1]))
        return scores


def read_ids(path):
    return [int(line.split("\t", 1)[0]) for line in open(path) if line.strip()]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("checkpoint_dir")
    ap.add_argument("kernels", nargs="+", help="kernel folders (kernels/dot ...)")
    ap.add_argument("--flavours", nargs="+", default=["nvcc", "clang"])
    ap.add_argument("--qgpu", default=str(ROOT / "build" / "bin" / "qgpu"))
    ap.add_argument("--no-recompute", action="store_true", help="skip the full-recompute pass")
    ap.add_argument("--json", help="write the result here")
    args = ap.parse_args()
    try:
        import torch
        import transformers
        from transformers import AutoModelForCausalLM, LogitsProcessorList
    except ImportError as e:
        print(f"hf_machine_run: torch/transformers not importable ({e})", file=sys.stderr)
        return 77
    ckpt = pathlib.Path(args.checkpoint_dir)
    try:
        manifest = json.load(open(ckpt / "manifest.json"))
        offset = int(manifest["machine_isa"]["model_row_of_machine_id"].split("-")[1])
    except (OSError, ValueError, KeyError, IndexError) as e:
        print(f"hf_machine_run: {ckpt}: not a qgpu machine checkpoint ({e})", file=sys.stderr)
        return 2
    work = tempfile.TemporaryDirectory(prefix="qgpu-hf-")
    launches = []
    for k in args.kernels:
        for f in args.flavours:
            p, t = os.path.join(work.name, f"{pathlib.Path(k).name}.{f}.prompt"), os.path.join(work.name, f"{pathlib.Path(k).name}.{f}.tokens")
            r = subprocess.run([args.qgpu, "run", k, "--backend", "machine", "--flavour", f, "--prompt", p, "--tokens", t],
                               capture_output=True, text=True)
            if r.returncode != 0:
                print(f"hf_machine_run: {k} ({f}): qgpu run --backend machine: exit {r.returncode}: {r.stderr.strip()}",
                      file=sys.stderr)
                return 2
            launches.append({"kernel": k, "flavour": f, "prompt": [i - offset for i in read_ids(p)],
                             "tokens": [i - offset for i in read_ids(t)]})

    torch.set_num_threads(os.cpu_count() or 1)
    start = time.monotonic()
    model = AutoModelForCausalLM.from_pretrained(ckpt, dtype=torch.float32, attn_implementation="eager")
    model.eval()
    load_seconds = time.monotonic() - start
    results, identical = [], True
    with torch.no_grad():
        for l in launches:
            prompt, want = l["prompt"], l["tokens"]
            ids = torch.tensor([prompt])
            start = time.monotonic()
            margins = []
            out = model.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=len(want), do_sample=False,
                                 min_new_tokens=len(want), pad_token_id=None, eos_token_id=None,
                                 logits_processor=LogitsProcessorList([TopMargin(margins)]),
                                 return_dict_in_generate=True)
            seconds = time.monotonic() - start
            got = out.sequences[0, len(prompt):].tolist()
            margin = min(margins)
            gen_file = os.path.join(work.name, f"{pathlib.Path(l['kernel']).name}.{l['flavour']}.hf.tokens")
            with open(gen_file, "w") as fh:
                fh.writelines(f"{i + offset}\thf\n" for i in got)
            d = subprocess.run([args.qgpu, "diff", "--tokens", f"machine:{l['kernel']}", gen_file, "--flavour", l["flavour"]],
                               capture_output=True, text=True)
            row = {"kernel": l["kernel"], "flavour": l["flavour"], "prompt_tokens": len(prompt), "generated": len(got),
                   "identical": got == want, "min_top1_margin": margin, "generate_seconds": seconds,
                   "token_diff": d.stdout.strip().splitlines()[-1] if d.returncode == 0 else d.stdout.strip()}
            if not args.no_recompute:
                full = model(torch.tensor([prompt + want]), use_cache=False).logits[0]
                row["recompute_identical"] = full.argmax(-1).tolist()[len(prompt) - 1:-1] == want
            ok = row["identical"] and row.get("recompute_identical", True) and d.returncode == 0
            identical = identical and ok
            results.append(row)
            print(f"{l['kernel']} ({l['flavour']}): {len(prompt)} prompt + {len(got)} generated tokens in "
                  f"{seconds:.1f} s; " + ("identical to the executor's stream" if ok else "DIFFERENT: " + row["token_diff"])
                  + (", full recompute too" if row.get("recompute_identical") else "")
                  + f"; min top-1 margin {margin:g}", flush=True)
    result = {
        "checkpoint": str(ckpt),
        "model_safetensors_sha256": manifest["files"]["model.safetensors"]["sha256"],
        "source_commit": manifest.get("source_commit"),
        "launches": results,
        "identical": identical,
        "load_seconds": load_seconds,
        "provenance": {"tool": "tools/hf_machine_run.py", "torch": torch.__version__,
                       "transformers": transformers.__version__, "pinned": PINNED, "device": "cpu",
                       "threads": torch.get_num_threads(), "python": platform.python_version()},
    }
    if args.json:
        json.dump(result, open(args.json, "w"), indent=2)
    print(f"transformers {transformers.__version__} (torch {torch.__version__}), loaded in {load_seconds:.0f} s: "
          + ("every stream identical" if identical else "differences"))
    return 0 if identical else 1


if __name__ == "__main__":
    sys.exit(main())
