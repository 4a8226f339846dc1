#!/usr/bin/env bash
# Regenerates the checked-in PTX of corpus kernels, byte for byte as the
# compilers emit it (nothing is stripped or edited):
#   kernel.sm_75.ptx  nvcc -arch=sm_75 -ptx -O3 kernel.cu            (flavour nvcc)
#   kernel.clang.ptx  clang-14 -x cuda --cuda-device-only --cuda-gpu-arch=sm_75
#                       -nocudainc -nocudalib -O3 -S
#                       -include kernels/include/qgpu_cuda.h kernel.cu  (flavour clang)
# The clang flavour is built only for kernels whose launch.json lists it in
# "ptx". Every file is checked with `ptxas -arch=sm_75`.
#
# usage: tools/gen_ptx.sh [--out DIR] [name...]
#        tools/gen_ptx.sh [--out DIR] --fixture FILE.cu
#   --out DIR      write DIR/<name>/kernel.*.ptx instead of into kernels/<name>/
#   name...        only these kernels (default: every kernels/*/kernel.cu)
#   --fixture F    a test fixture outside kernels/ (machine/test/data/calls.cu): writes
#                  <base>.sm_75.ptx and <base>.clang.ptx next to it (or into DIR)
# QGPU_PTX_JOBS (default 2): kernels compiled in parallel.
set -euo pipefail
cd "$(dirname "$0")/.."

NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
CLANG=${CLANG:-clang-14}
PTXAS=${PTXAS:-$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)}
NVCC_FLAGS=(-arch=sm_75 -ptx -O3)
CLANG_FLAGS=(-x cuda --cuda-device-only --cuda-gpu-arch=sm_75 -nocudainc -nocudalib -O3 -S
             -include kernels/include/qgpu_cuda.h)

out=""
if [[ ${1:-} == --out ]]; then out=$2; shift 2; fi
if [[ ${1:-} == --fixture ]]; then
  src=$2; base=$(basename "$src" .cu); dst=${out:-$(dirname "$src")}; mkdir -p "$dst"
  "$NVCC" "${NVCC_FLAGS[@]}" "$src" -o "$dst/$base.sm_75.ptx"
  "$CLANG" "${CLANG_FLAGS[@]}" "$src" -o "$dst/$base.clang.ptx" 2> >(grep -v 'Wunknown-cuda-version' >&2)
  if [[ -x $PTXAS ]]; then
    for f in "$dst/$base.sm_75.ptx" "$dst/$base.clang.ptx"; do
      "$PTXAS" -arch=sm_75 "$f" -o /dev/null || { echo "gen_ptx: ptxas rejects $f" >&2; exit 1; }
    done
  fi
  exit 0
fi
if (($#)); then names=("$@"); else
  names=(); for f in kernels/*/kernel.cu; do d=${f%/kernel.cu}; names+=("${d#kernels/}"); done
fi

jobs=${QGPU_PTX_JOBS:-2}
if ((jobs > 1 && ${#names[@]} > 1)); then
  # One kernel per child; xargs reports any child's failure (exit 123).
  printf '%s\n' "${names[@]}" |
    QGPU_PTX_JOBS=1 xargs -P "$jobs" -n 1 "$0" ${out:+--out "$out"} || exit 1
  exit 0
fi

have_ptxas=1; [[ -x $PTXAS ]] || { have_ptxas=0; echo "gen_ptx: ptxas not found, PTX not validated" >&2; }
status=0
for n in "${names[@]}"; do
  src=kernels/$n/kernel.cu
  [[ -f $src ]] || { echo "gen_ptx: no $src" >&2; status=1; continue; }
  dst=${out:+$out/$n}; dst=${dst:-kernels/$n}; mkdir -p "$dst"
  files=()
  if [[ -x $NVCC ]]; then
    "$NVCC" "${NVCC_FLAGS[@]}" "$src" -o "$dst/kernel.sm_75.ptx"
    files+=("$dst/kernel.sm_75.ptx")
  fi
  if grep -q '"clang"' "kernels/$n/launch.json" 2>/dev/null && command -v "$CLANG" >/dev/null; then
    # clang warns that it does not know CUDA 13 (found, not used: -nocudainc).
    "$CLANG" "${CLANG_FLAGS[@]}" "$src" -o "$dst/kernel.clang.ptx" 2> >(grep -v 'Wunknown-cuda-version' >&2)
    files+=("$dst/kernel.clang.ptx")
  fi
  if ((have_ptxas)); then
    for f in "${files[@]}"; do
      "$PTXAS" -arch=sm_75 "$f" -o /dev/null || { echo "gen_ptx: ptxas rejects $f" >&2; status=1; }
    done
  fi
done
exit $status
