"""The sandbox a grading worker runs in: Bubblewrap (``bwrap``, the sandbox behind Flatpak), which
gives each worker

- its own PID namespace, its processes killed with it (``--die-with-parent``; a child that calls
  ``setsid`` is still in the namespace, and cannot see or signal any process outside it);
- no network (``--unshare-net``), its own IPC and host name, its own session (no terminal);
- a read-only view of only what Python needs: ``/usr`` and the links to it, a few files of
  ``/etc`` (the loader's cache), Python's own prefixes (the virtual environment's too), a new
  ``/proc`` and a minimal ``/dev``; attn-tui's package, its source and its records in
  site-packages hidden (an empty folder, an empty file, bound over them), and any module the
  teacher forbids (``--forbid torch``) too;
- the two files the worker runs (:data:`WORKER_FILES`) at ``/grader``, and the student's file
  (and their own folder, when a submission has one) read-only at ``/submission``: never a
  classmate's file, never the folder a flat export holds the class in;
- a private ``/tmp`` (its HOME, TMPDIR and working folder are in it) and ``/dev/shm``, each a
  size-bounded tmpfs that goes with the sandbox, whatever it holds;
- started as root, no user namespace (the kernel holds a user namespace's root to no process
  limit) but only the capabilities the worker needs to become a uid of its own for good.

Where bwrap is missing or cannot run (no user namespaces for an ordinary user), :func:`problem`
says why, and the runner grades with its limits alone, saying so once.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import re
import shutil
import subprocess
import sys

from attn_tui.grading.worker_limits import MAX_FILE

BWRAP = "bwrap"
GRADER = "/grader"  # where the worker's own files are, inside
SUBMISSION = "/submission"  # the student's file, or their folder
SYSTEM = "/usr"  # bound whole: a Python installed in it (the system's) has its packages there
HOME = "/tmp/attn-tui-student"  # the one writable folder: HOME, TMPDIR, the working folder
TMP_SIZE = 2 * MAX_FILE  # bytes of /tmp (tmpfs: memory, which RLIMIT_AS does not count)
SHM_SIZE = 16 * 2**20
SYSTEM_LINKS = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")
ETC_FILES = (
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "alternatives",  # (Debian's BLAS and LAPACK are found through it)
    "localtime",
    "nsswitch.conf",
    "passwd",
    "group",
)
# the capabilities the worker keeps as root, until it has become its own uid
ROOT_CAPABILITIES = ("CAP_SETUID", "CAP_SETGID", "CAP_DAC_READ_SEARCH")
HIDDEN_PACKAGE = "attn_tui"


def command(
    worker: list[str],
    *,
    file: str,
    folder: str | None,
    forbid: tuple[str, ...] = (),
    worker_files: dict[str, str],
) -> tuple[list[str], str, str | None]:
    """The bwrap command that runs ``worker`` (an argv whose script is ``/grader/worker.py``),
    and the paths the student's file and folder have inside."""
    args = [BWRAP, *_namespaces(), "--ro-bind", SYSTEM, SYSTEM]
    for name in SYSTEM_LINKS:
        path = f"/{name}"
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            args += ["--ro-bind", path, path]
    for name in ETC_FILES:
        if os.path.exists(f"/etc/{name}"):
            args += ["--ro-bind", f"/etc/{name}", f"/etc/{name}"]
    args += ["--proc", "/proc", "--dev", "/dev"]
    args += ["--perms", "1777", "--size", str(TMP_SIZE), "--tmpfs", "/tmp"]
    args += ["--perms", "1777", "--size", str(SHM_SIZE), "--tmpfs", "/dev/shm"]
    args += ["--perms", "1777", "--dir", HOME]
    roots = python_roots()
    for root in roots:
        args += ["--ro-bind", root, root]
    hidden = list(hidden_paths(forbid))
    # the class's folder, should it lie in a folder bound for Python
    own = os.path.realpath(folder if folder is not None else os.path.dirname(file))
    if any(_within(own, root) for root in (*roots, SYSTEM)):
        hidden.append(own)
    args += _hiding(hidden)
    for name, source in worker_files.items():
        args += ["--ro-bind", source, f"{GRADER}/{name}"]
    file = os.path.realpath(file)
    if folder is not None:
        folder = os.path.realpath(folder)
        args += ["--ro-bind", folder, SUBMISSION]
        inside_folder: str | None = SUBMISSION
        if _within(file, folder):
            inside_file = os.path.join(SUBMISSION, os.path.relpath(file, folder))
        else:
            inside_file = f"/entry/{os.path.basename(file)}"
            args += ["--ro-bind", file, inside_file]
    else:
        inside_folder = None
        inside_file = f"{SUBMISSION}/{os.path.basename(file)}"
        args += ["--ro-bind", file, inside_file]
    args += ["--chdir", HOME, "--", *worker]
    return args, inside_file, inside_folder


def _hiding(hidden: list[str]) -> list[str]:
    """Bindings that hide each path: a folder of sys.path that holds one (site-packages) is
    remade without it, everything else in it bound back, since an empty folder left at a
    package's name would import as an empty namespace package; any other folder is covered by
    an empty one, a file by /dev/null (which cannot be opened there: bwrap's binds are nodev)."""
    args: list[str] = []
    on_path = {os.path.realpath(entry or ".") for entry in sys.path}
    remade: dict[str, set[str]] = {}
    for path in hidden:
        parent, name = os.path.split(path)
        if parent in on_path:
            remade.setdefault(parent, set()).add(name)
        elif os.path.isdir(path) and not os.path.islink(path):
            args += ["--tmpfs", path, "--remount-ro", path]
        elif os.path.lexists(path):
            args += ["--ro-bind", "/dev/null", path]
    for parent, names in remade.items():
        args += ["--tmpfs", parent]
        for entry in sorted(os.scandir(parent), key=lambda entry: entry.name):
            if entry.name in names:
                continue
            if entry.is_symlink():
                args += ["--symlink", os.readlink(entry.path), entry.path]
            else:
                args += ["--ro-bind", entry.path, entry.path]
        args += ["--remount-ro", parent]
    return args


def _namespaces() -> list[str]:
    args = [
        "--unshare-pid",
        "--unshare-net",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--die-with-parent",
        "--new-session",
    ]
    if os.geteuid() == 0:
        # no user namespace: its root would be the real root, whom RLIMIT_NPROC does not hold;
        # the worker drops to a uid of its own, keeping nothing but the right to read
        args += ["--cap-drop", "ALL"]
        for capability in ROOT_CAPABILITIES:
            args += ["--cap-add", capability]
    return args


@functools.lru_cache(maxsize=1)
def python_roots() -> tuple[str, ...]:
    """The folders of the Python that runs the worker (its prefixes, the virtual environment's
    included), outside /usr (bound already), none inside another."""
    found = {
        os.path.realpath(path)
        for path in (
            sys.prefix,
            sys.base_prefix,
            sys.exec_prefix,
            sys.base_exec_prefix,
            os.path.dirname(sys.executable),
        )
    }
    found = {path for path in found if path != "/" and not _within(path, SYSTEM)}
    return tuple(
        sorted(path for path in found if not any(_within(path, o) for o in found if o != path))
    )


def hidden_paths(forbid: tuple[str, ...] = ()) -> tuple[str, ...]:
    """Where attn-tui (and each module in ``forbid``) lies, as far as the worker's Python could
    see it: the package's folders (an editable install's checkout too) and its records in
    site-packages (the editable finder, the .pth, the dist-info)."""
    return _hidden(tuple(sorted(set(forbid))))


@functools.lru_cache(maxsize=8)
def _hidden(forbid: tuple[str, ...]) -> tuple[str, ...]:
    names = (HIDDEN_PACKAGE, *forbid)
    found: set[str] = set()
    for name in names:
        found.update(_module_places(name))
    found.update(_module_places(f"{HIDDEN_PACKAGE}.core"))
    for sub in ("tui", "grading", "capture", "scenarios"):
        found.update(_module_places(f"{HIDDEN_PACKAGE}.{sub}"))
    records = re.compile(
        r"^(__editable___?\.?)?("
        + "|".join(re.escape(name).replace("_", "[-_]") for name in names)
        + r")([-_.].*)?$",
        re.IGNORECASE,
    )
    # what is bound: Python's own folders, and the system's, where the system's Python keeps its
    # packages (/usr/local/lib/python3.11/dist-packages: pip install as root, as an autograder's
    # image does, puts attn-tui there)
    roots = (*python_roots(), SYSTEM)
    for entry in sys.path:
        entry = os.path.realpath(entry or ".")
        if not os.path.isdir(entry) or not any(_within(entry, root) for root in roots):
            continue
        try:
            listing = os.listdir(entry)
        except OSError:
            continue
        found.update(os.path.join(entry, name) for name in listing if records.match(name))
    inside = [path for path in found if any(_within(path, root) for root in roots)]
    # a checkout outside the bound folders is not there to hide, but a venv inside it is: keep
    # only what lies in a bound folder, never a bound folder itself or one holding it
    return tuple(sorted(path for path in inside if not any(_within(root, path) for root in roots)))


def _module_places(name: str) -> set[str]:
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError, AttributeError):
        return set()
    if spec is None:
        return set()
    places = {os.path.realpath(p) for p in (spec.submodule_search_locations or [])}
    if not places and spec.origin and os.path.isfile(spec.origin):
        places.add(os.path.realpath(spec.origin))
    return places


def _within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


@functools.lru_cache(maxsize=1)
def problem() -> str | None:
    """Why no worker can be sandboxed here (None: it can), found once by running Python in the
    sandbox."""
    if shutil.which(BWRAP) is None:
        return "bubblewrap (bwrap) is not installed"
    args, _, _ = command(
        [sys.executable, "-I", "-c", "pass"],
        file=__file__,
        folder=None,
        worker_files={},
    )
    try:
        done = subprocess.run(
            args,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=20,
            env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"bwrap could not run ({type(error).__name__})"
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return f"bwrap could not run here ({said[-1][:200] if said else done.returncode})"
    return None


def without_sandbox_notice(reason: str) -> str:
    """The one line that says grading runs without a sandbox, and what is then not enforced."""
    if os.geteuid() == 0:  # (a uid of its own: its processes and files are found and ended)
        loose = "read any file (a classmate's too), and use the network"
    else:
        loose = (
            "read what you can (a classmate's file too), use the network, write outside its "
            "folder (/tmp, /dev/shm), and a child it starts in a session of its own can outlive it"
        )
    return (
        f"attn-tui: grading without a sandbox ({reason}): each submission runs with its time, "
        f"memory, file-size and process limits only; its code can import attn-tui's reference, "
        f"{loose}."
    )
