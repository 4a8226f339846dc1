#!/usr/bin/env bash
# ctest compiler.splice_machine (nightly): the compiled machine (the nightly checkpoint) spliced
# into a small random Qwen3.5 base (`qgpu model random --shape small`: hidden 256, 4 layers;
# the splice is 22 GB, hidden 4,096, 54 layers): text through it gives the base's logits bit
# for bit, and launches give the reference executor's token stream and the interpreter's
# outputs (docs/compiler.md §9).
set -uo pipefail
qgpu=$1 src=$2 gpu=$3 out=$4
shift 4
rm -rf "$out" && mkdir -p "$out"
fail() { echo "FAIL: $*"; rm -rf "$out"; exit 1; }
"$qgpu" model random --shape small --out "$out/base" >/dev/null || fail "model random"
"$qgpu" compile splice --base "$out/base" --gpu "$gpu" --out "$out/spliced" || fail "splice"
"$qgpu" compile splice-check --base "$out/base" --spliced "$out/spliced" --prompts 4 --length 32 || fail "text differs"
# Every launch against its goldens through the spliced model, loaded once (the model backend
# checks each generated token against the reference executor's as it runs).
"$qgpu" check "$@" --kernels-dir "$src/kernels" --goldens-dir "$src/goldens" --warp 4 --backend model \
  --checkpoint "$out/spliced" | tee "$out/check.txt"
[ "${PIPESTATUS[0]}" = 0 ] || fail "a launch through the spliced model"
grep -q "not run" "$out/check.txt" && fail "a launch was not run through the spliced model"
rm -rf "$out"
