"""One scenario being explored: the current numbers, their traces, undo and redo, and saving.

The TUI keeps one Session and asks it for everything; a Session never touches a terminal, so
every behaviour of the app that is not drawing is tested here directly.
"""

from __future__ import annotations

import dataclasses
import os

import numpy as np

from attn_tui.core.attention import Trace, compute_all, update
from attn_tui.core.compare import EXPECT_STAGES, Comparison, compare, trace_stage
from attn_tui.core.edits import Edit, History, SetCell, SetExpect, SetOption, nudged, scale_cycle
from attn_tui.core import recovery
from attn_tui.core.options import Expected
from attn_tui.core.predictions import CLOSE, Predictions
from attn_tui.core.errors import NumericError
from attn_tui.core.scenario_file import loads, read_text
from attn_tui.core.save import NeedsRewrite, SaveError, save
from attn_tui.core.scenario import Scenario

TRACKED = ("scores", "scaled", "masked", "weights", "output")


class DiskChanged(SaveError):
    """The file on disk is no longer the one that was loaded (or last saved)."""


class Session:
    """The scenario as edited so far, with its traces and what the last change changed."""

    def __init__(self, scenario: Scenario, read_only: bool = False, keep_recovery: bool = True) -> None:
        self._read_only = read_only         # a built-in opened by name: saving goes elsewhere
        self.keep_recovery = keep_recovery and scenario.path is not None and scenario.source is not None
        self.recovery_error: str | None = None  # why the last recovery copy could not be written
        self.original = scenario            # as loaded: the base for the scale cycle
        self.saved = scenario               # as last loaded or saved: "modified" compares to it
        self.scenario = scenario
        self.traces: dict[str, Trace] = compute_all(scenario)
        self.history = History()
        self.changed: dict[str, np.ndarray] = {}  # matrix or stage name → cells the last edit changed
        self.last_edit: Edit | None = None
        self.disk_text = scenario.source.text if scenario.source else None
        self.predictions = Predictions(stage_shapes(scenario, scenario.predict)) if scenario.predict else None
        self._comparison: Comparison | None = None

    @property
    def comparison(self) -> Comparison | None:
        """The student's values (``expect:``) against the current numbers; None without any."""
        if self.scenario.expect and self._comparison is None:
            self._comparison = compare(self.scenario, self.trace)
        return self._comparison if self.scenario.expect else None

    def stage_values(self) -> dict[str, np.ndarray]:
        """The stages a student can predict or give, by their ``expect:`` names."""
        return {name: trace_stage(self.trace, name) for name in EXPECT_STAGES}

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
                guess = Expected(np.where(guess.given, guess.values, before.values),
                                 guess.given | before.given)
            expect[stage] = guess
        old_tolerance = self.scenario.expect_tolerance
        tolerance = old_tolerance if self.scenario.expect else CLOSE
        return self.apply(SetExpect(expect, dict(self.scenario.expect), tolerance, old_tolerance))

    @property
    def trace(self) -> Trace:
        return self.traces[""]

    @property
    def modified(self) -> bool:
        return not self.scenario.same_numbers(self.saved)

    @property
    def read_only(self) -> bool:
        """A built-in opened by name (or a scenario without a file) is never overwritten."""
        return self._read_only or self.scenario.path is None

    # ---- changing ---------------------------------------------------------------------------

    def set_cell(self, matrix: str, row: int, col: int, value: float) -> Edit | None:
        """Set one input cell; None if it already holds exactly that value."""
        old = float(self.scenario.inputs[matrix][row, col])
        if np.float64(old).view(np.int64) == np.float64(value).view(np.int64):
            return None
        return self.apply(SetCell(matrix, row, col, float(value), old))

    def nudge(self, matrix: str, row: int, col: int, direction: int) -> Edit | None:
        return self.set_cell(matrix, row, col, nudged(float(self.scenario.inputs[matrix][row, col]), direction))

    def toggle_causal(self) -> Edit:
        causal = self.scenario.options.causal
        return self.apply(SetOption("causal", not causal, causal))

    def cycle_scale(self) -> Edit:
        scale = self.scenario.options.scale
        return self.apply(SetOption("scale", scale_cycle(self.scenario, self.original), scale))

    def apply(self, edit: Edit, record: bool = True) -> Edit:
        """Apply an edit and recompute what it affects; ``NumericError`` changes nothing."""
        before = self.scenario
        scenario = edit.apply(before)
        if isinstance(edit, SetExpect):
            self.scenario, self.last_edit, self._comparison = scenario, edit, None
            self.changed = {}
            if record:
                self.history.push(edit)
            self._update_recovery()
            return edit
        if isinstance(edit, SetCell) and not scenario.same_numbers(self.saved):
            rows = _affected_rows(scenario, edit)
            try:
                stage_changes = [update(trace, scenario, *rows) for trace in self.traces.values()]
            except NumericError:
                self.traces = compute_all(before)  # an update may have begun: start again clean
                raise
            changed = stage_changes[0]
        else:  # an option changed, or back where the file stands: recompute all, to the bit
            traces = compute_all(scenario)  # raises NumericError before anything changes
            changed = _stage_changes(self.trace, traces[""])
            self.traces = traces
        self.changed = {**_input_changes(before, scenario), **changed}
        self.scenario, self.last_edit = scenario, edit
        self._comparison = None
        if record:
            self.history.push(edit)
        self._update_recovery()
        return edit

    def undo(self) -> Edit | None:
        edit = self.history.undo()
        return self.apply(edit, record=False) if edit else None

    def redo(self) -> Edit | None:
        edit = self.history.redo()
        return self.apply(edit, record=False) if edit else None

    # ---- saving -----------------------------------------------------------------------------

    def save(self, path: str | None = None, force: bool = False, rewrite: bool = False) -> str:
        """Write the scenario to its file (or to ``path``); returns the path written.

        Raises ``DiskChanged`` if the file changed on disk since it was loaded, unless
        ``force``; ``SaveError`` (with the reason) if it cannot be written. Where the file's
        own text cannot take the edits, saving to another file writes it whole; saving to the
        same file raises ``NeedsRewrite`` unless ``rewrite`` (the user agreed to lose the
        comments and layout).
        """
        target = path or self.scenario.path
        if target is None or (path is None and self.read_only):
            raise SaveError("a built-in scenario is not overwritten; use Save As to keep your copy")
        same_file = path is None or _same_file(path, self.scenario.path)
        if same_file and not force:
            self.check_disk()
        elif not same_file and os.path.exists(target) and not force:
            raise DiskChanged(f"{target} already exists")
        text = save(self.scenario, target, rewrite=rewrite or not same_file)
        self.discard_recovery()
        saved = loads(text, target)
        self.scenario = self.saved = saved
        self._read_only = False
        self.original = saved if not same_file else self.original
        self.disk_text = text
        return target

    # ---- recovery copies ----------------------------------------------------------------------

    @property
    def recovery_file(self) -> str | None:
        if not self.keep_recovery:
            return None
        return recovery.recovery_path(self.saved.path)

    def pending_recovery(self) -> recovery.Recovery | None:
        """Unsaved edits an earlier session left for this scenario, if any."""
        path = self.recovery_file
        return recovery.read(path, self.disk_text) if path else None

    @property
    def numbers_edited(self) -> bool:
        """Whether an input number differs from the file (options aside)."""
        return any(not np.array_equal(self.scenario.inputs[name].view(np.int64), values.view(np.int64))
                   for name, values in self.saved.inputs.items())

    def restore(self, found: recovery.Recovery) -> list[str]:
        """Replay the edits of a recovery copy that fit the file as it is now (each can be
        undone as usual); returns, one line each, what was skipped and why. Skipped edits are
        never applied; once reported, the copy holds only what is unsaved now."""
        skipped = list(found.skipped)
        for edit in found.edits:
            fitted = recovery.fitting(edit, self.scenario)
            if isinstance(fitted, str):
                skipped.append(fitted)
                continue
            try:
                self.apply(fitted)
            except NumericError:
                skipped.append(f"{recovery.describe(edit)}: a stage would overflow float64 with it")
        if not self.modified:
            self.discard_recovery()
        return skipped

    def discard_recovery(self) -> None:
        if self.recovery_file:
            recovery.remove(self.recovery_file)

    def _update_recovery(self) -> None:
        """After a change: keep the edits on disk while they are unsaved, else drop the copy."""
        path = self.recovery_file
        if path is None:
            return
        try:
            if self.modified:
                recovery.write(path, self.disk_text, net_edits(self.saved, self.scenario))
            else:
                recovery.remove(path)
            self.recovery_error = None
        except OSError as error:
            self.recovery_error = f"cannot keep a recovery copy in {os.path.dirname(path)}: " \
                                  f"{error.strerror or error}"

    def check_disk(self) -> None:
        """``DiskChanged`` if the file is not what was loaded (or last saved) any more."""
        path = self.scenario.path
        try:
            now = read_text(path)
        except Exception:
            raise DiskChanged(f"{path} was deleted or cannot be read since it was loaded or last "
                              "saved") from None
        if now != self.disk_text:
            raise DiskChanged(f"{path} was changed on disk since it was loaded or last saved")


def net_edits(saved: Scenario, current: Scenario) -> list[Edit]:
    """The edits that take the file as last saved to the current numbers: one per changed
    cell and option (however many undos and redos led here), each setting its value outright."""
    edits: list[Edit] = []
    for name, values in current.inputs.items():
        before = saved.inputs[name]
        for row, col in np.argwhere(values.view(np.int64) != before.view(np.int64)):
            edits.append(SetCell(name, int(row), int(col), float(values[row, col]), float(before[row, col])))
    for name in ("causal", "scale"):
        value, old = getattr(current.options, name), getattr(saved.options, name)
        if value != old or type(value) is not type(old):
            edits.append(SetOption(name, value, old))
    if not current.same_numbers(dataclasses.replace(saved, inputs=current.inputs, options=current.options)):
        edits.append(SetExpect(dict(current.expect), dict(saved.expect), current.expect_tolerance,
                               saved.expect_tolerance))
    return edits


def stage_shapes(scenario: Scenario, stages) -> dict[str, tuple[int, int]]:
    """The shape of each named stage (scores, scaled, weights: T×T; output: T×d_v)."""
    T = scenario.T
    return {name: (T, scenario.d_v) if name == "output" else (T, T) for name in stages}


def _affected_rows(scenario: Scenario, edit: SetCell) -> tuple[np.ndarray, np.ndarray, bool]:
    """Which rows of Q and K, and whether V, an edit of one input cell changes."""
    none, row = np.zeros(0, np.intp), np.array([edit.row])
    every = np.arange(scenario.T)
    return {
        "Q": (row, none, False), "K": (none, row, False), "V": (none, none, True),
        "X": (row, row, True), "Wq": (every, none, False), "Wk": (none, every, False),
        "Wv": (none, none, True),
    }[edit.matrix]


def _input_changes(before: Scenario, after: Scenario) -> dict[str, np.ndarray]:
    """Which cells of each input (and of a projected Q, K, V) differ, bit for bit."""
    names = list(after.inputs) + [name for name in ("Q", "K", "V") if name not in after.inputs]
    return {name: before.matrix(name).view(np.int64) != after.matrix(name).view(np.int64)
            for name in names}


def _stage_changes(old: Trace, new: Trace) -> dict[str, np.ndarray]:
    return {name: getattr(old, name).view(np.int64) != getattr(new, name).view(np.int64)
            for name in TRACKED}


def _same_file(a: str, b: str | None) -> bool:
    if b is None:
        return False
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.abspath(a) == os.path.abspath(b)


__all__ = ["DiskChanged", "NeedsRewrite", "NumericError", "SaveError", "Session"]
