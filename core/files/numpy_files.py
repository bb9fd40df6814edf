"""Matrices from NumPy files: ``{npy: path}`` for one matrix, ``npz: file.npz`` for several.

Shapes and types are read from the file headers first, so the size limits are checked before
any data is read; data is loaded with ``allow_pickle=False``, so a file can never run code.
NumPy is imported when a file is read, not with this module, which checking a YAML-only
scenario imports too.
"""

from __future__ import annotations

import io
import os
import zipfile
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np


class NumpyFileError(ValueError):
    """A NumPy file that cannot give a matrix; the message names the file and the array."""


@dataclass(frozen=True)
class ArrayRef:
    """Where one matrix lives: a .npy file, or an array inside a .npz file."""

    path: str  # absolute
    member: str | None = None  # the array's name inside a .npz

    @property
    def label(self) -> str:
        name = os.path.basename(self.path)
        return f"{name}[{self.member!r}]" if self.member else name

    def header(self) -> tuple[tuple[int, ...], np.dtype]:
        """Shape and dtype, read from the header alone."""
        _require_regular_file(self.path)
        try:
            if self.member is None:
                with open(self.path, "rb") as file:
                    return _read_header(file, self.label)
            with zipfile.ZipFile(self.path) as archive:
                with archive.open(f"{self.member}.npy") as file:
                    return _read_header(file, self.label)
        except FileNotFoundError:
            raise NumpyFileError(f"no such file {self.path}") from None
        except (OSError, zipfile.BadZipFile, KeyError) as exc:
            raise NumpyFileError(f"cannot read {self.label}: {exc}") from None

    def load(self) -> np.ndarray:
        """The array as float64 (after :meth:`header` has been checked)."""
        import numpy as np

        try:
            if self.member is None:
                array = np.load(self.path, allow_pickle=False)
            else:
                with np.load(self.path, allow_pickle=False) as archive:
                    array = archive[self.member]
        except (OSError, ValueError, TypeError, EOFError, zipfile.BadZipFile, KeyError) as exc:
            raise NumpyFileError(f"cannot read {self.label}: {exc}") from None
        return np.asarray(array, dtype=np.float64)


def npz_members(path: str) -> list[str]:
    """The names of the arrays in a .npz file."""
    _require_regular_file(path)
    try:
        with zipfile.ZipFile(path) as archive:
            return [name[:-4] for name in archive.namelist() if name.endswith(".npy")]
    except FileNotFoundError:
        raise NumpyFileError(f"no such file {path}") from None
    except (OSError, zipfile.BadZipFile) as exc:
        raise NumpyFileError(f"{os.path.basename(path)} is not a .npz file ({exc})") from None


def _require_regular_file(path: str) -> None:
    """A device or a pipe (/dev/zero, /dev/stdin) would be read forever: only files will do."""
    if os.path.exists(path) and not os.path.isfile(path):
        kind = "a folder" if os.path.isdir(path) else "not a regular file (a device or a pipe?)"
        raise NumpyFileError(f"{path} is {kind}")


def check_matrix(shape: tuple[int, ...], dtype: np.dtype, label: str) -> tuple[int, int]:
    """Rows and columns of a header that describes a real 2-D matrix, or why it does not."""
    return check_array(shape, dtype, label)  # type: ignore[return-value]


def check_array(
    shape: tuple[int, ...],
    dtype: np.dtype,
    label: str,
    dims: tuple[int, ...] = (2,),
    kinds: str = "fiu",
) -> tuple[int, ...]:
    """The shape of a header that describes a real array of one of ``dims`` dimensions (2: a
    matrix, 3: a matrix per head, 1: a vector), of numbers (or, as ``kinds`` allow, booleans:
    a mask), or why it does not."""
    if not all(type(n) is int and n >= 0 for n in shape):  # NumPy lets (True, True) and -2 through
        raise NumpyFileError(f"{label} has shape {shape!r}: not the shape of an array")
    if len(shape) not in dims:
        wanted = " or ".join(_DIMENSIONS[n] for n in dims)
        raise NumpyFileError(
            f"{label} holds a {len(shape)}-dimensional array (shape {shape}); it should be {wanted}"
        )
    if dtype.kind not in kinds:
        kind = {
            "c": "complex numbers",
            "b": "booleans",
            "O": "Python objects",
            "U": "text",
            "S": "bytes",
            "V": "structured records",
            "M": "dates",
            "m": "time spans",
        }.get(dtype.kind, f"values of type {dtype.kind!r}")
        raise NumpyFileError(f"{label} holds {kind}; a matrix needs real numbers")
    if 0 in shape:
        raise NumpyFileError(f"{label} is empty (shape {shape})")
    return tuple(shape)


_DIMENSIONS = {
    1: "a vector (1 dimension)",
    2: "a matrix (2 dimensions)",
    3: "one matrix per head (3 dimensions)",
}


def first_non_finite(values: np.ndarray) -> tuple[int, ...] | None:
    """The index of the first NaN or infinity in ``values``, if any."""
    import numpy as np

    bad = np.argwhere(~np.isfinite(values))
    return tuple(int(i) for i in bad[0]) if len(bad) else None


def npy_bytes(values: np.ndarray) -> bytes:
    """A matrix as the bytes of a .npy file (float64)."""
    import numpy as np

    buffer = io.BytesIO()
    np.save(buffer, np.asarray(values, dtype=np.float64), allow_pickle=False)
    return buffer.getvalue()


def _read_header(file, label: str) -> tuple[tuple[int, ...], np.dtype]:
    """Shape and dtype from a .npy header, with NumPy's public reader of every version since
    1.24; a file that is not .npy is refused without quoting it (it may be anyone's secret)."""
    from numpy.lib import format as npy_format

    try:
        version = npy_format.read_magic(file)
    except Exception:  # NumPy's message quotes the file's first bytes
        raise NumpyFileError(
            f"{label} is not a NumPy .npy file (it does not start as one)"
        ) from None
    if version not in ((1, 0), (2, 0), (3, 0)):
        raise NumpyFileError(
            f"{label} is not a NumPy .npy file this program can read (format "
            f"version {version[0]}.{version[1]})"
        )
    # 3.0 differs from 2.0 only in that field names may be UTF-8: read as 2.0 (Latin-1), such a
    # header still gives the true shape and kind of number, which is all a matrix needs
    read = (
        npy_format.read_array_header_1_0 if version == (1, 0) else npy_format.read_array_header_2_0
    )
    try:
        shape, _, dtype = read(file)
    except Exception:  # a crafted header raises whatever NumPy's parser meets: never our bug
        raise NumpyFileError(
            f"{label} is not a NumPy .npy file (its header cannot be read)"
        ) from None
    return shape, dtype
