"""One scenario being explored: the current numbers, their attention, undo and redo, saving
(the recovery copy of what is unsaved: ``core.editing.journal``).

The TUI keeps one Session and asks it for everything; a Session never touches a terminal, so
every behaviour of the app that is not drawing is tested here directly. Its attention is
computed on demand (``core.engine.attention``): an edit updates the heads' inputs it touches and
forgets the blocks it made stale, so its cost does not grow with T².
"""

from __future__ import annotations

import dataclasses
import os
from typing import TYPE_CHECKING

import numpy as np

from attn_tui.core.editing import option_marks
from attn_tui.core.editing.journal import Journal
from attn_tui.core.editing.save_root import SaveRoot
from attn_tui.core.engine.attention import Attention
from attn_tui.core.engine.overflow import check_range, divides_less, require_finite_cell
from attn_tui.core.engine.stages import stage_named
from attn_tui.core.errors import NeedsRewrite, NotApplicable, NumericError, SaveError, ScenarioError  # noqa: F401 (the app reads them from here)
from attn_tui.core.lessons.lesson import stays_for_the_lesson
from attn_tui.core.loading.scenario_file import entries, loads, read_text
from attn_tui.core.model.edits import (
    Edit,
    History,
    SetCell,
    SetExpect,
    SetInputs,
    SetOption,
    SetStageSetting,
    nudged,
    scale_cycle,
)
from attn_tui.core.model.heads import HeadInputs
from attn_tui.core.model.options import Expected
from attn_tui.core.model.scenario import Scenario, bits_equal, working_copy
from attn_tui.core.teaching.predictions import CLOSE, Predictions

if TYPE_CHECKING:
    from attn_tui.core.teaching.compare import Comparison


class DiskChanged(SaveError):
    """The file on disk is no longer the one that was loaded (or last saved)."""


class Session:
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
        self.description_options = _written_for(scenario)  # a save leaves the words as they were

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

    @property
    def modified(self) -> bool:
        return self._modified

    @property
    def read_only(self) -> bool:
        """A built-in opened by name (or a scenario without a file) is never overwritten."""
        return self._read_only or self.scenario.path is None

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
            _, doing, why = needing.needs_causal
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
        """Apply an edit and forget what it made stale; ``NumericError`` changes nothing."""
        before = self.scenario
        if isinstance(edit, SetCell):
            scenario = self._written(edit, edit.value)
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
        elif isinstance(edit, SetInputs):
            scenario = edit.apply(before)
            for name, values in edit.values.items():
                self._working.pop(name, None)
                old = before.inputs[name]
                for index in zip(*np.nonzero(values.view(np.int64) != old.view(np.int64))):
                    index = tuple(int(i) for i in index)
                    head = index[0] if len(index) == 3 else None
                    self._note_unsaved(
                        SetCell(
                            name,
                            index[-2],
                            index[-1],
                            float(values[index]),
                            float(old[index]),
                            head,
                        )
                    )
            self.inputs = HeadInputs(scenario)
            self.attentions = self._attentions(scenario)
        else:
            if isinstance(edit, SetStageSetting) and edit.value is None:
                stays_for_the_lesson(
                    before, stage_named(edit.name)
                )  # NotApplicable: a beat shows it
            scenario = edit.apply(before)
            if (
                isinstance(edit, SetOption)
                and edit.name == "scale"
                and divides_less(scenario, before)
            ):
                check_range(scenario, self.inputs)  # NumericError: nothing changed
            if isinstance(edit, (SetOption, SetStageSetting)):  # other options, or other steps
                self.attentions = self._attentions(scenario)
            if isinstance(edit, SetStageSetting) and self.predictions is not None:
                self.predictions.follow(scenario)
        self.scenario, self.last_edit = scenario, edit
        if self.predictions is not None:  # each row shows its guesses of the state it is in now
            self.predictions.sync(self.attention)
        self._comparison = None
        self._modified = bool(self._unsaved) or not _same_settings(scenario, self.saved)
        self.version += 1
        if record:
            self.history.push(edit)
        self.journal.changed()
        return edit

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

    def _note_unsaved(self, edit: SetCell) -> None:
        key = (edit.matrix, edit.head, edit.row, edit.col)
        saved = self._unsaved.get(key, edit.old)
        if np.float64(saved).view(np.int64) == np.float64(edit.value).view(np.int64):
            self._unsaved.pop(key, None)
        else:
            self._unsaved[key] = saved

    def net_edits(self) -> list[Edit]:
        """The edits that take the file as last saved to the current numbers: one per changed
        cell and option (however many undos and redos led here), each setting its value outright."""
        current, saved = self.scenario, self.saved
        edits: list[Edit] = [
            SetCell(matrix, row, col, self.cell(matrix, row, col, head), old, head)
            for (matrix, head, row, col), old in sorted(self._unsaved.items(), key=str)
        ]
        for name in ("causal", "scale"):
            value, old = getattr(current.options, name), getattr(saved.options, name)
            if value != old or type(value) is not type(old):
                edits.append(SetOption(name, value, old))
        if not _same_expect(current, saved):
            edits.append(
                SetExpect(
                    dict(current.expect),
                    dict(saved.expect),
                    current.expect_tolerance,
                    saved.expect_tolerance,
                )
            )
        return edits

    @property
    def numbers_edited(self) -> bool:
        """Whether an input number differs from the file (options aside)."""
        return bool(self._unsaved)

    def undo(self) -> Edit | None:
        edit = self.history.undo()
        return self.apply(edit, record=False) if edit else None

    def redo(self) -> Edit | None:
        edit = self.history.redo()
        return self.apply(edit, record=False) if edit else None

    # ---- saving -----------------------------------------------------------------------------

    def save(
        self,
        path: str | None = None,
        force: bool = False,
        rewrite: bool = False,
        leave_out: list[Edit] = (),
    ) -> str:
        """Write the scenario to its file (or to ``path``); returns the path written. The net
        edits in ``leave_out`` (a lesson's own at its beat) are not written, and stay unsaved.

        Raises ``DiskChanged`` if the file changed on disk since it was loaded, unless
        ``force``; ``SaveError`` (with the reason) if it cannot be written. Where the file's
        own text cannot take the edits, saving to another file writes it whole; saving to the
        same file raises ``NeedsRewrite`` unless ``rewrite`` (the user agreed to lose the
        comments and layout). With a save root, a relative ``path`` is taken from its folder,
        and ``OutsideSaveRoot`` (a ``SaveError``) refuses any file its rule does not allow,
        before anything is written.
        """
        target = path or self.scenario.path
        if target is None or (path is None and self.read_only):
            raise SaveError("a built-in scenario is not overwritten; use Save As to keep your copy")
        if self.save_root is not None:
            target = self.save_root.resolve(target)
        same_file = path is None or _same_file(target, self.scenario.path)
        if same_file and not force:
            self.check_disk()
        elif not same_file and os.path.exists(target) and not force:
            raise DiskChanged(f"{target} already exists")
        kept = {
            name: shown
            for name, shown in self.views.items()
            if self.scenario.stage_settings.get(name) == shown
        }
        from attn_tui.core.editing.save import save  # (not on the way to the first frame)

        written = self.scenario
        for edit in leave_out:  # the file's own value there
            written = edit.inverse().apply(written)
        text = save(
            _with_settings(written, {name: self.scenario.file_settings[name] for name in kept}),
            target,
            rewrite=rewrite or not same_file,
            save_root=self.save_root,
        )
        self.journal.discard()
        saved = loads(text, target)
        if kept:  # still shown as the command line asked, not saved
            saved = dataclasses.replace(
                _with_settings(saved, kept),
                file_settings={name: saved.stage_settings.get(name) for name in kept},
            )
        self.views = kept
        self.scenario = self.saved = saved
        self._modified = False
        self._unsaved.clear()
        self._working.clear()  # the saved file's own arrays now; the next edit copies afresh
        self.version += 1
        self.inputs.scenario = saved  # the same numbers, now with the saved file's text
        for attention in self.attentions.values():
            attention.scenario = saved
        self._read_only = False
        self.original = saved if not same_file else self.original
        self.disk_text = text
        for edit in leave_out:  # still shown, still not the file's
            self.apply(edit, record=False)
        return target

    def lesson_written(self, text: str) -> None:
        """The file now holds ``text``: its own numbers, with more beats in its lesson (written
        by the lesson recorder, ``core.editing.lesson_writer``). Unsaved edits stay unsaved, on top of it."""
        saved = loads(text, self.saved.path)
        self.saved = saved
        self.scenario = dataclasses.replace(self.scenario, source=saved.source, lesson=saved.lesson)
        self.disk_text = text
        self.version += 1
        self.journal.write()

    @property
    def description_note(self) -> str:
        """What to add under the file's description when it may no longer hold: the numbers
        differ from the file's, or the options from those it was written for (saving does
        not change that: the text stays as written, the options' comments marked)."""
        options = option_marks.differences(
            self.description_options, self.scenario.options, self.scenario.d_k
        )
        numbers = "the numbers have been changed since" if self.numbers_edited else ""
        if options:
            return f"\n(written for {options}{'; ' + numbers if numbers else ''})"
        return f"\n(as written in the file; {numbers})" if numbers else ""

    def check_disk(self) -> None:
        """``DiskChanged`` if the file is not what was loaded (or last saved) any more."""
        path = self.scenario.path
        try:
            now = read_text(path)
        except Exception:
            raise DiskChanged(
                f"{path} was deleted or cannot be read since it was loaded or last saved"
            ) from None
        if now != self.disk_text:
            raise DiskChanged(f"{path} was changed on disk since it was loaded or last saved")


def _written_for(scenario: Scenario):
    """The options the scenario's description was written for (see ``core.editing.option_marks``)."""
    if scenario.source is None:
        return scenario.options
    try:
        top = entries(scenario.source.root, "the scenario")
    except ScenarioError:
        return scenario.options
    nodes = {name: top[name].value for name in option_marks.OPTIONS if name in top}
    return option_marks.written_for(scenario.options, scenario.source.text, nodes)


def _same_settings(a: Scenario, b: Scenario) -> bool:
    """Whether two scenarios have the same options, variants and student's values."""
    return (
        (a.options, a.variants) == (b.options, b.variants)
        and dict(a.stage_settings) == dict(b.stage_settings)
        and all(
            type(getattr(a.options, name)) is type(getattr(b.options, name))
            for name in ("causal", "scale")
        )
        and _same_expect(a, b)
    )


def _same_expect(a: Scenario, b: Scenario) -> bool:
    if a.expect is b.expect and a.expect_tolerance == b.expect_tolerance:
        return True
    return (
        a.expect_tolerance == b.expect_tolerance
        and a.expect.keys() == b.expect.keys()
        and all(
            bits_equal(a.expect[s].values, b.expect[s].values)
            and np.array_equal(a.expect[s].given, b.expect[s].given)
            for s in a.expect
        )
    )


def _same_file(a: str, b: str | None) -> bool:
    if b is None:
        return False
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.abspath(a) == os.path.abspath(b)


__all__ = ["DiskChanged", "NeedsRewrite", "NumericError", "SaveError", "Session"]


def _with_settings(scenario: Scenario, settings: dict[str, object | None]) -> Scenario:
    """The scenario with these stage settings (None: without that setting)."""
    merged = {**scenario.stage_settings, **settings}
    return dataclasses.replace(
        scenario,
        stage_settings={name: value for name, value in merged.items() if value is not None},
    )
