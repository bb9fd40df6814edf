"""The submissions in what a teacher names: files, a folder of files, or an LMS's export with one
folder per student, at any depth the common exports use.

- Gradescope's "Export Submissions": ``submission_NNN/`` folders and ``submission_metadata.yml``,
  whose submitters' names label the rows.
- Canvas's download: one flat folder of ``name_id_id_file.py`` (``name_LATE_id_id_file.py``).
- Moodle's: a folder per student, ``Full Name_123456_assignsubmission_file_``.
- GitHub Classroom's: a repository per student, ``assignment-username/``.
- Any folder of students' folders, or of files.

In a student's folder with several files, the submission is the one that defines the function
(read with ``ast``, nothing run; a notebook's code cells too), and the folder is theirs to import
from (a helper module beside it). Two files that both define it are reported, never guessed
between. An empty folder is a row ("nothing handed in"). Hidden files, ``__MACOSX/``,
``.ipynb_checkpoints/`` and ``._*`` are ignored; everything else not graded is counted and named,
so that no student ever vanishes from a table. The walk is bounded (depth, entries) and follows
no link out of the folder.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path

from attn_tui.core.text import visible
from attn_tui.grading.check import UsageError
from attn_tui.grading.defined_names import defines, takes_qkv
from attn_tui.grading.student_code import MAX_SOURCE

MAX_SUBMISSIONS = 2000
MAX_ENTRIES = 50_000  # files and folders looked at in all
# in one student's folder: more is a row saying so, not the whole class's grading stopped
MAX_STUDENT_ENTRIES = 10_000
MAX_DEPTH = 6  # folders below a student's own folder
CODE = (".py", ".ipynb")
JUNK_FOLDERS = frozenset({"__MACOSX", ".ipynb_checkpoints", "__pycache__", ".git"})
# installed packages a student committed with their code (a virtual environment, node_modules):
# thousands of files, some of them defining an ``attention`` of their own
PACKAGE_FOLDERS = frozenset({"site-packages", "dist-packages", "node_modules"})
METADATA = "submission_metadata.yml"
MAX_SUBMITTERS = 20  # of one submission (a group)
MAX_NAME = 200  # characters of one submitter's name
CANVAS = re.compile(
    r"(?P<name>[a-z]+?)(?:_late)?_(?P<id>\d+)_\d+_(?P<file>.+)", re.IGNORECASE
)  # (name, the student's id, the file's id, the file's own name)
MOODLE = re.compile(r"(?P<name>.+?)_(?P<id>\d+)_assignsubmission_\w+?_?")


@dataclass(frozen=True)
class Found:
    """One student's submission as found: the row's label, the file to grade (None when there is
    nothing to grade: ``problem`` says why), and the folder it may import from."""

    student: str
    file: Path | None
    folder: Path | None = None
    export: str = "file"
    problem: str = ""  # "nothing handed in", two files defining the function, …
    status: str = ""  # the record's status when there is a problem (empty, ambiguous, …)
    # a Canvas student's other files, each importable under the name they gave it (utils.py)
    helpers: tuple[Path, ...] = ()


@dataclass
class Discovery:
    found: list[Found] = field(default_factory=list)
    passed_over: list[tuple[str, str]] = field(default_factory=list)  # (path, why)
    looked_at: int = 0

    def pass_over(self, path: Path, why: str) -> None:
        self.passed_over.append((str(path), why))


class _TooMany(Exception):
    """One student's folder holds more than MAX_STUDENT_ENTRIES files and folders."""


def discover(given: list[str], name: str = "attention", one: bool = False) -> Discovery:
    """Every submission in the files and folders ``given``; with ``one``, a folder given alone is
    one student's (Gradescope's autograder: /autograder/submission)."""
    discovery = Discovery()
    if one and len(given) == 1 and Path(given[0]).is_dir():
        folder = Path(given[0])
        discovery.found.append(_student_folder(discovery, folder, folder.name, "submission", name))
        return discovery
    for text in given:
        path = Path(text)
        if path.is_dir() and not path.is_symlink():
            _folder(discovery, path, name)
        elif path.exists() or path.is_symlink():
            discovery.found.append(Found(path.name, path, None, "file"))
        else:
            raise UsageError(f"{visible(text)}: no such file or folder")
    if not discovery.found:
        raise UsageError(
            "no .py or .ipynb files in "
            + ", ".join(visible(text) for text in given)
            + _passed_over_tail(discovery)
        )
    if len(discovery.found) > MAX_SUBMISSIONS:
        raise UsageError(f"{len(discovery.found)} submissions: at most {MAX_SUBMISSIONS} at once")
    seen, unique = set(), []
    for found in discovery.found:
        key = (found.file or found.folder, found.student)
        if key not in seen:
            seen.add(key)
            unique.append(found)
    discovery.found = _distinct_labels(unique)
    return discovery


def _passed_over_tail(discovery: Discovery) -> str:
    if not discovery.passed_over:
        return ""
    names = ", ".join(visible(Path(path).name) for path, _ in discovery.passed_over[:5])
    return f" (passed over: {names})"


# ---- a folder --------------------------------------------------------------------------------


def _entries(discovery: Discovery, folder: Path, started: int | None = None) -> list[Path]:
    """The folder's entries worth a look, sorted; junk ignored, the rest counted. With
    ``started`` (the count when a student's folder was begun), a student's folder holding more
    than MAX_STUDENT_ENTRIES raises _TooMany, and what it held is not counted against the class."""
    try:
        names = sorted(os.listdir(folder))
    except OSError as exc:
        discovery.pass_over(folder, f"could not be read ({exc.strerror})")
        return []
    discovery.looked_at += len(names)
    if started is not None and discovery.looked_at - started > MAX_STUDENT_ENTRIES:
        discovery.looked_at = started
        raise _TooMany
    if discovery.looked_at > MAX_ENTRIES:
        raise UsageError(f"more than {MAX_ENTRIES} files and folders: not a class's export")
    return [
        folder / entry
        for entry in names
        if not entry.startswith(".") and entry not in JUNK_FOLDERS and not entry.startswith("._")
    ]


def _folder(discovery: Discovery, root: Path, name: str) -> None:
    entries = _entries(discovery, root)
    # an export unpacked into a folder of its own: go down to where the students are (not into
    # a folder with code of its own: that is one student's, the only one)
    depth = 0
    while (
        len(entries) == 1
        and entries[0].is_dir()
        and not entries[0].is_symlink()
        and depth < 3
        and not (root / METADATA).is_file()
        and not any(path.suffix.lower() in CODE for path in entries[0].iterdir())
    ):
        root, depth = entries[0], depth + 1
        entries = _entries(discovery, root)
    if (root / METADATA).is_file():
        _gradescope(discovery, root, entries, name)
        return
    folders = [entry for entry in entries if entry.is_dir() and not entry.is_symlink()]
    files = [entry for entry in entries if entry not in folders]
    code = [entry for entry in files if entry.suffix.lower() in CODE]
    for entry in files:
        if entry.is_symlink() and entry.is_dir():
            discovery.pass_over(entry, "a link to a folder: not followed")
        elif entry not in code:
            discovery.pass_over(entry, "not a .py or .ipynb file")
    not_followed = {entry: why for entry in code if (why := _link_problem(entry, root))}
    for entry, why in not_followed.items():  # (a row still: the student is there, unread)
        discovery.found.append(Found(entry.name, None, None, "folder", why, "unreadable"))
    outside = list(not_followed)
    code = [entry for entry in code if entry not in outside]
    if folders:
        labels = _folder_labels(folders)
        for folder in folders:
            export, label = labels[folder]
            discovery.found.append(_student_folder(discovery, folder, label, export, name))
    canvas = [entry for entry in code if CANVAS.fullmatch(entry.name)]
    if canvas and 2 * len(canvas) > len(code):
        # Canvas names each file of a student's after them and their id: their files are one
        # submission (two students of one name are two: their ids differ); a file of another
        # name beside them (the teacher's solution.py) is a row of its own, and breaks no
        # student's files apart into rows of their helper modules
        students: dict[tuple[str, str], list[Path]] = {}
        for entry in canvas:
            parts = CANVAS.fullmatch(entry.name)
            students.setdefault((parts.group("name"), parts.group("id")), []).append(entry)
        shared = Counter(label for label, _ in students)
        for (label, student_id), files in students.items():
            shown = f"{label} ({student_id})" if shared[label] > 1 else label
            chosen = _choose(files, name, shown, None, "canvas", root)
            helpers = tuple(entry for entry in files if entry != chosen.file)
            discovery.found.append(replace(chosen, helpers=helpers) if chosen.file else chosen)
        code = [entry for entry in code if entry not in canvas]
    for entry in code:
        discovery.found.append(Found(entry.name, entry, None, "folder"))


def canvas_name(path: Path) -> str:
    """The name a student gave a file Canvas renamed: ``utils.py`` of
    ``lovelaceada_111_902_utils-1.py`` (Canvas adds ``-1`` to a file handed in again)."""
    found = CANVAS.fullmatch(path.name)
    given = found.group("file") if found else path.name
    return re.sub(r"-\d+(?=\.\w+$)", "", given)


def _link_problem(entry: Path, root: Path) -> str:
    """Why a link is not followed: it leads to a regular file outside ``root``, or nowhere (a
    loop of links); "" otherwise (a link to a device or a FIFO is graded as "not a regular
    file", in its own row)."""
    if not entry.is_symlink():
        return ""
    target = _target(entry)
    if target is None:
        return "a loop of links: not followed"
    if target.is_file() and root.resolve() not in target.parents:
        return "a link out of the folder: not followed"
    return ""


def _target(entry: Path) -> Path | None:
    """Where a link leads, or None when it leads round in a loop (Python 3.11's resolve raises
    RuntimeError for one; a later Python raises OSError)."""
    try:
        return entry.resolve()
    except (OSError, RuntimeError):
        return None


def _folder_labels(folders: list[Path]) -> dict[Path, tuple[str, str]]:
    """Each student folder's label and the export it looks like: Moodle's name before its id,
    GitHub Classroom's user after the assignment's common prefix, else the folder's name."""
    names = [folder.name for folder in folders]
    prefix = os.path.commonprefix(names) if len(names) > 1 else ""
    prefix = prefix[: prefix.rfind("-") + 1] if "-" in prefix else ""
    labels = {}
    moodle_names = Counter(
        found.group("name") for folder in folders if (found := MOODLE.fullmatch(folder.name))
    )
    for folder in folders:
        moodle = MOODLE.fullmatch(folder.name)
        if moodle:  # (two students of one name: told apart by Moodle's id for each)
            label = moodle.group("name")
            if moodle_names[label] > 1:
                label += f" ({moodle.group('id')})"
            labels[folder] = ("moodle", label)
        elif prefix and len(folder.name) > len(prefix):
            labels[folder] = ("github-classroom", folder.name[len(prefix) :])
        else:
            labels[folder] = ("folder", folder.name)
    return labels


def _gradescope(discovery: Discovery, root: Path, entries: list[Path], name: str) -> None:
    submitters = gradescope_names(root / METADATA)
    for entry in entries:
        if entry.name == METADATA:
            continue
        if entry.is_dir() and not entry.is_symlink():
            label = submitters.get(entry.name) or entry.name
            discovery.found.append(_student_folder(discovery, entry, label, "gradescope", name))
        else:
            discovery.pass_over(entry, "not a submission's folder")


def gradescope_names(path: Path) -> dict[str, str]:
    """submission_metadata.yml's submitters' names by submission folder (``:submitters:`` a list
    of ``:name:``, ``:sid:``, ``:email:``; a group's names joined). Empty when unreadable."""
    import yaml

    class Loader(yaml.SafeLoader):
        pass

    def plain(loader, suffix, node):  # (Ruby's tags, e.g. !ruby/object, read as plain data)
        if isinstance(node, yaml.MappingNode):
            return loader.construct_mapping(node, deep=True)
        if isinstance(node, yaml.SequenceNode):
            return loader.construct_sequence(node, deep=True)
        return loader.construct_scalar(node)

    Loader.add_multi_constructor("!", plain)
    try:
        with open(path, "rb") as file:
            data = yaml.load(file.read(MAX_SOURCE), Loader=Loader)  # noqa: S506 (safe, plus tags)
    except (OSError, yaml.YAMLError, RecursionError, MemoryError):
        # (PyYAML builds nested lists by recursion: 50,000 brackets raise RecursionError; the
        # autograder grades the student's own upload, which may hold a file of this name)
        return {}
    if not isinstance(data, dict):
        return {}
    names = {}
    for folder, entry in data.items():
        people = entry.get(":submitters") if isinstance(entry, dict) else None
        if not isinstance(people, list):
            continue
        found = [_submitter(person) for person in people[:MAX_SUBMITTERS]]
        if any(found):
            names[str(folder)] = ", ".join(name for name in found if name)
    return names


def _submitter(person: object) -> str:
    """A submitter's name (else email, else id) when it is text or a number: a list there (YAML's
    aliases nest one inside another a billion times in a few lines) is no one's name."""
    if not isinstance(person, dict):
        return ""
    for key in (":name", ":email", ":sid"):
        value = person.get(key)
        if isinstance(value, (str, int)) and not isinstance(value, bool) and str(value).strip():
            return str(value).strip()[:MAX_NAME]
    return ""


# ---- one student's folder ----------------------------------------------------------------------


def _student_folder(
    discovery: Discovery, folder: Path, label: str, export: str, name: str
) -> Found:
    files: list[Path] = []
    others: list[Path] = []
    started = discovery.looked_at
    try:
        _walk(discovery, folder, folder, 0, files, others, started)
    except _TooMany:
        return Found(
            label,
            None,
            folder,
            export,
            f"more than {MAX_STUDENT_ENTRIES} files and folders: not looked through "
            "(grade the file meant)",
            "unreadable",
        )
    if not files:
        what = (
            "nothing handed in"
            if not others
            else "nothing handed in as .py or .ipynb: "
            + ", ".join(visible(path.name) for path in others[:3])
            + (f" and {len(others) - 3} more" if len(others) > 3 else "")
        )
        return Found(label, None, folder, export, what, "empty")
    return _choose(files, name, label, folder, export, folder)


def _choose(
    files: list[Path], name: str, label: str, folder: Path | None, export: str, base: Path
) -> Found:
    """One student's submission among their files: the one, or the one that defines ``name``,
    or the one whose only function takes (Q, K, V); else a row saying why none was chosen."""
    if len(files) == 1:
        return Found(label, files[0], folder, export)
    defining = [path for path in files if defines(path, name)]
    if len(defining) == 1:
        return Found(label, defining[0], folder, export)
    shown = " and ".join(visible(str(path.relative_to(base))) for path in (defining or files)[:4])
    if defining:
        return Found(
            label,
            None,
            folder,
            export,
            f"{shown} each define {visible(name)}: not guessed between (grade the one meant)",
            "ambiguous",
        )
    taking = [path for path in files if takes_qkv(path)]
    if len(taking) == 1:
        return Found(label, taking[0], folder, export)
    return Found(
        label, None, folder, export, f"no file defines {visible(name)}: {shown}", "missing"
    )


def _walk(
    discovery: Discovery,
    root: Path,
    folder: Path,
    depth: int,
    files: list,
    others: list,
    started: int,
) -> None:
    for entry in _entries(discovery, folder, started):
        if entry.is_symlink():
            target = _target(entry)
            if target is None:
                discovery.pass_over(entry, "a loop of links: not followed")
                continue
            if root.resolve() not in target.parents:
                discovery.pass_over(entry, "a link out of the student's folder: not followed")
                continue
            if target.is_dir():
                continue  # (a link to a folder within: its files are found there)
        if entry.is_dir():
            if entry.name in PACKAGE_FOLDERS or (entry / "pyvenv.cfg").is_file():
                discovery.pass_over(entry, "installed packages: not a student's code")
            elif depth < MAX_DEPTH:
                _walk(discovery, root, entry, depth + 1, files, others, started)
            else:
                discovery.pass_over(entry, f"deeper than {MAX_DEPTH} folders: not looked in")
        elif entry.suffix.lower() in CODE:
            files.append(entry)
        else:
            others.append(entry)


def _distinct_labels(found: list[Found]) -> list[Found]:
    """Two rows never share a label: a label two submissions share (two students' attention.py
    named directly, two folders of one name) gets its parent folder's name before it."""
    counts = Counter(entry.student for entry in found)
    distinct = []
    for entry in found:
        if counts[entry.student] > 1:
            place = entry.folder if entry.folder is not None else entry.file
            parent = place.parent.name if place is not None and place.parent.name else "?"
            entry = replace(entry, student=f"{parent}/{entry.student}")
        distinct.append(entry)
    counts = Counter(entry.student for entry in distinct)
    return [
        replace(entry, student=f"{entry.student} ({i})") if counts[entry.student] > 1 else entry
        for i, entry in enumerate(distinct, 1)
    ]
