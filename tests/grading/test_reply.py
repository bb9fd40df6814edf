"""A worker's reply is hostile input (grading/reply.py): every field checked for type and bound,
the JSON's size and depth bounded before it is parsed, each array's shape and dtype checked
against its bytes before it is made; anything else is UnreadableReply, never another exception."""

from __future__ import annotations

import io
import json
import struct
import tracemalloc
import zipfile

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attn_tui.grading.reply import MAX_DEPTH, MAX_HEADER, MAX_TEXT, UnreadableReply, read_reply


def npy(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array)
    return buffer.getvalue()


def npz(members: dict[str, bytes], compression: int = zipfile.ZIP_STORED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def reply(meta, raw: bytes | None = None, **arrays: np.ndarray) -> bytes:
    header = raw if raw is not None else json.dumps(meta).encode()
    members = {"__meta__.npy": npy(np.frombuffer(header, dtype=np.uint8))}
    members.update({f"{name}.npy": npy(array) for name, array in arrays.items()})
    return npz(members)


DESCRIPTION = {
    "ok": True,
    "found": True,
    "as": "attention",
    "names": ["attention", "softmax"],
    "uses_torch": False,
    "softmax": True,
    "parameters": [["Q", "POSITIONAL_OR_KEYWORD", False], ["causal", "KEYWORD_ONLY", True]],
    "backward": None,
    "kind": "ipynb",
    "chosen": None,
    "notes": [{"cell": 3, "line": 2, "type": "NameError", "message": "x"}],
}
CALL = {"ok": True, "count": 2, "dtypes": ["float32", "int64"], "kind": "tuple"}


def test_a_description_is_kept_field_for_field_and_unknown_fields_dropped():
    meta, arrays = read_reply(reply({**DESCRIPTION, "extra": [1, 2]}), start=True)
    assert meta == DESCRIPTION and arrays == []


def test_a_long_string_is_cut():
    meta, _ = read_reply(reply({**DESCRIPTION, "as": "a" * 5000}), start=True)
    assert meta["as"] == "a" * MAX_TEXT


def test_a_call_reply_gives_float64_arrays_of_the_values_sent():
    out = np.arange(6, dtype=np.float32).reshape(2, 3)
    meta, arrays = read_reply(reply(CALL, r0=out, r1=np.eye(2, dtype=np.int64)), start=False)
    assert meta == CALL
    assert arrays[0].dtype == np.float64 and arrays[0].tolist() == [[0, 1, 2], [3, 4, 5]]
    assert arrays[1].tolist() == [[1, 0], [0, 1]]


def test_an_error_reply_gets_its_optional_fields():
    meta, _ = read_reply(reply({"ok": False, "type": "ValueError", "message": "m"}), start=False)
    assert meta == {"ok": False, "type": "ValueError", "message": "m", "line": None, "text": ""}


@pytest.mark.parametrize(
    "meta, start, why",
    [
        ({**DESCRIPTION, "parameters": [["Q"], 5, None]}, True, "parameters: "),
        ({**DESCRIPTION, "parameters": [["Q", "SOMETIMES", False]]}, True, "parameters: "),
        ({**DESCRIPTION, "parameters": [["Q", "KEYWORD_ONLY", False]] * 65}, True, "65 items"),
        ({**DESCRIPTION, "names": "attention"}, True, "names: a str, not a list"),
        ({**DESCRIPTION, "names": ["x"] * 21}, True, "names: 21 items"),
        ({**DESCRIPTION, "found": 1}, True, "found: "),
        ({**DESCRIPTION, "kind": "exe"}, True, "kind: "),
        (
            {**DESCRIPTION, "notes": [{"cell": -1, "line": 2, "type": "T", "message": ""}]},
            True,
            "notes",
        ),
        ({**DESCRIPTION, "notes": [{"type": "T", "message": "m"}] * 51}, True, "notes: 51"),
        ({k: v for k, v in DESCRIPTION.items() if k != "found"}, True, "no found"),
        ({**CALL, "dtypes": 5}, False, "dtypes: "),
        ({**CALL, "count": 5, "dtypes": ["f"] * 5}, False, "count: "),
        ({**CALL, "count": True}, False, "count: "),
        ({**CALL, "dtypes": ["float64"]}, False, "dtypes: not one a returned array"),
        ({"ok": False, "type": "E", "message": "m", "line": "3"}, False, "line: "),
        ({"ok": False, "type": 3, "message": "m"}, False, "type: "),
        ({"ok": "yes"}, False, "without ok"),
        ([1, 2, 3], False, "not an object"),
    ],
)
def test_a_field_of_the_wrong_type_or_out_of_bounds_is_unreadable(meta, start, why):
    call = isinstance(meta, dict) and meta.get("ok") is True and not start
    arrays = {f"r{i}": np.zeros(2) for i in range(2)} if call else {}
    with pytest.raises(UnreadableReply) as unreadable:
        read_reply(reply(meta, **arrays), start=start)
    assert why in str(unreadable.value)


def test_a_header_nested_past_the_bound_is_refused_before_it_is_parsed():
    deep = b"[" * (MAX_DEPTH + 1) + b"]" * (MAX_DEPTH + 1)
    with pytest.raises(UnreadableReply, match="nested too deep"):
        read_reply(reply(None, raw=deep), start=False)
    # brackets inside a string are text, not nesting
    meta, _ = read_reply(reply({**DESCRIPTION, "as": "[" * 100}), start=True)
    assert meta["as"] == "[" * 100


def test_a_header_of_200000_nested_brackets_and_one_too_large_are_refused():
    for raw in (b"[" * 200_000 + b"]" * 200_000, b'"' + b"a" * MAX_HEADER + b'"'):
        with pytest.raises(UnreadableReply, match="a header of"):
            read_reply(reply(None, raw=raw), start=False)


def claims(shape: tuple[int, ...], data: bytes, descr: str = "<f8") -> bytes:
    text = f"{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}"
    text += " " * (118 - len(text)) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(text)) + text.encode() + data


def test_an_array_claiming_10_to_the_13_floats_in_400_bytes_allocates_nothing():
    members = {
        "__meta__.npy": npy(
            np.frombuffer(json.dumps({**CALL, "count": 1, "dtypes": ["f"]}).encode(), np.uint8)
        ),
        "r0.npy": claims((10**13,), b"\0" * 8),
    }
    data = npz(members)
    assert len(data) < 700
    tracemalloc.start()
    try:
        with pytest.raises(UnreadableReply, match="claims 10,000,000,000,000 values in 8 bytes"):
            read_reply(data, start=False)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 2**20


@pytest.mark.parametrize(
    "array, why",
    [
        (np.ones(3, dtype=complex), "returned complex values"),
        (np.array([1, "a"], dtype=object), "not real numbers"),
        (np.zeros(2, dtype=[("a", "<f8"), ("b", "<i4")]), "not real numbers"),
        (np.array(["ab"]), "not real numbers"),
    ],
)
def test_complex_object_structured_and_text_arrays_are_refused(array, why):
    meta = {**CALL, "count": 1, "dtypes": ["x"]}
    members = {"__meta__.npy": npy(np.frombuffer(json.dumps(meta).encode(), np.uint8))}
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=True)
    members["r0.npy"] = buffer.getvalue()
    with pytest.raises(UnreadableReply, match=why):
        read_reply(npz(members), start=False)


def test_a_zip_directory_claiming_a_million_members_is_refused_before_zipfile_reads_it():
    data = bytearray(reply(CALL, r0=np.zeros(2), r1=np.zeros(2)))
    end = data.rfind(b"PK\x05\x06")
    struct.pack_into("<HH", data, end + 8, 65535, 65535)
    with pytest.raises(UnreadableReply, match="65535 members"):
        read_reply(bytes(data), start=False)


def test_a_compressed_member_an_unknown_member_and_missing_arrays_are_refused():
    header = npy(
        np.frombuffer(json.dumps({**CALL, "count": 1, "dtypes": ["f"]}).encode(), np.uint8)
    )
    squeezed = npz({"__meta__.npy": header, "r0.npy": npy(np.zeros(10**6))}, zipfile.ZIP_DEFLATED)
    with pytest.raises(UnreadableReply, match="compressed"):
        read_reply(squeezed, start=False)
    with pytest.raises(UnreadableReply, match="unknown or repeated"):
        read_reply(npz({"__meta__.npy": header, "evil.npy": npy(np.zeros(1))}), start=False)
    with pytest.raises(UnreadableReply, match="0 arrays where it said 1"):
        read_reply(npz({"__meta__.npy": header}), start=False)


VALID = reply(CALL, r0=np.zeros((2, 3)), r1=np.ones((2, 2)))


@settings(max_examples=300)
@given(
    st.one_of(
        st.binary(max_size=2000),
        st.lists(st.tuples(st.integers(0, len(VALID) - 1), st.integers(0, 255)), max_size=8).map(
            lambda changes: bytes((dict(changes).get(i, byte)) for i, byte in enumerate(VALID))
        ),
        st.integers(0, len(VALID)).map(lambda n: VALID[:n]),
    ),
    st.booleans(),
)
def test_any_bytes_are_a_reply_or_unreadable_never_another_exception(data, start):
    try:
        read_reply(data, start=start)
    except UnreadableReply:
        pass


def test_a_reply_of_more_values_than_the_bound_is_refused_before_it_becomes_float64(monkeypatch):
    from attn_tui.grading import reply as module

    monkeypatch.setattr(module, "MAX_VALUES", 10)
    data = reply({**CALL, "count": 2}, r0=np.ones(6, dtype=bool), r1=np.ones(5, dtype=bool))
    with pytest.raises(UnreadableReply, match="arrays of more than 10 values"):
        read_reply(data, start=False)
    meta, arrays = read_reply(
        reply({**CALL, "count": 2}, r0=np.ones(6), r1=np.ones(4)), start=False
    )
    assert [a.size for a in arrays] == [6, 4]
