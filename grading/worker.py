"""The process that runs one student's file (started by ``grading.runner``, never imported by
attn-tui itself): it imports the file, then answers calls until its requests end, so that every
case of one submission costs one process start.

It imports nothing of attn-tui. Requests come on the file descriptor its first argument names
and answers go on its second, each a length-prefixed ``.npz`` (``allow_pickle=False``: a
student's objects never reach the parent, only arrays and one JSON header); the student's own
printing goes to a file the runner reads.
"""

from __future__ import annotations

import io
import json
import os
import struct
import sys
import traceback

import numpy as np

# the worker runs as a script (python -I: its own folder is not on sys.path); its sibling
# student_code is imported from beside it, before the student's folder is put on the path
sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
from student_code import Student, describe  # noqa: E402

MAX_MESSAGE = 512 * 2**20
# bytes of one array returned (the parent takes at most 256 MB an answer)
MAX_RETURNED = 128 * 2**20


def read_message(fd: int) -> tuple[dict, dict] | None:
    head = _read_exactly(fd, 8)
    if head is None:
        return None
    (size,) = struct.unpack("<Q", head)
    if size > MAX_MESSAGE:
        raise ValueError("message too large")
    body = _read_exactly(fd, size)
    with np.load(io.BytesIO(body), allow_pickle=False) as found:
        arrays = {name: found[name] for name in found.files}
    meta = json.loads(bytes(arrays.pop("__meta__")).decode("utf-8"))
    return meta, arrays


def write_message(fd: int, meta: dict, arrays: dict | None = None) -> None:
    buffer = io.BytesIO()
    payload = dict(arrays or {})
    payload["__meta__"] = np.frombuffer(json.dumps(meta).encode("utf-8"), dtype=np.uint8)
    np.savez(buffer, **payload)
    data = buffer.getvalue()
    view = memoryview(struct.pack("<Q", len(data)) + data)
    while view:
        view = view[os.write(fd, view) :]


def _read_exactly(fd: int, size: int) -> bytes | None:
    chunks, left = [], size
    while left:
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def torch_module():
    try:
        import torch
    except Exception:  # noqa: BLE001 (a broken install raises more than ImportError: then NumPy)
        return None
    return torch


def to_input(array: np.ndarray, how: dict, name: str = ""):
    array = array.reshape((1,) * how.get("batch", 0) + array.shape)
    if name in how.get("bool", ()):
        array = array.astype(bool)
    if how.get("float32") and array.dtype != bool:
        array = array.astype(np.float32)
    if how.get("torch"):
        torch = torch_module()
        return torch.from_numpy(np.ascontiguousarray(array))
    return array


def to_array(value) -> np.ndarray:
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(value, torch.Tensor):
        value = value.detach().cpu()
        if value.dtype in (torch.bfloat16, torch.float16):
            value = value.float()
        value = value.numpy()
    array = np.asarray(value)
    if array.dtype == object or not (np.issubdtype(array.dtype, np.number) or array.dtype == bool):
        raise TypeError(f"returned a {type(value).__name__}, not an array of numbers")
    return array


def call(student: Student, name: str, meta: dict, arrays: dict) -> tuple[dict, dict]:
    function, _ = student.find(name)
    how = meta["how"]
    args = [to_input(arrays[key], how, key) for key in meta["positional"]]
    args += meta.get("after", [])  # plain values given positionally after the arrays (causal)
    rename = meta.get("rename", {})
    kwargs = {
        rename.get(key, key): to_input(arrays[key], how, key)
        for key in meta.get("keyword_arrays", [])
    }
    kwargs.update(meta.get("keywords", {}))
    with np.errstate(all="ignore"):
        result = function(*args, **kwargs)
    parts = (
        list(result)
        if isinstance(result, tuple) or isinstance(result, list) and not _a_matrix(result)
        else [result]
    )
    found = {}
    dtypes = []
    for i, part in enumerate(parts[:4]):
        array = to_array(part)
        if array.nbytes > MAX_RETURNED:
            return {
                "ok": False,
                "type": "too large",
                "line": None,
                "text": "",
                "message": f"returned a {'×'.join(map(str, array.shape))} array "
                f"({round(array.nbytes / 2**20)} MB); "
                f"an answer may be {MAX_RETURNED // 2**20} MB",
            }, {}
        dtypes.append(str(array.dtype).replace("torch.", ""))
        found[f"r{i}"] = array.astype(np.float64)
    return {"ok": True, "count": len(parts), "dtypes": dtypes, "kind": type(result).__name__}, found


def _a_matrix(value: list) -> bool:
    """Whether a list is one matrix written as lists (``out.tolist()``: rows of numbers), not
    the parts of an answer (``[out, weights]``)."""
    first = value[0] if value else None
    return isinstance(first, (list, tuple)) and all(isinstance(x, (int, float)) for x in first)


def error_of(exc: BaseException, path: str) -> dict:
    """The exception as the student should read it: its type, message and their own line."""
    if isinstance(exc, SyntaxError) and (exc.filename or "").endswith(os.path.basename(path)):
        return {
            "ok": False,
            "type": "SyntaxError",
            "message": exc.msg or "invalid syntax",
            "line": exc.lineno,
            "column": exc.offset,
            "text": (exc.text or "").rstrip("\n"),
        }
    line, text = None, ""
    for frame in traceback.extract_tb(exc.__traceback__):
        if os.path.realpath(frame.filename) == path:
            line, text = frame.lineno, frame.line or ""
    return {
        "ok": False,
        "type": type(exc).__name__,
        "message": str(exc)[:500],
        "line": line,
        "text": text,
    }


CAP_DAC_READ_SEARCH = 2  # (linux/capability.h) read any file and search any folder
PR_SET_KEEPCAPS, PR_SET_NO_NEW_PRIVS = 8, 38
CAPABILITY_VERSION_3 = 0x20080522


def drop_root(uid: int, gid: int) -> bool:
    """Become ``uid``/``gid`` (nobody) for good, before the student's file is imported, when the
    worker was started as root, whom the kernel holds to no RLIMIT_NPROC: then the process limit
    holds, the code writes only where nobody may (its folder), and it cannot become root again.
    It keeps one capability, to read any file (Python's own files may lie in a folder only root
    may enter, /root/.pyenv; the student's file too). False if the system refused any of it."""
    import ctypes

    class Header(ctypes.Structure):
        _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

    class Data(ctypes.Structure):
        _fields_ = [
            ("effective", ctypes.c_uint32),
            ("permitted", ctypes.c_uint32),
            ("inheritable", ctypes.c_uint32),
        ]

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) != 0:
            return False
        os.setgroups([])
        os.setresgid(gid, gid, gid)
        os.setresuid(uid, uid, uid)
        kept = (Data * 2)()
        kept[0].effective = kept[0].permitted = 1 << CAP_DAC_READ_SEARCH
        libc.capset(ctypes.byref(Header(CAPABILITY_VERSION_3, 0)), kept)  # (else: none kept)
        libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)  # no set-user-ID program makes it root again
    except (OSError, AttributeError):
        return False
    return os.getresuid() == (uid, uid, uid)


def main(requests: int, answers: int, user: str = "") -> int:
    if user and os.geteuid() == 0:
        uid, gid = (int(part) for part in user.split(":"))
        if not drop_root(uid, gid):
            write_message(
                answers,
                {
                    "ok": False,
                    "type": "PermissionError",
                    "line": None,
                    "text": "",
                    "message": f"started as root, it could not become uid {uid} (nobody), "
                    "which the process limit holds: grade as an ordinary user",
                },
            )
            return 0
    request = read_message(requests)
    if request is None:
        return 0
    meta, _ = request
    path = os.path.realpath(meta["file"])
    try:
        student = Student(path, meta.get("folder"))
        answer = describe(student, meta["name"], meta.get("backward", ""))
        answer["ok"] = True
    except SystemExit as exc:
        answer = {
            "ok": False,
            "type": "SystemExit",
            "message": f"the file called sys.exit({exc.code!r}) while it was imported",
            "line": None,
            "text": "",
        }
        student = None
    except BaseException as exc:  # noqa: BLE001 (whatever their file raises is theirs to read)
        answer = error_of(exc, path)
        student = None
    write_message(answers, answer)
    while student is not None:
        request = read_message(requests)
        if request is None:
            break
        meta, arrays = request
        try:
            answer, found = call(student, meta["call"], meta, arrays)
        except SystemExit as exc:
            answer, found = (
                {
                    "ok": False,
                    "type": "SystemExit",
                    "message": f"called sys.exit({exc.code!r})",
                    "line": None,
                    "text": "",
                },
                {},
            )
        except BaseException as exc:  # noqa: BLE001 (theirs to read, as at import)
            answer, found = error_of(exc, path), {}
        write_message(answers, answer, found)
    return 0


if __name__ == "__main__":
    sys.stdin = None  # (its descriptor 0 is /dev/null too)
    sys.exit(main(int(sys.argv[1]), int(sys.argv[2]), *sys.argv[3:4]))
