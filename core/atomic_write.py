"""Writing a file so that a crash leaves either the old file or the new one, never half of one."""

from __future__ import annotations

import errno
import os
import stat
import tempfile


def write_atomic(path: str, data: str | bytes) -> None:
    """Write ``data`` (text as UTF-8, line endings untouched) to ``path`` atomically.

    It goes to a temporary file beside ``path``, is flushed to disk, takes the old file's
    permissions, and is renamed over ``path`` in one step; on any failure the temporary file
    is removed and ``path`` is as it was. Through a symbolic link, the file it points to is
    replaced (the link stays a link); a new file gets the usual permissions (0666 less umask).

    Only a regular file is ever replaced: a device, a pipe or a folder at ``path`` (or at the
    end of its links), or a link to nothing, is an ``OSError`` and is left as it is.
    """
    if os.path.islink(path) and not os.path.exists(path):
        raise FileNotFoundError(errno.ENOENT, "a symbolic link to a file that does not exist", path)
    path = os.path.realpath(path)
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        mode = None
    if mode is not None and not stat.S_ISREG(mode):
        what = "a folder" if stat.S_ISDIR(mode) else "not a regular file (a device, a pipe or a socket)"
        raise OSError(errno.EISDIR if stat.S_ISDIR(mode) else errno.EINVAL, what, path)
    directory = os.path.dirname(path)
    fd, temporary = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".tmp",
                                     dir=directory)
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data.encode("utf-8") if isinstance(data, str) else data)
            file.flush()
            os.fsync(file.fileno())
        try:
            mode = os.stat(path).st_mode & 0o7777
        except FileNotFoundError:
            mode = 0o666 & ~_umask()
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise
    _sync_directory(directory)


def _umask() -> int:
    mask = os.umask(0o022)  # reading the umask means setting it; put it straight back
    os.umask(mask)
    return mask


def _sync_directory(directory: str) -> None:
    """Make the rename itself durable (best effort: not every system allows it)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
