# SPDX-License-Identifier: MIT OR Apache-2.0
"""Writes the seeds of the PyTorch-reader fuzzer (burn_fuzz_pytorch): tiny torch.save outputs
under tests/fuzz/seeds/pytorch/, each in the zip format (*_zip.pt) and the legacy pickle format
(*_legacy.pt, _use_new_zipfile_serialization=False). They are committed, so running the fuzzers
needs no torch; burn_fuzz_make_seeds copies them into the corpus.

Run with Debian's torch (1.13):  /usr/bin/python3 tests/fuzz/seeds/gen_pytorch_seeds.py

  linear     nn.Linear(2, 3).state_dict(): an OrderedDict of f32 weight [3, 2] and bias [3]
  bf16_bool  {"h": bf16 [3], "m": bool [2, 2], "i": i64 scalar}
  view       tensors sharing one storage: a [3, 4] f32 base, its transpose, a row (storage
             offset) and a column slice (strides), plus a nested dict and non-tensor values
"""
import collections
import contextlib
import pathlib

import torch

OUT = pathlib.Path(__file__).resolve().parent / "pytorch"


def seeds():
    torch.manual_seed(0)
    linear = torch.nn.Linear(2, 3).state_dict()

    bf16_bool = {
        "h": torch.tensor([1.0, -2.5, 0.125], dtype=torch.bfloat16),
        "m": torch.tensor([[True, False], [False, True]]),
        "i": torch.tensor(7, dtype=torch.int64),
    }

    base = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    view = collections.OrderedDict(
        base=base,
        t=base.t(),
        row=base[1],
        cols=base[:, 1:3],
        nested={"half": base[2, ::2].half(), "steps": 3, "name": "v"},
    )
    return {"linear": linear, "bf16_bool": bf16_bool, "view": view}


class _StrLike(type):
    def __instancecheck__(cls, o):  # isinstance(x, str) keeps working in torch.serialization
        return isinstance(o, str)


@contextlib.contextmanager
def stable_legacy_keys():
    """The legacy writer names each storage str(storage._cdata), its address, which changes at
    every run; inside this block those keys are address-like numbers in the order the storages
    are met, so that the committed files only change when their contents do. (Only that call
    passes an int to torch.serialization's `str`.)"""
    ids = {}

    class key_str(metaclass=_StrLike):
        def __new__(cls, o=""):
            if type(o) is int:
                return str(ids.setdefault(o, 94_000_000_000_000 + 4096 * len(ids)))
            return str(o)

    torch.serialization.str = key_str
    try:
        yield
    finally:
        del torch.serialization.str


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    for name, obj in seeds().items():
        for suffix, zipped in (("zip", True), ("legacy", False)):
            path = OUT / f"{name}_{suffix}.pt"
            with stable_legacy_keys() if not zipped else contextlib.nullcontext():
                torch.save(obj, path, _use_new_zipfile_serialization=zipped)
            size = path.stat().st_size
            assert size < 4096, f"{path}: {size} bytes; keep the seeds small"
            print(f"{path.name}: {size} bytes")


if __name__ == "__main__":
    main()
