"""The built-in scenarios shipped in the ``scenarios`` package, found by name."""

from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module
from pathlib import Path


@dataclass(frozen=True)
class Builtin:
    name: str
    path: Path


def builtins() -> list[Builtin]:
    """Every built-in scenario, in the order a course would meet them (see ``ORDER``)."""
    folder = _folder()
    found = {path.stem: path for path in folder.glob("*.yaml")}
    ordered = [name for name in ORDER if name in found] + sorted(set(found) - set(ORDER))
    return [Builtin(name, found[name]) for name in ordered]


def find(name: str) -> Path | None:
    """The file of the built-in called ``name`` (``cat_sat`` or ``cat_sat.yaml``), if any."""
    stem = name[:-5] if name.endswith(".yaml") else name
    if not stem or "/" in stem or "\\" in stem or stem.startswith("."):
        return None
    path = _folder() / f"{stem}.yaml"
    return path if path.is_file() else None


def is_builtin(path: str | Path) -> bool:
    """Whether ``path`` is one of the shipped files (which are opened, never overwritten)."""
    try:
        return Path(path).resolve().parent == _folder().resolve()
    except OSError:
        return False


def _folder() -> Path:
    """The scenarios package's folder (as importlib.resources.files finds it, without loading
    importlib.resources: ~3 ms of every start)."""
    return Path(import_module("attn_tui.scenarios").__file__).parent


ORDER = (
    "cat_sat",
    "cat_sat_bidirectional",
    "exaggerated_query",
    "unscaled_x10",
    "random_v4",
    "cat_sat_lesson",
    "scaling_lesson",
    "weighted_values",
    "scaled_vs_unscaled_t5",
    "projections",
    "two_heads",
    "cross_attention",
    "padding_mask",
    "sliding_window",
)
