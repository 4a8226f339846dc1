#!/usr/bin/env bash
# ctest machine_cli_token_diff — qgpu diff --tokens: the dot product's token file against a
# live run of the reference executor: identical (exit 0); cut short (exit 1, named as the end
# of the file without HALT, with the executor's step and token there); one id edited (exit 1
# at that token); a malformed line (exit 2 naming the file and line).
set -uo pipefail
qgpu=$1 src=$2 out=$3
fail() { echo "FAIL: $*" >&2; exit 1; }
diff_tokens() {  # expected exit code, token file
  text=$("$qgpu" diff --tokens "machine:$src/kernels/dot" "$2" 2>&1); rc=$?
  [[ $rc == "$1" ]] || fail "diff --tokens $2: exit $rc, expected $1: $text"
}
"$qgpu" run "$src/kernels/dot" --backend machine --tokens "$out" >/dev/null || fail "qgpu run --tokens"
n=$(wc -l < "$out")

diff_tokens 0 "$out"
grep -q "identical token streams" <<<"$text" || fail "identical: $text"

head -n 30 "$out" > "$out.truncated"
diff_tokens 1 "$out.truncated"
grep -q "first difference at generated token 30" <<<"$text" || fail "truncated: $text"
grep -q "ends after 30 tokens without HALT" <<<"$text" || fail "truncated: $text"
grep -Eq "generated token 30 \(position [0-9]+, step [0-9]+ \(pc [0-9]+\)\): the reference executor says" <<<"$text" \
  || fail "truncated, no executor context: $text"

id=$(sed -n 12p "$out" | cut -f1)
awk -v OFS='\t' -F'\t' 'NR == 12 { $1 = $1 + 1 } { print }' "$out" > "$out.edited"
diff_tokens 1 "$out.edited"
grep -q "first difference at generated token 11" <<<"$text" || fail "edited: $text"
grep -q "B: $((id + 1)) " <<<"$text" || fail "edited: $text"

{ cat "$out"; echo "not a token"; } > "$out.malformed"
diff_tokens 2 "$out.malformed"
grep -q "malformed:$((n + 1)): not a token line" <<<"$text" || fail "malformed: $text"
echo "ok: $n tokens; truncated, edited and malformed files reported"
