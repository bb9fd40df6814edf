"""Every module path the docstrings, comments and docs name is true: a dotted
``core.reading.softcap`` (or ``attn_tui.core…``, ``tui.…``, ``grading.…``, ``capture.…``) is a
module or a module's attribute, and a file path such as ``core/reading/softcap.py`` exists.
Modules move between sub-packages; a sentence pointing at the old place sends a reader nowhere."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import io
import re
import sys
import tokenize
from pathlib import Path

import pytest

from tests.conftest import ROOT

FOLDERS = (
    "core",
    "tui",
    "capture",
    "grading",
    "scenarios",
    "tests",
    "benchmarks",
    "attn_tui",
    "docs",
    ".ci",
)
DOTTED = re.compile(r"(?<![\w./-])((?:attn_tui\.)?(?:core|tui|grading|capture)(?:\.[A-Za-z_]\w*)+)")
FILE = re.compile(
    r"(?<![\w./-])((?:core|tui|grading|capture|scenarios|tests|benchmarks|docs)/[\w./*-]*[\w*])"
)
# "capture.md", "capture.npz": a file's name, not a module path
FILE_SUFFIXES = {
    "md",
    "py",
    "yaml",
    "yml",
    "npz",
    "npy",
    "json",
    "svg",
    "txt",
    "tcss",
    "toml",
    "png",
    "pdf",
}


def _prose(path) -> list[tuple[int, str]]:
    """(line, text) of what a reader reads: a Markdown file whole, a Python file's strings and
    comments (its code's imports are checked by running it; ``grading.add_argument`` in code is
    a variable, not a path)."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".md":
        return [(1, text)]
    return [
        (token.start[0], token.string)
        for token in tokenize.generate_tokens(io.StringIO(text).readline)
        if token.type in (tokenize.STRING, tokenize.COMMENT)
    ]


def _sources():
    paths = [ROOT / "README.md"]
    for folder in FOLDERS:
        paths += [
            p
            for p in (ROOT / folder).rglob("*")
            if p.suffix in (".py", ".md") and "__pycache__" not in p.parts
        ]
    here = __file__.rsplit("/", 1)[-1]  # this file names made-up paths on purpose
    return sorted(p for p in paths if p.name != here)


def module_path_is_true(name: str) -> bool:
    """Whether ``name`` (``core.x.y``, with or without ``attn_tui.``) is a module of the
    project, or an attribute (a class's attribute too) of one. The module is found as Python
    would find it, without running it: ``capture.gpt2`` is true on a machine without PyTorch,
    which it imports."""
    parts = name.split(".")
    if parts[0] != "attn_tui":
        parts = ["attn_tui", *parts]
    for cut in range(len(parts), 1, -1):
        try:
            spec = importlib.util.find_spec(".".join(parts[:cut]))
        except ModuleNotFoundError:  # what comes before is a module, not a package
            continue
        if spec is not None:
            return has_attributes(spec, parts[cut:])
    return False


def has_attributes(spec, attributes: list[str]) -> bool:
    """Whether the module ``spec`` finds has ``attributes``, each an attribute of the one
    before: read from the module itself, imported (so that one that no longer imports is found
    out too), else, where what it imports is not installed (PyTorch for capture's), from the
    names its source defines."""
    try:
        found = importlib.import_module(spec.name)
    except ModuleNotFoundError as missing:
        if (missing.name or "").partition(".")[0] == "attn_tui":
            raise
        if not attributes:
            return True
        return attributes_in_source(ast.parse(Path(spec.origin).read_bytes()), attributes)
    for attribute in attributes:
        if not hasattr(found, attribute):
            return False
        found = getattr(found, attribute)
    return True


def attributes_in_source(tree: ast.Module | ast.ClassDef, attributes: list[str]) -> bool:
    """Whether the names a module's (or a class's) body defines hold ``attributes``: the first,
    and each next one in the class the one before names."""
    defined = {}
    for statement in tree.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defined[statement.name] = statement
        elif isinstance(statement, (ast.Import, ast.ImportFrom)):
            defined.update(
                ((alias.asname or alias.name).partition(".")[0], alias) for alias in statement.names
            )
        elif isinstance(statement, (ast.Assign, ast.AnnAssign)):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            defined.update(
                (node.id, statement)
                for target in targets
                for node in ast.walk(target)
                if isinstance(node, ast.Name)
            )
    first, *rest = attributes
    if first not in defined:
        return False
    if not rest:
        return True
    # (deeper than a class, such as a function's attribute, needs the module run)
    return isinstance(defined[first], ast.ClassDef) and attributes_in_source(defined[first], rest)


def file_path_is_true(name: str) -> bool:
    """Whether ``name`` (relative to the repository) is a file or folder, a module named by its
    path without ``.py`` (the diagram in docs/architecture.md), a glob that matches one, or a
    folder with a placeholder such as ``docs/examples/FILE``."""
    folder, _, last = name.rpartition("/")
    if "*" in name:
        return any(ROOT.glob(name))
    if last.isupper():
        return (ROOT / folder).is_dir()
    return (ROOT / name).exists() or (ROOT / f"{name}.py").is_file()


def paths_named_in(path) -> list[tuple[str, str, int]]:
    """(kind, the path, line) of every module or file path named in ``path``'s prose."""
    found = []
    for line, text in _prose(path):
        for pattern, kind in ((DOTTED, "module"), (FILE, "file")):
            for match in pattern.finditer(text):
                name = match.group(1).rstrip(".")
                if kind == "module" and name.rpartition(".")[2] in FILE_SUFFIXES:
                    continue
                found.append((kind, name, line + text.count("\n", 0, match.start())))
    return found


def test_every_module_and_file_path_named_in_the_sources_and_docs_is_true():
    named = {path.relative_to(ROOT).as_posix(): paths_named_in(path) for path in _sources()}
    assert sum(map(len, named.values())) > 300  # (the paths were found)
    untrue = [
        f"{where}:{line}: {name}"
        for where, found in named.items()
        for kind, name, line in found
        if not (module_path_is_true if kind == "module" else file_path_is_true)(name)
    ]
    assert not untrue, "paths that are not there:\n" + "\n".join(untrue)


@pytest.mark.parametrize(
    "name",
    [
        "core.reading.softcap",
        "attn_tui.core.reading.softcap.read",
        "core.reading.loss.LossSetting",
        "tui.app",
        "grading.grade",
        "capture.gpt2",
    ],
)
def test_a_true_module_path_is_found(name):
    assert module_path_is_true(name)


@pytest.mark.parametrize(
    "name, true",
    [
        ("capture.gpt2", True),
        ("capture.gpt2.divisor", True),
        ("attn_tui.capture.run_to_layer.Site.weights_at", True),
        ("capture.gpt2.no_such_name", False),
        ("capture.run_to_layer.Site.no_such_field", False),
        ("capture.no_such_module", False),
    ],
)
def test_a_module_path_is_judged_alike_where_pytorch_is_missing(name, true, monkeypatch):
    """A newcomer's machine has no PyTorch (not in the test extra): capture's modules, which
    import it, are still found, and their names read from their source."""
    monkeypatch.setitem(sys.modules, "torch", None)  # import torch: ModuleNotFoundError
    for module in ("attn_tui.capture.gpt2", "attn_tui.capture.run_to_layer"):
        monkeypatch.delitem(sys.modules, module, raising=False)
    assert module_path_is_true(name) is true


@pytest.mark.parametrize(
    "name",
    [
        "core.readers.softcap",
        "core.predictions",
        "core.model_index",
        "core.reading.softcap.no_such_name",
        "tui.no_such_module",
    ],
)
def test_a_made_up_module_path_is_not(name):
    assert not module_path_is_true(name)


def test_a_made_up_path_in_a_docstring_or_a_doc_is_found_and_untrue(tmp_path):
    (tmp_path / "made_up.py").write_text(
        '"""Read by ``core.readers.softcap``."""\nx = 1  # see core/no/such.py\n'
    )
    (tmp_path / "made_up.md").write_text(
        "The loader is `core.model_index`, in `core/model_index.py`.\n"
    )
    found = paths_named_in(tmp_path / "made_up.py") + paths_named_in(tmp_path / "made_up.md")
    assert [(kind, name) for kind, name, _ in found] == [
        ("module", "core.readers.softcap"),
        ("file", "core/no/such.py"),
        ("module", "core.model_index"),
        ("file", "core/model_index.py"),
    ]
    assert not any(
        (module_path_is_true if kind == "module" else file_path_is_true)(name)
        for kind, name, _ in found
    )
