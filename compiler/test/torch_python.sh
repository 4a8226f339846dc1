# Sourced by the compiler's stock-transformers checks: sets $py to a python with the pinned
# torch/transformers (QGPU_TORCH_PYTHON, else ci/torch-env's venv) or exits 77 (skipped),
# naming the caller ($1).
py=${QGPU_TORCH_PYTHON:-${QGPU_TORCH_VENV:-$HOME/.cache/qgpu/venv-torch}/bin/python}
if ! [[ -x $py ]] || ! "$py" -c 'import torch, transformers' 2>/dev/null; then
  echo "$1: no python with torch and transformers ($py); run ci/torch-env" >&2
  exit 77
fi
