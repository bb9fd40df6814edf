"""attn-tui: a terminal step-debugger for scaled dot-product attention.

Everything is installed under this one name: ``attn_tui.core`` (NumPy only: every stage and its
explanation), ``attn_tui.tui`` (the command line and the Textual app) and
``attn_tui.scenarios`` (the built-ins). In the repository those are the folders ``core/``,
``tui/`` and ``scenarios/`` beside this one; pyproject.toml maps them here when installing,
and in a checkout this package looks for them beside itself, so that running from the
checkout (tests, ``python -m attn_tui``) always uses the files there.
"""

from pathlib import Path

__version__ = "0.2.0"

_here = Path(__file__).resolve().parent
if not (_here / "core").is_dir() and (_here.parent / "core" / "__init__.py").is_file():
    __path__.append(str(_here.parent))  # a checkout: attn_tui.core is ../core
