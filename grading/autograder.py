"""``attn-tui autograder gradescope -o autograder.zip``: the zip a teacher uploads to Gradescope as
a programming assignment's autograder.

It holds ``setup.sh`` (run once when Gradescope builds its image: installs attn-tui from the wheel
inside the zip, and its dependencies from PyPI), ``run_autograder`` (run for every submission:
grades ``/autograder/submission`` into ``/autograder/results/results.json``, Gradescope's own
paths) and the wheel, built here from the attn-tui that is running (so the grader is the very
version the teacher tried), with the scenario files named by --scenario.
``ATTN_TUI_AUTOGRADER_ROOT`` moves ``/autograder``, to try the zip on one's own machine.
"""

from __future__ import annotations

import base64
import hashlib
import importlib.metadata
import importlib.util
import io
import shlex
import zipfile
from pathlib import Path

from attn_tui.core.text import visible

# attn_tui's sub-packages, each a folder of its own in a checkout (pyproject.toml's package-dir)
SUBPACKAGES = ("core", "tui", "capture", "grading", "scenarios")
PACKAGE_FILES = (".py", ".yaml", ".tcss")
ENTRY_POINTS = "[console_scripts]\nattn-tui = attn_tui.tui.cli:main\n"

SETUP = """\
#!/usr/bin/env bash
# Gradescope runs this once, building the autograder's image: attn-tui from the wheel beside it,
# its dependencies (NumPy, PyYAML, Textual) from PyPI.
set -euo pipefail
cd "$(dirname "$0")"
if ! python3 -m pip --version >/dev/null 2>&1; then
    apt-get update
    apt-get install -y python3 python3-pip
fi
# (a Python that PEP 668 marks as the system's refuses a plain pip install)
python3 -m pip install --no-cache-dir ./{wheel} \\
    || python3 -m pip install --no-cache-dir --break-system-packages ./{wheel}
{torch}"""

# with --torch: a course whose students write PyTorch needs it in the image, or every one of them
# gets "No module named 'torch'" and 0; its CPU build (the machines have no GPU; ~200 MB, not ~2 GB)
TORCH = """\
# the students' PyTorch, its CPU build
python3 -m pip install --no-cache-dir torch --index-url https://download.pytorch.org/whl/cpu \\
    || python3 -m pip install --no-cache-dir --break-system-packages torch \\
        --index-url https://download.pytorch.org/whl/cpu
"""

RUN = """\
#!/usr/bin/env bash
# Gradescope runs this for every submission: the student's files are in $ROOT/submission, the
# grade goes to $ROOT/results/results.json. ATTN_TUI_AUTOGRADER_ROOT moves $ROOT (default
# /autograder), to try the autograder on one's own machine.
set -uo pipefail
ROOT="${{ATTN_TUI_AUTOGRADER_ROOT:-/autograder}}"
SOURCE="$ROOT/source"
mkdir -p "$ROOT/results"
cd "$SOURCE" || exit 1
python3 -m attn_tui grade "$ROOT/submission" --gradescope "$ROOT/results/results.json" {options}
status=$?
if [ ! -s "$ROOT/results/results.json" ]; then
    # (grading itself failed: the student is told so, not left without a result)
    printf '{{"score": 0, "output": "The autograder could not grade this submission (exit '\\
'status %s): please tell your teacher.", "tests": []}}\\n' "$status" > "$ROOT/results/results.json"
fi
exit 0
"""


class AutograderError(Exception):
    pass


def autograder(parser, args) -> int:
    """The command: check what it is given, then write the zip."""
    from attn_tui.grading.check import UsageError
    from attn_tui.grading.grade import _scenario_case

    if args.platform != "gradescope":
        parser.error(f"{visible(args.platform)}: the autograder is for gradescope")
    if args.points is not None and not (0 < args.points < 1e9):
        parser.error("--points must be a positive number")
    scenarios = []
    try:
        for given in args.scenario or []:
            _scenario_case(given)  # (a scenario grading cannot use is refused now, not later)
            scenarios.append(given)
    except UsageError as problem:
        parser.error(str(problem))
    try:
        data = zip_bytes(scenarios, args.points, args.name, torch=args.torch)
        Path(args.output).write_bytes(data)
    except (OSError, AutograderError) as problem:
        parser.error(f"{visible(args.output)}: not written ({visible(str(problem))})")
    print(
        f"wrote {visible(args.output)}: upload it as the assignment's autograder on Gradescope "
        "(Configure Autograder, Zip file upload)"
    )
    return 0


def zip_bytes(scenarios: list[str], points: float | None, name: str, torch: bool = False) -> bytes:
    """The autograder zip: setup.sh (with ``torch``, installing PyTorch too), run_autograder,
    the wheel, the scenario files."""
    wheel_name, wheel = build_wheel()
    options = ["--name", name]
    if points is not None:
        options += ["--points", f"{points:g}"]
    files: dict[str, bytes] = {}
    for given in scenarios:
        path = Path(given)
        if path.is_file():
            inside = f"scenarios/{path.name}"
            if inside in files:  # (two files of one name: each its own folder)
                inside = f"scenarios/{len(files)}/{path.name}"
            files[inside] = path.read_bytes()
            options += ["--scenario", inside]  # (run_autograder runs from the source folder)
        else:
            options += ["--scenario", given]  # a built-in's name
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        _add(
            archive,
            "setup.sh",
            SETUP.format(wheel=wheel_name, torch=TORCH if torch else "").encode(),
            executable=True,
        )
        run = RUN.format(options=" ".join(shlex.quote(option) for option in options))
        _add(archive, "run_autograder", run.encode(), executable=True)
        _add(archive, wheel_name, wheel)
        for inside, content in files.items():
            _add(archive, inside, content)
    return buffer.getvalue()


def _add(archive: zipfile.ZipFile, name: str, data: bytes, executable: bool = False) -> None:
    info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
    info.external_attr = (0o755 if executable else 0o644) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    archive.writestr(info, data)


def build_wheel() -> tuple[str, bytes]:
    """A wheel of the attn-tui that is running (its files, wherever they are installed or checked
    out), with its dependencies declared: (file name, bytes). Built here, with no build tool and
    no network, so that whatever installed attn-tui, the zip can be made."""
    version = _version()
    files: dict[str, bytes] = {}
    root = Path(importlib.util.find_spec("attn_tui").origin).parent
    for name in ("__init__.py", "__main__.py"):
        files[f"attn_tui/{name}"] = (root / name).read_bytes()
    for sub in SUBPACKAGES:
        spec = importlib.util.find_spec(f"attn_tui.{sub}")
        if spec is None or not spec.submodule_search_locations:
            raise AutograderError(f"attn_tui.{sub} not found: is attn-tui installed whole?")
        folder = Path(list(spec.submodule_search_locations)[0])
        for path in sorted(folder.rglob("*")):
            if path.is_file() and path.suffix in PACKAGE_FILES and "__pycache__" not in path.parts:
                files[f"attn_tui/{sub}/{path.relative_to(folder).as_posix()}"] = path.read_bytes()
    info = f"attn_tui-{version}.dist-info"
    files[f"{info}/METADATA"] = _metadata(version).encode()
    files[f"{info}/WHEEL"] = (
        "Wheel-Version: 1.0\nGenerator: attn-tui autograder\nRoot-Is-Purelib: true\n"
        "Tag: py3-none-any\n"
    ).encode()
    files[f"{info}/entry_points.txt"] = ENTRY_POINTS.encode()
    files[f"{info}/top_level.txt"] = b"attn_tui\n"
    record = [f"{name},sha256={_digest(data)},{len(data)}" for name, data in files.items()] + [
        f"{info}/RECORD,,"
    ]
    files[f"{info}/RECORD"] = ("\n".join(record) + "\n").encode()
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as wheel:
        for name, data in files.items():
            _add(wheel, name, data)
    return f"attn_tui-{version}-py3-none-any.whl", buffer.getvalue()


def _version() -> str:
    from attn_tui import __version__

    return __version__


def _metadata(version: str) -> str:
    """The wheel's METADATA: the running attn-tui's dependencies, without its extras'."""
    try:
        installed = importlib.metadata.metadata("attn-tui")
        requires = [
            line for line in installed.get_all("Requires-Dist") or [] if "extra ==" not in line
        ]
        python = installed.get("Requires-Python") or ">=3.10"
    except importlib.metadata.PackageNotFoundError:  # (run from a checkout, not installed)
        requires, python = ["textual>=8.2,<9", "numpy>=1.24", "pyyaml>=6.0"], ">=3.10"
    lines = [
        "Metadata-Version: 2.1",
        "Name: attn-tui",
        f"Version: {version}",
        "Summary: A terminal step-debugger for scaled dot-product attention",
        f"Requires-Python: {python}",
    ] + [f"Requires-Dist: {requirement}" for requirement in requires]
    return "\n".join(lines) + "\n"


def _digest(data: bytes) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
