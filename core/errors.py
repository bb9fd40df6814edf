"""The errors a user sees: from loading or checking a scenario, and from saving one."""

from __future__ import annotations

from attn_tui.core.text import visible


class ScenarioError(Exception):
    """A problem with a scenario, located in its file when a position is known.

    ``line`` and ``col`` are 1-based, as editors count. ``str(error)`` is the
    ``FILE:LINE:COL: message`` line the CLI prints.
    """

    def __init__(
        self,
        message: str,
        line: int | None = None,
        col: int | None = None,
        path: str | None = None,
        also: tuple[ScenarioError, ...] = (),
    ) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.col = col
        self.path = path
        self.also = also  # more problems of the same kind, found in the same pass (each its line)

    def located(self, path: str) -> ScenarioError:
        """The same error, naming ``path`` if it names no file yet."""
        if self.path is None:
            self.path = path
        for more in self.also:
            more.located(self.path)
        return self

    def __str__(self) -> str:
        """One line per problem, whatever the file's name or the message quotes from the file:
        every control character made visible (a name holding ESC or a line feed stays inert)."""
        where = self.path or "<scenario>"
        if self.line is not None:
            where += f":{self.line}:{self.col or 1}"
        return "\n".join([visible(f"{where}: {self.message}"), *(str(more) for more in self.also)])


class NumericError(ValueError):
    """A stage of attention left float64's range (an overflowing dot product, say); ``inputs``
    names the inputs it comes from, first the one to point at (``("V",)``, ``("Q", "K")``)."""

    def __init__(self, message: str, inputs: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.inputs = inputs


class NotApplicable(ValueError):
    """A change this scenario cannot take (a causal mask between two different sequences)."""


class SaveError(Exception):
    """Saving failed; the message says why and what the user can do instead (one line, with
    the file names it quotes made visible)."""

    def __str__(self) -> str:
        return visible(super().__str__())


class NeedsRewrite(SaveError):
    """The edits cannot be written into the file's own text; a rewritten file (``rewrite=True``)
    would keep every number but not the comments and layout. Nothing was written."""
