"""core/ is layered: each sub-package imports only the layers below it (and itself), so a
reader can learn it bottom up; capture/ imports only core and itself. Every import counts,
inside functions and under ``if TYPE_CHECKING:`` too: a type named from a layer above is a
dependency on it all the same, which a reader meets in the annotations. And every package on
disk is one that pyproject.toml installs, so a new sub-package cannot be forgotten."""

import ast
from pathlib import Path

import tomllib

from tests.conftest import ROOT

# lowest first; the foundation is core's own top-level modules
LAYERS = [
    "foundation",
    "files",
    "model",
    "reading",
    "engine",
    "teaching",
    "lessons",
    "loading",
    "editing",
    "outputs",
    "classroom",
]
FOUNDATION = {"text", "numbers", "errors", "limits"}

# What a top-level package beside core may import of the project: capture (PyTorch's side) reads
# a model and writes what core reads, and never needs the app.
MAY_IMPORT = {"capture": ("attn_tui.core", "attn_tui.capture")}


def layer_of(module: str) -> int:
    """The layer of ``attn_tui.core.<…>`` (``core/__init__.py``, the lazy facade, is above all)."""
    parts = module.split(".")[2:]
    if not parts:
        return len(LAYERS)
    if len(parts) == 1 and parts[0] in FOUNDATION:
        return 0
    assert parts[0] in LAYERS, f"{module}: core/{parts[0]} is in no layer (add it to LAYERS)"
    return LAYERS.index(parts[0])


def imports(path: Path, module: str) -> list[tuple[int, str]]:
    """The modules of core that ``path`` (the module ``module``) imports, with their lines."""
    return [
        (line, name)
        for line, name in project_imports(path, module)
        if name.startswith("attn_tui.core.")
    ]


def project_imports(path: Path, module: str) -> list[tuple[int, str]]:
    """Every module of the project (``attn_tui`` and below) that ``path`` imports."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([node.module] if node.module else []))
            names = (
                [f"{base}.{alias.name}" for alias in node.names]
                if base == "attn_tui.core"
                else [base]
            )
            found += [(node.lineno, name) for name in names]
        elif isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
    return [
        (line, name) for line, name in found if name == "attn_tui" or name.startswith("attn_tui.")
    ]


def modules(folder: str = "core"):
    for path in sorted((ROOT / folder).rglob("*.py")):
        relative = path.relative_to(ROOT / folder).with_suffix("")
        parts = [part for part in relative.parts if part != "__init__"]
        yield path, ".".join(["attn_tui", folder, *parts])


def outside(name: str, allowed: tuple[str, ...]) -> bool:
    """Whether ``name`` is in none of the ``allowed`` packages. ``attn_tui`` alone, the package
    itself (capture's install hint reads its __path__), imports nothing of the project."""
    if name == "attn_tui":
        return False
    return not any(name == package or name.startswith(package + ".") for package in allowed)


def test_each_layer_imports_only_the_layers_below_it():
    upward = []
    for path, module in modules():
        if module == "attn_tui.core":
            continue
        mine = layer_of(module)
        for line, name in imports(path, module):
            if layer_of(name) > mine:
                upward.append(
                    f"{path.relative_to(ROOT)}:{line}: {LAYERS[mine]} imports {name} "
                    f"({LAYERS[layer_of(name)] if layer_of(name) < len(LAYERS) else 'the facade'})"
                )
    assert upward == []


def test_the_layer_check_sees_an_upward_import(tmp_path):
    """The check can fail: a model module importing the engine, inside a function, is found, and
    one importing the lessons for a type only."""
    path = tmp_path / "scenario.py"
    path.write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
        "    from attn_tui.core.lessons.lesson import start_position\ndef f():\n"
        "    from attn_tui.core.engine.stages import REGISTRY\n"
    )
    module = "attn_tui.core.model.scenario"
    assert sorted(layer_of(name) for _, name in imports(path, module)) == [
        LAYERS.index("engine"),
        LAYERS.index("lessons"),
    ]
    assert layer_of(module) == LAYERS.index("model")


def test_capture_imports_only_core_and_itself():
    found = [
        f"{path.relative_to(ROOT)}:{line}: imports {name}"
        for folder, allowed in MAY_IMPORT.items()
        for path, module in modules(folder)
        for line, name in project_imports(path, module)
        if outside(name, allowed)
    ]
    assert len(list(modules("capture"))) > 20  # (the folder was found)
    assert found == []


def test_the_package_check_sees_the_app_imported_from_capture(tmp_path):
    """The check can fail: capture importing the app inside a function, relatively too, is seen;
    core and capture's own modules are not."""
    path = tmp_path / "command.py"
    path.write_text(
        "from attn_tui.core.text import visible\nfrom . import families\n"
        "from .tokens import shown\ndef f():\n    from attn_tui.tui.cli.streams import write_out\n"
        "    from ..tui import app\n"
    )
    names = [name for _, name in project_imports(path, "attn_tui.capture.command")]
    assert [name for name in names if outside(name, MAY_IMPORT["capture"])] == [
        "attn_tui.tui.cli.streams",
        "attn_tui.tui",
    ]


def test_every_package_on_disk_is_installed():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"][
        "setuptools"
    ]
    folders = {name: Path(folder) for name, folder in config["package-dir"].items()}
    on_disk = {"attn_tui"}
    for name, folder in folders.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            relative = init.parent.relative_to(ROOT / folder)
            on_disk.add(".".join([name, *relative.parts]))
    assert on_disk - set(config["packages"]) == set(), "add these to pyproject.toml's packages"
    assert set(config["packages"]) - on_disk == set(), "pyproject.toml names packages that are gone"
