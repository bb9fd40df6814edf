"""Writing a file so that a crash leaves either the old file or the new one, never half of one."""

from __future__ import annotations

import errno
import os
import stat
import tempfile


def write_atomic(path: str, data: str | bytes, durable: bool = True) -> None:
    """Write ``data`` (text as UTF-8, line endings untouched) to ``path`` atomically.

    It goes to a temporary file beside ``path``, is flushed to disk (unless not ``durable``: a
    file that must only outlive the process, not the machine, skips the slow fsync), takes the
    old file's mode, owner and group, and is renamed over ``path`` in one step; on any failure the
    temporary file is removed and ``path`` is as it was. Through a symbolic link, the file it
    points to is replaced (the link stays a link); a new file gets the usual permissions
    (0666 less umask).

    Refused with an ``OSError``, leaving everything as it is: a file the user may not write
    (replacing it would only need the folder to be writable), a file whose owner or group
    could not be kept, anything at ``path`` that is not a regular file (a device, a pipe, a
    folder, at the end of its links), and a link to nothing.
    """
    if os.path.islink(path) and not os.path.exists(path):
        raise FileNotFoundError(errno.ENOENT, "a symbolic link to a file that does not exist", path)
    path = os.path.realpath(path)
    try:
        old = os.stat(path)
    except FileNotFoundError:
        old = None
    if old is not None and not stat.S_ISREG(old.st_mode):
        what = (
            "a folder"
            if stat.S_ISDIR(old.st_mode)
            else "not a regular file (a device, a pipe or a socket)"
        )
        raise OSError(errno.EISDIR if stat.S_ISDIR(old.st_mode) else errno.EINVAL, what, path)
    if old is not None and not os.access(path, os.W_OK):
        raise PermissionError(errno.EACCES, "the file is read-only for you", path)
    directory = os.path.dirname(path)
    fd, temporary = tempfile.mkstemp(
        prefix=f".{os.path.basename(path)}.", suffix=".tmp", dir=directory
    )
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data.encode("utf-8") if isinstance(data, str) else data)
            file.flush()
            if durable:
                os.fsync(file.fileno())
        if old is None:
            os.chmod(temporary, 0o666 & ~_umask())
        else:
            _keep_owner(temporary, old, path)
            os.chmod(
                temporary, stat.S_IMODE(old.st_mode)
            )  # after chown, which may clear setuid bits
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise
    if durable:
        _sync_directory(directory)


def _keep_owner(temporary: str, old: os.stat_result, path: str) -> None:
    """Give the new file the old one's owner and group, or refuse: replacing a file must not
    quietly hand it to whoever saved it (a shared file, or root saving a user's file)."""
    new = os.stat(temporary)
    if (new.st_uid, new.st_gid) == (old.st_uid, old.st_gid) or not hasattr(os, "chown"):
        return
    try:
        os.chown(temporary, old.st_uid, old.st_gid)
    except PermissionError:
        raise PermissionError(
            errno.EPERM,
            "it belongs to another owner or group, which replacing it would change",
            path,
        ) from None


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
