"""Files of this user's alone, in a folder of their own: recovery copies of unsaved edits and
the record of data files saved (the state folder), and a served class's recovery copies.

A name in such a folder is predictable (a recovery copy is named after its scenario), so
whatever is found at it is treated as planted: a file is written under a fresh name created
with ``O_EXCL|O_NOFOLLOW`` and renamed over the entry itself (a link there is replaced, never
written through), and read only if it is a regular file of this user's, not through a link,
opened non-blocking (a FIFO cannot hold the app) and never past a limit (a link to /dev/zero
or a sparse terabyte cannot eat memory). The folder is 0700 and must belong to this user: a
looser one is tightened, one of another user's or a link at its name is refused. Every step
goes through one descriptor of the folder, so the folder checked is the folder written.
Standard library only.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from contextlib import contextmanager

FOLDER_MODE, FILE_MODE = 0o700, 0o600
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_LINK_ERRORS = (errno.ELOOP, errno.EMLINK)  # what O_NOFOLLOW says of a link (Linux, the BSDs)


class Refused(OSError):
    """A private file that is not read, or a folder that is not used; the message says why."""

    def __init__(self, path: str, why: str) -> None:
        super().__init__(errno.EPERM, why, path)
        self.path, self.why = path, why

    def __str__(self) -> str:
        return f"{self.path} {self.why}"


def write(folder: str, name: str, data: bytes) -> None:
    """``data`` as the file ``name`` of ``folder`` (0600), atomically: a fresh file, renamed
    over whatever entry had the name. ``OSError`` (``Refused`` for the folder) if it cannot be."""
    with _opened(folder) as directory:
        temporary = f".{secrets.token_hex(8)}.tmp"
        fd = os.open(
            temporary,
            os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC,
            FILE_MODE,
            dir_fd=directory,
        )
        try:
            with os.fdopen(fd, "wb") as file:
                os.fchmod(file.fileno(), FILE_MODE)  # whatever the umask
                file.write(data)
            os.rename(temporary, name, src_dir_fd=directory, dst_dir_fd=directory)
        except BaseException:
            try:
                os.unlink(temporary, dir_fd=directory)
            except OSError:
                pass
            raise


def read(folder: str, name: str, limit: int) -> bytes | None:
    """The bytes of the file ``name`` of ``folder``, None if there is none; ``Refused`` for
    anything but a regular file of this user's of at most ``limit`` bytes (the folder is not
    made if it is missing)."""
    path = os.path.join(folder, name)
    try:
        with _opened(folder, make=False) as directory:
            try:
                fd = os.open(
                    name, os.O_RDONLY | _NOFOLLOW | os.O_NONBLOCK | _CLOEXEC, dir_fd=directory
                )
            except OSError as error:
                if error.errno in _LINK_ERRORS:
                    raise Refused(
                        path, "is a symbolic link; attn-tui never writes one there"
                    ) from None
                raise
            with os.fdopen(fd, "rb") as file:
                info = os.fstat(fd)
                if not stat.S_ISREG(info.st_mode):
                    raise Refused(path, "is not a regular file (a device, a pipe or a socket)")
                if info.st_uid != os.geteuid():
                    raise Refused(path, "belongs to another user")
                if info.st_size > limit:
                    raise Refused(path, f"is too large ({info.st_size:,} bytes; at most {limit:,})")
                data = file.read(limit + 1)
    except FileNotFoundError:
        return None
    if len(data) > limit:  # it grew while being read
        raise Refused(path, f"is too large (more than {limit:,} bytes)")
    return data


def remove(folder: str, name: str) -> None:
    """Remove the entry ``name`` of ``folder`` (a link itself, not what it points to)."""
    try:
        with _opened(folder, make=False) as directory:
            os.unlink(name, dir_fd=directory)
    except FileNotFoundError:
        pass


def modified_since(folder: str, suffix: str, moment: float) -> list[str]:
    """The paths of the regular files in ``folder`` named ``…suffix`` and changed at or after
    ``moment`` (a time.time() value; a second of slack for coarse clocks)."""
    try:
        with _opened(folder, make=False) as directory:
            found = []
            for name in os.listdir(directory):
                try:
                    info = os.stat(name, dir_fd=directory, follow_symlinks=False)
                except OSError:
                    continue
                if (
                    name.endswith(suffix)
                    and stat.S_ISREG(info.st_mode)
                    and info.st_mtime >= moment - 1
                ):
                    found.append(os.path.join(folder, name))
            return found
    except OSError:
        return []


def make(folder: str) -> None:
    """Make ``folder`` (0700) if missing, and check it as every write does; ``OSError`` if it
    cannot be used."""
    with _opened(folder):
        pass


def hold(folder: str, name: str) -> int | None:
    """An exclusive lock on the file ``name`` of ``folder`` (made 0600 if missing), as an open
    descriptor that keeps it until closed or the process ends, however it ends; None if another
    holder has it. Needs ``fcntl`` (not on Windows: ``OSError``)."""
    import fcntl

    with _opened(folder) as directory:
        try:
            fd = os.open(
                name, os.O_RDWR | os.O_CREAT | _NOFOLLOW | _CLOEXEC, FILE_MODE, dir_fd=directory
            )
        except OSError as error:
            if error.errno in _LINK_ERRORS:
                raise Refused(os.path.join(folder, name), "is a symbolic link") from None
            raise
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    except BaseException:
        os.close(fd)
        raise
    return fd


@contextmanager
def _opened(folder: str, make: bool = True):
    """A descriptor of ``folder`` (made 0700 if missing and ``make``), checked: a folder, not a
    link, this user's, and 0700 (tightened if looser)."""
    if make:
        os.makedirs(folder, mode=FOLDER_MODE, exist_ok=True)
    try:
        directory = os.open(
            folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _NOFOLLOW | _CLOEXEC
        )
    except OSError as error:
        if error.errno in _LINK_ERRORS or (error.errno == errno.ENOTDIR and os.path.islink(folder)):
            raise Refused(
                folder, "is a symbolic link; attn-tui keeps private files only in a real folder"
            ) from None
        raise
    try:
        info = os.fstat(directory)
        if info.st_uid != os.geteuid():
            raise Refused(
                folder,
                "belongs to another user; attn-tui keeps private files only in a "
                "folder of its own user's",
            )
        if stat.S_IMODE(info.st_mode) != FOLDER_MODE:
            os.fchmod(directory, FOLDER_MODE)  # other local users must not read unsaved edits
        yield directory
    finally:
        os.close(directory)
