#!/usr/bin/env bash
# CLI tests of `qgpu diff` and `qgpu run --trace/--inject`: one case per
# ctest test, each checking exit codes and the key lines of the output.
# Usage: cli_test.sh QGPU CASE SCRATCH_DIR   (run from the source root)
set -uo pipefail
Q=$1 CASE=$2 T=$3/$2
rm -rf "$T" && mkdir -p "$T"
fail() { echo "FAIL: $*"; exit 1; }
# expect RC REGEX CMD...: runs CMD, checks the exit code and that stdout+stderr match REGEX.
expect() {
  local rc=$1 re=$2; shift 2
  local out; out=$("$@" 2>&1); local got=$?
  echo "\$ $* -> $got"; echo "$out" | head -40
  [ "$got" = "$rc" ] || fail "exit $got, expected $rc"
  grep -Eq -- "$re" <<<"$out" || fail "output lacks /$re/"
}
# pc_of SPEC PREFIX: the pc of the first instruction whose PTX text starts with PREFIX.
pc_of() {
  "$Q" run "$1" --listing |
    awk -v p="$2" '{ t = $0; sub(/^ *[0-9]+ +[^ ]+ +[0-9]+  /, "", t); if (index(t, p) == 1) { print $1; exit } }'
}

case $CASE in
identical)
  expect 0 '^verdict: IDENTICAL' "$Q" diff goldens/dot/host-ref.json interp:kernels/dot
  "$Q" run kernels/dot --json > "$T/run.json" || fail "run"
  expect 0 '^verdict: IDENTICAL' "$Q" diff "$T/run.json" "$T/run.json"
  expect 0 '"equal": true' "$Q" diff goldens/dot/host-ref.json interp:kernels/dot --warp 32 --json ;;
divergent)
  pc=$(pc_of kernels/dot "mul.f32")
  "$Q" run kernels/dot --inject "pc=$pc,lane=1,bit=20" --json > "$T/bad.json" || fail "run --inject"
  pcst=$(pc_of kernels/dot "st.global.f32")
  expect 1 "written by block \(0,0,0\) thread \(0,0,0\) \[warp 0 lane 0\] at pc $pcst " \
    "$Q" diff goldens/dot/host-ref.json "$T/bad.json"
  expect 1 '^verdict: DIVERGENT: 1 of 1 elements differ' "$Q" diff goldens/dot/host-ref.json "$T/bad.json"
  expect 1 '"ulp": 262144' "$Q" diff goldens/dot/host-ref.json "$T/bad.json" --json
  expect 1 'inject pc='"$pc" "$Q" diff interp:kernels/dot interp:kernels/dot --inject "pc=$pc,lane=1,bit=20"
  # A spec that cannot have produced the result: the writers come with a warning.
  "$Q" run kernels/dot --json | sed 's/"0x42000000"/"0x42000001"/' > "$T/edited.json"
  expect 1 'warning: the re-run does not reproduce' \
    "$Q" diff goldens/dot/host-ref.json "$T/edited.json" --spec debug/test/kernels/saxpy
  # An attribution re-run that faults leaves the diff intact.
  expect 1 'writers: none \(the attribution re-run failed: .*out-of-bounds' \
    "$Q" diff goldens/dot/host-ref.json "$T/bad.json" --spec debug/test/kernels/saxpy ;;
trace)
  k=debug/test/kernels/saxpy
  pc=$(pc_of $k "fma.rn.f32")
  "$Q" run $k --trace "$T/good.trace" > /dev/null || fail "run --trace"
  "$Q" run $k --warp 32 --trace "$T/w32.trace" > /dev/null || fail "run --trace W=32"
  "$Q" run $k --inject "pc=$pc,lane=3,bit=1,block=1" --trace "$T/bad.trace" > /dev/null || fail "run --inject --trace"
  head -1 "$T/good.trace" | grep -q '"format":"qgpu-trace-1"' || fail "trace header"
  expect 0 '^verdict: IDENTICAL' "$Q" diff --trace "$T/good.trace" "$T/w32.trace"
  expect 1 "instruction: pc $pc \`fma.rn.f32" "$Q" diff --trace "$T/w32.trace" "$T/bad.trace"
  expect 1 'first divergence \(register\): block \(1,0,0\) thread \(3,0,0\)' "$Q" diff --trace "$T/good.trace" "$T/bad.trace"
  expect 1 'source: .*kernel.cu:6:  *y\[i\] = a \* v \+ y\[i\];' "$Q" diff --trace "$T/good.trace" "$T/bad.trace"
  expect 1 '^  y\[11\]: A ' "$Q" diff --trace "$T/good.trace" "$T/bad.trace"
  expect 1 '"lane": 3' "$Q" diff --trace "$T/good.trace" "$T/bad.trace" --json ;;
bad_input)
  echo '{"format": "qgpu-result-1", "kernel": "dot"' > "$T/cut.json"
  echo '{"format": "something-else"}' > "$T/other.json"
  echo 'not a trace' > "$T/x.trace"
  expect 2 'malformed JSON' "$Q" diff "$T/cut.json" goldens/dot/host-ref.json
  expect 2 'unknown "format"' "$Q" diff goldens/dot/host-ref.json "$T/other.json"
  expect 2 'no such result file' "$Q" diff goldens/dot/host-ref.json "$T/missing.json"
  expect 2 'cannot read launch spec' "$Q" diff goldens/dot/host-ref.json interp:/nonexistent
  expect 2 'x.trace:1: malformed trace' "$Q" diff --trace "$T/x.trace" "$T/x.trace"
  expect 2 'cannot read the trace' "$Q" diff --trace "$T/none.trace" "$T/x.trace"
  expect 2 'unknown key' "$Q" run kernels/dot --inject pc=1,lane=0,bit=0,foo=1
  expect 2 'has no destination register' "$Q" run kernels/dot --inject "pc=$(pc_of kernels/dot st.global),lane=0,bit=0"
  expect 2 'never executed' "$Q" run kernels/dot --inject "pc=$(pc_of kernels/dot mul.f32),lane=3,bit=0"
  expect 2 'need --backend interp' "$Q" run kernels/dot --backend host-ref --trace "$T/t.trace"
  "$Q" run kernels/dot --trace "$T/dot.trace" > /dev/null && "$Q" run debug/test/kernels/scan --trace "$T/scan.trace" > /dev/null
  expect 2 'not comparable: different kernels' "$Q" diff --trace "$T/dot.trace" "$T/scan.trace" ;;
*) fail "unknown case $CASE" ;;
esac
echo PASS
