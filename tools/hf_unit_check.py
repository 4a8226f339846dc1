#!/usr/bin/env python3
"""Runs a compiled unit checkpoint in stock Hugging Face transformers and compares it
with qgpu's engine bit for bit (the compiler's cross-engine check, docs/compiler.md §6).

Input: one or more folders written by `qgpu compile unit NAME --out DIR` (config.json,
model.safetensors, manifest.json, samples.json with the engine's logits), checked in one
process (importing torch costs more than most units' checks). Each unit
is loaded with AutoModelForCausalLM, f32, eager attention, on the CPU, no custom
code; the samples' residual inputs go in as `inputs_embeds` (batch 1):
  * prefill: all samples as the positions of one sequence;
  * decode: one position at a time with the cache (the recurrent DeltaNet path);
and every logit must have the engine's exact f32 bits, and the decoded outputs the IR's.

Pinned environment (PyPI): torch==2.15.0 transformers==5.24.0 safetensors numpy
(ci/torch-env makes it). Exit 0: all identical; 1: a difference; 2: bad input.
Writes a JSON result with provenance per unit: to --json (one folder) or into --json-dir
as UNIT.result.json.
"""
import argparse
import json
import platform
import struct
import sys

PINNED = {"torch": "2.15.0", "transformers": "5.24.0"}


def bits(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def check_unit(unit_dir, torch, transformers, AutoModelForCausalLM):
    """(exit code, result dict or None) for one unit folder."""
    try:
        manifest = json.load(open(f"{unit_dir}/manifest.json"))
        samples = json.load(open(f"{unit_dir}/samples.json"))
        config = json.load(open(f"{unit_dir}/config.json"))
    except (OSError, ValueError) as e:
        print(f"hf_unit_check: {unit_dir}: {e}", file=sys.stderr)
        return 2, None

    model = AutoModelForCausalLM.from_pretrained(unit_dir, dtype=torch.float32, attn_implementation="eager")
    model.eval()
    assert next(model.parameters()).dtype == torch.float32

    hidden = config["hidden_size"]
    T = len(samples["inputs"])
    x = torch.zeros(1, T, hidden, dtype=torch.float32)
    anchor = float(2 ** manifest["anchor_exponent"])
    for t, values in enumerate(samples["inputs"]):
        for a in range(manifest["live_anchors"]):
            x[0, t, a] = anchor
        for ch, v in zip(manifest["input_channels"], values):
            x[0, t, ch] = float(v)

    n_out = len(manifest["output_channels"])
    mismatches = []

    def compare(mode, t, logits_row):
        want = samples["engine_logits_f32"][t]
        got = [f"{bits(float(v)):08x}" for v in logits_row.tolist()]
        if got != want:
            k = next(i for i in range(len(want)) if got[i] != want[i])
            mismatches.append(f"{mode} position {t} logit {k}: transformers {got[k]} engine {want[k]}")
        outs = [int(round(float(v))) for v in logits_row[:n_out].tolist()]
        if outs != samples["ir_outputs"][t]:
            mismatches.append(f"{mode} position {t}: decoded outputs differ from the IR's")

    with torch.no_grad():
        full = model(inputs_embeds=x, use_cache=False).logits[0]
        for t in range(T):
            compare("prefill", t, full[t])
        cache = None
        for t in range(T):
            out = model(inputs_embeds=x[:, t:t + 1], cache=cache, use_cache=True)
            cache = out.past_key_values
            compare("decode", t, out.logits[0, 0])

    result = {
        "unit": manifest["unit"],
        "positions": T,
        "identical": not mismatches,
        "mismatches": mismatches[:20],
        "provenance": {
            "tool": "tools/hf_unit_check.py",
            "torch": torch.__version__,
            "transformers": transformers.__version__,
            "pinned": PINNED,
            "device": "cpu",
            "python": platform.python_version(),
            "model_safetensors_sha256": manifest["model_safetensors_sha256"],
        },
    }
    print(f"{manifest['unit']}: {T} positions, prefill and decode in transformers {transformers.__version__} "
          f"(torch {torch.__version__}): " + ("bit-identical to the engine" if not mismatches else
                                               f"{len(mismatches)} differences, first: {mismatches[0]}"))
    return (0 if not mismatches else 1), result


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("unit_dirs", nargs="+", metavar="unit_dir")
    ap.add_argument("--json", help="write the result here (one unit folder only)")
    ap.add_argument("--json-dir", help="write each unit's result here as UNIT.result.json")
    args = ap.parse_args()
    if args.json and len(args.unit_dirs) != 1:
        print("hf_unit_check: --json takes one unit folder; use --json-dir for several", file=sys.stderr)
        return 2
    try:
        import torch
        import transformers
        from transformers import AutoModelForCausalLM
    except ImportError as e:
        print(f"hf_unit_check: torch/transformers not importable ({e})", file=sys.stderr)
        return 77
    torch.set_num_threads(2)
    worst = 0
    for unit_dir in args.unit_dirs:
        code, result = check_unit(unit_dir, torch, transformers, AutoModelForCausalLM)
        worst = max(worst, code)
        if result is None:
            continue
        if args.json:
            json.dump(result, open(args.json, "w"), indent=2)
        if args.json_dir:
            json.dump(result, open(f"{args.json_dir}/{result['unit']}.result.json", "w"), indent=2)
    return worst


if __name__ == "__main__":
    sys.exit(main())
