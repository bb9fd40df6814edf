"""The changes of one debugger screen to its numbers: a cell typed or nudged, an option or a
stage switched, undo and redo, the guesses kept as ``expect:``. Each goes through the core
Session; what shows the numbers is then told (``DebuggerScreen.after_change``), and a change
refused is said with its reason and moves nothing. After a change, off the key's path: the
recovery copy, and a leaky mask's warning."""

from __future__ import annotations

import math
import time
from typing import TYPE_CHECKING

from attn_tui.core.engine.stages import stage_named
from attn_tui.core.engine.stages.mask import leak_warnings
from attn_tui.core.errors import NotApplicable, NumericError
from attn_tui.tui.key_availability import why_off
from attn_tui.tui.text import tell
from attn_tui.tui.widgets.input_matrix import InputMatrix

if TYPE_CHECKING:
    from attn_tui.tui.screens.debugger import DebuggerScreen


class Changes:
    """The edits and options of one debugger screen, through its session."""

    def __init__(self, screen: DebuggerScreen) -> None:
        self.screen = screen
        self._told_recovery_error: str | None = None
        self._leaks_told: list[str] | None = None

    @property
    def session(self):
        return self.screen.session

    def make(self, change):
        """Apply ``change`` (a Session method): the edit it made, or None if it made none or
        was refused (then the user is told why)."""
        try:
            edit = change()
        except NumericError as error:
            tell(self.screen, str(error), severity="error", timeout=6)
            return None
        except NotApplicable as refusal:
            tell(self.screen, str(refusal), severity="warning", timeout=8)
            return None
        if edit is not None:
            self.screen.after_change(edited(edit))
            if getattr(edit, "name", None) is not None:  # an option changed: a mask may leak now
                self.warn_of_leaks()
        return edit

    def cell(self, matrix: InputMatrix, row: int, col: int, value: float, text: str) -> None:
        """A number typed into an input matrix; one that cannot stand stays in its editor,
        refused."""
        try:
            edit = self.session.set_cell(matrix.matrix_name, row, col, value, matrix.head)
        except NumericError as error:
            matrix.set_cursor((row, col))
            matrix.refuse(
                text, str(error), title="Number refused"
            )  # (a number: what it would do is the matter)
            return
        if edit is not None:
            self.screen.after_change(edited(edit))

    def nudge(self, matrix: InputMatrix, row: int, col: int, direction: int) -> None:
        self.make(lambda: self.session.nudge(matrix.matrix_name, row, col, direction, matrix.head))

    def flush_editor(self) -> bool:
        """Commit a cell still being typed in (before saving or quitting); False if its text is
        not a number, in which case it stays open with the reason and nothing else happens."""
        for matrix in self.screen.query(InputMatrix):
            if matrix.editing:
                taken = matrix.take_edit()
                if taken is None:
                    matrix.focus()
                    return False
                self.cell(matrix, *matrix.cursor, *taken)
        return True

    def undo(self) -> None:
        if self.make(self.session.undo) is None:
            self.screen.app.bell()
            tell(self.screen, "Nothing to undo", timeout=2)

    def unable(self, event) -> None:
        """A key whose binding is off here (the footer hides it): u or U with nothing to undo or
        redo say so, as editors do; t, v, h, a, n, N, f and m say why they mean nothing in this
        scenario (the sentences are tui/key_availability.py's ``OFF_BECAUSE``)."""
        if self.screen.stage_view.editing:
            return
        history = self.session.history
        for keys, able, action in (
            ("u,ctrl+z", history.can_undo, self.undo),
            ("U,ctrl+y", history.can_redo, self.redo),
        ):
            if event.key in keys.split(",") and not able:
                event.stop()
                action()
                return
        why = why_off(self.screen, event.key)
        if why is not None:
            event.stop()
            now, told = time.monotonic(), self.__dict__.setdefault("_told", {})
            if (
                now - told.get(why, -math.inf) > 4
            ):  # (a burst of keys: each sentence once while shown)
                told[why] = now
                tell(self.screen, why, timeout=4)

    def keep_predictions(self) -> None:
        """The guesses made so far into the scenario's expect: (saved with ctrl+s)."""
        if self.make(self.session.keep_predictions) is None:
            tell(self.screen, "No predictions to keep yet", timeout=3)
            return
        tolerance = self.session.scenario.expect_tolerance
        tell(
            self.screen,
            f"Predictions kept in expect: (checked within {tolerance:g}; values already "
            "there stay where you made no guess) — ctrl+s writes them",
            timeout=6,
        )

    def redo(self) -> None:
        if self.make(self.session.redo) is None:
            self.screen.app.bell()
            tell(self.screen, "Nothing to redo", timeout=2)

    def toggle(self, name: str) -> None:
        """A stage's key (see Stage.toggle): the stage on, or off."""
        stage = stage_named(name)
        self._switched(name, lambda: stage.flip(self.session.scenario))

    def switch_stage(self, name: str, setting) -> None:
        """A stage on with ``setting``, or off (None): the command palette's entries."""
        stage = stage_named(name)
        self._switched(name, lambda: stage.turned_on.toggle.switch(self.session.scenario, setting))

    def _switched(self, name: str, switch) -> None:
        edit = self.make(lambda: self.session.apply(switch()))
        if edit is not None and edit.value is not None:  # on: step to it
            screen = self.screen
            screen.move(step=screen.step_of(name))

    # ---- after a change, off the key's path -------------------------------------------------

    def keep_recovery(self) -> None:
        self.session.journal.flush()
        error = self.session.journal.error
        if error and error != self._told_recovery_error:
            self._told_recovery_error = error  # once per problem, not at every edit
            tell(
                self.screen,
                f"Unsaved edits are not protected: {error}",
                severity="warning",
                timeout=8,
            )

    def warn_of_leaks(self) -> None:
        """Say once if a finite mask value lets hidden keys take weight (the lesson of a leaky
        mask: correct arithmetic, a mask that did not hide): found off the key path."""
        attentions = self.session.attentions
        if any(math.isfinite(attention.options.mask_value) for attention in attentions.values()):
            # a press of c starts another scan: this one stops (a scan is O(T²))
            now, version = dict(attentions), self.session.version
            self.screen.run_worker(
                lambda: self._find_leaks(now, version), thread=True, exclusive=True, group="leaks"
            )

    def _find_leaks(self, attentions, version: int) -> None:
        from textual.worker import get_current_worker

        worker = get_current_worker()
        warnings = leak_warnings(
            attentions, cancelled=self.screen.app.after_keys(lambda: worker.is_cancelled)
        )
        if warnings and not worker.is_cancelled:
            self.screen.app.call_from_thread(self._tell_leaks, warnings, version)

    def _tell_leaks(self, warnings: list[str], version: int) -> None:
        if version == self.session.version and warnings != self._leaks_told:
            self._leaks_told = warnings
            tell(
                self.screen,
                "\n".join(warning.removeprefix("warning: ") for warning in warnings),
                severity="warning",
                timeout=12,
            )


def edited(edit) -> tuple[str, ...] | None:
    """The input matrices an edit changed (None: options or expect:, nothing to redraw there)."""
    matrix = getattr(edit, "matrix", None)
    return (matrix,) if matrix is not None else ()
