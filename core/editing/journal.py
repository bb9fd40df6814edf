"""The recovery copy of one session's unsaved edits: written after every change (or, for the
app, after the frame that shows it), removed once nothing is unsaved, and offered back when the
file is opened again. The copy's format and its folder are ``core.editing.recovery``'s."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from attn_tui.core.editing import recovery
from attn_tui.core.errors import NumericError

if TYPE_CHECKING:
    from attn_tui.core.editing.lesson_player import LessonPlayer
    from attn_tui.core.editing.session import Session


class Journal:
    """One session's recovery copy."""

    def __init__(self, session: Session, keep: bool) -> None:
        self.session = session
        self.keep = keep  # False: no copy at all (no file, a test, a served app without a slot)
        self.error: str | None = None  # why the last copy could not be written
        self.deferred = False  # the app writes the copy after the frame (``flush``)
        self._due = False
        # a lesson being played: its own edits at its beat are the file's already (its lesson),
        # not unsaved work, so the copy and saving leave them out
        self.lesson: LessonPlayer | None = None

    @property
    def path(self) -> str | None:
        if not self.keep:
            return None
        session = self.session
        return recovery.recovery_path(
            session.saved.path, session.save_root.recovery if session.save_root else None
        )

    def pending(self) -> recovery.Recovery | None:
        """Unsaved edits an earlier session left for this scenario, if any."""
        path = self.path
        return recovery.read(path, self.session.disk_text) if path else None

    def restore(self, found: recovery.Recovery) -> list[str]:
        """Replay the edits of a recovery copy that fit the file as it is now (each can be
        undone as usual); returns, one line each, what was skipped and why. Skipped edits are
        never applied; once reported, the copy holds only what is unsaved now."""
        session = self.session
        skipped = list(found.skipped)
        for edit in found.edits:
            fitted = recovery.fitting(edit, session.scenario)
            if isinstance(fitted, str):
                skipped.append(fitted)
                continue
            try:
                session.apply(fitted)
            except NumericError:
                skipped.append(f"{recovery.describe(edit)}: a stage would overflow float64 with it")
        if not session.modified:
            self.discard()
        return skipped

    def left_out(self, edits: list | None = None) -> list:
        """Of the net edits (or ``edits``), the lesson's own at its beat: not to be kept or
        saved."""
        if self.lesson is None or not self.session.modified:
            return []
        return self.lesson.its_own(self.session.net_edits() if edits is None else edits)

    def only_unkept(self) -> bool:
        """Whether everything unsaved is the lesson's own doing (nothing to keep or ask about)."""
        return self.lesson is not None and self.lesson.only_its_own_edits()

    def discard(self) -> None:
        if self.path:
            recovery.remove(self.path)

    def changed(self) -> None:
        """After a change: the copy now, or (``deferred``) at the next ``flush``."""
        if self.deferred:
            self._due = True
        else:
            self.write()

    def flush(self) -> None:
        """Write the copy now if a change is waiting for it (see ``deferred``)."""
        if self._due:
            self._due = False
            self.write()

    def write(self) -> None:
        """Keep the edits on disk while they are unsaved, else drop the copy."""
        path = self.path
        if path is None:
            return
        session = self.session
        try:
            edits = session.net_edits() if session.modified else []
            left_out = self.left_out(edits)
            edits = [edit for edit in edits if edit not in left_out]
            if edits:  # (a view turned on — tiles, decoding — is not an edit worth keeping)
                recovery.write(path, session.disk_text, edits)
            else:
                recovery.remove(path)
            self.error = None
        except OSError as error:
            self.error = (
                f"cannot keep a recovery copy in {os.path.dirname(path)}: {error.strerror or error}"
            )
