#!/usr/bin/env python3
"""Runs a token-driven compiled checkpoint in stock Hugging Face transformers: greedy
`generate` from each prompt must give the engine's token stream exactly.

Input: a folder with config.json, model.safetensors and expected.json (written by the ctest
TokenIO.CheckpointOnDiskGeneratesTheSameStreams under QGPU_TOKEN_CHECKPOINT=DIR): the
prompts and the streams our engine generated. The model is loaded with
AutoModelForCausalLM, f32, eager attention, CPU, no custom code. Per prompt:
  * generate (greedy, the cache: DeltaNet's recurrent path) must equal the stream;
  * one forward pass over prompt + stream without the cache (full recompute) must have
    each next token as its argmax;
and the smallest top-1 margin (top logit minus the runner-up) over all positions is reported.

Pinned environment (PyPI): torch==2.15.0 transformers==5.24.0 (ci/torch-env makes it).
Exit 0: identical; 1: a difference; 2: bad input; 77: torch/transformers missing.
"""
import argparse
import json
import platform
import sys

PINNED = {"torch": "2.15.0", "transformers": "5.24.0"}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("checkpoint_dir")
    ap.add_argument("--json", help="write the result here")
    args = ap.parse_args()
    try:
        import torch
        import transformers
        from transformers import AutoModelForCausalLM
    except ImportError as e:
        print(f"hf_token_check: torch/transformers not importable ({e})", file=sys.stderr)
        return 77
    try:
        expected = json.load(open(f"{args.checkpoint_dir}/expected.json"))
        streams = expected["streams"]
    except (OSError, ValueError, KeyError) as e:
        print(f"hf_token_check: {args.checkpoint_dir}: {e}", file=sys.stderr)
        return 2

    torch.set_num_threads(2)
    model = AutoModelForCausalLM.from_pretrained(args.checkpoint_dir, dtype=torch.float32, attn_implementation="eager")
    model.eval()
    mismatches, margin, positions = [], float("inf"), 0
    with torch.no_grad():
        for s in streams:
            prompt, want = s["prompt"], s["tokens"]
            ids = torch.tensor([prompt])
            out = model.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=len(want), do_sample=False,
                                 min_new_tokens=len(want), pad_token_id=None, eos_token_id=None,
                                 output_scores=True, return_dict_in_generate=True)
            got = out.sequences[0, len(prompt):].tolist()
            if got != want:
                mismatches.append(f"prompt {prompt}: generate gave {got}, the engine {want}")
            for scores in out.scores:
                top2 = torch.topk(scores[0], 2).values
                margin = min(margin, float(top2[0] - top2[1]))
                positions += 1
            full = model(torch.tensor([prompt + want]), use_cache=False).logits[0]
            recomputed = full.argmax(-1).tolist()[len(prompt) - 1:-1]
            if recomputed != want:
                mismatches.append(f"prompt {prompt}: full recompute's argmax {recomputed}, the engine {want}")

    result = {
        "unit": expected.get("unit"),
        "streams": len(streams),
        "generated_positions": positions,
        "min_top1_margin": margin,
        "identical": not mismatches,
        "mismatches": mismatches[:20],
        "provenance": {
            "tool": "tools/hf_token_check.py",
            "torch": torch.__version__,
            "transformers": transformers.__version__,
            "pinned": PINNED,
            "device": "cpu",
            "python": platform.python_version(),
            "model_safetensors_sha256": expected.get("model_safetensors_sha256"),
        },
    }
    if args.json:
        json.dump(result, open(args.json, "w"), indent=2)
    print(f"{expected.get('unit')}: {len(streams)} prompts, {positions} generated tokens in transformers "
          f"{transformers.__version__} (torch {torch.__version__}), min top-1 margin {margin}: "
          + ("identical to the engine's streams" if not mismatches else f"{len(mismatches)} differences, first: {mismatches[0]}"))
    return 0 if not mismatches else 1


if __name__ == "__main__":
    sys.exit(main())
