#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# The reverse direction of the example, as a test: the model loaded from model.pt is saved as
# safetensors by the C++ program, then loaded into the PyTorch model by check_safetensors.py,
# which must predict the same classes. Exits 77 (ctest: skipped) when PyTorch is not installed.
#
#   bash examples/pytorch-import/roundtrip.sh <pytorch-import binary> <scratch dir>
set -euo pipefail
binary="$1"
dir="$2"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
python=/usr/bin/python3
if ! "$python" -c "import torch" 2>/dev/null; then
    echo "skipped: PyTorch is not installed for $python (apt-get install python3-torch)"
    exit 77
fi
mkdir -p "$dir"
"$binary" --save "$dir/model.safetensors" --save-predictions "$dir/cpp_predictions.json"
"$python" "$here/check_safetensors.py" "$dir/model.safetensors" \
    --predictions "$dir/cpp_predictions.json"
