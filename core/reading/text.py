"""A scenario file's bytes as text, read as hostile: only a regular file, never past the size
limit whatever its size claims, never blocking on a pipe; UTF-8 (or UTF-16 behind a
byte-order mark), and a binary or mis-encoded file is an error at the offending byte."""

from __future__ import annotations

import errno
import os
import stat

from attn_tui.core.errors import ScenarioError
from attn_tui.core.files.yaml_source import line_col
from attn_tui.core.limits import MAX_FILE_BYTES


def read_text(path: str) -> str:
    """The file's text, decoded as UTF-8 (or UTF-16 with a byte-order mark).

    Only a regular file is read (a link is followed first): a device such as /dev/zero or a
    pipe nobody writes to would be read for ever or block. Whatever the file's size claims, at
    most ``MAX_FILE_BYTES`` + 1 bytes are read.
    """
    try:
        # O_NONBLOCK: opening a FIFO must not wait for a writer before it can be refused
        with open(path, "rb", opener=_open_nonblocking) as file:
            info = os.fstat(file.fileno())
            if stat.S_ISDIR(info.st_mode):
                raise ScenarioError("is a directory, not a scenario file", path=path)
            if not stat.S_ISREG(info.st_mode):
                raise ScenarioError(
                    "is not a regular file (a device, a pipe or a socket); a scenario "
                    "is a YAML file",
                    path=path,
                )
            if info.st_size > MAX_FILE_BYTES:
                raise _too_large(info.st_size, path)
            data = file.read(info.st_size + 1)  # what it says it holds, and a byte to see if more
            if len(data) > info.st_size:  # it holds more than it says (/proc files say 0)
                data += file.read(MAX_FILE_BYTES + 1 - len(data))
    except FileNotFoundError:
        raise ScenarioError(_missing(path), path=path) from None
    except PermissionError:
        raise ScenarioError("cannot read: permission denied", path=path) from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise ScenarioError("cannot read: its symbolic links form a loop", path=path) from None
        if exc.errno == errno.EISDIR:
            raise ScenarioError("is a directory, not a scenario file", path=path) from None
        raise ScenarioError(f"cannot read: {exc.strerror or exc}", path=path) from None
    if len(data) > MAX_FILE_BYTES:
        raise _too_large(None, path)
    return decode(data, path)


def _open_nonblocking(path: str, flags: int) -> int:
    return os.open(path, flags | getattr(os, "O_NONBLOCK", 0))


def _too_large(size: int | None, path: str) -> ScenarioError:
    measured = f"{size:,} bytes" if size is not None else f"more than {MAX_FILE_BYTES:,} bytes"
    return ScenarioError(
        f"too large for a scenario ({measured}; at most {MAX_FILE_BYTES:,}); "
        "keep big matrices in .npy files",
        path=path,
    )


def _missing(path: str) -> str:
    """Why a path names no file: nothing there, or a symbolic link to nothing."""
    if os.path.islink(path):
        return f"is a symbolic link to {os.readlink(path)}, which does not exist"
    return "no such file"


def decode(data: bytes, path: str = "<scenario>") -> str:
    """Scenario bytes as text; a binary or mis-encoded file is an error at the offending byte.

    UTF-8 is read, and UTF-16 behind a byte-order mark; UTF-16 without one is named as such
    (its NUL bytes would otherwise make it "binary").
    """
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return _decode_utf16(data, path)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        if _looks_like_utf16(data):
            raise ScenarioError(_UTF16_WITHOUT_MARK, 1, 1, path) from None
        line = data.count(b"\n", 0, exc.start) + 1
        line_start = data.rfind(b"\n", 0, exc.start) + 1
        col = len(data[line_start : exc.start].decode("utf-8", errors="replace")) + 1  # characters
        byte = data[exc.start]
        raise ScenarioError(
            f"not a text file: byte 0x{byte:02x} is not UTF-8 (a scenario is YAML text)",
            line,
            col,
            path,
        ) from None
    if "\0" in text and _looks_like_utf16(data):
        raise ScenarioError(_UTF16_WITHOUT_MARK, 1, 1, path)
    return _without_nul(text, path)


def _without_nul(text: str, path: str) -> str:
    nul = text.find("\0")
    if nul >= 0:
        raise ScenarioError(
            "not a text file: it contains a NUL byte (a scenario is YAML text)",
            *line_col(text, nul),
            path,
        )
    return text


_UTF16_WITHOUT_MARK = (
    "the file looks like UTF-16 without a byte-order mark; save it as UTF-8 "
    "(or as UTF-16 with a byte-order mark)"
)


def _decode_utf16(data: bytes, path: str) -> str:
    try:
        text = data.decode("utf-16")
    except UnicodeDecodeError as exc:
        good = data[: exc.start - exc.start % 2].decode("utf-16", errors="replace")
        raise ScenarioError(
            f"not a text file: not valid UTF-16 ({exc.reason} at byte {exc.start:,}; "
            "the file starts with a UTF-16 byte-order mark)",
            *line_col(good, len(good)),
            path,
        ) from None
    if text and sum(ch.isascii() for ch in text) < 0.9 * len(text):
        # YAML in UTF-16 is mostly ASCII; this is a binary file that happens to start so
        raise ScenarioError(
            "not a text file: binary data behind a UTF-16 byte-order mark "
            "(a scenario is YAML text)",
            1,
            1,
            path,
        )
    return _without_nul(text, path)


def _looks_like_utf16(data: bytes) -> bool:
    """Whether the start of ``data`` is ASCII text in UTF-16: a NUL in every other byte."""
    sample = data[:256]
    pairs = len(sample) // 2
    if pairs < 2:
        return False
    high_first = sum(sample[i] == 0 and sample[i + 1] != 0 for i in range(0, 2 * pairs, 2))
    low_first = sum(sample[i] != 0 and sample[i + 1] == 0 for i in range(0, 2 * pairs, 2))
    return max(high_first, low_first) >= 0.9 * pairs
