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
    if np.iscomplexobj(array):  # (its imaginary part would be lost, the answer passed as real)
        raise TypeError("returned complex values")
    if array.dtype.fields is not None or not (
        np.issubdtype(array.dtype, np.number) or array.dtype == bool
    ):
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
    ) or [result]  # (an empty tuple is one empty array)
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
    return {"ok": True, "count": len(found), "dtypes": dtypes, "kind": type(result).__name__}, found


def _a_matrix(value: list) -> bool:
    """Whether a list is one matrix written as lists (``out.tolist()``: rows of numbers), not
    the parts of an answer (``[out, weights]``)."""
    first = value[0] if value else None
    return isinstance(first, (list, tuple)) and all(isinstance(x, (int, float)) for x in first)


def error_of(exc: BaseException, path: str, student: Student | None = None) -> dict:
    """The exception as the student should read it: its type, message and their own line (and,
    in a notebook, cell: the loaded ``student`` knows the names its cells were compiled under)."""
    if isinstance(exc, SyntaxError) and (exc.filename or "").endswith(os.path.basename(path)):
        return {
            "ok": False,
            "type": "SyntaxError",
            "message": exc.msg or "invalid syntax",
            "line": exc.lineno,
            "column": exc.offset,
            "text": (exc.text or "").rstrip("\n"),
        }
    if student is not None:
        place = student.where(exc)
        return {
            "ok": False,
            "type": type(exc).__name__,
            "message": str(exc)[:500],
            "line": place["line"],
            "text": place["text"],
            "cell": place["cell"],
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
PR_SET_KEEPCAPS, PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP = 8, 38, 22
SECCOMP_MODE_FILTER = 2
CAPABILITY_VERSION_3 = 0x20080522
# open_by_handle_at, the one call by which the right to read any file reaches files outside the
# folders bound into a sandbox (a mount's file handles name any file of its file system): its
# number on each architecture the worker may run on, by the audit architecture of the call
FILE_HANDLE_CALLS = {
    0xC000003E: (304,),  # x86_64
    0x40000003: (342,),  # i386, which a 64-bit x86 process can call too
    0xC00000B7: (265,),  # aarch64
    0x40000028: (371,),  # arm
}
X32_CALLS = 0x40000000  # x86_64's x32 calls: none is needed, all refused


def apply_limits(limits: dict[str, list[int]]) -> None:
    """Set the worker's own limits (time, memory, file size, processes) before it imports
    anything of the student's: inside a sandbox the runner cannot reach this process to set
    them. A hard limit is never raised (an ordinary user may not)."""
    import resource

    for name, (soft, hard) in limits.items():
        which = getattr(resource, name)
        _, current = resource.getrlimit(which)
        if current != resource.RLIM_INFINITY:
            hard = min(hard, current)
        resource.setrlimit(which, (min(soft, hard), hard))


def refuse_file_handles() -> bool:
    """A seccomp filter that refuses open_by_handle_at (EPERM) in this process and all it starts,
    for good; False where it could not be set (another architecture)."""
    import ctypes
    import struct as packing

    load, jump_equal, jump_at_least, give = 0x20, 0x15, 0x35, 0x06
    allow, refuse = 0x7FFF0000, 0x00050000 | 1  # SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO | EPERM
    program: list[tuple[int, int, int, int]] = []
    for architecture, calls in FILE_HANDLE_CALLS.items():
        body = [(load, 0, 0, 0)]  # the call's number
        tests = [(jump_equal, call) for call in calls]
        if architecture == 0xC000003E:
            tests.append((jump_at_least, X32_CALLS))
        deny = len(body) + len(tests) + 1  # (index of the refusal within the body)
        for code, value in tests:
            body.append((code, deny - len(body) - 1, 0, value))
        body += [(give, 0, 0, allow), (give, 0, 0, refuse)]
        program += [(load, 0, 0, 4), (jump_equal, 0, len(body), architecture), *body]
    program.append((give, 0, 0, allow))
    raw = b"".join(packing.pack("=HBBI", *instruction) for instruction in program)

    class Program(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_char_p)]

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            return False
        filters = Program(len(program), raw)
        return libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(filters), 0, 0) == 0
    except (OSError, AttributeError):
        return False


def drop_root(uid: int, gid: int) -> bool:
    """Become ``uid``/``gid`` for good, before the student's file is imported, when the worker
    was started as root, whom the kernel holds to no RLIMIT_NPROC: then the process limit holds,
    the code writes only where that user may, and it cannot become root again. It keeps one
    capability, to read any file (Python's own files may lie in a folder only root may enter,
    /root/.pyenv; the student's file in a folder only root may read), and only once
    open_by_handle_at is refused (:func:`refuse_file_handles`): with it that right would read any
    file of a file system, outside a sandbox's view too. False if the system refused any of it."""
    import ctypes

    class Header(ctypes.Structure):
        _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

    class Data(ctypes.Structure):
        _fields_ = [
            ("effective", ctypes.c_uint32),
            ("permitted", ctypes.c_uint32),
            ("inheritable", ctypes.c_uint32),
        ]

    keep_reading = refuse_file_handles()
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) != 0:
            return False
        os.setgroups([])
        os.setresgid(gid, gid, gid)
        os.setresuid(uid, uid, uid)
        kept = (Data * 2)()
        if keep_reading:
            kept[0].effective = kept[0].permitted = 1 << CAP_DAC_READ_SEARCH
        libc.capset(ctypes.byref(Header(CAPABILITY_VERSION_3, 0)), kept)  # (else: none kept)
        libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)  # no set-user-ID program makes it root again
    except (OSError, AttributeError):
        return False
    return os.getresuid() == (uid, uid, uid)


def main(requests: int, answers: int, user: str = "", limits: str = "") -> int:
    if limits:
        apply_limits(json.loads(limits))
    if user and user != "-" and os.geteuid() == 0:
        uid, gid = (int(part) for part in user.split(":"))
        if not drop_root(uid, gid):
            write_message(
                answers,
                {
                    "ok": False,
                    "type": "PermissionError",
                    "line": None,
                    "text": "",
                    "message": f"started as root, it could not become uid {uid}, "
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
            answer, found = error_of(exc, path, student), {}
        write_message(answers, answer, found)
    return 0


if __name__ == "__main__":
    sys.stdin = None  # (its descriptor 0 is /dev/null too)
    sys.exit(main(int(sys.argv[1]), int(sys.argv[2]), *sys.argv[3:5]))
