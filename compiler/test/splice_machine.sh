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
for k in "$@"; do
  for f in nvcc clang; do
    "$qgpu" run "$src/kernels/$k" --flavour "$f" --backend model --checkpoint "$out/spliced" --json >"$out/r.json" ||
      fail "$k $f through the spliced model"
    "$qgpu" run "$src/kernels/$k" --flavour "$f" --backend interp --warp 4 --json >"$out/i.json" || fail "$k $f interp"
    "$qgpu" diff "$out/i.json" "$out/r.json" || fail "$k $f outputs differ from the interpreter's"
    echo "$k $f: the executor's stream, the interpreter's outputs"
  done
done
rm -rf "$out"
