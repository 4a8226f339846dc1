#!/usr/bin/env bash
# ctest compiler.splice_cli: `qgpu compile splice` and `splice-check` on small random models
# (seconds): what they refuse (exit 2, naming why) and the text check's verdicts (exit 0 for
# a model against itself, 1 for another seed). The machine spliced into a base runs in the
# nightly compiler.splice_machine (splice_machine.sh).
set -uo pipefail
qgpu=$1 out=$2
rm -rf "$out" && mkdir -p "$out"
fail() { echo "FAIL: $*"; exit 1; }
expect() {  # expect RC PATTERN CMD...: the exit code and a pattern of its stderr+stdout
  local rc=$1 pattern=$2; shift 2
  local got text
  text=$("$@" 2>&1); got=$?
  [[ $got -eq $rc ]] || fail "exit $got (wanted $rc): $* -> $text"
  grep -q -- "$pattern" <<<"$text" || fail "no '$pattern' in: $text"
}
"$qgpu" model random --shape small --layers 2 --vocab 512 --out "$out/base" >/dev/null || fail "model random"
"$qgpu" model random --shape small --layers 2 --vocab 512 --seed 2 --out "$out/other" >/dev/null || fail "model random"
# A random model is not a compiled GPU: no anchors.
expect 2 "anchors" "$qgpu" compile splice --base "$out/base" --gpu "$out/other" --out "$out/s1" --id-offset 512
# The base's vocabulary must end below the GPU's ids.
expect 2 "reaches the GPU's ids" "$qgpu" compile splice --base "$out/base" --gpu "$out/other" --out "$out/s2" --id-offset 100
expect 2 "cannot" "$qgpu" compile splice --base "$out/missing" --gpu "$out/other" --out "$out/s3"
# A checkpoint that is not Qwen3.5 (another model_type), as the base or as the GPU.
mkdir -p "$out/llama" && echo '{"model_type": "llama", "hidden_size": 64}' >"$out/llama/config.json"
expect 2 "model_type" "$qgpu" compile splice --base "$out/llama" --gpu "$out/other" --out "$out/s4"
expect 2 "model_type" "$qgpu" compile splice --base "$out/base" --gpu "$out/llama" --out "$out/s5"
[[ ! -e "$out/s1/model.safetensors" && ! -e "$out/s2/model.safetensors" ]] || fail "a refused splice wrote weights"
# The text check: a model against itself is identical, against another seed it is not.
expect 0 "identical: text runs in the spliced model exactly as in the base" \
  "$qgpu" compile splice-check --base "$out/base" --spliced "$out/base" --prompts 2 --length 8
expect 1 "DIFFERENT" "$qgpu" compile splice-check --base "$out/base" --spliced "$out/other" --prompts 2 --length 8
rm -rf "$out"
echo "splice cli: ok"
