"""The recovery copy of one session's unsaved edits: written after every change (or, for the
app, after the frame that shows it), removed once nothing is unsaved, and offered back when the
file is opened again. The copy's format and its folder are ``core.editing.recovery``'s."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Callable

from attn_tui.core.editing import recovery
from attn_tui.core.errors import NumericError

if TYPE_CHECKING:
    from attn_tui.core.editing.session import Session


class Journal:
    """One session's recovery copy."""

    def __init__(self, session: Session, keep: bool) -> None:
        self.session = session
        self.keep = keep           # False: no copy at all (no file, a test, a served app without a slot)
        self.error: str | None = None  # why the last copy could not be written
        self.deferred = False      # the app writes the copy after the frame (``flush``)
        self._due = False
        # whether the unsaved edits are all someone else's, which the file already holds (a
        # lesson's own edits at its beat): then there is nothing to keep
        self.unkept: Callable[[], bool] | None = None
        # and of the net edits, those that are someone else's (LessonPlayer.its_own): left out
        self.others: Callable[[list], list] | None = None

    @property
    def path(self) -> str | None:
        if not self.keep:
            return None
        session = self.session
        return recovery.recovery_path(session.saved.path, session.save_root.recovery if session.save_root else None)

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

    def left_out(self) -> list:
        """The net edits that are someone else's (a lesson's own at its beat): not to be saved."""
        session = self.session
        return self.others(session.net_edits()) if self.others is not None and session.modified else []

    def only_unkept(self) -> bool:
        return self.unkept is not None and self.unkept()

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
            edits = session.net_edits() if session.modified and not self.only_unkept() else []
            left_out = self.others(edits) if self.others is not None and edits else []
            edits = [edit for edit in edits if edit not in left_out]
            if edits:  # (a view turned on — tiles, decoding — is not an edit worth keeping)
                recovery.write(path, session.disk_text, edits)
            else:
                recovery.remove(path)
            self.error = None
        except OSError as error:
            self.error = f"cannot keep a recovery copy in {os.path.dirname(path)}: {error.strerror or error}"
