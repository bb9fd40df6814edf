"""What a model generated, kept with the scenario of one of its layers (``generated:``): the
tokens from ``prompt`` on were chosen one at a time by the model, greedily, and ``p`` holds the
probability the model gave each one when it chose it."""

from __future__ import annotations

from dataclasses import dataclass

from attn_tui.core.files.yaml_text import yaml_number


@dataclass(frozen=True)
class Generation:
    """``prompt`` tokens came first; token ``prompt + s`` (counted from 0) is step s's choice,
    made by the query row ``prompt + s − 1`` (the token before it, reading the KV cache of
    every token up to itself), with probability ``p[s]``."""

    prompt: int
    p: tuple[float, ...]

    @property
    def steps(self) -> int:
        return len(self.p)

    def deciding_row(self, step: int) -> int:
        """The query row whose output chose step ``step``'s token (counted from 0)."""
        return self.prompt + step - 1

    def chosen_row(self, step: int) -> int:
        """The row (counted from 0) of the token step ``step`` chose."""
        return self.prompt + step

    def yaml(self) -> str:
        """The key as a scenario writes it (``core.editing.render``)."""
        return (
            f"generated: {{prompt: {self.prompt}, p: ["
            + ", ".join(yaml_number(float(p)) for p in self.p)
            + "]}\n"
        )
