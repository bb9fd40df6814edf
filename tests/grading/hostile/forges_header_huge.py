# Writes replies of its own into the worker's answer pipe, each forged a different way: the
# header a JSON list, nested 200,000 deep, or an array that claims 10**13 floats in 400 bytes.
import io
import json
import os
import struct
import sys
import zipfile

import numpy as np

HOW = os.path.basename(__file__).removesuffix(".py").rsplit("_", 1)[-1]


def npz(members: dict) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def npy(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array)
    return buffer.getvalue()


def forged(header: bytes, **arrays) -> bytes:
    members = {"__meta__.npy": npy(np.frombuffer(header, dtype=np.uint8))}
    members.update({f"{name}.npy": data for name, data in arrays.items()})
    return npz(members)


def claims_too_much() -> bytes:
    # a .npy header claiming 10**13 float64 values, followed by 8 bytes
    text = "{'descr': '<f8', 'fortran_order': False, 'shape': (10000000000000,), }"
    text += " " * (118 - len(text)) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(text)) + text.encode() + b"\0" * 8


def reply() -> bytes:
    if HOW == "list":
        return forged(b"[1, 2, 3]")
    if HOW == "deep":
        return forged(b"[" * 200_000 + b"]" * 200_000)
    if HOW == "huge":
        header = json.dumps({"ok": True, "count": 1, "dtypes": ["float64"], "kind": "x"})
        return forged(header.encode(), r0=claims_too_much())
    if HOW == "complex":
        header = json.dumps({"ok": True, "count": 1, "dtypes": ["float64"], "kind": "x"})
        return forged(header.encode(), r0=npy(np.ones((3, 2), dtype=complex)))
    raise ValueError(HOW)


def attention(Q, K, V, causal=True):
    data = reply()
    os.write(int(sys.argv[2]), struct.pack("<Q", len(data)) + data)
    return Q
