"""What a stage's own keys read into: the settings kept in ``Scenario.stage_settings``.

Each stage that has keys of its own (bias, softcap, tiles, decode, loss) has a reader in
``core.reading`` that returns one of these. The rest of the program asks a setting only what
this protocol says, so a new stage's setting is checked by a type checker, not found by
``getattr`` at run time. What a stage does to the range of the scores is not its setting's to
say: the stage declares it (``Stage.score_range``, core/engine/stages/contract.py), and the
overflow and leak checks ask that rule.
"""

from __future__ import annotations

from typing import Any, Callable, Protocol, runtime_checkable

# A matrix written as YAML: (key, values, the file it came from) → "key:\n- [...]\n"
MatrixWriter = Callable[[str, Any, Any], str]


@runtime_checkable
class StageSetting(Protocol):
    def describe(self) -> str:
        """A few words for the header and ``--print`` ("softcap 30", "decoding with a KV cache")."""

    def yaml(self, matrix: MatrixWriter) -> str:
        """The setting as its scenario key(s), one line (or a matrix) each."""

    def of_head(self, h: int, heads: int) -> StageSetting | None:
        """Its part for head ``h`` taken as a scenario of its own (None: a head alone has none)."""
