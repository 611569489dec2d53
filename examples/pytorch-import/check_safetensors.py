# SPDX-License-Identifier: MIT OR Apache-2.0
"""Checks the weights the C++ pytorch-import program exports: loads a safetensors file (default
model.safetensors) with a pure-python reader (json + struct + torch.frombuffer; the `safetensors`
package is not needed) into the PyTorch Net of net.py via load_state_dict(strict=True), so the
names must be torch's (conv1.weight, ..., fc2.bias) and the shapes torch's layout (Linear weight
[out, in]); evaluates the first 1000 Fashion-MNIST test images and prints the accuracy. With
--predictions FILE (the C++ program's {"count", "predicted", "accuracy"}, the schema of
predictions.json) it also checks the predicted classes are the same, exiting 1 if not.

Run with Debian's torch:
    /usr/bin/python3 examples/pytorch-import/check_safetensors.py model.safetensors \\
        --predictions cpp_predictions.json [--data DIR]
Self-test of the reader (writes model.pt's state dict to PATH with the pure-python writer first):
    /usr/bin/python3 examples/pytorch-import/check_safetensors.py /tmp/t.safetensors \\
        --from-pt examples/pytorch-import/model.pt --predictions examples/pytorch-import/predictions.json
Reads dtypes F32, F64, F16, BF16, I64, I32 (float tensors are loaded as the model's float32).
"""
import argparse
import json
import struct
import sys

import torch

from net import DEFAULT_DATA, EVAL_COUNT, Net, load_split, predict

DTYPES = {"F32": torch.float32, "F64": torch.float64, "F16": torch.float16,
          "BF16": torch.bfloat16, "I64": torch.int64, "I32": torch.int32}


def read_safetensors(path):
    """({name: tensor}, metadata) of a safetensors file: u64 little-endian header length N, N
    bytes of JSON header {name: {"dtype", "shape", "data_offsets": [begin, end]}, "__metadata__":
    {...} optional}, then the data; offsets count from the end of the header."""
    if sys.byteorder != "little":
        raise RuntimeError("this reader assumes a little-endian machine")
    with open(path, "rb") as f:
        blob = f.read()
    if len(blob) < 8:
        raise ValueError(f"{path}: too short for a safetensors file")
    (n,) = struct.unpack_from("<Q", blob, 0)
    if 8 + n > len(blob):
        raise ValueError(f"{path}: header length {n} past the end of the file")
    header = json.loads(blob[8:8 + n].decode("utf-8"))
    metadata = header.pop("__metadata__", None) or {}
    data = bytearray(blob[8 + n:])  # writable: torch.frombuffer warns on read-only buffers
    tensors = {}
    for name, info in header.items():
        dtype = DTYPES.get(info["dtype"])
        if dtype is None:
            raise ValueError(f"{path}: tensor {name}: unsupported dtype {info['dtype']}")
        shape = [int(s) for s in info["shape"]]
        begin, end = (int(o) for o in info["data_offsets"])
        numel = 1
        for s in shape:
            numel *= s
        itemsize = torch.tensor([], dtype=dtype).element_size()
        if not 0 <= begin <= end <= len(data) or end - begin != numel * itemsize:
            raise ValueError(f"{path}: tensor {name}: data_offsets {[begin, end]} do not hold "
                             f"{shape} {info['dtype']} (data is {len(data)} bytes)")
        if numel == 0:
            tensors[name] = torch.empty(shape, dtype=dtype)
        else:
            tensors[name] = torch.frombuffer(data, dtype=dtype, count=numel,
                                             offset=begin).reshape(shape).clone()
    return tensors, metadata


ST_NAMES = {v: k for k, v in DTYPES.items()}


def write_safetensors(path, tensors, metadata=None):
    """The inverse of read_safetensors (header padded with spaces to a multiple of 8)."""
    header, blobs, offset = {}, [], 0
    if metadata:
        header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
    for name, t in tensors.items():
        t = t.detach().contiguous()
        b = t.reshape(-1).view(torch.uint8).numpy().tobytes() if t.numel() else b""
        header[name] = {"dtype": ST_NAMES[t.dtype], "shape": list(t.shape),
                        "data_offsets": [offset, offset + len(b)]}
        blobs.append(b)
        offset += len(b)
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-(8 + len(h)) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("path", nargs="?", default="model.safetensors")
    p.add_argument("--predictions", help="the C++ program's predictions (JSON) to compare with")
    p.add_argument("--data", default=DEFAULT_DATA, help="folder of the Fashion-MNIST IDX .gz files")
    p.add_argument("--from-pt", metavar="MODEL_PT",
                   help="self-test: first write MODEL_PT's state dict to PATH (pure-python writer)")
    args = p.parse_args()
    torch.set_num_threads(1)

    if args.from_pt:
        write_safetensors(args.path, torch.load(args.from_pt), {"format": "pt"})
        print(f"wrote {args.path} from {args.from_pt}")

    tensors, metadata = read_safetensors(args.path)
    print(f"{args.path}: {len(tensors)} tensors, metadata {metadata}")
    for name, t in tensors.items():
        print(f"  {name}: {list(t.shape)} {t.dtype}")
    model = Net()
    model.load_state_dict(tensors, strict=True)  # copies with conversion to float32

    test_x, test_y = load_split(args.data, train=False)
    predicted = predict(model, test_x[:EVAL_COUNT])
    accuracy = int((predicted == test_y[:EVAL_COUNT]).sum()) / EVAL_COUNT
    print(f"test accuracy: {accuracy:.4f} on the first {EVAL_COUNT} test images")

    if args.predictions:
        with open(args.predictions) as f:
            other = json.load(f)
        theirs = [int(c) for c in other["predicted"]]
        if other.get("count", len(theirs)) != EVAL_COUNT or len(theirs) != EVAL_COUNT:
            print(f"FAIL: {args.predictions} has {len(theirs)} predictions (count "
                  f"{other.get('count')}), expected {EVAL_COUNT}")
            return 1
        mismatches = [i for i, (a, b) in enumerate(zip(predicted.tolist(), theirs)) if a != b]
        if mismatches:
            print(f"FAIL: {len(mismatches)} of {EVAL_COUNT} predictions differ from "
                  f"{args.predictions}, first at images {mismatches[:10]}")
            return 1
        print(f"OK: all {EVAL_COUNT} predictions equal {args.predictions} "
              f"(its accuracy {other.get('accuracy')})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
