#!/usr/bin/env bash
# Checks that the checked-in PTX of every corpus kernel, and of the test fixtures in
# machine/test/data, equals fresh compiler output (tools/gen_ptx.sh into a temporary
# directory, then diff).
# Exit 0: up to date, or a compiler is absent (a notice says which, and the
# flavours it would build are skipped). Exit 1: a file differs (named).
set -euo pipefail
cd "$(dirname "$0")/.."
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
CLANG=${CLANG:-clang-14}
check_nvcc=1; check_clang=1
[[ -x $NVCC ]] || { echo "check_ptx: notice: nvcc not found, kernel.sm_75.ptx not checked"; check_nvcc=0; }
command -v "$CLANG" >/dev/null || { echo "check_ptx: notice: $CLANG not found, kernel.clang.ptx not checked"; check_clang=0; }
((check_nvcc || check_clang)) || exit 0

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
NVCC=$NVCC CLANG=$CLANG tools/gen_ptx.sh --out "$tmp" >/dev/null
fail=0
for d in kernels/*/; do
  n=$(basename "$d"); [[ -f $d/kernel.cu ]] || continue
  if ((check_nvcc)); then
    if ! cmp -s "$d/kernel.sm_75.ptx" "$tmp/$n/kernel.sm_75.ptx"; then
      echo "check_ptx: kernels/$n/kernel.sm_75.ptx differs from fresh nvcc output"; fail=1
    fi
  fi
  if ((check_clang)); then
    if [[ -f $tmp/$n/kernel.clang.ptx || -f $d/kernel.clang.ptx ]] &&
       ! cmp -s "$d/kernel.clang.ptx" "$tmp/$n/kernel.clang.ptx"; then
      echo "check_ptx: kernels/$n/kernel.clang.ptx differs from fresh clang output"; fail=1
    fi
  fi
done
# Test fixtures compiled like the corpus (both compilers needed).
if ((check_nvcc && check_clang)); then
  for src in machine/test/data/*.cu; do
    [[ -f $src ]] || continue
    base=${src%.cu}
    NVCC=$NVCC CLANG=$CLANG tools/gen_ptx.sh --out "$tmp/fixtures" --fixture "$src" >/dev/null
    for fl in sm_75 clang; do
      if ! cmp -s "$base.$fl.ptx" "$tmp/fixtures/$(basename "$base").$fl.ptx"; then
        echo "check_ptx: $base.$fl.ptx differs from fresh compiler output"; fail=1
      fi
    done
  done
fi
((fail)) && exit 1
echo "check_ptx: all PTX up to date"
