"""attn-tui: a terminal step-debugger for scaled dot-product attention.

Everything is installed under this one name: ``attn_tui.core`` (NumPy only: every stage and its
explanation), ``attn_tui.tui`` (the command line and the Textual app) and
``attn_tui.scenarios`` (the built-ins). In the repository those are the folders ``core/``,
``tui/`` and ``scenarios/`` beside this one; pyproject.toml maps them here when installing,
and in a checkout this package looks for them beside itself, so that running from the
checkout (tests, ``python -m attn_tui``) always uses the files there.

In a notebook: ``from attn_tui import check, show`` (grading/notebook_api.py), imported when
first asked for, so that ``import attn_tui`` for the command line costs no more than it did.
"""

from pathlib import Path

__version__ = "0.2.0"

_here = Path(__file__).resolve().parent
if not (_here / "core").is_dir() and (_here.parent / "core" / "__init__.py").is_file():
    __path__.append(str(_here.parent))  # a checkout: attn_tui.core is ../core


NOTEBOOK = ("check", "show")  # attn_tui.check(attention), attn_tui.show("cat_sat")


def __getattr__(name: str):
    if name in NOTEBOOK:
        from attn_tui.grading import notebook_api

        return getattr(notebook_api, name)
    raise AttributeError(f"module 'attn_tui' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *NOTEBOOK])
