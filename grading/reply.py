"""A worker's reply read as hostile input: the student's code runs in the worker, so it can patch
the worker's functions or write to its pipe, and whatever comes back may be forged.

A reply is a ``.npz`` (an uncompressed zip of ``.npy`` members): the JSON header as the bytes of
``__meta__`` and the arrays returned as ``r0`` … ``r3``. :func:`read_reply` reads it without
trusting anything it declares: the zip's own directory is checked before :mod:`zipfile` parses
it, each member's ``.npy`` header is parsed and its shape times its item size checked against
the member's bytes before an array is made, the JSON's size and depth are bounded before it is
parsed, and every field of the header is checked for type and bound (unknown fields dropped,
strings cut at :data:`MAX_TEXT`). Whatever does not fit raises :class:`UnreadableReply`.
"""

from __future__ import annotations

import io
import json
import re
import struct
import zipfile

import numpy as np
from numpy.lib import format as npy

MAX_HEADER = 256 * 2**10  # bytes of the JSON header
MAX_DEPTH = 6  # of nested lists and objects in it (the schema needs 3)
MAX_TEXT = 2000  # characters of one string; longer ones are cut
MAX_ARRAYS = 4
# values of all the arrays of one reply: each becomes a float64 here, so a reply of bytes (bool,
# int8) must not grow eightfold in the teacher's process past what the worker may send
MAX_VALUES = 2**25
MAX_DIMENSIONS = 8
MAX_NPY_HEADER = 4096
PARAMETER_KINDS = frozenset(
    ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD", "VAR_POSITIONAL", "KEYWORD_ONLY", "VAR_KEYWORD")
)
END_OF_DIRECTORY = b"PK\x05\x06"
MEMBERS = frozenset({"__meta__.npy"} | {f"r{i}.npy" for i in range(MAX_ARRAYS)})


class UnreadableReply(Exception):
    """What was wrong with a reply, in a few words for the teacher's line."""


def read_reply(data: bytes, *, start: bool) -> tuple[dict, list[np.ndarray]]:
    """The checked header and the arrays (float64) of one reply: to the start request (the
    description of the student's code) when ``start``, else to a call. Raises UnreadableReply,
    never anything else."""
    try:
        return _read(data, start)
    except UnreadableReply:
        raise
    except Exception as problem:  # (zipfile's NotImplementedError for a forged version, …)
        raise UnreadableReply(f"{type(problem).__name__}: {str(problem)[:200]}") from problem


def _read(data: bytes, start: bool) -> tuple[dict, list[np.ndarray]]:
    members = _members(data)
    if "__meta__.npy" not in members:
        raise UnreadableReply("no header")
    header = members.pop("__meta__.npy")
    if header.dtype != np.uint8 or header.ndim != 1:
        raise UnreadableReply("a header that is not bytes")
    meta = _header(header.tobytes())
    if not meta["ok"]:
        if members:
            raise UnreadableReply("arrays with an error")
        return _error(meta), []
    if start:
        if members:
            raise UnreadableReply("arrays with a description")
        return _description(meta), []
    checked = _call(meta)
    names = [f"r{i}.npy" for i in range(checked["count"])]
    if sorted(members) != sorted(names):
        raise UnreadableReply(f"{len(members)} arrays where it said {checked['count']}")
    arrays = []
    for name in names:
        array = members[name]
        if array.dtype.kind == "c":
            raise UnreadableReply("returned complex values")
        arrays.append(array.astype(np.float64))
    return checked, arrays


# ---- the container ----------------------------------------------------------------------------


def _members(data: bytes) -> dict[str, np.ndarray]:
    """The arrays of the zip, each checked before it is made."""
    # the end of the zip's directory, read before zipfile trusts it: a forged directory of a
    # million entries would cost zipfile a million objects
    end = data.rfind(END_OF_DIRECTORY, max(0, len(data) - 22 - 65535))
    if end < 0 or len(data) - end < 22:
        raise UnreadableReply("not a zip")
    entries, directory_size = struct.unpack_from("<xxxxxxxxxxHI", data, end)
    if entries > MAX_ARRAYS + 1 or directory_size > 64 * 2**10:
        raise UnreadableReply(f"{entries} members")
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError, OSError, EOFError, struct.error) as problem:
        raise UnreadableReply("not a zip") from problem
    found: dict[str, np.ndarray] = {}
    values = 0
    with archive:
        infos = archive.infolist()
        if len(infos) > MAX_ARRAYS + 1:
            raise UnreadableReply(f"{len(infos)} members")
        for info in infos:
            if info.filename not in MEMBERS or info.filename in found:
                raise UnreadableReply("a member of an unknown or repeated name")
            # stored only (as numpy.savez writes): a compressed member could expand without bound
            if info.compress_type != zipfile.ZIP_STORED or info.file_size > len(data):
                raise UnreadableReply("a compressed member")
            try:
                header = info.filename == "__meta__.npy"
                most = MAX_HEADER if header else MAX_VALUES - values
                with archive.open(info) as member:
                    found[info.filename] = _array(member, info.file_size, most, header)
                if not header:
                    values += found[info.filename].size
            except UnreadableReply:
                raise
            except (zipfile.BadZipFile, ValueError, OSError, EOFError, struct.error) as problem:
                raise UnreadableReply("a damaged member") from problem
    return found


def _array(member, size: int, most: int, header: bool = False) -> np.ndarray:
    """One ``.npy`` member of at most ``most`` values: its header parsed, its shape and item size
    checked against the bytes it holds, and only then its data read."""
    major, _ = npy.read_magic(member)
    if major == 1:
        shape, fortran, dtype = npy.read_array_header_1_0(member, max_header_size=MAX_NPY_HEADER)
    elif major in (2, 3):
        shape, fortran, dtype = npy.read_array_header_2_0(member, max_header_size=MAX_NPY_HEADER)
    else:
        raise UnreadableReply("an array of an unknown format")
    if dtype.kind == "c":
        raise UnreadableReply("returned complex values")
    if dtype.kind not in "biuf" or dtype.fields is not None or dtype.subdtype is not None:
        raise UnreadableReply(f"an array of {dtype.kind!r} values (not real numbers)")
    if len(shape) > MAX_DIMENSIONS or not all(type(n) is int and n >= 0 for n in shape):
        raise UnreadableReply("an array of an odd shape")
    count = 1
    for n in shape:  # (Python's integers: a forged shape cannot overflow)
        count *= n
    header_size = member.tell()
    if count * dtype.itemsize != size - header_size:
        raise UnreadableReply(
            f"an array that claims {count:,} values in {size - header_size:,} bytes"
        )
    if count > most:
        raise UnreadableReply(
            f"a header of {count:,} bytes"
            if header
            else f"arrays of more than {MAX_VALUES:,} values"
        )
    raw = member.read(count * dtype.itemsize)
    if len(raw) != count * dtype.itemsize:
        raise UnreadableReply("an array cut short")
    return np.frombuffer(raw, dtype=dtype).reshape(shape, order="F" if fortran else "C")


# ---- the header -------------------------------------------------------------------------------

_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKET = re.compile(rb"[\[\]{}]")


def _header(raw: bytes) -> dict:
    if len(raw) > MAX_HEADER:
        raise UnreadableReply(f"a header of {len(raw):,} bytes")
    depth = 0
    for bracket in _BRACKET.finditer(_STRING.sub(b'""', raw)):  # (brackets inside strings: none)
        depth += 1 if bracket.group() in (b"[", b"{") else -1
        if depth > MAX_DEPTH:
            raise UnreadableReply("a header nested too deep")
    try:
        meta = json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError) as problem:
        raise UnreadableReply("a header that is not JSON") from problem
    if not isinstance(meta, dict):
        raise UnreadableReply("a header that is not an object")
    if type(meta.get("ok")) is not bool:
        raise UnreadableReply("a header without ok")
    return meta


class _Fields:
    """Takes fields out of one header object, each checked; what it was not asked for is
    dropped."""

    def __init__(self, meta: dict) -> None:
        self.meta = meta
        self.checked: dict = {"ok": meta["ok"]}

    def take(self, name: str, check, *, required: bool = False) -> None:
        if name not in self.meta:
            if required:
                raise UnreadableReply(f"no {name}")
            return
        try:
            self.checked[name] = check(self.meta[name])
        except UnreadableReply as problem:
            raise UnreadableReply(f"{name}: {problem}") from None


def _text(value) -> str:
    if type(value) is not str:
        raise UnreadableReply(f"a {type(value).__name__}, not text")
    return value[:MAX_TEXT]


def _optional_text(value) -> str | None:
    return None if value is None else _text(value)


def _flag(value) -> bool:
    if type(value) is not bool:
        raise UnreadableReply(f"a {type(value).__name__}, not true or false")
    return value


def _whole(value, low: int = -(2**31), high: int = 2**31) -> int:
    if type(value) is not int or not low <= value <= high:
        raise UnreadableReply("not a whole number in bounds")
    return value


def _optional_whole(value) -> int | None:
    return None if value is None else _whole(value, 0)


def _list(value, most: int, item) -> list:
    if type(value) is not list:
        raise UnreadableReply(f"a {type(value).__name__}, not a list")
    if len(value) > most:
        raise UnreadableReply(f"{len(value)} items, more than {most}")
    return [item(x) for x in value]


def _parameter(value) -> list:
    if type(value) is not list or len(value) != 3:
        raise UnreadableReply("a parameter that is not [name, kind, has_default]")
    name, kind, has_default = value
    if _text(kind) not in PARAMETER_KINDS:
        raise UnreadableReply("a parameter of an unknown kind")
    return [_text(name), kind, _flag(has_default)]


def _parameters(value) -> list:
    return _list(value, 64, _parameter)


def _note(value) -> dict:
    if type(value) is not dict:
        raise UnreadableReply("a note that is not an object")
    fields = _Fields({"ok": True, **value})
    fields.take("cell", _optional_whole)
    fields.take("line", _optional_whole)
    fields.take("type", _text, required=True)
    fields.take("message", _text, required=True)
    del fields.checked["ok"]
    return fields.checked


def _kind_of_file(value) -> str:
    if value not in ("py", "ipynb"):
        raise UnreadableReply("neither py nor ipynb")
    return value


def _description(meta: dict) -> dict:
    fields = _Fields(meta)
    fields.take("found", _flag, required=True)
    fields.take("as", _text)
    fields.take("names", lambda value: _list(value, 20, _text))
    fields.take("uses_torch", _flag)
    fields.take("softmax", _flag)
    fields.take("parameters", _parameters)
    fields.take("backward", _optional_text)
    fields.take("backward_parameters", _parameters)
    fields.take("kind", _kind_of_file)
    fields.take("chosen", _optional_text)
    fields.take("notes", lambda value: _list(value, 50, _note))
    return fields.checked


def _error(meta: dict) -> dict:
    fields = _Fields(meta)
    fields.take("type", _text, required=True)
    fields.take("message", _text, required=True)
    fields.take("line", _optional_whole)
    fields.take("text", _text)
    fields.take("column", _optional_whole)
    fields.take("cell", _optional_whole)
    fields.checked.setdefault("line", None)
    fields.checked.setdefault("text", "")
    return fields.checked


def _call(meta: dict) -> dict:
    fields = _Fields(meta)
    fields.take("count", lambda value: _whole(value, 1, MAX_ARRAYS), required=True)
    fields.take("dtypes", lambda value: _list(value, MAX_ARRAYS, _text), required=True)
    fields.take("kind", _text)
    if len(fields.checked["dtypes"]) != fields.checked["count"]:
        raise UnreadableReply("dtypes: not one a returned array")
    return fields.checked
