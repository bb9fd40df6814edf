"""One scenario being explored: the current numbers, their attention, undo and redo, saving
(what differs from the file and the saving itself: ``core.editing.session_file``; the recovery
copy of what is unsaved: ``core.editing.journal``).

The TUI keeps one Session and asks it for everything; a Session never touches a terminal, so
every behaviour of the app that is not drawing is tested here directly. Its attention is
computed on demand (``core.engine.attention``): an edit updates the heads' inputs it touches and
forgets the blocks it made stale, so its cost does not grow with T².
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

import numpy as np

from attn_tui.core.editing.journal import Journal
from attn_tui.core.editing.save_root import SaveRoot
from attn_tui.core.editing.session_file import (
    DiskChanged,  # (raised by saving: the app reads it from here, with the errors below)
    SessionFile,
    options_written_for,
    same_settings,
)
from attn_tui.core.engine.attention import Attention
from attn_tui.core.engine.overflow import check_range, divides_less, require_finite_cell
from attn_tui.core.engine.stages import stage_named
from attn_tui.core.errors import NeedsRewrite, NotApplicable, NumericError, SaveError, ScenarioError  # noqa: F401 (the app reads them from here)
from attn_tui.core.lessons.lesson import stays_for_the_lesson
from attn_tui.core.model.edits import (
    Edit,
    History,
    SetCell,
    SetExpect,
    SetInputs,
    SetOption,
    nudged,
    scale_cycle,
)
from attn_tui.core.model.heads import HeadInputs
from attn_tui.core.model.options import Expected
from attn_tui.core.model.scenario import Scenario, working_copy
from attn_tui.core.teaching.predictions import CLOSE, Predictions

if TYPE_CHECKING:
    from attn_tui.core.teaching.compare import Comparison


class Session(SessionFile):
    """The scenario as edited so far, with its attention (and each variant's)."""

    def __init__(
        self,
        scenario: Scenario,
        read_only: bool = False,
        keep_recovery: bool = True,
        save_root: SaveRoot | None = None,
    ) -> None:
        """With ``save_root`` (a served app), saving writes only where its rule allows, and
        recovery copies are kept only in its own slot (``save_root.recovery``): in the user's
        state folder, every browser opening the same scenario would be offered the others' edits."""
        self._read_only = read_only  # a built-in opened by name: saving goes elsewhere
        self.save_root = save_root
        self.original = scenario  # as loaded: the base for the scale cycle
        self.saved = scenario  # as last loaded or saved: "modified" compares to it
        self.scenario = scenario
        # the stage settings the command line gave, as it gave them (see Scenario.file_settings)
        self.views = {name: scenario.stage_settings.get(name) for name in scenario.file_settings}
        self.inputs = HeadInputs(scenario)
        self.attentions: dict[str, Attention] = self._attentions(scenario)
        self.history = History()
        self.version = 0  # counts every change, for views that cache
        self.last_edit: Edit | None = None
        self.disk_text = scenario.source.text if scenario.source else None
        self.predictions = Predictions(scenario) if scenario.predict else None
        self._comparison: Comparison | None = None
        # the cells that differ from the file as last saved: (matrix, head, row, col) → saved
        # value; kept edit by edit, so knowing what is unsaved never scans a whole matrix
        self._unsaved: dict[tuple[str, int | None, int, int], float] = {}
        self._working: dict[
            str, tuple[np.ndarray, np.ndarray]
        ] = {}  # edited matrices: (copy, its read-only view)
        self._modified = False
        self.journal = Journal(
            self,
            keep_recovery
            and (save_root is None or save_root.recovery is not None)
            and scenario.path is not None
            and scenario.source is not None,
        )
        self.description_options = options_written_for(
            scenario
        )  # a save leaves the words as they were

    def _attentions(self, scenario: Scenario) -> dict[str, Attention]:
        """The scenario's own attention under ``""`` and each variant's, sharing the inputs."""
        found = {"": Attention(scenario, inputs=self.inputs)}
        for variant in scenario.variants:
            found[variant.name] = Attention(
                scenario, variant.options(scenario.options), self.inputs
            )
        return found

    @property
    def attention(self) -> Attention:
        return self.attentions[""]

    @property
    def comparison(self) -> Comparison | None:
        """The student's values (``expect:``) against the current numbers; None without any."""
        if self.scenario.expect and self._comparison is None:
            from attn_tui.core.teaching.compare import (
                compare,  # (only a scenario with expect: needs it)
            )

            self._comparison = compare(self.scenario, self.attention)
        return self._comparison if self.scenario.expect else None

    def keep_predictions(self) -> Edit | None:
        """Put the predictions into the scenario's ``expect:`` (saved with it, undoable).

        A guess fills its cell; a student's value already in ``expect:`` stays where there is
        no guess. Without an ``expect:`` before, the tolerance becomes the 0.05 a guess is
        judged by, so ``--check`` agrees with the app's ✓; an existing tolerance stays.
        """
        guesses = self.predictions.as_expect() if self.predictions is not None else {}
        if not guesses:
            return None
        expect = dict(self.scenario.expect)
        for stage, guess in guesses.items():
            if stage in expect:
                before = expect[stage]
                guess = Expected(
                    np.where(guess.given, guess.values, before.values), guess.given | before.given
                )
            expect[stage] = guess
        old_tolerance = self.scenario.expect_tolerance
        tolerance = old_tolerance if self.scenario.expect else CLOSE
        return self.apply(SetExpect(expect, dict(self.scenario.expect), tolerance, old_tolerance))

    # ---- changing ---------------------------------------------------------------------------

    def cell(self, matrix: str, row: int, col: int, head: int | None = None) -> float:
        """One input cell's value (of ``head``, in a 3-D input)."""
        return float(self.scenario.inputs[matrix][(row, col) if head is None else (head, row, col)])

    def set_cell(
        self, matrix: str, row: int, col: int, value: float, head: int | None = None
    ) -> Edit | None:
        """Set one input cell; None if it already holds exactly that value."""
        old = self.cell(matrix, row, col, head)
        if np.float64(old).view(np.int64) == np.float64(value).view(np.int64):
            return None
        return self.apply(SetCell(matrix, row, col, float(value), old, head))

    def nudge(
        self, matrix: str, row: int, col: int, direction: int, head: int | None = None
    ) -> Edit | None:
        return self.set_cell(
            matrix, row, col, nudged(self.cell(matrix, row, col, head), direction), head
        )

    def toggle_causal(self) -> Edit:
        """Turn the causal mask on or off; ``NotApplicable`` turning it on in cross-attention
        (queries and keys are two sequences: there is no "future" of one in the other), or off
        while decoding (which needs it)."""
        causal = self.scenario.options.causal
        scenario = self.scenario
        if scenario.window is not None:
            raise NotApplicable(
                f"the sliding window already hides the future: each query sees only the "
                f"{scenario.window} most recent positions, itself included, causal or not"
            )
        from attn_tui.core.engine.stages import needing_causal

        needing = needing_causal(scenario) if causal else None
        if needing is not None:  # (it would not load, nor save, again)
            _, doing, why = needing.turned_on.needs_causal
            raise NotApplicable(f"{doing} needs the causal mask: {why} (turn {doing} off first)")
        if not causal and scenario.cross:
            raise NotApplicable(
                "no causal mask in cross-attention: the queries and the keys are different "
                "sequences, so no key is in a query's future (to hide keys, give mask: or "
                "padding: in the file)"
            )
        return self.apply(SetOption("causal", not causal, causal))

    def cycle_scale(self) -> Edit:
        scale = self.scenario.options.scale
        return self.apply(SetOption("scale", scale_cycle(self.scenario, self.original), scale))

    def apply(self, edit: Edit, record: bool = True) -> Edit:
        """Apply an edit and forget what it made stale; ``NumericError`` changes nothing. The
        edit does its own part (``apply_in``), asking this session for what it needs."""
        scenario = edit.apply_in(self)
        self.scenario, self.last_edit = scenario, edit
        if self.predictions is not None:  # each row shows its guesses of the state it is in now
            self.predictions.sync(self.attention)
        self._comparison = None
        self._modified = bool(self._unsaved) or not same_settings(scenario, self.saved)
        self.version += 1
        if record:
            self.history.push(edit)
        self.journal.changed()
        return edit

    # ---- what an edit asks of the session (core.model.edits.Workspace) ---------------------

    def cell_written(self, edit: SetCell) -> Scenario:
        scenario = self._written(edit, edit.value)
        # the unsaved marks, put back if the value is refused: copied while few, and past that
        # restored by noting the inverse, so a key never copies a large dict
        unsaved = dict(self._unsaved) if len(self._unsaved) < 64 else None
        self._note_unsaved(edit)
        changes = self.inputs.update(scenario, edit.matrix, edit.row, edit.col, edit.head)
        try:
            require_finite_cell(
                scenario,
                self.inputs,
                changes,
                edit.matrix,
                edit.row,
                edit.col,
                edit.head,
                [a.options for a in self.attentions.values()],
            )
        except NumericError:
            before = self._written(edit, edit.old)
            self.inputs.update(before, edit.matrix, edit.row, edit.col, edit.head)
            if unsaved is not None:
                self._unsaved = unsaved
            else:
                self._note_unsaved(edit.inverse())
            raise
        for attention in self.attentions.values():
            attention.invalidate(scenario, changes, edit.matrix)
        return scenario

    def inputs_replaced(self, edit: SetInputs, scenario: Scenario) -> None:
        before = self.scenario
        for name, values in edit.values.items():
            self._working.pop(name, None)
            old = before.inputs[name]
            for index in zip(*np.nonzero(values.view(np.int64) != old.view(np.int64))):
                index = tuple(int(i) for i in index)
                head = index[0] if len(index) == 3 else None
                self._note_unsaved(
                    SetCell(
                        name, index[-2], index[-1], float(values[index]), float(old[index]), head
                    )
                )
        self.inputs = HeadInputs(scenario)
        self.attentions = self._attentions(scenario)

    def check_scores_fit(self, scenario: Scenario) -> None:
        if divides_less(scenario, self.scenario):
            check_range(scenario, self.inputs)

    def check_lesson_keeps(self, stage: str) -> None:
        stays_for_the_lesson(self.scenario, stage_named(stage))

    def options_changed(self, scenario: Scenario) -> None:
        self.attentions = self._attentions(scenario)

    def steps_changed(self, scenario: Scenario) -> None:
        self.attentions = self._attentions(scenario)
        if self.predictions is not None:
            self.predictions.follow(scenario)

    def _written(self, edit: SetCell, value: float) -> Scenario:
        """The scenario with one cell set. The edited matrix is the session's own copy (made at
        its first edit), written in place: copying a 16,384 × 64 matrix on every key would cost
        the key more than everything else it does. The scenario sees it through a read-only view,
        so nothing outside the session can change it."""
        name = edit.matrix
        if name not in self._working:
            self._working[name] = working_copy(self.scenario.inputs[name])
        working, view = self._working[name]
        working[(edit.row, edit.col) if edit.head is None else (edit.head, edit.row, edit.col)] = (
            value
        )
        if self.scenario.inputs[name] is view:
            return dataclasses.replace(self.scenario)
        return dataclasses.replace(self.scenario, inputs={**self.scenario.inputs, name: view})

    def undo(self) -> Edit | None:
        edit = self.history.undo()
        return self.apply(edit, record=False) if edit else None

    def redo(self) -> Edit | None:
        edit = self.history.redo()
        return self.apply(edit, record=False) if edit else None


__all__ = ["DiskChanged", "NeedsRewrite", "NumericError", "SaveError", "Session"]
