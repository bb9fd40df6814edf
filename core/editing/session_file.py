"""A Session's file: what differs from it, saving to it, the lesson recorder's writes to it, and
whether it still holds what was loaded (``core.editing.session`` is the numbers being explored;
the text a save writes is ``core.editing.save``'s).
"""

from __future__ import annotations

import dataclasses
import os

import numpy as np

from attn_tui.core.editing import option_marks
from attn_tui.core.errors import SaveError, ScenarioError
from attn_tui.core.loading.scenario_file import entries, loads, read_text
from attn_tui.core.model.edits import Edit, SetCell, SetExpect, SetOption
from attn_tui.core.model.scenario import Scenario, bits_equal


class DiskChanged(SaveError):
    """The file on disk is no longer the one that was loaded (or last saved)."""


class SessionFile:
    """The part of a ``Session`` that deals with its file, mixed into it: it reads and updates the
    session's own state (``scenario``, ``saved``, the unsaved cells, the journal, …), which
    ``Session.__init__`` sets up."""

    # ---- what differs from the file ---------------------------------------------------------

    @property
    def modified(self) -> bool:
        return self._modified

    @property
    def read_only(self) -> bool:
        """A built-in opened by name (or a scenario without a file) is never overwritten."""
        return self._read_only or self.scenario.path is None

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
        by the lesson recorder, ``core.editing.lesson_writer``). Unsaved edits stay unsaved, on
        top of it."""
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


def options_written_for(scenario: Scenario):
    """The options the scenario's description was written for (see
    ``core.editing.option_marks``)."""
    if scenario.source is None:
        return scenario.options
    try:
        top = entries(scenario.source.root, "the scenario")
    except ScenarioError:
        return scenario.options
    nodes = {name: top[name].value for name in option_marks.OPTIONS if name in top}
    return option_marks.written_for(scenario.options, scenario.source.text, nodes)


def same_settings(a: Scenario, b: Scenario) -> bool:
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


def _with_settings(scenario: Scenario, settings: dict[str, object | None]) -> Scenario:
    """The scenario with these stage settings (None: without that setting)."""
    merged = {**scenario.stage_settings, **settings}
    return dataclasses.replace(
        scenario,
        stage_settings={name: value for name, value in merged.items() if value is not None},
    )
